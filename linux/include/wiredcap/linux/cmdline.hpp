// A kernel command line as the kernel reads it: words separated by blanks, a double-quoted
// value may hold blanks, and '-' and '_' are the same character in a parameter's name
// (kernel/params.c, parameq). Used on /proc/cmdline and on the boot loader's option lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wiredcap::linux_amd {

[[nodiscard]] std::vector<std::string> split_cmdline(std::string_view line);

// The value of the LAST `name=` on the line (the kernel applies them in order, so the last
// wins); nullopt when absent.
[[nodiscard]] std::optional<std::string> cmdline_value(std::string_view line,
                                                       std::string_view name);

// The line without any `name=...` word.
[[nodiscard]] std::string remove_param(std::string_view line, std::string_view name);

// The line without any `name=...` word, then `name=value` appended.
[[nodiscard]] std::string set_param(std::string_view line, std::string_view name,
                                    std::string_view value);

}  // namespace wiredcap::linux_amd
