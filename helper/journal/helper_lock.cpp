#include "journal/helper_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "journal/owned_by_root.hpp"

namespace wiredcap::journal {
namespace {

constexpr const char* kName = ".lock";

// The lock directory exactly as the helper makes it: a directory of `owner`, no access for
// anyone else. Anything else there (another mode, a symlink, a file) is refused, not used.
Expected<UniqueFd> open_lock_dir(int dir_fd, const std::string& where, uid_t owner) {
    if (::mkdirat(dir_fd, kName, 0700) == 0) {
        if (auto own = own_by_root_at(dir_fd, kName, where); !own) return own.error();
    } else if (errno != EEXIST) {
        return Error{"cannot create the lock " + where + ": " + std::strerror(errno)};
    }
    UniqueFd fd(::openat(dir_fd, kName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return Error{"cannot open the lock " + where + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return Error{"lock " + where + ": " + std::strerror(errno)};
    if (st.st_uid != owner || (st.st_mode & 077) != 0)
        return Error{"the lock " + where + " is not a directory only its owner can open; remove it"};
    return fd;
}

}  // namespace

Expected<Lock> Lock::take(int dir_fd, const std::string& dir, uid_t owner, std::chrono::milliseconds wait) {
    const std::string where = dir + "/" + kName;
    auto fd = open_lock_dir(dir_fd, where, owner);
    if (!fd) return fd.error();
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (::flock(fd->get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) return Error{"cannot lock " + where + ": " + std::strerror(errno)};
        if (std::chrono::steady_clock::now() >= deadline)
            return Error{"another wiredcap-helper held the lock " + where + " for " + std::to_string(wait.count()) + " ms"};
        const struct timespec pause {0, 2'000'000};
        ::nanosleep(&pause, nullptr);
    }
    return Lock(std::move(*fd));
}

}  // namespace wiredcap::journal
