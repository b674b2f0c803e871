// The one line of a shell-sourced file (/etc/default/grub) that sets a variable, found only if
// wiredcap can rewrite its value without changing the meaning of anything else: a single plain
// `KEY=value`, `KEY="value"` or `KEY='value'` line, no shell expansion or escape in the value,
// nothing after it but a comment. Otherwise an error naming why, and the file stays as it is:
// rewriting a second assignment, an `export KEY=` or a `$VAR` would drop an admin's parameters.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/expected.hpp"

namespace wiredcap::linux_amd {

struct ShellAssignment {
    std::size_t line = 0;  // 0-based line number in the file
    std::string head;      // the indentation and "KEY="
    char quote = 0;        // '"', '\'' or 0 (unquoted)
    std::string value;     // between the quotes
    std::string tail;      // after the closing quote: blanks and a comment, kept as they were
};

// The assignment of key in text, nullopt if none, or why it may not be edited.
[[nodiscard]] Expected<std::optional<ShellAssignment>> find_assignment(std::string_view text,
                                                                       std::string_view key);

// text with the assignment's value replaced (appended as KEY="value" when there was none).
[[nodiscard]] std::string with_assignment(std::string_view text, std::string_view key,
                                          const std::optional<ShellAssignment>& found,
                                          std::string_view value);

// True when a non-comment line of text names key (an override in /etc/default/grub.d).
[[nodiscard]] bool mentions(std::string_view text, std::string_view key);

}  // namespace wiredcap::linux_amd
