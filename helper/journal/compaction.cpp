#include "journal/compaction.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <functional>
#include <limits>

#include "journal/journal.hpp"
#include "journal/owned_by_root.hpp"
#include "journal/record_fields.hpp"
#include "policy/trusted_path.hpp"

namespace wiredcap::journal {
namespace {

bool is_forward(std::string_view event) {
    return event == "intent" || event == "applied" || event == "unchanged" || event == "mismatch" ||
           event == "write_failed";
}
bool is_settling(std::string_view event) { return event == "confirmed" || event == "revert_applied"; }

bool is_plain_reset(std::string_view line) {
    const auto event = string_after(line, "event");
    return string_after(line, "command") == "reset" && (event == "applied" || event == "unchanged");
}

// Run-less records a reader needs: the boot action's (trips and the applies before them), every
// store of a value for boot (the hang ceiling's waiver), and a confirmation.
bool is_needed_without_run(std::string_view line) {
    const auto command = string_after(line, "command");
    return command == "boot" || command == "persist" || string_after(line, "event") == "confirmed";
}

}  // namespace

bool compaction_due(std::size_t before, std::size_t after) {
    if (after >= kCompactAlways) return true;
    return after >= kCompactFrom && before / kCompactEvery != after / kCompactEvery;
}

void Compaction::survey(std::string_view line) {
    const std::size_t index = surveyed_++;
    if (!is_v1_record(line)) return;
    const auto event = string_after(line, "event");
    const auto run = run_of(line);
    if (event == "confirmed") {
        const auto value = number_after(line, "readback_mib");
        // A confirmation whose value cannot be read keeps its run: nothing is assumed about it.
        latest_confirmation_[value.value_or(UINT64_MAX)] = std::string(run);
        latest_confirmed_run_ = std::string(run);
    }
    if (run.empty()) return;
    RunInfo& r = runs_[std::string(run)];
    r.last_index = index;
    if (event == "end") {
        r.ended = true;
        return;
    }
    const auto step = number_after(line, "step");
    if (!step) return;
    auto& settled = r.step_settled.try_emplace(*step, true).first->second;  // no forward record yet
    if (is_forward(event)) settled = false;
    else if (is_settling(event)) settled = true;
}

bool Compaction::closed(const RunInfo& r) const {
    if (!r.ended || r.must_stay) return false;
    for (const auto& [step, settled] : r.step_settled)
        if (!settled) return false;
    return true;
}

void Compaction::decide() {
    for (const auto& [value, run] : latest_confirmation_)
        if (auto it = runs_.find(run); it != runs_.end()) it->second.must_stay = true;
    if (auto it = runs_.find(latest_confirmed_run_); it != runs_.end()) it->second.must_stay = true;
    for (auto& [id, r] : runs_)
        if (recent(r.last_index)) r.must_stay = true;
    decided_ = true;
}

bool Compaction::keeps(std::string_view line) {
    if (!decided_) decide();
    const std::size_t index = judged_++;
    if (!is_v1_record(line)) return false;
    if (recent(index)) return true;
    const auto run = run_of(line);
    if (run.empty()) {
        if (is_needed_without_run(line)) return true;
        return is_plain_reset(line) && boots_of_kept_runs_.count(std::string(string_after(line, "boot"))) != 0;
    }
    const auto it = runs_.find(std::string(run));
    if (it == runs_.end() || closed(it->second)) return false;
    boots_of_kept_runs_.insert(std::string(string_after(line, "boot")));
    return true;
}

namespace {

// Every complete line of `text`, in order (a torn last line is not one).
void for_each_line(std::string_view text, const std::function<void(std::string_view)>& f) {
    for (auto nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n')) {
        f(text.substr(0, nl));
        text.remove_prefix(nl + 1);
    }
}

}  // namespace

std::string compact_text(std::string_view text, std::size_t keep_recent) {
    Compaction c(keep_recent);
    for_each_line(text, [&](std::string_view l) { c.survey(l); });
    std::string out;
    for_each_line(text, [&](std::string_view l) {
        if (c.keeps(l)) out.append(l).push_back('\n');
    });
    return out;
}

namespace {

// A record is a few hundred bytes; a longer line is not one this helper wrote.
constexpr std::size_t kMaxLine = std::size_t{64} << 10;
constexpr std::size_t kBlock = std::size_t{1} << 20;

std::string failed(const std::string& what, const std::string& path) {
    return "cannot compact the journal " + path + ": " + what + ": " + std::strerror(errno);
}

// Calls `f` for each complete line of the file open as `fd` between the offsets `from` and `to`,
// reading it in blocks from the heap (a caller can shrink the stack). Returns where the last
// complete line ended: bytes after it (a torn line, or one still being written) are not passed.
Expected<off_t> for_each_file_line(int fd, off_t from, off_t to, const std::string& path,
                                   const std::function<void(std::string_view)>& f) {
    std::string block(kBlock, '\0'), carry;
    bool too_long = false;
    off_t at = from, complete = from;
    while (at < to) {
        const auto want = static_cast<std::size_t>(std::min<off_t>(static_cast<off_t>(kBlock), to - at));
        const ssize_t n = ::pread(fd, block.data(), want, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{failed("read", path)};
        if (n == 0) break;
        std::string_view chunk(block.data(), static_cast<std::size_t>(n));
        at += n;
        for (auto nl = chunk.find('\n'); nl != std::string_view::npos; nl = chunk.find('\n')) {
            if (!too_long && carry.empty()) f(chunk.substr(0, nl));
            else if (!too_long) f(carry.append(chunk.substr(0, nl)));
            carry.clear();
            too_long = false;
            chunk.remove_prefix(nl + 1);
            complete = at - static_cast<off_t>(chunk.size());
        }
        if (!too_long) carry.append(chunk);
        if (carry.size() > kMaxLine) {
            carry.clear();
            too_long = true;
        }
    }
    return complete;
}

// Appends through a buffer, so that a million kept lines are not a million writes.
class BufferedOut {
public:
    BufferedOut(int fd, std::string what) : fd_(fd), what_(std::move(what)) {}
    Expected<Ok> add(std::string_view line) {
        buf_.append(line).push_back('\n');
        return buf_.size() >= kBlock ? flush() : Expected<Ok>(Ok{});
    }
    Expected<Ok> flush() {
        auto w = write_all(fd_, buf_, what_);
        buf_.clear();
        return w;
    }

private:
    int fd_;
    std::string what_;
    std::string buf_;
};

// The new journal: root's, 0644 like the journal, created afresh (a leftover of a compaction cut
// short by a crash is removed first).
Expected<UniqueFd> create_new_journal(int dir_fd, const std::string& tmp, const std::string& path) {
    if (::unlinkat(dir_fd, tmp.c_str(), 0) != 0 && errno != ENOENT) return Error{failed("remove " + tmp, path)};
    constexpr int kFlags = O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    UniqueFd out(::openat(dir_fd, tmp.c_str(), kFlags, 0644));
    if (!out.valid()) return Error{failed("create " + tmp, path)};
    if (auto own = own_by_root(out.get(), "the compacted journal " + tmp); !own) return own.error();
    if (::fchmod(out.get(), 0644) != 0) return Error{failed("chmod " + tmp, path)};
    return out;
}

// The old journal becomes the archive (`name.1`, replaced atomically), then the new one takes
// its name. `name` is never missing: the archive is a second link first, and a rename replaces.
Expected<Ok> swap_in(int dir_fd, const std::string& name, const std::string& tmp, const std::string& path) {
    const std::string archive = name + ".1", archive_tmp = name + ".1.new";
    if (::unlinkat(dir_fd, archive_tmp.c_str(), 0) != 0 && errno != ENOENT) return Error{failed("remove " + archive_tmp, path)};
    if (::linkat(dir_fd, name.c_str(), dir_fd, archive_tmp.c_str(), 0) != 0) return Error{failed("link " + archive_tmp, path)};
    if (::renameat(dir_fd, archive_tmp.c_str(), dir_fd, archive.c_str()) != 0) return Error{failed("rename to " + archive, path)};
    if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) return Error{failed("rename " + tmp, path)};
    return Ok{};
}

}  // namespace

Expected<Compacted> compact_journal(int dir_fd, int fd, const std::string& name, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error{failed("fstat", path)};
    Compacted result;
    Compaction c;
    auto surveyed = for_each_file_line(fd, 0, st.st_size, path, [&](std::string_view l) {
        c.survey(l);
        ++result.records;
    });
    if (!surveyed) return surveyed.error();
    const std::string tmp = name + ".compact";
    auto out = create_new_journal(dir_fd, tmp, path);
    if (!out) return out.error();
    auto give_up = [&](const Error& e) -> Expected<Compacted> {
        (void)::unlinkat(dir_fd, tmp.c_str(), 0);
        return e;
    };
    BufferedOut kept(out->get(), "the compacted journal " + tmp);
    Expected<Ok> written = Ok{};
    auto copied = for_each_file_line(fd, 0, *surveyed, path, [&](std::string_view l) {
        if (!written || !c.keeps(l)) return;
        written = kept.add(l);
        ++result.kept;
    });
    if (!copied) return give_up(copied.error());
    if (!written) return give_up(written.error());
    if (auto f = kept.flush(); !f) return give_up(f.error());
    if (auto f = flush_to_disk(out->get(), "the compacted journal " + tmp); !f) return give_up(f.error());
    if (auto s = swap_in(dir_fd, name, tmp, path); !s) return give_up(s.error());
    // A reset that could not wait for the lock appends to whichever file it opened: records it
    // added to the old one before the rename are carried over (complete lines only; one still
    // being written is appended again by its writer, which sees the name moved, journal.cpp).
    auto late = for_each_file_line(fd, *surveyed, std::numeric_limits<off_t>::max(), path,
                                   [&](std::string_view l) { written = written ? kept.add(l) : written; });
    if (late && written) written = kept.flush();
    (void)flush_to_disk(out->get(), "the journal " + path);
    (void)flush_to_disk(dir_fd, "the journal's directory");
    result.journal = std::move(*out);
    return result;
}

}  // namespace wiredcap::journal
