#include "journal/helper_lock.hpp"

#include <sys/file.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "journal/owned_by_root.hpp"

namespace wiredcap::journal {

constexpr const char* kName = ".lock";  // const: internal to this file

Expected<std::optional<Lock>> Lock::take(int dir_fd, const std::string& dir, uid_t owner,
                                         std::chrono::milliseconds wait, bool root, std::chrono::milliseconds for_member) {
    const std::string where = dir + "/" + kName;
    // Made by the helper, no access for anyone else: no other user can open (and flock) it.
    auto fd = open_private_dir(dir_fd, kName, "the lock " + where, owner);
    if (!fd) return fd.error();
    auto mark = open_private_dir(fd->get(), "root", "the lock " + where + "/root", owner);
    if (!mark) return mark.error();
    const auto start = std::chrono::steady_clock::now();
    while (::flock(fd->get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) return Error{"cannot lock " + where + ": " + std::strerror(errno)};
        const auto waited = std::chrono::steady_clock::now() - start;
        // Free mark, held lock: a member's helper holds it (or root's, for the microseconds
        // between its two flocks: it then sees these records and backs off, as a member's does).
        if (root && waited >= for_member && ::flock(mark->get(), LOCK_SH | LOCK_NB) == 0) {
            (void)::flock(mark->get(), LOCK_UN);
            return std::optional<Lock>{};
        }
        if (waited >= wait)
            return Error{"another wiredcap-helper held the lock " + where + " for " + std::to_string(wait.count()) + " ms"};
        const struct timespec pause {0, 2'000'000};
        ::nanosleep(&pause, nullptr);
    }
    // Root's mark: held as long as the lock; no member's helper ever takes it.
    if (root && ::flock(mark->get(), LOCK_EX) != 0) return Error{"cannot lock " + where + "/root: " + std::strerror(errno)};
    return std::optional<Lock>(Lock(std::move(*fd), std::move(*mark)));
}

}  // namespace wiredcap::journal
