#include "wiredcap/helper/kernel/make_kernel.hpp"

#ifdef __APPLE__
#include "darwin_kernel.hpp"
#endif
#ifdef WIREDCAP_KERNEL_WITH_SIMULATOR
#include "wiredcap/simulator/default_state_path.hpp"
#include "wiredcap/simulator/sim_kernel.hpp"
#endif

namespace wiredcap::kernel {

std::unique_ptr<Kernel> make_default_kernel(const std::optional<std::string>& sim_state_path) {
#ifdef WIREDCAP_KERNEL_WITH_SIMULATOR
    if (sim_state_path) return std::make_unique<SimKernel>(*sim_state_path);
#else
    // A production macOS build: only the test builds' --sim-state names a state file, and
    // those options are compiled out of this build (entry.cpp refuses them before this).
    (void)sim_state_path;
#endif
#ifdef __APPLE__
    return std::make_unique<DarwinKernel>();
#else
    return std::make_unique<SimKernel>(std::string(default_sim_state_path()));
#endif
}

}  // namespace wiredcap::kernel
