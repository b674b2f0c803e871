#include "wiredcap/ramp/open_step.hpp"

#include <unistd.h>

#include "wiredcap/ramp/guard.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::cli {

const recovery::UnresolvedRun* open_step_refusing(const recovery::Report& report) {
    const auto* open = journal::open_step(report);
    return open != nullptr && journal::open_step_refuses(open->at, ::getuid(), "") ? open : nullptr;
}

std::optional<recovery::UnresolvedRun> open_step_now(const CliContext& ctx,
                                                     const MachineReadings& m) {
    auto report =
        recovery::analyse_file(journal_path(ctx.helper.dev()), m.boot_id.value.value_or(""));
    if (!report) return std::nullopt;
    if (const auto* open = open_step_refusing(*report)) return *open;
    return std::nullopt;
}

std::string open_step_clause(const recovery::UnresolvedRun& u) {
    const std::string step = "run " + u.at.run + " step " + std::to_string(u.at.step) + " (" +
                             units::describe(u.at.value) + ", " + u.at.time + ")";
    if (u.state == recovery::RunState::revert_unproven_in_this_boot)
        return step + " was not shown reverted in this boot";
    return step + " awaits confirmation in this boot";
}

std::string open_step_settles(const recovery::UnresolvedRun& u) {
    if (u.state == recovery::RunState::revert_unproven_in_this_boot)
        return "It is settled by going back to the OS default: wiredcap reset";
    return "It is settled when that ramp's step is answered (yes, stop or no, or its --check), or by its guard "
           "within the ramp's --timeout plus " +
           std::to_string(kGuardGrace.count()) +
           " s; if no ramp is running, settle it now: wiredcap reset";
}

std::string open_step_refusal(const recovery::UnresolvedRun& u) {
    return open_step_clause(u) + ", so nothing was changed. " + open_step_settles(u);
}

}  // namespace wiredcap::cli
