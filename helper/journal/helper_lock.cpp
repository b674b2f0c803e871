#include "wiredcap/helper/journal/helper_lock.hpp"

#include <sys/file.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "wiredcap/helper/journal/owned_by_root.hpp"

namespace wiredcap::journal {

constexpr const char* kName = ".lock";  // const: internal to this file

Expected<Lock> Lock::take(int dir_fd, const std::string& dir, uid_t owner, std::chrono::milliseconds wait) {
    const std::string where = dir + "/" + kName;
    // Made by the helper, no access for anyone else: no other user can open (and flock) it.
    auto fd = open_private_dir(dir_fd, kName, "the lock " + where, owner);
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
