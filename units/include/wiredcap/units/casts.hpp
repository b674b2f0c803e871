// Explicit, named conversions for everything an implicit conversion may not do: between the
// decimal and binary families, and from a finer unit to a coarser one.
//
// Each goes through the byte count, which always fits in 64 bits (quantity.hpp's invariant),
// so no cast can overflow on the way. Only ceil_cast can fail on the way out: rounding up
// the largest byte counts gives a size whose bytes no longer fit.
#pragma once

#include <optional>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::units {

// The value in To, or nullopt when it is not a whole number of To.
template <class To, class From>
requires(is_quantity<To>)
    [[nodiscard]] constexpr std::optional<To> exact_cast(const Quantity<From>& q) noexcept {
    const std::uint64_t b = q.bytes();
    if (b % To::unit::bytes != 0) return std::nullopt;
    return To::from_count(b / To::unit::bytes);
}

// The largest whole To that is not larger than q. Never fails.
template <class To, class From>
requires(is_quantity<To>) [[nodiscard]] constexpr To floor_cast(const Quantity<From>& q) noexcept {
    return *To::from_count(q.bytes() / To::unit::bytes);
}

// The smallest whole To that is not smaller than q, or nullopt when that does not fit.
template <class To, class From>
requires(is_quantity<To>)
    [[nodiscard]] constexpr std::optional<To> ceil_cast(const Quantity<From>& q) noexcept {
    const std::uint64_t b = q.bytes();
    const std::uint64_t whole = b / To::unit::bytes + (b % To::unit::bytes != 0 ? 1 : 0);
    return To::from_count(whole);
}

}  // namespace wiredcap::units
