// Products and sums of byte counts that say so, instead of wrapping, when they pass 64 bits: a
// crafted model's sizes must not wrap into a small need.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace wiredcap::fit {

// a x b x c ..., or nullopt on overflow.
inline std::optional<std::uint64_t> product(std::initializer_list<std::uint64_t> factors) {
    std::uint64_t out = 1;
    for (const auto f : factors) {
        if (f != 0 && out > UINT64_MAX / f) return std::nullopt;
        out *= f;
    }
    return out;
}

// a + b + c ..., or nullopt when a term is nullopt or the sum overflows.
inline std::optional<std::uint64_t> sum(std::initializer_list<std::optional<std::uint64_t>> terms) {
    std::uint64_t out = 0;
    for (const auto& t : terms) {
        if (!t || out > UINT64_MAX - *t) return std::nullopt;
        out += *t;
    }
    return out;
}

}  // namespace wiredcap::fit
