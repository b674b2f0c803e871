// Why there is no band: the helper answers every policy failure with 11; a script needs to tell
// a Mac too small for the built-in band from a missing, unreadable or malformed file (docs/design.md §5).
#pragma once

#include <string>

#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

// What kind of failure reading or parsing a policy file at `path` was, judged from the file
// itself: no file (`no_file`), a file that cannot be opened or is not a regular file
// (`policy_unreadable`), anything else (`policy_invalid`: unsafe ownership or malformed text).
enum class PolicyFileState { no_file, unreadable, present };
[[nodiscard]] PolicyFileState policy_file_state(const std::string& path);

// The exit code for a command that needs the band when the helper reported none: no file means
// the built-in band does not fit this Mac (no_safe_band).
[[nodiscard]] ExitCode no_band_code(const std::string& path);

}  // namespace wiredcap::cli
