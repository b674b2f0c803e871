#include "journal/own_apply.hpp"

#include "journal/record_fields.hpp"
#include "policy/trusted_path.hpp"

namespace wiredcap::journal {
namespace {

// The journal's bound for every reader in the helper (confirmation.cpp reads with the same).
constexpr std::size_t kMaxJournalBytes = 64 * 1024 * 1024;

bool same_step(std::string_view line, const StepToConfirm& s) {
    const auto step = number_after(line, "step");
    return step && *step == s.step && run_of(line) == s.run;
}

}  // namespace

std::optional<units::MiB> find_own_apply(std::string_view text, const StepToConfirm& s) {
    std::optional<units::MiB> found;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) break;  // a torn last line is not a record
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        // Another user's records of the same run and step neither make it confirmable nor take
        // that back: no member can unsettle root's ramp by reusing its run id.
        const auto uid = number_after(line, "uid");
        if (!is_v1_record(line) || !uid || *uid != s.uid || !same_step(line, s)) continue;
        const std::string_view command = string_after(line, "command"), event = string_after(line, "event");
        if (command == "confirm" || command == "end") continue;  // neither changes what was applied
        found.reset();
        if (command != "apply" || (event != "applied" && event != "unchanged")) continue;
        const auto readback = number_after(line, "readback_mib");
        if (string_after(line, "boot") == s.boot && readback)
            found = units::MiB::from_count(*readback);
    }
    return found;
}

Expected<std::optional<units::MiB>> find_own_apply_in(const std::string& path, uid_t owner, const StepToConfirm& s) {
    auto text = trusted::read_file(path, owner, kMaxJournalBytes);
    if (!text) return Error{"cannot check the journal for the step to confirm: " + text.error().message};
    if (!text->has_value()) return std::optional<units::MiB>{};
    return find_own_apply(**text, s);
}

}  // namespace wiredcap::journal
