// The journal replayed, run by run and step by step, to answer three questions after a crash
// or a hang: what value did a person last confirm, which values hung the machine, and which
// ramps never concluded. Records are taken in file order (the helper appends them as it acts),
// never by their timestamps, which a clock change can reorder.
#include "engine/recovery.hpp"

#include "engine/outside_ramps.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "wiredcap/units/format.hpp"

namespace wiredcap::recovery {
namespace {

using journal_view::Entry;
using units::MiB;

// What the journal says about one step of one run, after the records seen so far.
struct StepTrack {
    std::uint64_t step = 0;
    std::optional<MiB> value;  // the value the step asked for (its forward to_mib)
    std::string time;          // of the latest forward record (intent or outcome)
    std::string boot;
    std::size_t first_index = 0;  // position of its first record: orders the hangs
    bool intended = false;
    bool applied = false;  // applied, or unchanged (the kernel already held the value)
    bool failed = false;   // mismatch or write_failed: the value may or may not be in force
    // The state machine: a forward record puts the step at risk; a later confirmation or a
    // completed revert takes it out. Failed revert attempts leave it at risk.
    bool at_risk = false;

    [[nodiscard]] bool has_forward() const { return intended || applied || failed; }
};

struct RunTrack {
    std::string id;
    std::map<std::uint64_t, StepTrack> steps;  // ordered, so the highest step is the last
    bool ended = false;
    bool ended_hung = false;
    const Entry* last = nullptr;      // the run's most recent record of any kind
    const Entry* last_end = nullptr;  // its most recent `end`
    std::optional<MiB> target;        // where a revert goes: the value before step 1, then the
                                      // last confirmed one
};

// Runs in the order they first appear in the journal, and which of their steps are at risk now:
// a reset settles only those, so replaying a journal of many ramps, each ended by a reset, stays
// linear (it was quadratic: 78 s for 400,000 records, bench/journal_scale.sh).
class Runs {
public:
    RunTrack& of(const std::string& id) { return runs_[index_of(id)]; }
    std::size_t index_of(const std::string& id) {
        auto [it, inserted] = index_.try_emplace(id, runs_.size());
        if (inserted) runs_.push_back(RunTrack{id, {}, false, false, nullptr, nullptr, std::nullopt});
        return it->second;
    }
    [[nodiscard]] const std::vector<RunTrack>& all() const { return runs_; }

    // Call after a step's record: keeps the at-risk index in step with the step.
    void note_risk(std::size_t run, const StepTrack& s) {
        if (s.at_risk) at_risk_.insert({run, s.step});
        else at_risk_.erase({run, s.step});
    }
    // A completed reset put the OS default back: steps at risk in the same boot no longer are.
    void settle_boot(const std::string& boot) {
        for (auto it = at_risk_.begin(); it != at_risk_.end();) {
            StepTrack& s = runs_[it->first].steps.at(it->second);
            if (s.boot == boot) {
                s.at_risk = false;
                it = at_risk_.erase(it);
            } else {
                ++it;
            }
        }
    }

private:
    std::vector<RunTrack> runs_;
    std::unordered_map<std::string, std::size_t> index_;
    std::set<std::pair<std::size_t, std::uint64_t>> at_risk_;
};

bool is_forward(std::string_view event) {
    return event == "intent" || event == "applied" || event == "unchanged" || event == "mismatch" ||
           event == "write_failed";
}

// An `unchanged` record is written both for a forward apply of the value already in force and
// for a revert that found its target already in force (the helper does not prefix it with
// "revert_"). The second kind names a different value than the step asked for: it means the
// revert's target holds, so the step is no longer at risk.
bool is_unchanged_revert(const StepTrack& s, const Entry& e) {
    return e.event == "unchanged" && s.has_forward() && s.value && e.to && *e.to != *s.value;
}

void apply_forward(StepTrack& s, const Entry& e) {
    if (!s.value) s.value = e.to ? e.to : e.readback;
    s.time = e.time;
    s.boot = e.boot;
    if (e.event == "intent") s.intended = true;
    else if (e.event == "applied" || e.event == "unchanged") s.applied = true;
    else s.failed = true;
    s.at_risk = true;
}

void apply_step_event(StepTrack& s, const Entry& e, std::size_t index) {
    if (s.first_index == 0) s.first_index = index;
    if (is_unchanged_revert(s, e) || e.event == "revert_applied" || e.event == "confirmed") {
        s.at_risk = false;
    } else if (is_forward(e.event)) {
        apply_forward(s, e);
    }
    // refused, revert_intent, revert_mismatch, revert_write_failed: nothing changed for the
    // better, so the step keeps whatever risk it had.
}

StepRef ref_of(const std::string& run, const StepTrack& s) {
    return StepRef{run, s.step, s.value.value_or(MiB::zero()), s.time, s.boot, RefKind::ramp_step};
}

// The confirmed value: what the kernel read back when the person said yes, else what the step
// asked for. A confirmation whose value cannot be known is not reported as any value.
std::optional<StepRef> confirmed_ref(const Entry& e, const StepTrack* s) {
    std::optional<MiB> value = e.readback;
    if (!value && s != nullptr) value = s->value;
    if (!value) value = e.to;
    if (!value) return std::nullopt;
    return StepRef{e.run.value_or(""), e.step.value_or(0), *value, e.time, e.boot, RefKind::ramp_step};
}

// The highest step that ever had a forward record: the one a ramp was on when it stopped.
const StepTrack* highest_forward(const RunTrack& r) {
    for (auto it = r.steps.rbegin(); it != r.steps.rend(); ++it)
        if (it->second.has_forward()) return &it->second;
    return nullptr;
}

// The highest step still at risk: for a run recorded as hung, the value that hung.
const StepTrack* highest_at_risk(const RunTrack& r) {
    for (auto it = r.steps.rbegin(); it != r.steps.rend(); ++it)
        if (it->second.at_risk) return &it->second;
    return nullptr;
}

// A step whose value is the OS default (a reset) cannot be what hung the machine.
bool can_hang(const StepTrack& s) { return s.value && s.value->count() != 0; }

// A run with nothing recorded that ever put the machine at risk (only refusals, say).
UnresolvedRun nothing_at_risk(const RunTrack& r) {
    const Entry& e = *r.last;
    StepRef at{r.id, e.step.value_or(0), e.to.value_or(MiB::zero()), e.time, e.boot, RefKind::ramp_step};
    return UnresolvedRun{std::move(at), RunState::ended_without_record};
}

UnresolvedRun classify(const RunTrack& r, std::string_view current_boot) {
    const StepTrack* s = highest_forward(r);
    if (s == nullptr) return nothing_at_risk(r);
    StepRef at = ref_of(r.id, *s);
    if (!s->at_risk) return UnresolvedRun{std::move(at), RunState::ended_without_record};
    // In this boot the ramp may still be running, or its guard is reverting it: leave it alone.
    if (!earlier_boot(s->boot, current_boot)) return UnresolvedRun{std::move(at), RunState::awaiting_in_this_boot};
    // An earlier boot: the reboot reset the knob. Only a raised value can have caused it.
    if (!can_hang(*s)) return UnresolvedRun{std::move(at), RunState::ended_without_record};
    // A failed write (no applied record) is treated as interrupted: whether the value took
    // effect before the machine went down is unknown, so it is assumed it did.
    const RunState state = s->applied ? RunState::hung_in_earlier_boot : RunState::interrupted_in_earlier_boot;
    return UnresolvedRun{std::move(at), state};
}

bool is_hang_state(RunState s) {
    return s == RunState::hung_in_earlier_boot || s == RunState::interrupted_in_earlier_boot;
}

struct Hang {
    std::size_t order;
    StepRef ref;
};

// `wiredcap reset` outside any ramp that took effect (or found the OS default in force).
bool is_completed_plain_reset(const Entry& e) {
    return !e.run && e.command == "reset" && (e.event == "applied" || e.event == "unchanged");
}

// A completed reset put the OS default back: steps at risk in the same boot no longer are, so
// a person who followed recover's advice ("wiredcap reset") is not blocked until a reboot.
// Steps from an earlier boot keep their risk: the reboot reset the knob, and they stay the
// hangs they were.
void settle_same_boot_steps(Runs& runs, const std::string& boot) { runs.settle_boot(boot); }

// The boot action's records, which belong to no run.
bool is_boot_apply(const Entry& e) {
    return e.command == "boot" && !e.run && (e.event == "intent" || e.event == "applied" || e.event == "mismatch" ||
                                             e.event == "write_failed");
}
bool is_boot_trip(const Entry& e) { return e.command == "boot" && !e.run && e.event == "tripped"; }

// A trip names the value, and the boot that found it; the boot that hung is the one whose apply
// of that value came last before it. Without that record (a journal that lost it) the trip
// itself is the only witness, and says so by its kind.
StepRef trip_ref(const Entry& trip, const Entry* last_apply) {
    const MiB value = *trip.to;
    if (last_apply != nullptr && last_apply->to == trip.to && last_apply->boot != trip.boot)
        return StepRef{"", 0, value, last_apply->time, last_apply->boot, RefKind::boot_apply};
    return StepRef{"", 0, value, trip.time, trip.boot, RefKind::boot_trip};
}

struct Replayed {
    std::optional<StepRef> last_confirmed;
    std::vector<Hang> boot_hangs;  // from the boot guard's trips, in journal order
};

// Replays every record into `runs`, and notes the last confirmation and the boot guard's trips
// on the way.
Replayed replay(const std::vector<Entry>& entries, Runs& runs) {
    Replayed out;
    auto& last_confirmed = out.last_confirmed;
    const Entry* last_boot_apply = nullptr;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Entry& e = entries[i];
        StepTrack* step = nullptr;
        if (e.run) {
            const std::size_t run_index = runs.index_of(*e.run);
            RunTrack& run = runs.of(*e.run);
            run.last = &e;
            if (!run.target && e.from && is_forward(e.event)) run.target = e.from;
            if (e.event == "end") {
                run.ended = true;
                run.last_end = &e;
                run.ended_hung = run.ended_hung || e.reason == "hung";  // a recorded hang is never lost
            } else if (e.step) {
                auto [it, inserted] = run.steps.try_emplace(*e.step);
                if (inserted) it->second.step = *e.step;
                step = &it->second;
                apply_step_event(*step, e, i + 1);
                runs.note_risk(run_index, *step);
            }
        }
        if (is_completed_plain_reset(e)) settle_same_boot_steps(runs, e.boot);
        if (is_boot_apply(e)) last_boot_apply = &e;
        // A trip at the OS default (0) would be no hang at all; the helper never stores 0.
        if (is_boot_trip(e) && e.to && e.to->count() != 0) out.boot_hangs.push_back(Hang{i + 1, trip_ref(e, last_boot_apply)});
        // A plain `wiredcap set` (no run) is applied but never confirmed; only this event counts.
        if (e.event == "confirmed")
            if (auto c = confirmed_ref(e, step)) {
                if (e.run) runs.of(*e.run).target = c->value;
                last_confirmed = std::move(c);
            }
    }
    return out;
}

// Whether the run's `end` is evidence that nothing is left in force: see recovery.hpp.
bool end_settles(const RunTrack& r) {
    if (highest_at_risk(r) == nullptr) return true;
    const Entry& e = *r.last_end;
    return e.reason != "revert_failed" && e.readback && r.target && *e.readback == *r.target;
}

void collect(const RunTrack& r, std::string_view current_boot, Report& report, std::vector<Hang>& hangs) {
    if (r.ended && r.ended_hung) {
        if (const StepTrack* s = highest_at_risk(r); s != nullptr && can_hang(*s))
            hangs.push_back(Hang{s->first_index, ref_of(r.id, *s)});
        return;
    }
    if (r.ended && end_settles(r)) return;
    UnresolvedRun u = classify(r, current_boot);
    if (r.ended && u.state == RunState::awaiting_in_this_boot) u.state = RunState::revert_unproven_in_this_boot;
    if (is_hang_state(u.state))
        if (const StepTrack* s = highest_forward(r)) hangs.push_back(Hang{s->first_index, u.at});
    report.unresolved.push_back(std::move(u));
}

// Writes outside a ramp: their hangs join the others, except a boot action's write that the
// boot guard's trip already names (the same value, applied in the same boot). Every hang found
// before the last forget-hang is kept, marked forgotten.
void add_outside_ramps(OutsideRamps o, std::vector<Hang>& hangs, Report& report) {
    for (auto& entry : o.hangs) {
        // Not a structured binding: clang before 16 cannot capture one in a lambda.
        StepRef& ref = entry.second;
        const bool tripped = ref.writer == "boot-action" &&
                             std::any_of(hangs.begin(), hangs.end(), [&](const Hang& h) {
                                 return h.ref.kind == RefKind::boot_apply && h.ref.boot == ref.boot && h.ref.value == ref.value;
                             });
        if (!tripped) hangs.push_back(Hang{entry.first, std::move(ref)});
    }
    if (o.forgotten)
        for (Hang& h : hangs) h.ref.forgotten = h.order < o.forgotten->order;
    report.suspects = std::move(o.suspects);
    report.forgotten = std::move(o.forgotten);
}

// A raise measured against the effective cap its caller gave is that caller's word.
std::string claim_text(const StepRef& r) {
    if (!r.claimed_from) return {};
    return " (raised from " + units::to_string(*r.claimed_from) + ", the effective cap uid " + std::to_string(r.uid) +
           " claimed)";
}

}  // namespace

Report analyse(const std::vector<journal_view::Entry>& entries, std::string_view current_boot) {
    Runs runs;
    Report report;
    Replayed replayed = replay(entries, runs);
    report.last_confirmed = std::move(replayed.last_confirmed);
    std::vector<Hang> hangs = std::move(replayed.boot_hangs);
    for (const RunTrack& r : runs.all()) collect(r, current_boot, report, hangs);
    add_outside_ramps(scan_outside_ramps(entries, current_boot), hangs, report);
    std::stable_sort(hangs.begin(), hangs.end(), [](const Hang& a, const Hang& b) { return a.order < b.order; });
    for (auto& h : hangs) report.hangs.push_back(std::move(h.ref));
    // The lowest value that hung and was not forgotten since; among equals, the oldest.
    for (const StepRef& h : report.hangs)
        if (!h.forgotten && (!report.hang_ceiling || h.value < report.hang_ceiling->value)) report.hang_ceiling = h;
    return report;
}

std::string hang_origin(const StepRef& r) {
    switch (r.kind) {
        case RefKind::ramp_step: return "hung in run " + r.run + " step " + std::to_string(r.step) + " (" + r.time + ")";
        case RefKind::boot_apply:
            return "was applied by the boot action at " + r.time + " in boot " + r.boot +
                   ", and that boot never became healthy";
        case RefKind::boot_trip:
            return "was applied by the boot action in a boot that never became healthy (the boot guard found it at " +
                   r.time + " in boot " + r.boot + ")";
        case RefKind::unread_write:
            return "was written by " + writer_text(r.writer) + " at " + r.time + " in boot " + r.boot +
                   " and never read back before the machine went down";
        case RefKind::answered_hung:
            return "was written by " + writer_text(r.writer) + " at " + r.time + " in boot " + r.boot +
                   ", in force when the machine went down, and a person said it hung" + claim_text(r);
        case RefKind::suspect:
            return "was written by " + writer_text(r.writer) + " at " + r.time + " in boot " + r.boot +
                   " and was in force when the machine went down" + claim_text(r);
        case RefKind::trial_hung:
            return "was tried for one boot by " + writer_text(r.writer) + ", and that boot ended without a "
                   "confirmation (recorded " + r.time + " in boot " + r.boot + ")";
    }
    return {};
}

std::string_view kind_name(RefKind k) {
    switch (k) {
        case RefKind::ramp_step: return "ramp_step";
        case RefKind::boot_apply: return "boot_apply";
        case RefKind::boot_trip: return "boot_trip";
        case RefKind::unread_write: return "unread_write";
        case RefKind::answered_hung: return "answered_hung";
        case RefKind::suspect: return "suspect";
        case RefKind::trial_hung: return "trial_hung";
    }
    return "unknown";
}

std::optional<std::string_view> outcome_to_record(RunState s) {
    switch (s) {
        case RunState::hung_in_earlier_boot:
        case RunState::interrupted_in_earlier_boot: return "hung";
        case RunState::ended_without_record: return "aborted";
        case RunState::awaiting_in_this_boot:
        case RunState::revert_unproven_in_this_boot: return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace wiredcap::recovery
