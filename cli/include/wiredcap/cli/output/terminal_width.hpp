// How wide human output may be: what the person's terminal (or COLUMNS) says, else 80.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace wiredcap::cli {

// Narrower than this, a "width" is a mistake (COLUMNS=0, a terminal that reports 0): ignored.
inline constexpr std::size_t kMinWidth = 20;
inline constexpr std::size_t kDefaultWidth = 80;

// COLUMNS when it is a number of at least kMinWidth (as ls and other tools honour it), else the
// width of the terminal on `fd`, else 80 (piped output, a file, a terminal that reports 0).
[[nodiscard]] std::size_t output_width(int fd);

// The rule itself, from what was found: testable without a terminal.
[[nodiscard]] std::size_t choose_width(std::optional<std::string_view> columns_env,
                                       std::optional<std::size_t> tty_columns);

}  // namespace wiredcap::cli
