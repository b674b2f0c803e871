#include "journal/confirmation.hpp"

#include <map>
#include <utility>

#include "journal/record_fields.hpp"
#include "policy/trusted_path.hpp"

namespace wiredcap::journal {
namespace {

// Years of ramps fit in a few MiB; anything larger is not a journal this helper wrote.
constexpr std::size_t kMaxJournalBytes = 64 * 1024 * 1024;

constexpr std::string_view kConfirmed = ",\"command\":\"confirm\",\"event\":\"confirmed\",";
constexpr std::string_view kTripped = ",\"command\":\"boot\",\"event\":\"tripped\",";

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The last store of a value for boot, if it overrode the hang ceiling: hangs already known then
// (from boots other than the store's) were overridden by a person and do not bind that value.
struct Waiver {
    std::size_t index;
    std::string boot;
};

bool is_store_record(std::string_view line, std::string_view command, std::string_view event) {
    return command == "persist" && (event == "persisted" || event == "unchanged") && line.find("\"to_mib\":") != line.npos;
}

}  // namespace

std::optional<units::MiB> find_hang_ceiling(std::string_view text, std::string_view current_boot) {
    struct Step {
        std::uint64_t value;
        std::string boot;
        std::size_t index;  // of its latest intent or apply: the journal's order, not its clock
        bool resolved;
    };
    std::map<std::pair<std::string, std::uint64_t>, Step> steps;
    std::optional<Waiver> waiver;
    for (std::size_t index = 0; !text.empty(); ++index) {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) break;
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        if (!is_v1_record(line)) continue;
        const std::string_view event = string_after(line, "event"), command = string_after(line, "command");
        if (is_store_record(line, command, event)) {
            waiver.reset();  // a store without the override keeps every hang binding
            if (line.find(",\"ignore_hang_ceiling\":true") != line.npos)
                waiver = Waiver{index, std::string(string_after(line, "boot"))};
            continue;
        }
        const auto step = number_after(line, "step");
        const std::string run(run_of(line));
        if (run.empty() || !step) continue;
        auto& s = steps[{run, *step}];
        if (command == "confirm" || event.substr(0, 7) == "revert_") s.resolved = true;
        else if (command == "apply" && (event == "intent" || event == "applied"))
            if (const auto to = number_after(line, "to_mib"))
                s = Step{*to, std::string(string_after(line, "boot")), index, false};
    }
    auto waived = [&](const Step& s) { return waiver && s.index < waiver->index && s.boot != waiver->boot; };
    std::optional<units::MiB> lowest;
    for (const auto& [key, s] : steps)
        if (!s.resolved && !s.boot.empty() && s.boot != current_boot && !waived(s) && (!lowest || s.value < lowest->count()))
            lowest = units::MiB::from_count(s.value);
    return lowest;
}

Expected<std::optional<units::MiB>> find_hang_ceiling_in(const std::string& path, uid_t owner,
                                                         std::string_view current_boot) {
    auto text = trusted::read_file(path, owner, kMaxJournalBytes);
    if (!text) return Error{"cannot check the journal for hangs: " + text.error().message};
    if (!text->has_value()) return std::optional<units::MiB>{};
    return find_hang_ceiling(**text, current_boot);
}

std::optional<Confirmation> find_confirmation(std::string_view text, units::MiB value) {
    const std::string confirmed_tail = ",\"readback_mib\":" + std::to_string(value.count()) + "}";
    std::optional<Confirmation> found;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) break;  // a torn last line is not a record
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        if (!is_v1_record(line)) continue;
        if (line.find(kConfirmed) != std::string_view::npos && ends_with(line, confirmed_tail)) {
            const auto step = number_after(line, "step");
            if (step) found = Confirmation{std::string(run_of(line)), *step};
        } else if (line.find(kTripped) != std::string_view::npos) {
            const auto tripped_at = number_after(line, "to_mib");
            if (!tripped_at || *tripped_at <= value.count()) found.reset();
        }
    }
    return found;
}

Expected<std::optional<Confirmation>> find_confirmation_in(const std::string& path, uid_t owner, units::MiB value) {
    auto text = trusted::read_file(path, owner, kMaxJournalBytes);
    if (!text) return Error{"cannot check the journal for confirmations: " + text.error().message};
    if (!text->has_value()) return std::optional<Confirmation>{};
    return find_confirmation(**text, value);
}

}  // namespace wiredcap::journal
