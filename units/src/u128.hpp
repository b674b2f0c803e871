// 128-bit intermediate arithmetic for exact size math: a 64-bit byte count times a unit or a
// power of ten cannot overflow it. GCC and clang both have it (including for aarch64-macos);
// __extension__ keeps -Wpedantic quiet about a non-ISO type that is used on purpose.
#pragma once

namespace wiredcap::units::detail {
__extension__ typedef unsigned __int128 u128;  // NOLINT(modernize-use-using)
}  // namespace wiredcap::units::detail
