// The ramp's plan (docs/design.md section 6): the exact values it will try, computed before anything
// is touched, and refused as a whole when any part breaks the policy.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

struct PlanInput {
    units::MiB current;    // read back; 0 = OS default
    units::MiB effective;  // the effective cap now (effective_cap.hpp): every step is above it
    std::string effective_source;
    units::Bytes memsize;
    PolicyView policy;
    units::MiB target;
    std::optional<units::MiB> step;  // default: the policy's max_step
    std::optional<recovery::StepRef> hang_ceiling;
    bool ignore_hang_ceiling = false;
};

struct Plan {
    units::MiB base;  // what the first step counts from: the effective cap, or min
    units::MiB step;
    std::vector<units::MiB> steps;
    units::MiB target;  // what was asked for: always the last step (a plan that a
                        // hang ceiling would cut short is refused, never shortened)
};

struct PlanError {
    ExitCode code;
    std::string message;
};

[[nodiscard]] Expected<Plan, PlanError> make_plan(const PlanInput& in);

// "41.7 %": value as a share of memory, one decimal, integer arithmetic.
[[nodiscard]] std::string percent_of(units::MiB value, units::Bytes memsize);

// A size as wiredcap's parser reads it back: "72GiB" when whole GiB, else "73729MiB".
[[nodiscard]] std::string size_argument(units::MiB v);

}  // namespace wiredcap::cli
