#include "wiredcap/linux/system_root.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <charconv>
#include <fstream>
#include <sstream>
#include <system_error>

namespace wiredcap::linux_amd {

std::filesystem::path SystemRoot::at(std::string_view absolute) const {
    std::string_view rel = absolute;
    while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
    return root_ / std::filesystem::path(rel);
}

std::optional<std::string> SystemRoot::read(std::string_view absolute) const {
    std::ifstream in(at(absolute), std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream out;
    out << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return out.str();
}

std::optional<std::string> SystemRoot::read_value(std::string_view absolute) const {
    auto text = read(absolute);
    if (!text) return std::nullopt;
    std::string line = text->substr(0, text->find('\n'));
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) return std::string{};
    const auto last = line.find_last_not_of(" \t\r");
    return line.substr(first, last - first + 1);
}

bool SystemRoot::exists(std::string_view absolute) const {
    std::error_code ec;
    return std::filesystem::exists(at(absolute), ec);
}

std::vector<std::string> SystemRoot::list(std::string_view absolute) const {
    std::vector<std::string> names;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(at(absolute), ec), end; !ec && it != end;
         it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

Expected<Ok> SystemRoot::write(std::string_view absolute, std::string_view content) const {
    const auto target = at(absolute);
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    const std::string tmp = target.string() + ".wiredcap-tmp";
    // A file replaced keeps its mode (an admin's 0600 /etc/default/grub stays 0600); a new one
    // is 0644. A leftover temporary file of a crash is replaced, never followed or reused.
    struct stat old {};
    const mode_t mode =
        ::lstat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode) ? old.st_mode & 07777 : 0644;
    ::unlink(tmp.c_str());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return Error{tmp + ": " + std::strerror(errno)};
    if (::fchmod(fd, mode) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        return Error{tmp + ": " + why};
    }
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmp.c_str());
            return Error{tmp + ": " + why};
        }
        done += static_cast<std::size_t>(n);
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced || ::rename(tmp.c_str(), target.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        return Error{target.string() + ": " + why};
    }
    return Ok{};
}

Expected<Ok> SystemRoot::remove(std::string_view absolute) const {
    const auto target = at(absolute);
    if (::unlink(target.c_str()) != 0 && errno != ENOENT)
        return Error{target.string() + ": " + std::strerror(errno)};
    return Ok{};
}

std::optional<std::uint64_t> parse_u64(std::string_view text) {
    std::uint64_t v = 0;
    if (text.empty()) return std::nullopt;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return v;
}

}  // namespace wiredcap::linux_amd
