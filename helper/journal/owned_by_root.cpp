#include "journal/owned_by_root.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wiredcap::journal {

Expected<Ok> own_by_root(int fd, const std::string& what) {
    if (::geteuid() != 0) return Ok{};
    if (::fchown(fd, 0, 0) != 0) return Error{"cannot give " + what + " to root:root: " + std::strerror(errno)};
    return Ok{};
}

Expected<Ok> own_by_root_at(int dir_fd, const char* name, const std::string& what) {
    if (::geteuid() != 0) return Ok{};
    if (::fchownat(dir_fd, name, 0, 0, AT_SYMLINK_NOFOLLOW) != 0)
        return Error{"cannot give " + what + " to root:root: " + std::strerror(errno)};
    return Ok{};
}

}  // namespace wiredcap::journal
