#include "journal/own_apply.hpp"

#include "journal/record_fields.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::journal {

std::optional<units::MiB> find_own_apply(std::string_view text, const StepToConfirm& s) {
    std::optional<units::MiB> found;
    for_each_record(text, [&](std::string_view line) {
        // Another user's records of the same run and step neither make it confirmable nor take
        // that back: no member can unsettle root's ramp by reusing its run id.
        const bool same_step = number_after(line, "step") == s.step && run_of(line) == s.run;
        if (number_after(line, "uid") != s.uid || !same_step) return;
        const std::string_view command = string_after(line, "command"), event = string_after(line, "event");
        if (command == "confirm" || command == "end") return;  // neither changes what was applied
        found.reset();
        if (command != "apply" || (event != journal::event::applied && event != journal::event::unchanged)) return;
        const auto readback = number_after(line, "readback_mib");
        if (string_after(line, "boot") == s.boot && readback) found = units::MiB::from_count(*readback);
    });
    return found;
}

}  // namespace wiredcap::journal
