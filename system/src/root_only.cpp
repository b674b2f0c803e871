#include "wiredcap/system/root_only.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>

#include "wiredcap/helper/process/hardening.hpp"

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

namespace wiredcap::system {
namespace {

// The mode of this program's own file. On Linux /proc/self/exe is the file the kernel ran,
// whatever path the exec named; on macOS the exec path is the best there is (a root-only
// process, so whoever chose it was root).
std::optional<mode_t> own_mode(std::string& why) {
    struct stat st {};
#if defined(__APPLE__)
    char path[PATH_MAX + 1] = {};
    std::uint32_t size = PATH_MAX;
    if (_NSGetExecutablePath(path, &size) != 0) {
        why = "cannot name its own program file";
        return std::nullopt;
    }
#else
    const char* path = "/proc/self/exe";
#endif
    if (::stat(path, &st) != 0) {
        why = std::string("cannot examine its own program file ") + path + ": " +
              std::strerror(errno);
        return std::nullopt;
    }
    return st.st_mode;
}

}  // namespace

std::optional<std::string> refusal_to_run() {
    if (::getuid() != 0)
        return "wiredcap-system is root only (launchd or systemd starts it); it does not run for uid " +
               std::to_string(::getuid());
    if (::geteuid() != ::getuid() || ::getegid() != ::getgid() || process::is_secure_exec())
        return "wiredcap-system runs setuid or setgid here; it must never be installed so";
    std::string why;
    const auto mode = own_mode(why);
    if (!mode) return why + "; refusing to run";
    if ((*mode & (S_ISUID | S_ISGID)) != 0)
        return "wiredcap-system's program file is setuid or setgid; it must never be installed so "
               "(chmod u-s,g-s it)";
    return std::nullopt;
}

}  // namespace wiredcap::system
