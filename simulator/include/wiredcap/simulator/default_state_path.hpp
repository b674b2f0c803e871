// Where the simulated Mac lives when no state file is named. Here, beside the simulator, so
// that wiredcap (which reads the simulator's Metal model there) need not link the helper's
// kernel backends to learn it.
#pragma once

#include <string_view>

namespace wiredcap::kernel {

// The state file the simulated Mac uses when none is named: WIREDCAP_DEFAULT_SIM_STATE as
// compiled in (a test build may point it at a fixed, root-owned file), else
// /var/lib/wiredcap/sim-state.
[[nodiscard]] std::string_view default_sim_state_path() noexcept;

}  // namespace wiredcap::kernel
