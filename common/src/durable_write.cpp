#include "wiredcap/durable_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wiredcap {

bool write_fully(int fd, std::string_view data) noexcept {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) errno = EIO;  // a write of 0 bytes makes no progress
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

Expected<Ok> write_all(int fd, std::string_view data, const std::string& what) {
    if (write_fully(fd, data)) return Ok{};
    return Error{"cannot write " + what + ": " + std::strerror(errno)};
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
