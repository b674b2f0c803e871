// The effective cap: the GPU's cap as it is now, the starting point of every raise (docs/design.md §5).
// With iogpu.wired_limit_mb at 0 it is the OS default, which only Metal knows (its
// recommendedMaxWorkingSetSize; the simulator's model of it on a simulated Mac). With the knob
// set, Metal follows the knob exactly, so the knob stands in when Metal cannot be read. When
// neither says (knob 0, no Metal), the person gives it with --from SIZE: never a silent guess.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

struct EffectiveCap {
    units::MiB value = units::MiB::zero();  // whole MiB, rounded down (a raise must exceed it)
    std::string source;                     // for people: "Metal recommendedMaxWorkingSetSize", ...
    std::string helper_source;              // for the helper's journal when the knob is 0:
                                            // metal | simulated-metal | given (else empty)
};

// The effective cap now; an error (a usage error for the caller) when it is unknown and
// `from` is missing, or when `from` is given although the cap could be read.
[[nodiscard]] Expected<EffectiveCap> effective_cap(const MachineReadings& m,
                                                   const MetalReading& metal,
                                                   const std::optional<units::MiB>& from);

// What the helper journals with a change from the OS default: --effective SIZE
// --effective-source WORD; nothing when the knob is set (the helper measures from the knob).
[[nodiscard]] std::vector<std::string> effective_args(const EffectiveCap& e);

// "161792 MiB (158.00 GiB, 169.65 GB)   [Metal recommendedMaxWorkingSetSize]"
[[nodiscard]] std::string effective_text(const EffectiveCap& e);

// --from SIZE, parsed as every size is (a unit, exact MiB, above 0).
[[nodiscard]] Expected<std::optional<units::MiB>> parse_from(
    const std::optional<std::string>& text);

}  // namespace wiredcap::cli
