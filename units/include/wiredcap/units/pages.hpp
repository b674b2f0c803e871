// A count of kernel pages whose page size is a reading, not an assumption.
//
// Why a separate type: Linux's TTM counts its limit (`pages_limit`) in pages of PAGE_SIZE, and
// the tool people use for it prints those pages as "GB". A page count is neither MiB nor GiB,
// and a page size is a property of the running kernel (sysconf(_SC_PAGESIZE)), so `Pages`
// carries its PageSize as a value and converts to nothing implicitly: not from a raw integer,
// not from MiB, not to MiB. The only ways between pages and sizes are the named functions
// below; tests/compile_fail proves the rest does not compile.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::units {

// The size of one page in bytes: a power of two from 4 KiB to 64 KiB (what Linux supports on
// x86-64, arm64 and ppc64). Made only from a reading.
class PageSize {
public:
    [[nodiscard]] static constexpr std::optional<PageSize> from_bytes(std::uint64_t b) noexcept {
        const bool power_of_two = b != 0 && (b & (b - 1)) == 0;
        if (!power_of_two || b < 4096 || b > 65536) return std::nullopt;
        return PageSize{b};
    }
    [[nodiscard]] constexpr std::uint64_t bytes() const noexcept { return b_; }
    friend constexpr bool operator==(PageSize, PageSize) noexcept = default;

private:
    constexpr explicit PageSize(std::uint64_t b) noexcept : b_(b) {}
    std::uint64_t b_;
};

// Thrown when two page counts of different page sizes are compared or added: a program error,
// because every count in one run comes from one kernel.
class PageSizeMismatch : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

class Pages {
public:
    // The only way to attach "pages" to a number; nullopt when the byte size would not fit.
    [[nodiscard]] static constexpr std::optional<Pages> from_count(std::uint64_t n,
                                                                   PageSize size) noexcept {
        if (n > std::numeric_limits<std::uint64_t>::max() / size.bytes()) return std::nullopt;
        return Pages{n, size};
    }
    template <std::floating_point F>
    static std::optional<Pages> from_count(F, PageSize) = delete;
    // A size is never silently a page count (nor the reverse): use floor_pages/exact_pages.
    template <class Unit>
    Pages(const Quantity<Unit>&) = delete;  // NOLINT(google-explicit-constructor)

    [[nodiscard]] constexpr std::uint64_t count() const noexcept { return n_; }
    [[nodiscard]] constexpr PageSize page_size() const noexcept { return size_; }
    // Exact: the invariant keeps count * page size within 64 bits.
    [[nodiscard]] constexpr Bytes to_bytes() const noexcept {
        return *Bytes::from_count(n_ * size_.bytes());
    }

    friend constexpr bool operator==(const Pages& a, const Pages& b) {
        same_size(a, b);
        return a.n_ == b.n_;
    }
    friend constexpr std::strong_ordering operator<=>(const Pages& a, const Pages& b) {
        same_size(a, b);
        return a.n_ <=> b.n_;
    }
    [[nodiscard]] friend constexpr std::optional<Pages> checked_sub(const Pages& a,
                                                                    const Pages& b) {
        same_size(a, b);
        if (b.n_ > a.n_) return std::nullopt;
        return Pages{a.n_ - b.n_, a.size_};
    }

private:
    constexpr Pages(std::uint64_t n, PageSize size) noexcept : n_(n), size_(size) {}
    static constexpr void same_size(const Pages& a, const Pages& b) {
        if (a.size_ != b.size_) throw PageSizeMismatch("page counts of different page sizes");
    }

    std::uint64_t n_;
    PageSize size_;
};

// The whole pages that fit in `b` (rounded down: a limit never grows in conversion).
[[nodiscard]] constexpr Pages floor_pages(Bytes b, PageSize size) noexcept {
    return *Pages::from_count(b.count() / size.bytes(), size);
}

// `b` as pages, or nullopt when it is not a whole number of pages.
[[nodiscard]] constexpr std::optional<Pages> exact_pages(Bytes b, PageSize size) noexcept {
    if (b.count() % size.bytes() != 0) return std::nullopt;
    return Pages::from_count(b.count() / size.bytes(), size);
}

// "27648000 pages of 4 KiB (108000 MiB, 105.46 GiB)": the count first, then MiB and GiB, each
// cut (never rounded up) to two decimals where not whole.
[[nodiscard]] std::string describe(Pages p);

// A byte count (a driver's reading) in the same three figures: its whole pages, then the bytes
// of a part page, never rounded into one: "16469033 pages of 4 KiB (...) + 512 bytes".
[[nodiscard]] std::string describe(Bytes b, PageSize size);

}  // namespace wiredcap::units
