// `wiredcap metrics`: the readings of `wiredcap status` in the Prometheus text format for
// node_exporter's textfile collector (docs/fleet.md): base units (bytes), HELP and TYPE for every
// family, labels in `_info`, no timestamps. A value that cannot be read is left out, and
// wiredcap_reading_ok{reading=...} says 0 for it: unknown is never written as 0.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/commands/status_readings.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

// The file written into the textfile collector's directory.
inline constexpr std::string_view kTextfileName = "wiredcap.prom";

struct MetricsRequest {
    std::optional<std::string> textfile_dir;  // nullopt: print to standard output
};

// The exposition for these readings; nullopt readings: the helper gave no answer (wiredcap_up 0).
[[nodiscard]] std::string prometheus_text(const StatusReadings* s);

[[nodiscard]] ExitCode run_metrics(CliContext& ctx, const MetricsRequest& req);

}  // namespace wiredcap::cli
