#include "wiredcap/helper/journal/run_bound.hpp"

#include <map>

#include "wiredcap/helper/journal/record_fields.hpp"
#include "wiredcap/journal/step_risk.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::journal {
namespace {

struct RunState {
    bool ended = false;
    std::size_t records = 0;
    RunSteps steps;  // the caller's own records of each step (step_risk.hpp)
    [[nodiscard]] bool closed() const { return ended && steps.settled(); }
};

}  // namespace

RunUse run_use(std::string_view text, const CallersRun& c) {
    std::map<std::string_view, RunState> runs;  // the caller's, in this boot
    bool anothers = false, other_uid = false;
    for_each_record(text, [&](std::string_view line) {
        const std::string_view run = run_of(line);
        if (run.empty()) return;
        const bool callers = number_after(line, "uid") == c.uid, this_boot = string_after(line, "boot") == c.boot;
        if (run == c.run && !(callers && this_boot)) anothers = true;
        if (run == c.run && !callers) other_uid = true;
        if (!this_boot) return;
        const std::string_view event = string_after(line, "event");
        if (!callers && runs.count(run) == 0) return;
        RunState& r = runs[run];
        if (is_word(event, event::end)) r.ended = true;
        if (!callers) return;
        ++r.records;
        if (const auto step = number_after(line, "step"))
            r.steps.add(*step, event, number_after(line, "to_mib"), number_after(line, "readback_mib"));
    });
    RunUse use;
    use.anothers = anothers;
    use.other_uid = other_uid;
    for (const auto& [run, r] : runs) {
        if (run == c.run) use.records = r.records;
        else if (r.records != 0 && !r.closed()) ++use.open_others;
    }
    return use;
}

std::optional<std::string> run_bound_refusal(const RunUse& use, const CallersRun& c) {
    const std::string uid = "uid " + std::to_string(c.uid);
    if (use.anothers && !c.ending)
        return "run " + std::string(c.run) + " holds records of another user or of an earlier boot: " + uid +
               " may only end it (wiredcap recover does); start a new run";
    if (use.records == 0 && use.open_others >= kMaxOpenRuns)
        return uid + " already holds " + std::to_string(use.open_others) + " runs open in this boot (at most " +
               std::to_string(kMaxOpenRuns) + "): end them first (wiredcap recover ends a run with nothing at risk; "
               "wiredcap reset settles a step at risk)";
    if (use.records >= kMaxRunRecords)
        return "run " + std::string(c.run) + " already holds " + std::to_string(use.records) + " records of " + uid +
               " in this boot (at most " + std::to_string(kMaxRunRecords) + "): start a new run";
    return std::nullopt;
}

}  // namespace wiredcap::journal
