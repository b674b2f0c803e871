// Writing a file so that it survives a power cut: every byte written, then flushed to stable
// storage. The helper's journal and boot state, root's compaction and wiredcap's atomic files
// (ramp/output/atomic_file.cpp) share these two steps.
#pragma once

#include <string>
#include <string_view>

#include "wiredcap/units/expected.hpp"

namespace wiredcap {

// Writes all of `data` to `fd`, retrying short writes and EINTR; `what` names it in the error.
[[nodiscard]] Expected<Ok> write_all(int fd, std::string_view data, const std::string& what);

// Flushes `fd` to stable storage: F_FULLFSYNC on macOS (fsync only reaches the drive's cache),
// fsync elsewhere. `what` names it in the error.
[[nodiscard]] Expected<Ok> flush_to_disk(int fd, const std::string& what);

}  // namespace wiredcap
