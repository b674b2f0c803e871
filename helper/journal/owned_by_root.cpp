#include "wiredcap/helper/journal/owned_by_root.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wiredcap::journal {

Expected<Ok> own_by_root(int fd, const std::string& what) {
    if (::geteuid() != 0) return Ok{};
    if (::fchown(fd, 0, 0) != 0) return Error{"cannot give " + what + " to root:root: " + std::strerror(errno)};
    return Ok{};
}

Expected<Ok> make_dir_for_root(int dir_fd, const char* name, mode_t mode, const std::string& what) {
    if (::mkdirat(dir_fd, name, mode) != 0) {
        if (errno == EEXIST) return Ok{};
        return Error{"cannot create " + what + ": " + std::strerror(errno)};
    }
    if (::geteuid() != 0 || ::fchownat(dir_fd, name, 0, 0, AT_SYMLINK_NOFOLLOW) == 0) return Ok{};
    return Error{"cannot give " + what + " to root:root: " + std::strerror(errno)};
}

Expected<UniqueFd> open_private_dir(int dir_fd, const char* name, const std::string& what, uid_t owner) {
    if (auto made = make_dir_for_root(dir_fd, name, 0700, what); !made) return made.error();
    UniqueFd fd(::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return Error{"cannot open " + what + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return Error{what + ": " + std::strerror(errno)};
    if (st.st_uid != owner || (st.st_mode & 077) != 0)
        return Error{what + " is not a directory only its owner can open; remove it"};
    return fd;
}

}  // namespace wiredcap::journal
