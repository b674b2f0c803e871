#include "wiredcap/cli/commands/fit_verdict.hpp"

#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::fit {
namespace {

using units::Bytes;
using units::MiB;

constexpr std::uint64_t kMiBPerGiB = 1024;

// The highest value the ramp may reach: the policy's max, memory minus the reserve, and strictly
// below a value that hung, the lowest of them (memory rounded down: an upper limit never rounds
// up). Zero when nothing is left (the ramp would refuse every step).
std::optional<MiB> highest_of(const VerdictInput& in) {
    if (!in.policy || !in.memsize || !in.hang_unknown.empty()) return std::nullopt;
    const auto usable = checked_sub(units::floor_cast<MiB>(*in.memsize), in.policy->reserve);
    if (!usable) return MiB::zero();
    MiB top = std::min(in.policy->max, *usable);
    if (in.hang_ceiling && *in.hang_ceiling <= top)
        top = checked_sub(*in.hang_ceiling, MiB::from_count_or_throw(1)).value_or(MiB::zero());
    return top;
}

// The value to raise to: the need in whole GiB when that still fits the limit (a number a
// person can read), else the need in MiB; never below the band's floor.
MiB recommend(MiB need, MiB floor, MiB highest) {
    const MiB base = std::max(need, floor);
    const std::uint64_t up = (base.count() + kMiBPerGiB - 1) / kMiBPerGiB * kMiBPerGiB;
    if (const auto whole = MiB::from_count(up); whole && *whole <= highest) return *whole;
    return base;
}

}  // namespace

std::string_view verdict_name(Verdict v) {
    switch (v) {
        case Verdict::fits_now: return "fits_now";
        case Verdict::fits_after_raise: return "fits_after_raise";
        case Verdict::does_not_fit: return "does_not_fit";
        case Verdict::unknown: break;
    }
    return "unknown";
}

VerdictResult decide(const VerdictInput& in, std::string_view metal_source) {
    VerdictResult r;
    r.highest = highest_of(in);
    if (in.cap) {
        r.cap = in.cap;
        r.cap_source = std::string(metal_source);
    } else if (in.knob && in.knob->count() != 0) {
        // A set knob is the cap itself (Metal's figure follows it exactly).
        r.cap = Bytes(*in.knob);
        r.cap_source = "kernel iogpu.wired_limit_mb";
    }
    if (r.cap && in.total <= *r.cap) {
        r.verdict = Verdict::fits_now;
        return r;
    }
    if (!in.knob) {
        r.why = "iogpu.wired_limit_mb could not be read";
        return r;
    }
    if (!r.highest) {
        r.why = !in.policy                 ? "the policy could not be loaded"
                : !in.hang_unknown.empty() ? "the hang ceiling is unknown: " + in.hang_unknown
                                           : "physical memory could not be read";
        return r;
    }
    const auto need = units::ceil_cast<MiB>(in.total);
    // Below the band's floor a ramp starts at the floor: it must fit under the highest too.
    if (!need || std::max(*need, in.policy->min) > *r.highest) {
        r.verdict = Verdict::does_not_fit;
        r.why = "the total is above the highest allowed " + units::to_string(*r.highest);
        return r;
    }
    r.recommended = recommend(*need, in.policy->min, *r.highest);
    if (in.knob->count() != 0 && *r.recommended <= *in.knob) {
        // The knob would already allow it, yet the cap reads lower: no raise can be right.
        r.why = "the effective cap reads below iogpu.wired_limit_mb " + units::to_string(*in.knob);
        return r;
    }
    if (!r.cap) {
        r.why = "the effective cap is unknown, so whether the OS default already fits is unknown";
        return r;
    }
    r.verdict = Verdict::fits_after_raise;
    r.command = "wiredcap ramp --to " + size_argument(*r.recommended);
    return r;
}

}  // namespace wiredcap::fit
