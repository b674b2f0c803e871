// The verdict of `wiredcap fit`: does a model's total fit under the cap the GPU has now, after
// a raise the policy allows, or not on this machine; and the value to raise to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/ramp/plan.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

enum class Verdict { fits_now, fits_after_raise, does_not_fit, unknown };
[[nodiscard]] std::string_view verdict_name(Verdict v);

struct VerdictInput {
    units::Bytes total;                   // what the model needs
    std::optional<units::MiB> knob;       // iogpu.wired_limit_mb, read back (0: OS default)
    std::optional<units::Bytes> cap;      // the effective cap (Metal), when known
    std::optional<units::Bytes> memsize;  // hw.memsize
    std::optional<cli::PolicyView> policy;
    std::optional<units::MiB> hang_ceiling =
        std::nullopt;  // the lowest value that hung, per the journal
    std::string hang_unknown =
        {};  // why the hang ceiling is unknown (the journal could not be read)
};

struct VerdictResult {
    Verdict verdict = Verdict::unknown;
    std::optional<units::Bytes> cap;  // the cap compared against
    std::string cap_source;
    std::optional<units::MiB> highest;  // min(policy max, memory - reserve, below the hang ceiling)
    std::optional<units::MiB> recommended;  // the value to raise to
    std::optional<std::string> command;     // the one command to run
    std::string why;                        // for unknown / does_not_fit
};

[[nodiscard]] VerdictResult decide(const VerdictInput& in, std::string_view metal_source);

// A size as wiredcap's parser reads it back (the ramp's plan spells its steps so too).
using cli::size_argument;

}  // namespace wiredcap::fit
