#include "journal/upkeep.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <exception>

#include "journal/compaction.hpp"
#include "policy/trusted_path.hpp"

namespace wiredcap::journal {
namespace {

Expected<std::size_t> size_of(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error{"journal " + path + ": " + std::strerror(errno)};
    return static_cast<std::size_t>(st.st_size);
}

}  // namespace

Expected<Upkeep> keep_up(Writer& w, const Stamp& s, bool always) {
    if (!w.locked()) return Error{"the journal's upkeep needs the helper's lock"};
    Upkeep u;
    auto before = size_of(w.file_fd(), w.path());
    if (!before) return before.error();
    u.bytes_before = u.bytes_after = *before;
    if (!always && !compaction_due(*before)) return u;
    auto split = trusted::split_path(w.path());
    if (!split) return split.error();
    Expected<Compacted> c = Error{"cannot compact the journal " + w.path() + ": out of memory"};
    try {
        c = compact_journal(w.directory_fd(), w.file_fd(), split->name, w.path(), always ? 1 : kCompactSaving,
                            Closer{s.boot_id, static_cast<std::int64_t>(std::time(nullptr))});
    } catch (const std::exception&) {
    }
    if (!c) return c.error();
    u.records = u.kept = c->records;
    if (!c->journal.valid()) return u;  // it would save too little: left as it is
    w.replaced_by(std::move(c->journal));
    u.compacted = true;
    u.kept = c->kept;
    Record done{"journal", "compacted", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                "kept " + std::to_string(c->kept) + " of " + std::to_string(c->records) + " records; the rest are in " +
                    split->name + ".1"};
    if (auto ok = w.append(done, s); !ok) return ok.error();
    auto after = size_of(w.file_fd(), w.path());
    if (!after) return after.error();
    u.bytes_after = *after;
    return u;
}

}  // namespace wiredcap::journal
