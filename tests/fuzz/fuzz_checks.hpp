// What every fuzz target asserts with: a failed property aborts, so libFuzzer (and the corpus
// replay in every build) reports the input that broke it.
#pragma once

#include <cstdlib>
#include <string_view>

namespace wiredcap::fuzz {

inline void require(bool ok) {
    if (!ok) std::abort();
}

// Messages reach terminals: never a raw control or non-ASCII byte from the input.
[[nodiscard]] inline bool printable_message(std::string_view m) {
    for (const char ch : m) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c >= 0x7f) return false;
    }
    return true;
}

}  // namespace wiredcap::fuzz
