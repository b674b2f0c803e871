// One journal line read quickly, when it is exactly in the form the helper writes (json_writer:
// one flat object, no whitespace, ASCII, strings without escapes, counts as plain digits). A
// journal of 1.5 MiB is some 6,000 such lines, and reading each through the full JSON parser was
// most of `status`'s and `recover`'s time (perf, bench/journal_scale.sh). Any other line -- an escape,
// a key twice, a number that is not a plain count, a schema other than 1, a field missing or of
// another type -- is not read here (nullopt): the full parser reads it and says what is wrong,
// so both give the same entry for every line (tests/unit/cli/journal_fast_line_test.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "wiredcap/cli/readings/journal_reader.hpp"

namespace wiredcap::journal_view {

[[nodiscard]] std::optional<Entry> read_plain_record(std::string_view line, std::size_t number);

// The same into `out`, its text fields views into `line` (a journal is read through one record:
// nothing copied per field). False: not in the plain form, and `out` holds nothing to use.
[[nodiscard]] bool read_plain_record(std::string_view line, std::size_t number, EntryView& out);

// The helper's own line at the start of `text`, read where it lies: its length (its newline not
// counted) when the text up to its first newline is a line in the helper's order, which is then
// in `out` as read_plain_record reads it; else 0, and `out` holds nothing to use. The reading finds
// the line's end itself: the journal's reader looked for each newline first, and that search was
// a tenth of the reading on a 1.5 MiB journal (callgrind, bench/journal_scale.sh).
[[nodiscard]] std::size_t read_helper_line(std::string_view text, std::size_t number,
                                           EntryView& out);

// The two readings read_plain_record tries, in turn, named for the tests (which hold each to the
// full parser): the helper's own key order read straight through, then the keys in any order.
namespace plain_reading {
[[nodiscard]] bool in_helper_order(std::string_view line, std::size_t number, EntryView& out);
[[nodiscard]] bool in_any_order(std::string_view line, std::size_t number, EntryView& out);
}  // namespace plain_reading

}  // namespace wiredcap::journal_view
