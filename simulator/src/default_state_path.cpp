#include "wiredcap/simulator/default_state_path.hpp"

#ifndef WIREDCAP_DEFAULT_SIM_STATE
#define WIREDCAP_DEFAULT_SIM_STATE "/var/lib/wiredcap/sim-state"
#endif

namespace wiredcap::kernel {

std::string_view default_sim_state_path() noexcept { return WIREDCAP_DEFAULT_SIM_STATE; }

}  // namespace wiredcap::kernel
