// `wiredcap ramp --for PATH`: the ramp's target is the value `wiredcap fit PATH` recommends.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/commands/fit_cmd.hpp"

namespace wiredcap::fit {

// The --to argument for the model (e.g. "72GiB"); an empty string when it already fits (there
// is nothing to ramp). What was decided, and why, is said on `say`.
// `model` carries every option `wiredcap fit` takes, so the target is fit's own figure.
[[nodiscard]] Expected<std::string, FitError> ramp_target_for(const cli::CliContext& ctx,
                                                              const FitRequest& model,
                                                              std::ostream& say);

}  // namespace wiredcap::fit
