// `wiredcap status --linux-root DIR`: every reading of the Linux backend with its source, the band, the
// boot loader, and the trial's state. Every size says pages, MiB and GiB.
#pragma once

#include <string>

#include "wiredcap/linux/system_root.hpp"

namespace wiredcap::linux_amd {

// The whole report, lines of at most 80 columns.
[[nodiscard]] std::string status_text(const SystemRoot& root);

}  // namespace wiredcap::linux_amd
