// A ramp step that awaits confirmation: a state every writer respects. While the journal shows
// one open in this boot (recovery::RunState awaiting_in_this_boot, or revert_unproven_in_this_boot:
// its ramp is alive, or its guard has not yet settled it), `set`, `persist` and another `ramp`
// are refused before any question, nothing written (exit 10): a change measured from a value
// nobody confirmed, or one the open step's revert would then undo, is no change to make. Only
// `reset` (the safe direction, always permitted) and `persist --off` go through; a plain reset
// settles the step (recovery: settle_same_boot_steps).
#pragma once

#include <optional>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/cli/readings/readings.hpp"

namespace wiredcap::cli {

// The open step that refuses this caller's write, per the report: journal::open_step and
// journal::open_step_refuses, the rule the setuid helper applies too (a new write names no run).
[[nodiscard]] const recovery::UnresolvedRun* open_step_refusing(const recovery::Report& report);

// The same, from the journal as it is now (in the boot `m` reads). Nullopt also when the journal
// cannot be read: the caller's own reading of it then refuses, saying why.
[[nodiscard]] std::optional<recovery::UnresolvedRun> open_step_now(const CliContext& ctx,
                                                                   const MachineReadings& m);

// "run R step N (V, T) awaits confirmation in this boot": the step, in a clause.
[[nodiscard]] std::string open_step_clause(const recovery::UnresolvedRun& u);

// What settles it, as a sentence ending in the command to type.
[[nodiscard]] std::string open_step_settles(const recovery::UnresolvedRun& u);

// The whole refusal, for a writer: the step, that nothing was changed, and what settles it.
[[nodiscard]] std::string open_step_refusal(const recovery::UnresolvedRun& u);

}  // namespace wiredcap::cli
