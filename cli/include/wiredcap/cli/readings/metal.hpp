// The effective GPU cap as Metal reports it: MTLDevice.recommendedMaxWorkingSetSize follows
// iogpu.wired_limit_mb exactly, and when the knob is 0 it is the only honest source of the OS
// default's value (which is not a fixed fraction of RAM). A value that cannot be read is
// unknown, with the reason; it is never estimated.
#pragma once

#include <optional>
#include <string>

#include "wiredcap/cli/readings/helper_client.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

struct MetalReading {
    std::optional<units::Bytes> working_set;
    std::string source;       // what produced the value, e.g. "SIMULATED Metal (simulator model)"
    std::string why_unknown;  // set when working_set is empty
};

// On a simulated Mac: the simulator's model of the Metal figure, labelled SIMULATED. On macOS:
// Metal itself, recommendedMaxWorkingSetSize of the default device (metal_darwin.cpp; unknown,
// with the step that failed, when it cannot be read). Elsewhere: unknown.
[[nodiscard]] MetalReading read_metal(const MachineReadings& machine, const DevPaths& dev);

// Whether read_metal() has run in this process (on every platform, simulated or not): after it
// a Mac has Metal, CoreGraphics and the Objective-C runtime loaded, and their threads make a
// fork without exec unsafe. Guard::start refuses from then on (docs/design.md §6, The guard process).
[[nodiscard]] bool metal_was_read() noexcept;

}  // namespace wiredcap::cli
