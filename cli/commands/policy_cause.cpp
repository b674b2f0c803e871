#include "wiredcap/cli/commands/policy_cause.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "wiredcap/unique_fd.hpp"

namespace wiredcap::cli {

PolicyFileState policy_file_state(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return errno == ENOENT ? PolicyFileState::no_file : PolicyFileState::unreadable;
    if (!S_ISREG(st.st_mode)) return PolicyFileState::unreadable;
    // O_NONBLOCK: never wait on what a race may have put there instead.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    return fd.valid() ? PolicyFileState::present : PolicyFileState::unreadable;
}

ExitCode no_band_code(const std::string& path) {
    switch (policy_file_state(path)) {
        case PolicyFileState::no_file: return ExitCode::no_safe_band;
        case PolicyFileState::unreadable: return ExitCode::policy_unreadable;
        case PolicyFileState::present: return ExitCode::policy_invalid;
    }
    return ExitCode::policy_invalid;
}

}  // namespace wiredcap::cli
