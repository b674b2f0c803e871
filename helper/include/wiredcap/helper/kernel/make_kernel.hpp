// Which kernel backend a program gets.
//
// On macOS the real one (sysctlbyname) unless a simulator state file is named (test builds
// only: a production macOS build has no simulator, WIREDCAP_KERNEL_WITH_SIMULATOR); everywhere
// else the simulated Mac, at the named state file or at the compiled-in default
// (wiredcap/simulator/default_state_path.hpp). Whoever calls this
// decides whether a state path may be honoured at all: a setuid helper must pass nullopt
// (docs/design.md section 3, "Trust rule").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/kernel/kernel.hpp"

namespace wiredcap::kernel {

[[nodiscard]] std::unique_ptr<Kernel> make_default_kernel(const std::optional<std::string>& sim_state_path);

}  // namespace wiredcap::kernel
