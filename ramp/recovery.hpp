// What the journal says about past ramps (DESIGN.md section 6): the last value a person
// confirmed, the lowest value that hung, and any run that never concluded.
//
// The rule: a step that was applied (or whose intent was recorded) but was never confirmed
// nor reverted, in an EARLIER boot than the current one, is where the machine hung: the
// forced reboot was the rollback. In the CURRENT boot the same state means a ramp is running
// now or its process died (its guard reverts it): unresolved, never a hang.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "journal_reader.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::recovery {

struct StepRef {
    std::string run;
    std::uint64_t step = 0;
    units::MiB value = units::MiB::zero();
    std::string time;
    std::string boot;
};

enum class RunState {
    hung_in_earlier_boot,        // applied, never confirmed, then the machine rebooted
    interrupted_in_earlier_boot, // intent recorded, no outcome, then the machine rebooted
    awaiting_in_this_boot,       // applied or intended in this boot, not yet confirmed/reverted
    ended_without_record,        // nothing at risk (last step confirmed or reverted), no "end"
};

struct UnresolvedRun {
    StepRef at;  // the step in question (for ended_without_record: the last step)
    RunState state;
};

struct Report {
    std::optional<StepRef> last_confirmed;  // the most recent confirmed step, any run
    std::optional<StepRef> hang_ceiling;    // the lowest value that hung (recorded or found now)
    std::vector<StepRef> hangs;             // every step that hung, oldest first
    std::vector<UnresolvedRun> unresolved;  // runs with no "end" record
};

[[nodiscard]] Report analyse(const std::vector<journal_view::Entry>& entries, std::string_view current_boot);

// The "end" outcome recover records for each unresolved run (nullopt: leave it alone).
[[nodiscard]] std::optional<std::string_view> outcome_to_record(RunState s);

}  // namespace wiredcap::recovery
