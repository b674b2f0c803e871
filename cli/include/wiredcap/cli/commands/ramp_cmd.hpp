// `wiredcap ramp --to SIZE`: the supervised ramp of docs/design.md section 6. Plan first; then per
// step: the helper journals the intent, writes, reads back; an optional probe runs; a person
// confirms within the deadline or the step is reverted to the last confirmed value. A guard
// process reverts even if this one is killed.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/commands/fit_cmd.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

struct RampRequest {
    std::string to;
    std::optional<std::string>
        for_model;  // --for PATH: the target is what `wiredcap fit` recommends
    // With --for: every option `wiredcap fit` takes (app_definition.cpp adds them to both commands from
    // one list), so the ramp plans to fit's own figure; and which of them were given, as only
    // --for takes them.
    fit::FitRequest model;
    std::vector<std::string> model_options;
    std::optional<std::string> step;
    std::string timeout = "60s";
    std::optional<std::string> probe;
    std::string probe_timeout = "60s";
    bool dry_run = false;
    bool unattended = false;  // no person: --check decides each step
    std::optional<std::string> check;
    bool ignore_hang_ceiling = false;
    std::optional<std::string> from;  // the effective cap, when it cannot be read (journaled)
};

[[nodiscard]] ExitCode run_ramp(CliContext& ctx, const RampRequest& given);

}  // namespace wiredcap::cli
