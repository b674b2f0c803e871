// Writing a file so that it survives a power cut: every byte written, then flushed to stable
// storage. The helper's journal and boot state, root's compaction and wiredcap's atomic files
// (cli/output/atomic_file.cpp) share these two steps.
#pragma once

#include <string>
#include <string_view>

#include "wiredcap/expected.hpp"

namespace wiredcap {

// Writes all of `data` to `fd`, retrying short writes and EINTR; false when a write fails
// (errno says why; EIO for a write that made no progress). Allocates nothing and cannot throw:
// the privileged programs answer through it when a caller's RLIMIT_AS leaves no memory, and the
// ramp's guard pipe uses it too.
[[nodiscard]] bool write_fully(int fd, std::string_view data) noexcept;

// write_fully, with an error that names `what`.
[[nodiscard]] Expected<Ok> write_all(int fd, std::string_view data, const std::string& what);

// Flushes `fd` to stable storage: F_FULLFSYNC on macOS (fsync only reaches the drive's cache),
// fsync elsewhere. `what` names it in the error.
[[nodiscard]] Expected<Ok> flush_to_disk(int fd, const std::string& what);

}  // namespace wiredcap
