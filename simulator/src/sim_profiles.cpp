#include "wiredcap/simulator/sim_profiles.hpp"

#include <array>

#include "wiredcap/units/literals.hpp"

namespace wiredcap::kernel::sim {
namespace {

using namespace units::literals;

// Sonoma and later. wired_lwm_mb 0 stands for "the OS default" as the cap's 0 does; the
// dynamic low-water mark is assumed on. disable_wired_collector is given only to macOS 26.1
// profiles, the release docs/design.md section 2 names for the idle-unwiring collector; whether older
// releases have the key is unconfirmed, and its absence exercises the "not present" path.
constexpr RelatedValues kSonoma{0, 1, std::nullopt, std::nullopt};
constexpr RelatedValues kTahoe{0, 1, 0, std::nullopt};
// Ventura has none of the iogpu.* keys, only the debug key in bytes; 0 is its default.
constexpr RelatedValues kVentura{std::nullopt, std::nullopt, std::nullopt, 0};

constexpr std::string_view kTwoThirds =
    "estimate: 2/3 of RAM, the old rule (Ollama before PR #2354)";
constexpr std::string_view kThreeQuarters =
    "estimate: about 3/4 of RAM, between the 48 and 128 GB measurements";
constexpr std::string_view kLarge = "estimate: about 82-84% of RAM, the share measured at 128 GB";

// Default caps, as share of RAM: 2/3 up to 36 GiB, 37.44 GiB of 48 (78.0%, measured),
// 50176/65536 = 76.6%, 73728/98304 = 75.0%, 107.52 GiB of 128 (84.0%, measured),
// 161792/196608 = 82.3%, 217088/262144 = 82.8%, 440320/524288 = 84.0%; Ventura used the old
// 3/4 rule: 49152/65536 = 75.0%.
constexpr std::array kProfiles{
    Profile{"m2-8", "MacBook Air M2, 8 GB, macOS 15.6", 8_GiB, 5461_MiB, true, kSonoma, kTwoThirds,
            "15.6"},
    Profile{"m4-16", "Mac mini M4, 16 GB, macOS 26.1", 16_GiB, 10922_MiB, true, kTahoe,
            "measured: 10.67 GB on an M4 16 GB, macOS 15.6 (exo-explore/exo PR #1672)", "26.1"},
    Profile{"m3pro-18", "MacBook Pro M3 Pro, 18 GB, macOS 15.6", 18_GiB, 12288_MiB, true, kSonoma,
            kTwoThirds, "15.6"},
    Profile{"m4-24", "Mac mini M4, 24 GB, macOS 15.6", 24_GiB, 16384_MiB, true, kSonoma, kTwoThirds,
            "15.6"},
    Profile{"m4-32", "MacBook Air M4, 32 GB, macOS 26.1", 32_GiB, 21845_MiB, true, kTahoe,
            kTwoThirds, "26.1"},
    Profile{"m3max-36", "MacBook Pro M3 Max, 36 GB, macOS 15.6", 36_GiB, 24576_MiB, true, kSonoma,
            kTwoThirds, "15.6"},
    Profile{"m5pro-48", "MacBook Pro M5 Pro, 48 GB, macOS 26.1", 48_GiB, 38338_MiB, true, kTahoe,
            "measured: 37.44 GiB on an M5 Pro 48 GB (yanun0323/Whallm PR #1)", "26.1"},
    Profile{"m1max-64", "MacBook Pro M1 Max, 64 GB, macOS 14.7", 64_GiB, 50176_MiB, true, kSonoma,
            kThreeQuarters, "14.7"},
    Profile{"m2max-96", "MacBook Pro M2 Max, 96 GB, macOS 15.6", 96_GiB, 73728_MiB, true, kSonoma,
            kThreeQuarters, "15.6"},
    Profile{
        "m4max-128", "MacBook Pro M4 Max, 128 GB, macOS 26.1", 128_GiB, 110100_MiB, true, kTahoe,
        "measured: 107.52 GiB on 128 GB Macs, macOS 26 (antirez/ds4 PR #893; osaurus-ai/osaurus PR #1958)",
        "26.1"},
    Profile{"m2ultra-192", "Mac Studio M2 Ultra, 192 GB, macOS 15.6", 192_GiB, 161792_MiB, true,
            kSonoma, kLarge, "15.6"},
    Profile{"m3ultra-256", "Mac Studio M3 Ultra, 256 GB, macOS 15.6", 256_GiB, 217088_MiB, true,
            kSonoma, kLarge, "15.6"},
    Profile{"m3ultra-512", "Mac Studio M3 Ultra, 512 GB, macOS 26.1", 512_GiB, 440320_MiB, true,
            kTahoe, kLarge, "26.1"},
    Profile{"ventura-64", "Mac Studio M1 Max, 64 GB, macOS 13.7 (no iogpu.wired_limit_mb)", 64_GiB,
            49152_MiB, false, kVentura, "estimate: 3/4 of RAM, the old rule", "13.7"},
};

// The index of kDefaultProfileName, checked at compile time so default_profile() needs no
// run-time lookup that could fail.
constexpr std::size_t kDefaultIndex = 10;
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
