// Exact, unambiguous printing of sizes. Integer arithmetic only.
#pragma once

#include <cstdint>
#include <string>

#include "wiredcap/units/quantity.hpp"
#include "wiredcap/units/size_unit.hpp"

namespace wiredcap::units {

// The value of `bytes` in `unit` written as an exact decimal: "232", "249.108103168".
// Always finite: every unit is 2^a * 5^b bytes.
[[nodiscard]] std::string exact_decimal(Bytes bytes, SizeUnit unit);

// The value of `bytes` in `unit` cut (rounded down) to `decimals` places: "249.10". Every figure
// wiredcap prints for orientation uses this: a cut never shows a limit above what it is.
[[nodiscard]] std::string truncated_decimal(Bytes bytes, SizeUnit unit, unsigned decimals);

// The value of `bytes` in `unit` rounded up to `decimals` places: "0.01" for one byte of a GB.
// For what something needs, printed for orientation: a need never shows below what it is.
[[nodiscard]] std::string rounded_up_decimal(Bytes bytes, SizeUnit unit, unsigned decimals);

// "237568 MiB": count and symbol, the form parse_size reads back.
template <class Q>
[[nodiscard]] std::string to_string(const Q& q) {
    return std::to_string(q.count()) + " " + std::string(Q::unit::symbol);
}

// "237568 MiB (232.00 GiB, 249.10 GB)": exact MiB first, then orientation figures cut to two
// decimals (never rounded up: 229375 MiB is 223.99 GiB, not the 224.00 GiB it stays below).
[[nodiscard]] std::string describe(MiB mib);

}  // namespace wiredcap::units
