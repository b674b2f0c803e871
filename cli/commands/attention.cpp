#include "wiredcap/cli/commands/attention.hpp"

#include "wiredcap/cli/commands/boot_view.hpp"
#include "wiredcap/ramp/open_step.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::cli {
namespace {

// The hang ceiling binds every later set, ramp and persist: a person should know why first.
std::optional<Attention> hang_item(const recovery::Report& j) {
    if (!j.hang_ceiling) return std::nullopt;
    const auto& h = *j.hang_ceiling;
    const std::string origin =
        h.kind == recovery::RefKind::ramp_step
            ? "hung in run " + h.run + " step " + std::to_string(h.step) + " (" + h.time + ")"
            : recovery::hang_origin(h);
    return Attention{
        "hang", h.value,
        units::describe(h.value) + " " + origin +
            ": set, ramp and persist stay below it; recover says how it came about, and how to "
            "lift it if something else caused the hang",
        "wiredcap recover"};
}

Attention suspect_item(const recovery::StepRef& r) {
    return Attention{"suspect", r.value,
                     units::describe(r.value) + " " + recovery::hang_origin(r) +
                         "; did it hang? Only a person can say",
                     "wiredcap recover"};
}

std::optional<Attention> open_step_item(const recovery::Report& j) {
    const auto open = open_step(j);
    if (!open) return std::nullopt;
    return Attention{"open_step", open->at.value,
                     open_step_clause(*open) +
                         ": set, persist and another ramp are refused until it is settled. " +
                         open_step_settles(*open),
                     "wiredcap reset"};
}

std::optional<Attention> boot_guard_item(const MachineReadings& m) {
    if (!m.boot_guard) return std::nullopt;
    auto alert = boot_alert(*m.boot_guard);
    if (!alert) return std::nullopt;
    return Attention{"boot_guard", m.boot_guard->persisted, *alert, "wiredcap persist --off"};
}

std::string label(const std::string& kind) {
    if (kind == "hang") return "HANG: ";
    if (kind == "suspect") return "SUSPECT (unanswered): ";
    if (kind == "open_step") return "STEP AWAITING CONFIRMATION: ";
    return "";  // the boot guard's alert names itself ("BOOT GUARD TRIPPED at ...")
}

}  // namespace

std::vector<Attention> needs_attention(const StatusReadings& s) {
    std::vector<Attention> items;
    if (auto g = boot_guard_item(s.machine)) items.push_back(std::move(*g));
    if (s.journal) {
        if (auto h = hang_item(*s.journal)) items.push_back(std::move(*h));
        for (const auto& r : s.journal->suspects) items.push_back(suspect_item(r));
        if (auto o = open_step_item(*s.journal)) items.push_back(std::move(*o));
    }
    return items;
}

void render_attention(const std::vector<Attention>& items, std::ostream& out) {
    for (const auto& a : items) {
        // The boot guard's alert already ends with what to run.
        if (a.kind == "boot_guard") out << a.text << "\n";
        else out << label(a.kind) << a.text << ". Run: " << a.command << "\n";
    }
}

std::string attention_json(const std::vector<Attention>& items) {
    std::string array = "[";
    for (const auto& a : items) {
        JsonObject o;
        o.str("kind", a.kind);
        if (a.value) o.num("value_mib", a.value->count());
        else o.null("value_mib");
        o.str("text", a.text).str("command", a.command);
        array += (array.size() > 1 ? "," : "") + o.text();
    }
    return array + "]";
}

}  // namespace wiredcap::cli
