// `wiredcap set SIZE|default` and `wiredcap reset`: one change through the helper, reported as
// the kernel's read-back. Setting the value the kernel already holds changes nothing and says
// so. An interactive raise asks first; `--yes` is the scripted answer.
#pragma once

#include <string>

#include "cli_context.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

struct SetRequest {
    std::string size;  // "237568MiB", "232GiB", or "default"
    bool yes = false;
};

[[nodiscard]] ExitCode run_set(CliContext& ctx, const SetRequest& req, int tty_in_fd);
[[nodiscard]] ExitCode run_reset(CliContext& ctx);

}  // namespace wiredcap::cli
