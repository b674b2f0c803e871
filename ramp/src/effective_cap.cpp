#include "wiredcap/ramp/effective_cap.hpp"

#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"

namespace wiredcap::cli {

using units::MiB;

Expected<EffectiveCap> effective_cap(const MachineReadings& m, const MetalReading& metal,
                                     const std::optional<MiB>& from) {
    if (!m.knob.value) return Error{"cannot read iogpu.wired_limit_mb: " + m.knob.error};
    const bool os_default = m.knob.value->count() == 0;
    EffectiveCap e;
    if (metal.working_set) {
        e.value = units::floor_cast<MiB>(*metal.working_set);
        e.source = metal.source;
        if (os_default) e.helper_source = m.simulated() ? "simulated-metal" : "metal";
    } else if (!os_default) {
        e.value = *m.knob.value;
        e.source =
            "kernel iogpu.wired_limit_mb, which Metal follows (Metal itself: " + metal.why_unknown +
            ")";
    } else if (from) {
        e.value = *from;
        e.source = "given with --from";
        e.helper_source = "given";
        return e;
    } else {
        return Error{"the effective cap cannot be read (" + metal.why_unknown +
                     ") and the cap is the OS default, so a change has no known starting point; "
                     "give the cap the GPU has now with --from SIZE (it is journaled as given)"};
    }
    if (from)
        return Error{"--from is only for when the effective cap cannot be read; it reads " +
                     effective_text(e)};
    return e;
}

std::vector<std::string> effective_args(const EffectiveCap& e) {
    if (e.helper_source.empty()) return {};
    return {"--effective", std::to_string(e.value.count()) + "MiB", "--effective-source",
            e.helper_source};
}

std::string effective_text(const EffectiveCap& e) {
    return units::describe(e.value) + "   [" + e.source + "]";
}

Expected<std::optional<MiB>> parse_from(const std::optional<std::string>& text) {
    if (!text) return std::optional<MiB>{};
    auto v = units::parse_size_as<MiB>(*text);
    if (!v) return Error{"--from " + v.error().message};
    if (v->count() == 0) return Error{"--from must be above 0 MiB: it is the cap the GPU has now"};
    return std::optional<MiB>(*v);
}

}  // namespace wiredcap::cli
