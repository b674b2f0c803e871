#include "wiredcap/ramp/plan.hpp"

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
        return refused("--step " + units::describe(step) +
                       " is larger than the policy's max_step " + units::describe(p.max_step));
    if (in.target < p.min || in.target > p.max)
        return refused(units::describe(in.target) + " is outside the permitted band " +
                       units::describe(p.min) + " to " + units::describe(p.max));
    const auto usable = checked_sub(units::floor_cast<MiB>(in.memsize), p.reserve);
    if (!usable || in.target > *usable)
        return refused(units::describe(in.target) +
                       " would leave the OS less than the reserve of " +
                       units::describe(p.reserve));
    if (in.target <= in.effective)
        return PlanError{
            ExitCode::usage,
            units::describe(in.target) + " is not above the effective cap now, " +
                units::describe(in.effective) + " [" + in.effective_source +
                "]; a ramp only raises it (to lower it: wiredcap set SIZE, or wiredcap reset)"};
    return std::nullopt;
}

// A target at or above the journal's hang ceiling is refused as a whole (docs/design.md §6, Plan): a plan cut
// short below it would end without reaching what was asked for, and a script must never read
// that as success. The refusal names the highest step of the same plan below the ceiling, as a
// `ramp --to` the tool accepts, when there is one.
std::optional<PlanError> check_ceiling(const PlanInput& in, const std::vector<MiB>& steps) {
    if (!in.hang_ceiling || in.ignore_hang_ceiling || in.target < in.hang_ceiling->value)
        return std::nullopt;
    const MiB ceiling = in.hang_ceiling->value;
    const std::string why = units::describe(in.target) + " is at or above " +
                            units::describe(ceiling) + ", which " +
                            recovery::hang_origin(*in.hang_ceiling) + "; ";
    std::optional<MiB> below;
    for (const MiB v : steps)
        if (v < ceiling) below = v;
    if (!below) return refused(why + "choose --to below it, or pass --ignore-hang-ceiling");
    return refused(why + "the highest step of this plan below it: wiredcap ramp --to " +
                   size_argument(*below) + " (or pass --ignore-hang-ceiling)");
}

}  // namespace

Expected<Plan, PlanError> make_plan(const PlanInput& in) {
    const MiB step = in.step.value_or(in.policy.max_step);
    if (auto e = check_request(in, step)) return *e;
    // Steps count from the effective cap (the OS default's value when the knob is 0), never from
    // below the band's floor: the helper permits every value up to min anyway.
    const MiB base = in.effective < in.policy.min ? in.policy.min : in.effective;
    Plan plan{base, step, {}, in.target};
    MiB next = base;
    while (next < in.target) {
        const auto up = checked_add(next, step);
        next = up && *up < in.target ? *up : in.target;
        plan.steps.push_back(next);
    }
    if (plan.steps.empty()) plan.steps.push_back(in.target);  // from below the band straight to min
    if (auto e = check_ceiling(in, plan.steps)) return *e;
    return plan;
}

std::string percent_of(MiB value, units::Bytes memsize) {
    // MiB counts stay below 2^44, so count * 1000 cannot overflow.
    const std::uint64_t ram = units::floor_cast<MiB>(memsize).count();
    if (ram == 0) return "?";
    const std::uint64_t tenths = (value.count() * 1000 + ram / 2) / ram;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " %";
}

std::string size_argument(units::MiB v) {
    constexpr std::uint64_t kMiBPerGiB = 1024;
    if (v.count() % kMiBPerGiB == 0) return std::to_string(v.count() / kMiBPerGiB) + "GiB";
    return std::to_string(v.count()) + "MiB";
}

}  // namespace wiredcap::cli
