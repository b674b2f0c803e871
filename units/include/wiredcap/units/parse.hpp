// The strict size parser, for the command line and the policy file alike.
//
// Grammar:   size  := digits [ "." digits ] [ " " ] unit
//            digits:= "0" | [1-9][0-9]*          (ASCII only; no sign, hex, octal, separators)
//            unit  := B | kB | MB | GB | TB | KiB | MiB | GiB | TiB   (case-sensitive)
// A unit is never guessed: a bare number is an error. A fraction is accepted only when the
// result is a whole number of bytes (and, for parse_size_as, of the target unit). Nothing
// saturates, nothing wraps: a size whose bytes do not fit in 64 bits is an error.
#pragma once

#include <string>
#include <string_view>

#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"
#include "wiredcap/units/size_unit.hpp"

namespace wiredcap::units {

struct ParsedSize {
    Bytes bytes;    // the exact value
    SizeUnit unit;  // the unit it was written in
    bool had_fraction;
};

[[nodiscard]] Expected<ParsedSize> parse_size(std::string_view text);

// Parse and convert exactly to `target`; the error names the nearest whole values and, for a
// decimal unit where a binary one is wanted, the values the writer probably meant.
[[nodiscard]] Expected<std::uint64_t> parse_count_in(std::string_view text, SizeUnit target);

template <class Q>
[[nodiscard]] Expected<Q> parse_size_as(std::string_view text) {
    auto n = parse_count_in(text, size_unit_of<Q>());
    if (!n) return n.error();
    return *Q::from_count(*n);  // parse_count_in keeps within Q's range: bytes fit in 64 bits
}

// Quote user input for an error message: printable ASCII as is, everything else escaped, long
// input shortened, so a message can neither be forged nor flood a terminal.
[[nodiscard]] std::string quote_input(std::string_view text);

}  // namespace wiredcap::units
