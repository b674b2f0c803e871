#include "wiredcap/cli/readings/metal_probe.hpp"

namespace wiredcap::cli {
namespace {

std::string with_detail(std::string text, const std::string& detail) {
    if (!detail.empty()) text += " (" + detail + ")";
    return text;
}

}  // namespace

std::string metal_failure_reason(const MetalProbe& probe) {
    const std::string& d = probe.detail;
    switch (probe.step) {
        case MetalStep::ok:
            if (probe.working_set_bytes == 0)
                return metal_failure_reason(MetalProbe{MetalStep::zero, 0, d});
            return {};
        case MetalStep::metal_framework:
            return with_detail("Metal.framework could not be loaded", d);
        case MetalStep::create_device_symbol:
            return with_detail("Metal.framework does not export MTLCreateSystemDefaultDevice", d);
        case MetalStep::objc_runtime:
            return with_detail("the Objective-C runtime (libobjc) could not be loaded", d);
        case MetalStep::objc_symbol:
            return d.empty() ? "the Objective-C runtime lacks a function wiredcap needs"
                             : "the Objective-C runtime lacks " + d;
        case MetalStep::selector:
            return d.empty() ? "the Objective-C runtime registered no selector"
                             : "the Objective-C runtime registered no selector " + d;
        case MetalStep::no_device:
            return with_detail(
                "Metal reports no GPU (MTLCreateSystemDefaultDevice returned nil, and MTLCopyAllDevices "
                "gave no device)",
                d);
        case MetalStep::not_supported:
            return with_detail("the Metal device does not answer recommendedMaxWorkingSetSize", d);
        case MetalStep::zero:
            return "Metal reported 0 bytes, which is no cap at all; not shown as a value";
        case MetalStep::internal_error: return with_detail("internal error while reading Metal", d);
    }
    return with_detail("unexpected result from the Metal probe", d);
}

MetalReading interpret_metal_probe(const MetalProbe& probe) {
    MetalReading r;
    r.source = std::string(kMetalSource);
    if (probe.step == MetalStep::ok && probe.working_set_bytes != 0) {
        r.working_set =
            *units::Bytes::from_count(probe.working_set_bytes);  // every 64-bit count is a Bytes
        if (!probe.detail.empty()) r.source += " (" + probe.detail + ")";  // not the default device
        return r;
    }
    r.why_unknown = metal_failure_reason(probe);
    return r;
}

}  // namespace wiredcap::cli
