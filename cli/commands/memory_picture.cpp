#include "wiredcap/cli/commands/memory_picture.hpp"

#include "wiredcap/units/casts.hpp"

namespace wiredcap::cli {
namespace {

using units::Bytes;
using units::MiB;

constexpr const char* kHeadroomSource = "computed: memory minus the binding cap";

}  // namespace

namespace {

std::optional<Bytes> cap_in_force(const MachineReadings& m,
                                  const std::optional<Bytes>& os_default) {
    const auto& knob = m.knob.value;
    if (!knob) return std::nullopt;
    if (knob->count() != 0) return Bytes(*knob);
    return os_default;
}

}  // namespace

std::optional<Bytes> binding_cap(const StatusReadings& s) {
    return cap_in_force(s.machine, s.metal.working_set);
}

WatchSample wired_against_cap(const MachineReadings& m, const std::optional<Bytes>& os_default) {
    const auto cap = cap_in_force(m, os_default);
    // Wired memory is held: rounded up, never shown below what is held. A cap is what a model
    // must fit under: rounded down.
    return {m.wired_now.value ? units::ceil_cast<MiB>(*m.wired_now.value) : std::nullopt,
            cap ? std::optional<MiB>(units::floor_cast<MiB>(*cap)) : std::nullopt};
}

std::optional<Bytes> headroom(const StatusReadings& s) {
    const auto cap = binding_cap(s);
    if (!s.machine.memsize.value || !cap) return std::nullopt;
    return checked_sub(*s.machine.memsize.value, *cap);
}

MemoryPicture memory_picture(const StatusReadings& s,
                             const std::function<std::string(const std::string&)>& mark) {
    const auto marked = [&](const std::string& source) {
        return mark ? mark(source) : std::string();
    };
    const auto& m = s.machine;
    MemoryPicture p;
    if (m.memsize.value)
        p.total = {units::floor_cast<MiB>(*m.memsize.value), "reading", "",
                   marked("kernel hw.memsize")};
    else p.total = {std::nullopt, "", m.memsize.error, ""};
    const std::string wired_source = m.wired_now.source.empty() ? "kernel" : m.wired_now.source;
    const WatchSample now = wired_against_cap(m, s.metal.working_set);
    if (now.wired) p.wired = {now.wired, "reading", "", marked(wired_source)};
    else p.wired = {std::nullopt, "", m.wired_now.error, ""};
    const bool by_knob = m.knob.value && m.knob.value->count() != 0;
    p.cap_by = !m.knob.value ? "knob unreadable" : by_knob ? "the knob" : "OS default";
    if (now.cap) p.cap = {now.cap, "reading", "", marked(by_knob ? m.knob.source : s.metal.source)};
    else
        p.cap = {std::nullopt, "",
                 m.knob.value ? s.metal.why_unknown : "the knob could not be read: " + m.knob.error,
                 ""};
    if (const auto room = headroom(s))
        p.headroom = {units::floor_cast<MiB>(*room), "computed", "", marked(kHeadroomSource)};
    else p.headroom = {std::nullopt, "", "a term is unknown", ""};
    if (m.policy) {
        p.reserve = Figure{m.policy->reserve, "claim", "", marked(m.policy->source)};
        p.band_top = Figure{m.policy->max, "claim", "", marked(m.policy->source)};
    }
    if (s.journal && s.journal->hang_ceiling)
        p.hang_ceiling =
            Figure{s.journal->hang_ceiling->value, "claim", "", marked(s.journal_source)};
    return p;
}

}  // namespace wiredcap::cli
