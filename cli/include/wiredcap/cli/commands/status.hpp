// `wiredcap status`: every ceiling that can bind, side by side, each with its source.
#pragma once

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

[[nodiscard]] ExitCode run_status(CliContext& ctx);

}  // namespace wiredcap::cli
