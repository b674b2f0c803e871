// The simulated Macs: named machine profiles a fresh simulator state is made from.
//
// One profile per Apple Silicon memory size sold (8 to 512 GB), plus a Ventura machine. RAM sizes
// are exact (Apple's "16 GB" is 16 GiB of bytes). Each default cap says where it comes from
// (default_cap_basis): three are published measurements (16, 48 and 128 GB; docs/bands.md
// cites them), the rest are ESTIMATES: 2/3 of RAM up to 36 GiB (the old rule, which the 16 GB
// measurement still matches), about 75-78% at 64-96 GiB, about 82-84% from 192 GiB up (the shape
// of the 48 and 128 GB measurements). The related keys' values are guesses of the same kind.
// Tests that depend on a profile assert the shape (ranges), never an exact figure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::kernel::sim {

// The read-only companions of iogpu.wired_limit_mb, as raw sysctl integers; nullopt where the
// key does not exist on that machine.
struct RelatedValues {
    std::optional<std::uint64_t> wired_lwm_mb;             // iogpu.wired_lwm_mb (MiB)
    std::optional<std::uint64_t> dynamic_lwm;              // iogpu.dynamic_lwm (0/1)
    std::optional<std::uint64_t> disable_wired_collector;  // iogpu.disable_wired_collector (0/1)
    std::optional<std::uint64_t>
        debug_wired_limit_bytes;  // debug.iogpu.wired_limit (bytes, Ventura)

    friend bool operator==(const RelatedValues&, const RelatedValues&) = default;
};

struct Profile {
    std::string_view name;         // what `wiredcap-sim init --profile` takes
    std::string_view description;  // machine and macOS release, for people
    units::Bytes memsize;          // hw.memsize
    units::MiB default_cap;        // the effective cap while iogpu.wired_limit_mb is 0
    bool has_wired_limit_mb;       // false before macOS 14 (Sonoma)
    RelatedValues related;
    std::string_view default_cap_basis;  // "measured: <source>" or "estimate: <rule>"
    std::string_view macos;  // the macOS release, "15.6": System Settings names differ by release
};

inline constexpr std::string_view kDefaultProfileName = "m2ultra-192";

// Every profile, in the order `wiredcap-sim` lists them.
[[nodiscard]] std::span<const Profile> all_profiles() noexcept;

// The profile of that exact name, or nullptr.
[[nodiscard]] const Profile* find_profile(std::string_view name) noexcept;

// "m4-16, m1max-64, ...": for messages that refuse an unknown name.
[[nodiscard]] std::string profile_names();

// The profile a missing state file stands for: kDefaultProfileName.
[[nodiscard]] const Profile& default_profile() noexcept;

}  // namespace wiredcap::kernel::sim
