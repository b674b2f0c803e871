#include "wiredcap/durable_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wiredcap {

Expected<Ok> write_all(int fd, std::string_view data, const std::string& what) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;  // a write of 0 bytes makes no progress
            return Error{"cannot write " + what + ": " + std::strerror(err)};
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return Ok{};
}

Expected<Ok> flush_to_disk(int fd, const std::string& what) {
#ifdef __APPLE__
    // fsync on macOS only reaches the drive's cache; F_FULLFSYNC reaches the platter/flash.
    if (::fcntl(fd, F_FULLFSYNC) == 0) return Ok{};
#endif
    if (::fsync(fd) != 0) return Error{"cannot flush " + what + ": " + std::strerror(errno)};
    return Ok{};
}

}  // namespace wiredcap
