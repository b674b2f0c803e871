// Size literals: 232_GiB, 237568_MiB, 16_GB. They are consteval, so a literal whose byte size
// does not fit in 64 bits is a compile error (the throw in from_count_or_throw cannot be
// evaluated at compile time), never a wrapped value.
#pragma once

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::units::literals {

// Each suffix is the unit's symbol, as the parser spells it (kB, not KB).
#define WIREDCAP_LITERAL(TYPE, SUFFIX)                                   \
    consteval TYPE operator""_##SUFFIX(unsigned long long n) {           \
        return TYPE::from_count_or_throw(static_cast<std::uint64_t>(n)); \
    }
WIREDCAP_LITERAL(Bytes, B)
WIREDCAP_LITERAL(KB, kB)
WIREDCAP_LITERAL(MB, MB)
WIREDCAP_LITERAL(GB, GB)
WIREDCAP_LITERAL(TB, TB)
WIREDCAP_LITERAL(KiB, KiB)
WIREDCAP_LITERAL(MiB, MiB)
WIREDCAP_LITERAL(GiB, GiB)
WIREDCAP_LITERAL(TiB, TiB)
#undef WIREDCAP_LITERAL

}  // namespace wiredcap::units::literals
