// Reading the helper's journal (format: helper/journal/journal.hpp). wiredcap only reads it;
// only the helper writes it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/units/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal_view {

struct Entry {
    std::size_t line = 0;  // 1-based line in the file
    int v = 0;
    std::string time;
    std::string boot;
    std::uint64_t uid = 0;
    std::string command;
    std::string event;
    std::optional<std::string> run;
    std::optional<std::uint64_t> step;
    std::optional<units::MiB> from;
    std::optional<units::MiB> to;
    std::optional<units::MiB> readback;
    std::optional<units::MiB> effective;  // the effective cap the caller passed (apply --effective)
    std::string effective_source;
    std::string reason;
    std::string by;  // which wiredcap command asked for an apply ("set"); empty: not named
};

struct Contents {
    std::vector<Entry> entries;
    bool torn_tail = false;             // the last line had no newline and did not parse: ignored
    std::vector<std::string> warnings;  // lines that were skipped, and why (line numbers)
};

// Parses journal text. A torn last line (no final newline, not valid JSON) is ignored and
// flagged; any other unreadable line, or a record of an unknown schema version, is skipped
// with a warning naming its line. Never fails: a journal is read as far as it can be.
[[nodiscard]] Contents parse_journal(std::string_view text);

// One line through the full JSON parser, as parse_journal reads a line that is not in the
// helper's plain form (journal_fast_line.hpp); the tests compare the two on every kind of line.
[[nodiscard]] Expected<Entry> parse_record(std::string_view line, std::size_t number);

// Reads the journal file; a missing file is an empty journal. Errors only for I/O failures.
[[nodiscard]] Expected<Contents> read_journal(const std::string& path);

}  // namespace wiredcap::journal_view
