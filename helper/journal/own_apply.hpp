// What a `confirm` may confirm: only a ramp step this helper applied and read back, in this
// boot, for the same caller and run, and still in force. A confirmation is what `persist` (and
// the boot action after it) trusts as "reached step by step and kept": a caller's own word for a
// step that never ran would let it store any value in the band for boot, past max_step.
//
// The helper reads only what it wrote itself (record_fields.hpp). The step's last record
// decides: `applied` or `unchanged` (a command `apply`, with its read-back) makes it
// confirmable; a later intent, mismatch, write_failed or revert_* of the same run and step
// (a ramp's revert to the last confirmed value) takes that back.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

struct StepToConfirm {
    std::string_view run;
    std::uint64_t step;
    uid_t uid;              // the caller's: another user's step is not this caller's to confirm
    std::string_view boot;  // the current boot: a step from before a reboot may have hung it
};

// The read-back of the step's own apply in journal text (record_fields.hpp: read_journal),
// when it is confirmable.
[[nodiscard]] std::optional<units::MiB> find_own_apply(std::string_view journal_text, const StepToConfirm& s);

}  // namespace wiredcap::journal
