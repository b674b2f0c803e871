#include "wiredcap/cli/output/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "wiredcap/durable_write.hpp"

namespace wiredcap::cli {
namespace {

Error failure(const std::string& what, int err) { return Error{what + ": " + std::strerror(err)}; }

}  // namespace

Expected<Ok> replace_file_atomically(const std::string& dir, std::string_view name,
                                     std::string_view text) {
    const std::string target = dir + "/" + std::string(name);
    std::string pattern = dir + "/." + std::string(name) + ".XXXXXX";
    std::vector<char> temp(pattern.begin(), pattern.end());
    temp.push_back('\0');
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) return failure("cannot create a temporary file in " + dir, errno);
    const std::string temp_path(temp.data());
    auto give_up = [&](Error e) {
        ::close(fd);
        ::unlink(temp_path.c_str());
        return e;
    };
    // mkstemp makes it 0600; the collector may run as another user.
    if (::fchmod(fd, 0644) != 0) return give_up(failure("cannot chmod " + temp_path, errno));
    if (auto ok = write_all(fd, text, temp_path); !ok) return give_up(ok.error());
    if (auto ok = flush_to_disk(fd, temp_path); !ok) return give_up(ok.error());
    if (::close(fd) != 0) {
        ::unlink(temp_path.c_str());
        return failure("cannot close " + temp_path, errno);
    }
    if (::rename(temp_path.c_str(), target.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp_path.c_str());
        return failure("cannot rename " + temp_path + " to " + target, err);
    }
    return Ok{};
}

}  // namespace wiredcap::cli
