#include "regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "wiredcap/fit/printable.hpp"

namespace wiredcap::fit {

Expected<RegularFile> RegularFile::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int err = errno;
        if (err == ELOOP)
            return Error{"cannot open " + printable(path, 256) + ": a symbolic link loop"};
        return Error{"cannot open " + printable(path, 256) + ": " + std::strerror(err)};
    }
    RegularFile f(fd, 0);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return Error{printable(path, 256) + " is not a regular file"};
    f.size_ = static_cast<std::uint64_t>(st.st_size);
    return f;
}

RegularFile::RegularFile(RegularFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), size_(o.size_) {}

RegularFile::~RegularFile() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace wiredcap::fit
