// `wiredcap metrics` on a Linux AMD APU: the readings of `wiredcap status --linux-root` in the
// Prometheus text format, for node_exporter's textfile collector, as on a Mac (metrics_cmd.hpp):
// base units, HELP and TYPE for every family, labels in `_info`, no timestamps, and a reading
// that cannot be made left out with wiredcap_reading_ok{reading=...} 0, never written as 0.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// The exposition of the TTM readings under `root`: pages_limit (pages and bytes), the page
// size, the GTT and KFD totals, MemTotal, the band, the trial's phase, the default stored, and
// the journal's families (journal_metrics.hpp) from `journal`'s report and size.
[[nodiscard]] std::string linux_prometheus_text(const linux_amd::SystemRoot& root,
                                                const Expected<recovery::Report>& journal,
                                                const std::optional<std::uint64_t>& journal_size,
                                                const linux_amd::PolicyText& policy);

// Prints it, or writes DIR/wiredcap.prom atomically when `textfile_dir` is given.
[[nodiscard]] ExitCode run_linux_metrics(const std::string& root, const std::string& journal,
                                         const std::string& policy,
                                         const std::optional<std::string>& textfile_dir,
                                         std::ostream& out, std::ostream& err);

}  // namespace wiredcap::cli
