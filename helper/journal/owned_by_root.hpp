// What the setuid helper creates belongs to root and root's group. A setuid process creates
// files with its real group (on macOS, the directory's group), which would be the caller's: a
// group-owned journal is one chmod g+w away from being the caller's group's to write.
#pragma once

#include <string>

#include "wiredcap/units/expected.hpp"

namespace wiredcap::journal {

// fchown(fd, 0, 0) when the helper runs as root; in an unprivileged development run the files
// are the developer's own and stay so. `what` names the file in the error.
[[nodiscard]] Expected<Ok> own_by_root(int fd, const std::string& what);
// The same for the entry `name` of the directory `dir_fd` (not following a symlink).
[[nodiscard]] Expected<Ok> own_by_root_at(int dir_fd, const char* name, const std::string& what);

}  // namespace wiredcap::journal
