#include "sim_profiles.hpp"

#include <array>

#include "wiredcap/units/literals.hpp"

namespace wiredcap::kernel::sim {
namespace {

using namespace units::literals;

// Sonoma and later. wired_lwm_mb 0 stands for "the OS default" as the cap's 0 does; the
// dynamic low-water mark is assumed on. disable_wired_collector is given only to macOS 26.1
// profiles, the release DESIGN.md names for the idle-unwiring collector; whether older
// releases have the key is unconfirmed, and its absence exercises the "not present" path.
constexpr RelatedValues kSonoma{0, 1, std::nullopt, std::nullopt};
constexpr RelatedValues kTahoe{0, 1, 0, std::nullopt};
// Ventura has none of the iogpu.* keys, only the debug key in bytes; 0 is its default.
constexpr RelatedValues kVentura{std::nullopt, std::nullopt, std::nullopt, 0};

// Default caps, as share of RAM: 10922/16384 = 66.7%, 50176/65536 = 76.6%,
// 161792/196608 = 82.3%, 217088/262144 = 82.8%, 440320/524288 = 84.0%; Ventura used the old
// 3/4 rule: 49152/65536 = 75.0%.
constexpr std::array kProfiles{
    Profile{"m4-16", "Mac mini M4, 16 GB, macOS 26.1", 16_GiB, 10922_MiB, true, kTahoe},
    Profile{"m1max-64", "MacBook Pro M1 Max, 64 GB, macOS 14.7", 64_GiB, 50176_MiB, true, kSonoma},
    Profile{"m2ultra-192", "Mac Studio M2 Ultra, 192 GB, macOS 15.6", 192_GiB, 161792_MiB, true, kSonoma},
    Profile{"m3ultra-256", "Mac Studio M3 Ultra, 256 GB, macOS 15.6", 256_GiB, 217088_MiB, true, kSonoma},
    Profile{"m3ultra-512", "Mac Studio M3 Ultra, 512 GB, macOS 26.1", 512_GiB, 440320_MiB, true, kTahoe},
    Profile{"ventura-64", "Mac Studio M1 Max, 64 GB, macOS 13.7 (no iogpu.wired_limit_mb)", 64_GiB,
            49152_MiB, false, kVentura},
};

// The index of kDefaultProfileName, checked at compile time so default_profile() needs no
// run-time lookup that could fail.
constexpr std::size_t kDefaultIndex = 2;
static_assert(kProfiles[kDefaultIndex].name == kDefaultProfileName);

}  // namespace

std::span<const Profile> all_profiles() noexcept { return kProfiles; }

const Profile* find_profile(std::string_view name) noexcept {
    for (const auto& p : kProfiles)
        if (p.name == name) return &p;
    return nullptr;
}

std::string profile_names() {
    std::string names;
    for (const auto& p : kProfiles) names += (names.empty() ? "" : ", ") + std::string(p.name);
    return names;
}

const Profile& default_profile() noexcept { return kProfiles[kDefaultIndex]; }

}  // namespace wiredcap::kernel::sim
