// Reading Metal's figure on macOS, split in two so most of it can be tested without a Mac:
//   probe_metal_device()    (metal_darwin.cpp, macOS only) walks the steps: load Metal.framework
//                           and the Objective-C runtime with dlopen, create the default device,
//                           ask it for recommendedMaxWorkingSetSize, release it. It only
//                           reports which step stopped it and what the system said.
//   interpret_metal_probe() (metal_probe.cpp, everywhere) turns that into a MetalReading: the
//                           value with its source, or unknown with a reason a person can act on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "wiredcap/cli/readings/metal.hpp"

namespace wiredcap::cli {

// The label of every value read from Metal on a real Mac.
inline constexpr std::string_view kMetalSource = "Metal recommendedMaxWorkingSetSize";

// Where the probe stopped. Every step that can fail has its own value, so `status` says which.
enum class MetalStep {
    ok,                    // working_set_bytes holds Metal's answer (non-zero)
    metal_framework,       // dlopen of Metal.framework failed; detail: dlerror()
    create_device_symbol,  // Metal.framework has no MTLCreateSystemDefaultDevice; detail: dlerror()
    objc_runtime,          // dlopen of libobjc failed; detail: dlerror()
    objc_symbol,           // a runtime function is missing; detail: its name
    selector,              // sel_registerName gave no selector; detail: the selector's name
    no_device,       // MTLCreateSystemDefaultDevice returned nil, and MTLCopyAllDevices no device
    not_supported,   // the device does not respond to recommendedMaxWorkingSetSize
    zero,            // the device answered 0 bytes
    internal_error,  // out of memory or similar inside wiredcap; detail: what
};

struct MetalProbe {
    MetalStep step = MetalStep::internal_error;
    std::uint64_t working_set_bytes = 0;  // meaningful only when step == ok
    std::string detail;                   // what the system said, when it said something; for ok,
                                          // how the device was found when not as the default
};

// Why the probe yields no value, for "unknown (...)"; empty for MetalStep::ok.
[[nodiscard]] std::string metal_failure_reason(const MetalProbe& probe);

// The reading: always labelled kMetalSource; a value only for MetalStep::ok with a non-zero
// count (0 is never shown as a cap: a device that says 0 is unknown, with the reason).
[[nodiscard]] MetalReading interpret_metal_probe(const MetalProbe& probe);

#if defined(__APPLE__)
// metal_darwin.cpp. Never throws; loads Metal.framework into this process (wiredcap only:
// the helper never loads frameworks).
[[nodiscard]] MetalProbe probe_metal_device() noexcept;
#endif

}  // namespace wiredcap::cli
