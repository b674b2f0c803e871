#include "wiredcap/helper/journal/journal.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <ctime>

#include "wiredcap/helper/journal/owned_by_root.hpp"
#include "wiredcap/helper/journal/syslog_mirror.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/durable_write.hpp"

namespace wiredcap::journal {
namespace {

// The caller's file-size limit survives the setuid exec. A record that would cross it is refused
// whole, before a byte is written: cut short, it would leave a torn line in root's journal, and
// one cut just before its newline would read as a complete record (an intent that never was).
Expected<Ok> check_size_limit(off_t size, std::size_t bytes, const std::string& path) {
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return Ok{};
    if (static_cast<rlim_t>(size) + bytes > rl.rlim_cur)
        return Error{"cannot write the journal " + path + ": " + std::strerror(EFBIG) +
                     " (the file-size limit RLIMIT_FSIZE leaves no room for the next record)"};
    return Ok{};
}

// The bytes of the journal's records made for `uid` (every record names its caller's uid right
// after its boot), or nothing when the journal cannot be read back whole.
std::optional<std::size_t> callers_bytes(int fd, off_t size, uid_t uid) {
    const std::string mark = ",\"uid\":" + std::to_string(uid) + ",";
    std::string text(static_cast<std::size_t>(size), '\0');
    if (::pread(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return std::nullopt;
    std::size_t mine = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t newline = text.find('\n', at);
        const std::size_t end = newline == std::string::npos ? text.size() : newline + 1;
        if (std::string_view(text).substr(at, end - at).find(mark) != std::string_view::npos) mine += end - at;
        at = end;
    }
    return mine;
}

// A record of a caller other than root that would take the journal past kMemberBound, or the
// caller's own records past kMemberShare (compaction keeps some records whoever floods them:
// past its share a member keeps out itself, not the other members).
Expected<Ok> check_member_bound(int fd, off_t size, std::size_t bytes, uid_t uid, const std::string& path) {
    if (uid == 0) return Ok{};
    if (static_cast<std::size_t>(size) + bytes > kMemberBound)
        return Error{"the journal " + path + " is at its bound for callers other than root (" +
                     std::to_string(kMemberBound >> 10) + " KiB) until wiredcap-system compacts it (every minute); "
                     "root's commands still work"};
    const auto mine = callers_bytes(fd, size, uid);
    if (!mine) return Error{"cannot read the journal " + path + " back to count uid " + std::to_string(uid) + "'s records"};
    if (*mine + bytes <= kMemberShare) return Ok{};
    return Error{"uid " + std::to_string(uid) + "'s records fill its share of the journal " + path + " (" +
                 std::to_string(kMemberShare >> 10) + " KiB of the " + std::to_string(kMemberBound >> 10) +
                 " KiB bound); other members and root still have room"};
}

Expected<UniqueFd> open_journal_dir(const std::string& dir, uid_t owner) {
    auto fd = trusted::open_dir(dir, owner);
    if (!fd) return fd.error();
    if (fd->has_value()) return std::move(**fd);
    // Create the last component only; its parent must already be trusted.
    auto parent = trusted::split_path(dir);
    if (!parent) return parent.error();
    auto pfd = trusted::open_dir(parent->dir, owner);
    if (!pfd) return pfd.error();
    if (!pfd->has_value()) return Error{"journal directory parent " + parent->dir + " does not exist"};
    if (auto made = make_dir_for_root((*pfd)->get(), parent->name.c_str(), 0755, "the journal directory " + dir); !made)
        return made.error();
    auto again = trusted::open_dir(dir, owner);
    if (!again) return again.error();
    if (!again->has_value()) return Error{"journal directory " + dir + " vanished"};
    return std::move(**again);
}

}  // namespace

std::string utc_iso8601(std::int64_t unix_time) {
    const auto t = static_cast<std::time_t>(unix_time);
    struct tm tm {};
    ::gmtime_r(&t, &tm);  // UTC: no TZ lookup, no locale
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

JsonObject to_json(const Record& r, const Stamp& s, std::int64_t unix_time) {
    JsonObject o;
    o.num("v", kSchemaVersion).str("time", utc_iso8601(unix_time)).str("boot", s.boot_id).num("uid", s.uid);
    o.str("command", r.command).str("event", r.event);
    if (r.run) o.str("run", *r.run);
    if (r.step) o.num("step", *r.step);
    if (r.from) o.num("from_mib", r.from->count());
    if (r.to) o.num("to_mib", r.to->count());
    if (r.readback) o.num("readback_mib", r.readback->count());
    if (!r.reason.empty()) o.str("reason", r.reason);
    if (r.effective) o.num("effective_mib", r.effective->count()).str("effective_source", r.effective_source);
    if (r.ignore_hang_ceiling) o.boolean("ignore_hang_ceiling", true);
    if (!r.by.empty()) o.str("by", r.by);
    if (!r.vouched.empty()) o.str("vouched", r.vouched);
    if (r.effective && !r.effective_said.empty()) o.str("effective_said", r.effective_said);
    return o;
}

std::string to_json_line(const Record& r, const Stamp& s, std::int64_t unix_time) {
    return to_json(r, s, unix_time).text() + "\n";
}

Expected<Writer> Writer::open(const std::string& path, uid_t owner) {
    auto split = trusted::split_path(path);
    if (!split) return split.error();
    auto dir = open_journal_dir(split->dir, owner);
    if (!dir) return Error{"journal: " + dir.error().message};
    // O_EXCL first: only a journal this call created is given to root:root, never a file that
    // was already there (that one must pass the checks below as it is).
    constexpr int kFlags = O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    UniqueFd fd(::openat(dir->get(), split->name.c_str(), kFlags | O_CREAT | O_EXCL, 0644));
    const bool created = fd.valid();
    if (!created && errno == EEXIST) fd = UniqueFd(::openat(dir->get(), split->name.c_str(), kFlags));
    if (!fd.valid()) {
        if (errno == ELOOP) return Error{"journal " + path + " is a symbolic link; refusing it"};
        return Error{"cannot open the journal " + path + ": " + std::strerror(errno)};
    }
    if (created)
        if (auto own = own_by_root(fd.get(), "the journal " + path); !own) return Error{"journal: " + own.error().message};
    auto checked = trusted::check_file(fd.get(), path, owner);
    if (!checked) return Error{"journal: " + checked.error().message};
    return Writer(std::move(*dir), std::move(fd), path, std::move(*split), owner);
}

Expected<Ok> Writer::lock(std::chrono::milliseconds wait) {
    auto l = Lock::take(dir_.get(), where_.dir, owner_, wait);
    if (!l) return l.error();
    lock_.emplace(std::move(*l));
    // The journal was opened before the wait: a helper that held the lock meanwhile may have
    // compacted it, and the file this one holds is now the archive. Appends go to the journal.
    if (auto moved = reopen_if_moved(); !moved) return Error{"the journal was replaced meanwhile: " + moved.error().message};
    const auto end = size();
    own_end_ = end ? *end : -1;
    return Ok{};
}

bool Writer::appended_by_another() {
    if (!locked()) return false;
    const auto end = size();
    return !end || own_end_ < 0 || foreign_ || *end != own_end_;  // cannot tell: assume it did
}

Expected<off_t> Writer::size() const {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) return Error{"journal " + path_ + ": " + std::strerror(errno)};
    return st.st_size;
}

Expected<bool> Writer::reopen_if_moved() {
    struct stat mine {}, named {};
    if (::fstat(fd_.get(), &mine) != 0) return Error{"journal " + path_ + ": " + std::strerror(errno)};
    if (::fstatat(dir_.get(), where_.name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 && mine.st_dev == named.st_dev &&
        mine.st_ino == named.st_ino)
        return false;
    auto now = open(path_, owner_);
    if (!now) return now.error();
    fd_ = std::move(now->fd_);
    return true;
}

Expected<Ok> Writer::close_torn_line() {
    const auto end = size();
    if (!end) return end.error();
    char last = '\n';
    if (*end > 0 && ::pread(fd_.get(), &last, 1, *end - 1) != 1)
        return Error{"cannot read the end of the journal " + path_ + ": " + std::strerror(errno)};
    if (last == '\n') return Ok{};
    auto closed = write_all(fd_.get(), "\n", "the journal " + path_);
    if (closed && locked() && *end == own_end_) own_end_ += 1;  // its own newline, not another's
    return closed;
}

void take_back_partial_write(int fd, off_t size, std::string_view line) {
    struct stat now {};
    if (::fstat(fd, &now) != 0 || now.st_size <= size) return;
    const auto written = static_cast<std::size_t>(now.st_size - size);
    if (written > line.size()) return;
    std::string tail(written, '\0');
    if (::pread(fd, tail.data(), written, size) != static_cast<ssize_t>(written)) return;
    if (tail != line.substr(0, written)) return;
    // A reset that went on without the lock may append at any moment: truncate only while the
    // end is still where this writer's part left it, so that no record of another is cut off.
    // (The check and the truncate are two calls: a window of microseconds remains; SECURITY.md,
    // "Out of scope".)
    struct stat last {};
    if (::fstat(fd, &last) == 0 && last.st_size == now.st_size) (void)::ftruncate(fd, size);
}

Expected<Ok> Writer::append_line(const std::string& line, uid_t uid, Flush flush, Bound b) {
    if (auto torn = close_torn_line(); !torn) return torn;
    // Under the lock nobody else appends, except a reset that went on without it: its bytes,
    // before this record or between its start and end (O_APPEND puts the file offset at the end
    // of this write), are noted for appended_by_another().
    const auto before = size();
    if (!before) return before.error();
    if (auto room = check_size_limit(*before, line.size(), path_); !room) return room;
    // The bound and the share decide whether a command starts; once its first record is in, its
    // outcome records follow whatever the size (an intent is never left without its outcome).
    if (!appended_ && b == Bound::member)
        if (auto room = check_member_bound(fd_.get(), *before, line.size(), uid, path_); !room)
            return room;
    if (locked() && *before != own_end_) foreign_ = true;
    if (auto w = write_all(fd_.get(), line, "the journal " + path_); !w) {
        // Whole or absent: a write cut short (ENOSPC, EFBIG, EIO after part of it) is taken back,
        // under the lock, where no other locked helper can have appended meanwhile. Without the
        // lock (a reset that went on without it) the part stays, and the next record closes it.
        if (locked()) take_back_partial_write(fd_.get(), *before, line);
        return w;
    }
    appended_ = true;
    if (locked()) {
        const off_t end = ::lseek(fd_.get(), 0, SEEK_CUR);
        if (end - static_cast<off_t>(line.size()) != *before) foreign_ = true;
        own_end_ = end;
    }
    if (flush == Flush::now)
        if (auto f = flush_to_disk(fd_.get(), "the journal " + path_); !f) return f;
    mirror_to_syslog(line);
    return locked() ? Expected<Ok>(Ok{}) : follow_a_compaction(line);
}

// Without the lock a compaction may have moved the journal away while this record was being
// written to it (compaction.cpp): the record is then appended again to the journal now in place.
Expected<Ok> Writer::follow_a_compaction(const std::string& line) {
    const auto moved = reopen_if_moved();
    if (!moved) return Error{"the journal was compacted while this record was written; " + moved.error().message};
    if (!*moved) return Ok{};
    if (auto w = write_all(fd_.get(), line, "the journal " + path_); !w) return w;
    return flush_to_disk(fd_.get(), "the journal " + path_);
}

}  // namespace wiredcap::journal
