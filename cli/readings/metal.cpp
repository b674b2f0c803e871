#include "wiredcap/cli/readings/metal.hpp"

#include "wiredcap/simulator/default_state_path.hpp"
#include "wiredcap/simulator/sim_kernel.hpp"
#include "wiredcap/cli/readings/metal_probe.hpp"

namespace wiredcap::cli {

namespace {
bool g_metal_was_read = false;  // wiredcap is single-threaded
}  // namespace

bool metal_was_read() noexcept { return g_metal_was_read; }

MetalReading read_metal(const MachineReadings& machine, const DevPaths& dev) {
    g_metal_was_read = true;  // before anything is loaded: a failed load may leave threads too
    MetalReading r;
    if (machine.simulated()) {
        const std::string path =
            dev.sim_state.value_or(std::string(kernel::default_sim_state_path()));
        kernel::SimKernel sim(path);
        auto ws = sim.simulated_metal_working_set();
        r.source = "SIMULATED Metal recommendedMaxWorkingSetSize (simulator model)";
        if (ws) r.working_set = *ws;
        else r.why_unknown = "the simulated machine did not answer: " + ws.error().message;
        return r;
    }
#if defined(__APPLE__)
    // metal_darwin.cpp: verified by cross-compiling only (there is no Mac where this is built).
    return interpret_metal_probe(probe_metal_device());
#else
    r.source = "Metal";
    r.why_unknown = "there is no Metal on this machine";
    return r;
#endif
}

}  // namespace wiredcap::cli
