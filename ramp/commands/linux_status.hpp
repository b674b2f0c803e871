// `wiredcap status --linux-root DIR`: the Linux AMD APU backend's readings (docs/linux.md),
// read without privilege from the files under DIR ("/" for this machine, a wiredcap-sim-linux
// tree in the tests). --json: wiredcap.linux-status/1 (docs/schema/linux-status-1.json).
#pragma once

#include <ostream>
#include <string>

#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

// `journal`: the project's journal (wiredcap-system's ttm-* verbs write there), read for the
// hang ceiling.
[[nodiscard]] ExitCode run_linux_status(const std::string& root, const std::string& journal, bool json,
                                        std::ostream& out, std::ostream& err);

}  // namespace wiredcap::cli
