// Human output fits the terminal (80 columns unless told otherwise): one line of text broken at
// spaces into rows no wider than the width. Pure, so the rules are unit-tested here and not
// only through transcripts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wiredcap::cli {

// Columns a string takes: UTF-8 code points (wiredcap prints no wide characters).
[[nodiscard]] std::size_t display_width(std::string_view s);

// `line` (no newline) as rows of at most `width` columns, right-trimmed. A line that fits is
// returned unchanged. Otherwise it breaks only at spaces, and never inside:
//  - a command wiredcap suggests (`wiredcap ramp --to 96GiB`), so it can be copied whole;
//  - a source in brackets (`[policy file /etc/wiredcap.conf]`) when it fits on a row;
//  - a short group in parentheses (`(96.00 GiB, 103.07 GB)`), or a number and its unit.
// Continuation rows hang under the value column of a `label   value` line (the first run of
// two or more spaces, when it is within the first half), else two spaces past the line's own
// indent. A word wider than a row (a long path) gets a row of its own and is never cut: the
// only way a row exceeds the width.
[[nodiscard]] std::vector<std::string> wrap_line(std::string_view line, std::size_t width);

}  // namespace wiredcap::cli
