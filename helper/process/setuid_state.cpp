#include "wiredcap/helper/process/setuid_state.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <climits>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
constexpr const char* kOtherCauses = "a nosuid mount, or a debugger";  // xnu has no no_new_privs
#else
constexpr const char* kOtherCauses = "no_new_privs, a nosuid mount, or a debugger";
#endif

namespace wiredcap::process {
namespace {

// The path this program was executed from: only for a message, never for a decision (on macOS
// it is the path given to exec, which whoever ran the helper chose).
std::optional<std::string> own_path() {
#if defined(__APPLE__)
    char buf[PATH_MAX + 1] = {};
    uint32_t size = PATH_MAX;  // the type <mach-o/dyld.h> declares (it includes <stdint.h>)
    if (_NSGetExecutablePath(buf, &size) != 0) return std::nullopt;
    return std::string(buf);
#else
    return std::string("/proc/self/exe");  // where there is none, stat() fails: no reason is named
#endif
}

}  // namespace

std::optional<std::string> setuid_ignored_reason() {
    const auto path = own_path();
    struct stat st {};
    if (!path || ::stat(path->c_str(), &st) != 0) return std::nullopt;
    if ((st.st_mode & S_ISUID) == 0 || st.st_uid != 0 || ::geteuid() == 0) return std::nullopt;
    struct statvfs vfs {};
    if (::statvfs(path->c_str(), &vfs) == 0 && (vfs.f_flag & ST_NOSUID) != 0)
        return "its volume is mounted nosuid (an external disk or a disk image?): install it on the system volume";
    return kOtherCauses;
}

}  // namespace wiredcap::process
