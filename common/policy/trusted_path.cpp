#include "wiredcap/policy/trusted_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace wiredcap::trusted {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::string octal_mode(mode_t m) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
    return buf;
}

// A directory on the way to a trusted file: root's or the owner's, and nobody else's to
// write -- except a sticky directory such as /tmp (mode 1777): there only an entry's owner (or
// the directory's owner, root) may rename or remove it, and the next component is checked in
// turn, so another user can neither replace nor redirect what we walk through. (sudo and doas
// check only the file itself; this walk is stricter than both.)
std::optional<std::string> directory_problem(const struct stat& st, uid_t owner) {
    if (!S_ISDIR(st.st_mode)) return "is not a directory";
    if (st.st_uid != 0 && st.st_uid != owner)
        return "is owned by uid " + std::to_string(st.st_uid) + ", not by root";
    const bool sticky = (st.st_mode & S_ISVTX) != 0;
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky)
        return "is writable by group or others (mode " + octal_mode(st.st_mode) + ")";
    return std::nullopt;
}

Expected<std::string> canonical_dir(const std::string& dir) {
    // realpath resolves symlinks that root made (macOS: /etc -> /private/etc); the walk below
    // then verifies the resolved chain with O_NOFOLLOW.
    std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(dir.c_str(), nullptr),
                                                         &std::free);
    if (!resolved) return Error{dir + ": " + errno_text(errno)};
    return std::string(resolved.get());
}

}  // namespace

Expected<SplitPath> split_path(const std::string& path) {
    if (path.empty() || path[0] != '/') return Error{"'" + path + "' is not an absolute path"};
    const auto slash = path.rfind('/');
    if (slash == path.size() - 1) return Error{"'" + path + "' names a directory, not a file"};
    return SplitPath{slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

Expected<std::optional<UniqueFd>> open_dir(const std::string& dir, uid_t owner) {
    struct stat probe {};
    if (::stat(dir.c_str(), &probe) != 0 && errno == ENOENT) return std::optional<UniqueFd>{};
    auto canonical = canonical_dir(dir);
    if (!canonical) return canonical.error();

    UniqueFd fd(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    std::string walked = "/";
    std::size_t pos = 1;
    while (true) {
        if (!fd.valid()) return Error{walked + ": " + errno_text(errno)};
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) return Error{walked + ": " + errno_text(errno)};
        if (auto why = directory_problem(st, owner))
            return Error{"directory " + walked + " " + *why};
        if (pos >= canonical->size()) break;
        const auto next = canonical->find('/', pos);
        const std::string name =
            canonical->substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        walked += (walked == "/" ? "" : "/") + name;
        fd = UniqueFd(
            ::openat(fd.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        pos = next == std::string::npos ? canonical->size() : next + 1;
    }
    return std::optional<UniqueFd>{std::move(fd)};
}

Expected<std::size_t> check_file(int fd, const std::string& path, uid_t owner) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error{path + ": " + errno_text(errno)};
    if (S_ISDIR(st.st_mode)) return Error{path + " is a directory, not a file"};
    if (!S_ISREG(st.st_mode))
        return Error{path + " is not a regular file (a FIFO, device or socket)"};
    if (st.st_uid != owner)
        return Error{path + " is owned by uid " + std::to_string(st.st_uid) +
                     ", must be owned by uid " + std::to_string(owner) +
                     (owner == 0 ? " (root)" : "")};
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return Error{path + " is writable by group or others (mode " + octal_mode(st.st_mode) +
                     "); run: chmod go-w " + path};
    // The link count is not checked. A second name gives no one the file: who may write it is
    // its owner and mode, checked above, and no one but root can add a name in a trusted
    // directory. Elsewhere anyone can: macOS lets any user hard-link another user's file into
    // a directory of their own on the same volume, so refusing st_nlink > 1 would let any user
    // make root's policy, journal and boot state unusable (and root's reset with them).
    return static_cast<std::size_t>(st.st_size);
}

Expected<std::optional<std::string>> read_file(const std::string& path, uid_t owner,
                                               std::size_t max_bytes) {
    auto split = split_path(path);
    if (!split) return split.error();
    auto dir = open_dir(split->dir, owner);
    if (!dir) return Error{path + ": " + dir.error().message};
    if (!dir->has_value()) return std::optional<std::string>{};

    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    UniqueFd fd(::openat((*dir)->get(), split->name.c_str(),
                         O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ENOENT) return std::optional<std::string>{};
        if (errno == ELOOP) return Error{path + " is a symbolic link; a trusted file must not be"};
        return Error{path + ": " + errno_text(errno)};
    }
    auto size = check_file(fd.get(), path, owner);
    if (!size) return size.error();
    if (*size > max_bytes)
        return Error{path + " is larger than " + std::to_string(max_bytes) + " bytes"};

    std::string contents;
    char buf[4096];
    while (true) {
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{path + ": " + errno_text(errno)};
        if (n == 0) break;
        contents.append(buf, static_cast<std::size_t>(n));
        if (contents.size() > max_bytes)  // it grew after fstat
            return Error{path + " is larger than " + std::to_string(max_bytes) + " bytes"};
    }
    return std::optional<std::string>{std::move(contents)};
}

}  // namespace wiredcap::trusted
