// The permitted band (docs/design.md section 5): which values root allows the cap to take, how much
// memory is always left to the OS, who may raise the cap, and how far in one step.
//
// File format (/etc/wiredcap.conf): `key = value` lines, whole-line `#` comments, sizes always
// with a unit. Keys: min, max, reserve, max_step (required), group (optional: without it only
// root may change the cap), healthy_after (optional duration, default 10m: how long the machine
// must stay up with a persisted value applied at boot before the boot guard calls it healthy),
// vouched (optional size inside the band: a value the administrator validated on machines of
// this kind, which set and persist may reach from any starting point in one write, without the
// max_step rule; docs/fleet.md) and vouched_note (optional free text: who validated it, where).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/expected.hpp"
#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::policy {

using namespace units::literals;

// No policy may leave the OS less than this. Published headroom advice runs from 4 to 16 GiB;
// below 4 GiB machines have hung outright.
inline constexpr units::MiB kReserveFloor = 4_GiB;
// The built-in band (no policy file, docs/bands.md): half of RAM up to RAM minus a reserve of
// 8 GiB or RAM/16, whichever is larger (rounded up to whole GiB), steps of 8 GiB; none below
// 32 GiB of RAM, where the OS default already takes about 2/3 and RAM - 8 GiB is not above it.
inline constexpr units::MiB kBuiltinReserve = 8_GiB;
inline constexpr units::MiB kBuiltinMaxStep = 8_GiB;
inline constexpr units::MiB kBuiltinMinRam = 32_GiB;
// The policy file may not be larger than this (it is a handful of lines).
inline constexpr std::size_t kMaxPolicyBytes = 64 * 1024;
// The boot guard's wait before a boot's value counts as healthy, and the shortest one allowed: a
// minute is about the least in which a machine that will hang under a cap shows it.
inline constexpr std::chrono::seconds kDefaultHealthyAfter{10 * 60};
inline constexpr std::chrono::seconds kMinHealthyAfter{60};

enum class Source { file, builtin };

struct Policy {
    units::MiB min;
    units::MiB max;
    units::MiB reserve;
    units::MiB max_step;
    std::optional<std::string> group;
    std::chrono::seconds healthy_after = kDefaultHealthyAfter;
    Source source;
    std::vector<std::string> warnings;  // e.g. the GB x 1000 slip
    std::optional<units::MiB> vouched;  // exempt from max_step; inside [min, max]
    std::string vouched_note;
    std::string sha256;  // of the policy file's text; empty for the built-in band
};

// The journal's words for a write of the vouched value: the policy file and its content hash,
// which `shasum -a 256` on the file reproduces. `path`: where the policy was read from.
[[nodiscard]] std::string vouched_by(const Policy& p, const std::string& path);

// Parses and validates policy text for a machine with `memsize` bytes of RAM. `reserve_floor`:
// the least reserve allowed (Linux's TTM band has its own, linux/band.hpp).
[[nodiscard]] Expected<Policy> parse(std::string_view text, units::Bytes memsize,
                                     units::MiB reserve_floor = kReserveFloor);

// The conservative band used when no policy file exists. An error when the machine is too
// small for it (raising then needs a policy file; reset still works).
[[nodiscard]] Expected<Policy> builtin(units::Bytes memsize);

// The built-in band's reserve for this much RAM: max(kBuiltinReserve, RAM/16), whole GiB up.
[[nodiscard]] units::MiB builtin_reserve(units::MiB ram);

// Why `value` may not be applied when the cap currently is `current` (0 = OS default), or
// nullopt when it may. Lowering never counts against max_step: it is the safe direction; nor
// does the policy's vouched value, which the administrator validated for this kind of machine.
// `effective`: the effective cap wiredcap read (Metal) or was given, when the knob is 0; the
// step is measured from it (never from below min). Without it, from min.
[[nodiscard]] std::optional<std::string> refusal(
    const Policy& p, units::Bytes memsize, units::MiB current, units::MiB value,
    std::optional<units::MiB> effective = std::nullopt);

}  // namespace wiredcap::policy
