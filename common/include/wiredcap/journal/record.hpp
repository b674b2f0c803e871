// One journal record's fields, as every reader of the journal takes them: the CLI's parsers
// (cli/include/wiredcap/cli/readings/journal_reader.hpp) and the setuid helper's (helper/include/wiredcap/helper/journal/record_fields.hpp)
// each fill one, and the classifier (classifier.hpp) reads only this. The format is the
// helper's (helper/include/wiredcap/helper/journal/journal.hpp); the words in it are vocabulary.hpp's.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

// A journal record's fields, listed once for both forms of a record: Entry holds its texts
// (std::string), EntryView lends them (std::string_view into the line just read, valid only for
// the call it is lent to). Reading a journal line by line, copying each string into an Entry was
// a sixth of status's instructions on a 1.5 MiB journal (callgrind, bench/journal_scale.sh); whoever
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
    bool ignore_hang_ceiling =
        false;  // the write overrode the hang ceiling (a person's --ignore-hang-ceiling)
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
    const auto& [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17,
                 f18] = e;
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
                          field_as<To>(f17),
                          f18};
}

}  // namespace detail

// The one as the other, field for field.
[[nodiscard]] inline Entry to_entry(const EntryView& v) {
    return detail::converted<std::string>(v);
}
[[nodiscard]] inline EntryView view_of(const Entry& e) {
    return detail::converted<std::string_view>(e);
}  // views into e

// Whether a record's field is the literal `word`: compared in place, not by a call to strlen and
// compare (the replay asks this many times of every record of the journal, bench/journal_scale.sh).
template <std::size_t N>
[[nodiscard]] bool is_word(std::string_view field, const char (&word)[N]) {
    return field.size() == N - 1 && std::memcmp(field.data(), word, N - 1) == 0;
}

}  // namespace wiredcap::journal
