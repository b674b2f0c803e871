// Reading the helper's journal (format: helper/include/wiredcap/helper/journal/journal.hpp). wiredcap only reads it;
// only the helper writes it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"
#include "wiredcap/journal/record.hpp"

namespace wiredcap::journal_view {

using journal::BasicEntry;
using journal::Entry;
using journal::EntryView;
using journal::is_word;
using journal::to_entry;
using journal::view_of;

// What reading found besides the records.
struct Notes {
    bool torn_tail = false;             // the last line had no newline and did not parse: ignored
    std::vector<std::string> warnings;  // lines that were skipped, and why (line numbers)
};

struct Contents {
    std::vector<Entry> entries;
    bool torn_tail = false;             // the last line had no newline and did not parse: ignored
    std::vector<std::string> warnings;  // lines that were skipped, and why (line numbers)
};

// Takes the records one at a time, in file order. The record is only lent for the call (its text
// is the line's, which the reader reuses for the next): copy what is kept.
using RecordSink = std::function<void(const EntryView&)>;

// Where a reading stopped, to take it up again there (recover reads the journal, appends to it
// through the helper, and answers on the journal as it is then: without this it read all of it
// twice). Only a reading that ended on a newline can be continued.
struct Position {
    bool continuable = false;
    dev_t dev = 0;
    ino_t ino = 0;
    std::uint64_t offset = 0;  // the bytes read, the last one a newline
    std::size_t lines = 0;     // the lines before offset: the next is numbered lines + 1
};

// Parses journal text. A torn last line (no final newline, not valid JSON) is ignored and
// flagged; any other unreadable line, or a record of an unknown schema version, is skipped
// with a warning naming its line. Never fails: a journal is read as far as it can be.
[[nodiscard]] Contents parse_journal(std::string_view text);
// The same, each record handed to `sink` as it is read, none kept.
Notes parse_journal(std::string_view text, const RecordSink& sink);

// One line through the full JSON parser, as parse_journal reads a line that is not in the
// helper's plain form (journal_fast_line.hpp); the tests compare the two on every kind of line.
[[nodiscard]] Expected<Entry> parse_record(std::string_view line, std::size_t number);

// Reads the journal file; a missing file is an empty journal. Errors only for I/O failures.
[[nodiscard]] Expected<Contents> read_journal(const std::string& path);
// The same, each record handed to `sink` as it is read: the file is read in pieces, and neither
// its text nor its entries are held (what status and recover read, bench/journal_scale.sh). On an
// error the sink may have had some records already: the caller drops what it made of them.
[[nodiscard]] Expected<Notes> read_journal(const std::string& path, const RecordSink& sink,
                                           Position* end = nullptr);

// The records after `from`, numbered on, handed to `sink`; `end` says where this reading stopped.
// nullopt, with nothing read: the file is not the one that was read (another file at the path,
// shorter, or no newline where the reading stopped: compacted, say), or `from` cannot be
// continued -- read it again from the start.
[[nodiscard]] Expected<std::optional<Notes>> read_journal_after(const std::string& path,
                                                                const Position& from,
                                                                const RecordSink& sink,
                                                                Position* end);

}  // namespace wiredcap::journal_view
