// The units a person may write, as a run-time value: what the parser reads and the formatter
// prints. Pages are deliberately absent: nobody types a size in pages.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::units {

enum class SizeUnit {
    bytes,
    kilobytes,
    megabytes,
    gigabytes,
    terabytes,
    kibibytes,
    mebibytes,
    gibibytes,
    tebibytes
};

struct SizeUnitInfo {
    SizeUnit unit;
    std::string_view symbol;
    std::uint64_t bytes;
    Family family;
};

template <class U>
constexpr SizeUnitInfo info_of(SizeUnit u) {
    return {u, U::symbol, U::bytes, U::family};
}

// In the order error messages list them.
inline constexpr std::array<SizeUnitInfo, 9> kSizeUnits{{
    info_of<unit::Bytes>(SizeUnit::bytes),
    info_of<unit::KB>(SizeUnit::kilobytes),
    info_of<unit::MB>(SizeUnit::megabytes),
    info_of<unit::GB>(SizeUnit::gigabytes),
    info_of<unit::TB>(SizeUnit::terabytes),
    info_of<unit::KiB>(SizeUnit::kibibytes),
    info_of<unit::MiB>(SizeUnit::mebibytes),
    info_of<unit::GiB>(SizeUnit::gibibytes),
    info_of<unit::TiB>(SizeUnit::tebibytes),
}};

// "B kB MB GB TB KiB MiB GiB TiB"
inline constexpr std::string_view kAcceptedUnitList = "B kB MB GB TB KiB MiB GiB TiB";

[[nodiscard]] constexpr const SizeUnitInfo& info(SizeUnit u) noexcept {
    return kSizeUnits[static_cast<std::size_t>(u)];
}

// Exact, case-sensitive match of a symbol; "KB", "mb", "M" and friends are not units.
[[nodiscard]] constexpr std::optional<SizeUnit> unit_from_symbol(std::string_view s) noexcept {
    for (const auto& i : kSizeUnits)
        if (i.symbol == s) return i.unit;
    return std::nullopt;
}

// The SizeUnit of a quantity type, for the types a person may write.
template <class Q>
constexpr SizeUnit size_unit_of() noexcept {
    constexpr auto u = unit_from_symbol(Q::unit::symbol);
    static_assert(u.has_value(), "this quantity type has no written unit (pages?)");
    return *u;
}

}  // namespace wiredcap::units
