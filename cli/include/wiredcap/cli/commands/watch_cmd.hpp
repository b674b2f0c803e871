// `wiredcap watch`: the picture of memory status leads with, sampled every interval while a
// model loads, with wired memory's peak, a sparkline and a warning near the cap. On a terminal
// it is redrawn in place and `q` ends it; piped, or under TERM=dumb, one line per sample.
// Ctrl-C, SIGTERM and a closed terminal end it too, the terminal's settings restored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

struct WatchRequest {
    std::string interval = "2s";
    std::optional<std::uint64_t> count;  // stop after this many samples (scripts)
};

[[nodiscard]] ExitCode run_watch(CliContext& ctx, const WatchRequest& req, int in_fd, int out_fd);

}  // namespace wiredcap::cli
