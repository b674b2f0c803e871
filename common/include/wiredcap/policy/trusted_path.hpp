// Opening files that decide what root does, the way sudo and doas open theirs: resolve the
// directory once, then walk it component by component with O_NOFOLLOW, checking each
// directory on the descriptor actually opened (no check-then-use race), and check the file on
// its own descriptor too.
//
// "Trusted owner" is the effective uid: root in the installed setuid helper; the developer in
// an unprivileged test run (which cannot change anything a developer could not change anyway).
// Directories may also belong to root.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

#include "wiredcap/unique_fd.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::trusted {

// Opens the directory `dir` after checking it and every ancestor: a directory, owned by root
// or `owner`, not writable by group or others. nullopt when it does not exist.
[[nodiscard]] Expected<std::optional<UniqueFd>> open_dir(const std::string& dir, uid_t owner);

// The checks a trusted regular file must pass, on its open descriptor: regular file, owned by
// `owner`, not writable by group or others (any number of links). Returns its size.
[[nodiscard]] Expected<std::size_t> check_file(int fd, const std::string& path, uid_t owner);

// Reads a trusted file of at most max_bytes. nullopt when the file does not exist.
[[nodiscard]] Expected<std::optional<std::string>> read_file(const std::string& path, uid_t owner,
                                                             std::size_t max_bytes);

// "/etc/wiredcap.conf" -> {"/etc", "wiredcap.conf"}; refuses relative paths and paths that
// end in a slash.
struct SplitPath {
    std::string dir;
    std::string name;
};
[[nodiscard]] Expected<SplitPath> split_path(const std::string& path);

}  // namespace wiredcap::trusted
