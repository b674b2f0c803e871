// Reading the helper's journal (format: helper/journal/journal.hpp). wiredcap only reads it;
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

#include "wiredcap/units/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal_view {

// A journal record's fields, listed once for both forms of a record: Entry holds its texts
// (std::string), EntryView lends them (std::string_view into the line just read, valid only for
// the call it is lent to). Reading a journal line by line, copying each string into an Entry was
// a sixth of status's instructions on a 1.5 MiB journal (callgrind, issue 25 point 4); whoever
// keeps a record makes an Entry of it (to_entry).
template <class Text>
struct BasicEntry {
    std::size_t line = 0;  // 1-based line in the file
    int v = 0;
    Text time;
    Text boot;
    std::uint64_t uid = 0;
    Text command;
    Text event;
    std::optional<Text> run;
    std::optional<std::uint64_t> step;
    std::optional<units::MiB> from;
    std::optional<units::MiB> to;
    std::optional<units::MiB> readback;
    std::optional<units::MiB> effective;  // the effective cap the caller passed (apply --effective)
    // A Linux trial's value (docs/linux.md, "The journal"): pages of page_size bytes. Its to_mib
    // is absent when the value is not a whole number of MiB.
    std::optional<std::uint64_t> to_pages;
    std::optional<std::uint64_t> page_size;
    Text effective_source;
    Text reason;
    Text by;  // which wiredcap command asked for an apply ("set"); empty: not named
};

using Entry = BasicEntry<std::string>;
using EntryView = BasicEntry<std::string_view>;

namespace detail {

// One field in the other form: a text as the other text type, an optional one likewise, any other
// value as it is.
template <class To, class From>
To field_as(const From& from) {
    return To(from);
}
template <class To, class From>
std::optional<To> field_as(const std::optional<From>& from) {
    return from ? std::optional<To>(To(*from)) : std::nullopt;
}

// The record in the other form, field by field in the order they are declared: the fields are
// named only in BasicEntry. A field added there fails to compile here until it is added (the
// binding must name every one), and the test of every field (journal_reader_test.cpp:
// EveryFieldComesThroughTheLentRecord) holds each to its own value.
template <class To, class From>
BasicEntry<To> converted(const BasicEntry<From>& e) {
    const auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17] = e;
    return BasicEntry<To>{f0,
                          f1,
                          field_as<To>(f2),
                          field_as<To>(f3),
                          f4,
                          field_as<To>(f5),
                          field_as<To>(f6),
                          field_as<To>(f7),
                          f8,
                          f9,
                          f10,
                          f11,
                          f12,
                          f13,
                          f14,
                          field_as<To>(f15),
                          field_as<To>(f16),
                          field_as<To>(f17)};
}

}  // namespace detail

// The one as the other, field for field.
[[nodiscard]] inline Entry to_entry(const EntryView& v) { return detail::converted<std::string>(v); }
[[nodiscard]] inline EntryView view_of(const Entry& e) { return detail::converted<std::string_view>(e); }  // views into e

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

// Whether a record's field is the literal `word`: compared in place, not by a call to strlen and
// compare (the replay asks this many times of every record of the journal, issue 25 point 4).
template <std::size_t N>
[[nodiscard]] bool is_word(std::string_view field, const char (&word)[N]) {
    return field.size() == N - 1 && std::memcmp(field.data(), word, N - 1) == 0;
}

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
// its text nor its entries are held (what status and recover read, issue 25 point 4). On an
// error the sink may have had some records already: the caller drops what it made of them.
[[nodiscard]] Expected<Notes> read_journal(const std::string& path, const RecordSink& sink,
                                           Position* end = nullptr);

// The records after `from`, numbered on, handed to `sink`; `end` says where this reading stopped.
// nullopt, with nothing read: the file is not the one that was read (another file at the path,
// shorter, or no newline where the reading stopped: compacted, say), or `from` cannot be
// continued -- read it again from the start.
[[nodiscard]] Expected<std::optional<Notes>> read_journal_after(const std::string& path, const Position& from,
                                                                const RecordSink& sink, Position* end);

}  // namespace wiredcap::journal_view
