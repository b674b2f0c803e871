#include "wiredcap/system/journal/upkeep.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <exception>

#include "wiredcap/system/journal/compaction.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::journal {
namespace {

Expected<std::size_t> size_of(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error{"journal " + path + ": " + std::strerror(errno)};
    return static_cast<std::size_t>(st.st_size);
}

}  // namespace

Expected<Upkeep> keep_up(Writer& w, const Stamp& s, bool always,
                         std::chrono::milliseconds lock_wait) {
    Upkeep u;
    auto before = size_of(w.fd_.get(), w.path_);
    if (!before) return before.error();
    u.bytes_before = u.bytes_after = *before;
    if (!always && !compaction_due(*before)) return u;
    const Closer closer{s.boot_id, static_cast<std::int64_t>(std::time(nullptr))};
    auto locked_at = std::chrono::steady_clock::now();
    auto held = [&] {
        using namespace std::chrono;
        return static_cast<std::uint64_t>(
            duration_cast<milliseconds>(steady_clock::now() - locked_at).count());
    };
    Expected<Compacted> c = Error{"cannot compact the journal " + w.path_ + ": out of memory"};
    try {
        // The long part without the lock (compaction.hpp, prepare_compaction); then the lock,
        // for what was added since and the swap.
        auto p = prepare_compaction(w.fd_.get(), w.path_, closer);
        if (!p) return p.error();
        if (!w.locked())
            if (auto locked = w.lock(lock_wait); !locked) return locked.error();
        locked_at = std::chrono::steady_clock::now();
        c = finish_compaction(w.dir_.get(), w.fd_.get(), w.where_.name, w.path_, *p,
                              always ? 1 : kCompactSaving);
    } catch (const std::exception&) {}
    if (!c) return c.error();
    u.records = u.kept = c->records;
    u.retry = c->retry;
    u.locked_ms = held();
    if (!c->journal.valid())
        return u;  // it would save too little, or it must try again: left as it is
    w.fd_ = std::move(c->journal);
    u.compacted = true;
    u.kept = c->kept;
    Record done{"journal",
                journal::event::compacted,
                std::nullopt,
                std::nullopt,
                std::nullopt,
                std::nullopt,
                std::nullopt,
                "kept " + std::to_string(c->kept) + " of " + std::to_string(c->records) +
                    " records; the rest are in " + w.where_.name + ".1"};
    if (auto ok = w.append_line(
            to_json_line(done, s, static_cast<std::int64_t>(std::time(nullptr))), s.uid);
        !ok)
        return ok.error();
    auto after = size_of(w.fd_.get(), w.path_);
    if (!after) return after.error();
    u.bytes_after = *after;
    u.locked_ms = held();
    return u;
}

}  // namespace wiredcap::journal
