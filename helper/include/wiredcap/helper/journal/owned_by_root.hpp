// What the setuid helper creates belongs to root and root's group. A setuid process creates
// files with its real group (on macOS, the directory's group), which would be the caller's: a
// group-owned journal is one chmod g+w away from being the caller's group's to write.
#pragma once

#include <sys/types.h>

#include <string>

#include "wiredcap/unique_fd.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::journal {

// fchown(fd, 0, 0) when the helper runs as root; in an unprivileged development run the files
// are the developer's own and stay so. `what` names the file in the error.
[[nodiscard]] Expected<Ok> own_by_root(int fd, const std::string& what);
// Creates the directory `name` in `dir_fd` with `mode` and gives it to root as own_by_root does
// (not following a symlink); one already there is left as it is, for its opener to check.
[[nodiscard]] Expected<Ok> make_dir_for_root(int dir_fd, const char* name, mode_t mode, const std::string& what);

// The directory `name` in `dir_fd` exactly as the helper makes it (its lock, its refusal
// counts): created mode 0700 and given to root when missing, then opened without following a
// symlink, and a directory of `owner` no one else may open. Anything else there (another mode,
// a symlink, a file) is refused, not used. `what` names it in errors.
[[nodiscard]] Expected<UniqueFd> open_private_dir(int dir_fd, const char* name, const std::string& what, uid_t owner);

}  // namespace wiredcap::journal
