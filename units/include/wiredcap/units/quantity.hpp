// Strong types for memory sizes.
//
// Why this exists: a root wrapper once permitted "180000 to 232000 MB" where the kernel wanted
// MiB, and refused the very value it was written to allow. Here every size carries its unit in
// its type, so that mistake is a compile error, not a review comment.
//
// Rules (docs/design.md section 4):
//  * A count is a std::uint64_t. No floating point anywhere.
//  * Invariant: every quantity's size in bytes fits in std::uint64_t. It is checked whenever a
//    quantity is made, so converting to a finer unit can never overflow.
//  * No construction from a raw integer (only the named factory `from_count`), and no way back
//    to one except `.count()`.
//  * A conversion is implicit only when it is exact for every value (std::chrono's rule) and
//    stays within one family: decimal to decimal, binary to binary, or anything to Bytes.
//    Everything else is an explicit, named cast (casts.hpp).
//  * Arithmetic and comparison only between values of one type (after an exact implicit
//    conversion). Overflow and underflow throw units::OverflowError; the checked_* functions
//    return std::nullopt instead.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace wiredcap::units {

// Decimal (10^3 steps) and binary (2^10 steps) units never mix implicitly. Bytes is the one
// unit both families convert to exactly.
enum class Family { bytes, decimal, binary };

namespace unit {
// Each unit is a tag: its symbol, its size in bytes, and its family.
#define WIREDCAP_UNIT(NAME, SYMBOL, BYTES, FAMILY)         \
    struct NAME {                                          \
        static constexpr std::string_view symbol = SYMBOL; \
        static constexpr std::uint64_t bytes = BYTES;      \
        static constexpr Family family = Family::FAMILY;   \
    }
WIREDCAP_UNIT(Bytes, "B", 1, bytes);
WIREDCAP_UNIT(KB, "kB", 1000ULL, decimal);
WIREDCAP_UNIT(MB, "MB", 1000ULL * 1000, decimal);
WIREDCAP_UNIT(GB, "GB", 1000ULL * 1000 * 1000, decimal);
WIREDCAP_UNIT(TB, "TB", 1000ULL * 1000 * 1000 * 1000, decimal);
WIREDCAP_UNIT(KiB, "KiB", 1ULL << 10, binary);
WIREDCAP_UNIT(MiB, "MiB", 1ULL << 20, binary);
WIREDCAP_UNIT(GiB, "GiB", 1ULL << 30, binary);
WIREDCAP_UNIT(TiB, "TiB", 1ULL << 40, binary);
// Pages are named by their size: Apple Silicon uses 16 KiB pages, Intel Macs 4 KiB.
WIREDCAP_UNIT(Pages16KiB, "pages[16KiB]", 16ULL << 10, binary);
WIREDCAP_UNIT(Pages4KiB, "pages[4KiB]", 4ULL << 10, binary);
#undef WIREDCAP_UNIT
}  // namespace unit

// Thrown by the arithmetic operators, by from_count_or_throw and by literals evaluated at
// compile time (where the throw turns into a compile error).
class OverflowError : public std::overflow_error {
public:
    using std::overflow_error::overflow_error;
};

template <class From, class To>
inline constexpr bool is_exact_conversion =
    (To::family == Family::bytes || From::family == To::family) && From::bytes % To::bytes == 0;

template <class Unit>
class Quantity;

template <class Q>
inline constexpr bool is_quantity = false;
template <class Unit>
inline constexpr bool is_quantity<Quantity<Unit>> = true;

template <class Unit>
class Quantity {
public:
    using unit = Unit;
    static constexpr std::uint64_t max_count =
        std::numeric_limits<std::uint64_t>::max() / Unit::bytes;

    // Named factory: the only way to attach a unit to a raw number. Refuses counts whose byte
    // size would not fit in 64 bits.
    [[nodiscard]] static constexpr std::optional<Quantity> from_count(std::uint64_t n) noexcept {
        if (n > max_count) return std::nullopt;
        return Quantity{n};
    }
    [[nodiscard]] static constexpr Quantity from_count_or_throw(std::uint64_t n) {
        if (n > max_count) throw OverflowError("size does not fit in 64 bits of bytes");
        return Quantity{n};
    }
    // A floating-point count would be truncated on the way in (1.5 -> 1), caught only by
    // -Wconversion. Deleted, so it is a compile error under any flags (tests/compile_fail).
    template <std::floating_point F>
    static std::optional<Quantity> from_count(F) = delete;
    template <std::floating_point F>
    static Quantity from_count_or_throw(F) = delete;
    [[nodiscard]] static constexpr Quantity zero() noexcept { return Quantity{0}; }
    [[nodiscard]] static constexpr Quantity max() noexcept { return Quantity{max_count}; }

    // Exact, same-family (or to-Bytes) conversion. Cannot overflow: the source's byte size fits
    // in 64 bits, and a finer unit's count is never larger than the byte count.
    template <class Other>
    requires(is_exact_conversion<Other, Unit> && !std::is_same_v<Other, Unit>) constexpr Quantity(
        const Quantity<Other>& other) noexcept  // NOLINT(google-explicit-constructor)
        : n_(other.count() * (Other::bytes / Unit::bytes)) {}

    [[nodiscard]] constexpr std::uint64_t count() const noexcept { return n_; }
    [[nodiscard]] constexpr std::uint64_t bytes() const noexcept { return n_ * Unit::bytes; }

    friend constexpr bool operator==(const Quantity& a, const Quantity& b) noexcept {
        return a.n_ == b.n_;
    }
    friend constexpr std::strong_ordering operator<=>(const Quantity& a,
                                                      const Quantity& b) noexcept {
        return a.n_ <=> b.n_;
    }

    [[nodiscard]] friend constexpr std::optional<Quantity> checked_add(const Quantity& a,
                                                                       const Quantity& b) noexcept {
        if (a.n_ > max_count - b.n_) return std::nullopt;
        return Quantity{a.n_ + b.n_};
    }
    [[nodiscard]] friend constexpr std::optional<Quantity> checked_sub(const Quantity& a,
                                                                       const Quantity& b) noexcept {
        if (b.n_ > a.n_) return std::nullopt;
        return Quantity{a.n_ - b.n_};
    }

    friend constexpr Quantity operator+(const Quantity& a, const Quantity& b) {
        return or_throw(checked_add(a, b), "size addition overflows");
    }
    friend constexpr Quantity operator-(const Quantity& a, const Quantity& b) {
        return or_throw(checked_sub(a, b), "size subtraction goes below zero");
    }

private:
    constexpr explicit Quantity(std::uint64_t n) noexcept : n_(n) {}

    static constexpr Quantity or_throw(std::optional<Quantity> q, const char* what) {
        if (!q) throw OverflowError(what);
        return *q;
    }

    std::uint64_t n_;
};

using Bytes = Quantity<unit::Bytes>;
using KB = Quantity<unit::KB>;
using MB = Quantity<unit::MB>;
using GB = Quantity<unit::GB>;
using TB = Quantity<unit::TB>;
using KiB = Quantity<unit::KiB>;
using MiB = Quantity<unit::MiB>;
using GiB = Quantity<unit::GiB>;
using TiB = Quantity<unit::TiB>;
using Pages16KiB = Quantity<unit::Pages16KiB>;
using Pages4KiB = Quantity<unit::Pages4KiB>;

}  // namespace wiredcap::units
