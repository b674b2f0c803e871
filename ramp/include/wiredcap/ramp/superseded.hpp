// A ramp step whose value another command replaced while it awaited its answer (root's reset,
// a write outside wiredcap): the step is not kept, and the value now is that writer's to answer
// for, so the ramp undoes nothing. What it tells the person, in one sentence: who changed the
// knob (per the journal, or that no record says) and what it reads now.
#pragma once

#include <cstdint>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// "Step 2 was not kept: uid 0 ran wiredcap reset at T while it awaited its answer, and
// iogpu.wired_limit_mb reads 0 (OS default policy) now [kernel read-back]; nothing was undone."
[[nodiscard]] std::string superseded_sentence(const CliContext& ctx, const std::string& run,
                                              std::uint64_t step, units::MiB applied,
                                              units::MiB now);

}  // namespace wiredcap::cli
