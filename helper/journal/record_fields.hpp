// Reading fields out of one journal line. The helper reads only what it wrote itself
// (journal.hpp's format, written by json_writer), so it matches that format exactly instead of
// parsing JSON: keys are fixed ASCII, numbers are plain digits, and the strings read here (ids,
// times, event and command words) never contain an escape.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace wiredcap::journal {

// Whether `line` is a record of the schema this helper writes ({"v":1,...}).
[[nodiscard]] bool is_v1_record(std::string_view line);

// The digits after `"key":` in `line`, as a number.
[[nodiscard]] std::optional<std::uint64_t> number_after(std::string_view line, std::string_view key);

// The string after `"key":"` in `line`; empty when absent.
[[nodiscard]] std::string_view string_after(std::string_view line, std::string_view key);

// The run id of a record ([A-Za-z0-9-]{1,64}); empty when it has none.
[[nodiscard]] std::string_view run_of(std::string_view line);

}  // namespace wiredcap::journal
