// `wiredcap status --linux-root DIR`: every reading of the Linux backend with its source, the band, the
// boot loader, and the trial's state. Every size says pages, MiB and GiB.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::linux_amd {

// The whole report, lines of at most 80 columns. The hang ceiling is what the journal's shared
// reader found in `journal` (the caller reads it: the journal is the project's, not linux/'s);
// an error there is shown, and binds every trial.
[[nodiscard]] std::string status_text(const SystemRoot& root,
                                      const Expected<std::optional<units::MiB>>& hang_ceiling,
                                      const PolicyText& policy, std::string_view journal);

}  // namespace wiredcap::linux_amd
