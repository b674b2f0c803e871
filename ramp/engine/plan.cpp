#include "engine/plan.hpp"

#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

PlanError refused(const std::string& m) { return PlanError{ExitCode::refused_by_policy, m}; }

// The checks that refuse the whole plan before any step is computed.
std::optional<PlanError> check_request(const PlanInput& in, MiB step) {
    const auto& p = in.policy;
    if (step.count() == 0) return PlanError{ExitCode::usage, "--step must be above 0 MiB"};
    if (step > p.max_step)
        return refused("--step " + units::describe(step) + " is larger than the policy's max_step " +
                       units::describe(p.max_step));
    if (in.target < p.min || in.target > p.max)
        return refused(units::describe(in.target) + " is outside the permitted band " + units::describe(p.min) +
                       " to " + units::describe(p.max));
    const auto usable = checked_sub(units::floor_cast<MiB>(in.memsize), p.reserve);
    if (!usable || in.target > *usable)
        return refused(units::describe(in.target) + " would leave the OS less than the reserve of " +
                       units::describe(p.reserve));
    if (in.target <= in.effective)
        return PlanError{ExitCode::usage, units::describe(in.target) + " is not above the effective cap now, " +
                                              units::describe(in.effective) + " [" + in.effective_source +
                                              "]; a ramp only raises it (to lower it: wiredcap set SIZE, or wiredcap reset)"};
    return std::nullopt;
}

}  // namespace

Expected<Plan, PlanError> make_plan(const PlanInput& in) {
    const MiB step = in.step.value_or(in.policy.max_step);
    if (auto e = check_request(in, step)) return *e;
    // Steps count from the effective cap (the OS default's value when the knob is 0), never from
    // below the band's floor: the helper permits every value up to min anyway.
    const MiB base = in.effective < in.policy.min ? in.policy.min : in.effective;
    Plan plan{base, step, {}, in.target, std::nullopt, std::nullopt};
    MiB next = base;
    while (next < in.target) {
        const auto up = checked_add(next, step);
        next = up && *up < in.target ? *up : in.target;
        plan.steps.push_back(next);
    }
    if (plan.steps.empty()) plan.steps.push_back(in.target);  // from below the band straight to min
    if (in.hang_ceiling && !in.ignore_hang_ceiling) {
        const auto& c = *in.hang_ceiling;
        std::erase_if(plan.steps, [&](MiB v) { return v >= c.value; });
        plan.ceiling = c.value;
        const std::string origin = recovery::hang_origin(c);
        plan.stopped_below_ceiling =
            units::to_string(c.value) + " " + origin + "; the plan stops below it (--ignore-hang-ceiling to go further)";
        if (plan.steps.empty())
            return refused("every step would be at or above " + units::describe(c.value) + ", which " + origin +
                           "; choose --to below it, or pass --ignore-hang-ceiling");
    }
    return plan;
}

std::string percent_of(MiB value, units::Bytes memsize) {
    // MiB counts stay below 2^44, so count * 1000 cannot overflow.
    const std::uint64_t ram = units::floor_cast<MiB>(memsize).count();
    if (ram == 0) return "?";
    const std::uint64_t tenths = (value.count() * 1000 + ram / 2) / ram;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " %";
}

}  // namespace wiredcap::cli
