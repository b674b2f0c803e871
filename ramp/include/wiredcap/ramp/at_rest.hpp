// Whether the journal shows nothing at risk: no ramp run left without its end (a step awaiting
// confirmation, one that hung, one whose revert is unproven; a run whose end record is missing
// but whose last step is settled does not count). Only then may a command that
// finds the knob already at what was asked answer "already at" without going further (issue
// 24): a value still at risk is not a value the machine holds.
#pragma once

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/readings/readings.hpp"

namespace wiredcap::cli {

// False also when the journal cannot be read: then the command takes its ordinary path, which
// reports why.
[[nodiscard]] bool nothing_at_risk(const CliContext& ctx, const MachineReadings& m);

}  // namespace wiredcap::cli
