// The journal replayed, run by run and step by step (classifier.hpp): what value a person last
// confirmed, which values hung the machine, which ramps never concluded.
#include "wiredcap/journal/classifier.hpp"

#include "wiredcap/journal/chunked.hpp"
#include "wiredcap/journal/outside_ramps.hpp"
#include "wiredcap/journal/replay_texts.hpp"
#include "wiredcap/journal/step_risk.hpp"
#include "wiredcap/journal/vocabulary.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <functional>
#include <map>
#include <vector>

#include "wiredcap/units/format.hpp"

namespace wiredcap::journal {
namespace {

using units::MiB;

// A field copied into a string kept from record to record: one as long as the string holds now
// (a time, a boot id) is copied over, without std::string's general assign (the replay copies
// two or three per record: a tenth of its instructions, callgrind, bench/journal_scale.sh).
[[gnu::always_inline]] inline void copy_text(std::string& to, std::string_view from) {
    if (to.size() == from.size()) {
        // An empty view may have no data at all, and memcpy's source must never be null.
        if (!from.empty()) std::memcpy(to.data(), from.data(), from.size());
    } else {
        to.clear();
        to.append(from.data(), from.size());
    }
}

// No step, no run, not in the at-risk index. (Runs and steps are numbered in 32 bits: a journal
// the reader takes, at most 64 MiB of lines of some 60 bytes or more, has far fewer.)
constexpr std::uint32_t kNone = UINT32_MAX;

// What the journal says about one step of one run, after the records seen so far.
struct StepTrack {
    std::uint64_t step = 0;
    std::optional<MiB> value;  // the value the step asked for (its forward to_mib)
    Text time;                 // of the latest forward record (intent or outcome)
    Text boot;
    std::size_t first_index = 0;      // position of its first record: orders the hangs
    std::uint32_t self = 0;           // its place in Runs' steps
    std::uint32_t below = kNone;      // the run's step numbered next below this one (Runs' list)
    std::uint32_t risk_slot = kNone;  // its place in Runs' index of the steps at risk, if there
    // Its run owner's last apply read back in the current boot, unless a later record of the
    // owner's for the step took it back: what a `confirm` may confirm (Classifier::own_apply).
    std::optional<MiB> owners_apply;
    bool intended = false;
    bool applied = false;  // applied, or unchanged (the kernel already held the value)
    bool failed = false;   // mismatch or write_failed: the value may or may not be in force
    // The state machine: a forward record puts the step at risk; a later confirmation or a
    // completed revert takes it out. Failed revert attempts leave it at risk.
    bool at_risk = false;

    [[nodiscard]] bool has_forward() const { return intended || applied || failed; }
};

// What is kept of a record once the replay has moved on (the journal is streamed through it,
// one lent record at a time): the fields the answers use.
struct LastRecord {
    std::optional<std::uint64_t> step;
    std::optional<MiB> to;
    Text time;
    Text boot;
};
struct EndRecord {
    std::optional<MiB> readback;
    Text reason;
    Text boot;  // an end reads back its own boot's knob, never an earlier boot's
};

struct RunTrack {
    Text id;
    std::uint32_t top = kNone;  // its highest-numbered step (Runs' list, highest first)
    bool ended = false;
    bool ended_hung = false;
    std::uint64_t owner = 0;  // the uid of its first record: whose run it is
    bool owned = false;
    bool any_forward = false;  // some step has had a forward record
    // The run's most recent record (its number in Runs' records), kept only while no step has a
    // forward record: it names a run with none, and a forward record is never undone. Most runs
    // never need one: apart, it is memory (page faults) only a few runs use.
    std::uint32_t last = kNone;
    EndRecord last_end;         // its most recent `end` (when ended)
    std::optional<MiB> target;  // where a revert goes: the value before step 1, then the
                                // last confirmed one
};

// Runs in the order they first appear in the journal, their steps, and which of the steps are
// at risk now: a reset settles only those, so replaying a journal of many ramps, each ended by a
// reset, stays linear (it was quadratic: 78 s for 400,000 records, bench/journal_scale.sh).
// Every run and every step is one element of a Chunked sequence, found by its number there, and
// their texts are in `texts`: a journal's runs are all held while it is read, and an allocation
// each (a map's node, a vector of steps, a string) was most of the replay's time (callgrind,
// bench/journal_scale.sh).
class Runs {
public:
    ReplayTexts texts;

    RunTrack& at(std::uint32_t index) { return runs_[index]; }
    std::uint32_t index_of(std::string_view id) {
        // A run's records mostly come one after another: the last run asked for, without hashing.
        if (last_ != kNone && runs_[last_].id.is(id)) return last_;
        last_ = find_or_add(id);
        return last_;
    }
    [[nodiscard]] std::size_t count() const { return runs_.size(); }
    [[nodiscard]] const RunTrack& at(std::size_t index) const { return runs_[index]; }

    // The run's step numbered n, made when it is new. Steps are never removed, nor moved.
    StepTrack& step_of(RunTrack& r, std::uint64_t n) {
        // The list is highest first, and a new step is usually the run's highest.
        std::uint32_t above = kNone, next = r.top;
        while (next != kNone && steps_[next].step > n) {
            above = next;
            next = steps_[next].below;
        }
        if (next != kNone && steps_[next].step == n) return steps_[next];
        const auto made = static_cast<std::uint32_t>(steps_.size());
        StepTrack& s = steps_.emplace_back();
        s.self = made;
        s.step = n;
        s.below = next;
        (above == kNone ? r.top : steps_[above].below) = made;
        return s;
    }
    // The run's highest-numbered step for which `pred` holds, or null.
    template <class Pred>
    [[nodiscard]] const StepTrack* highest(const RunTrack& r, Pred pred) const {
        for (std::uint32_t i = r.top; i != kNone; i = steps_[i].below)
            if (pred(steps_[i])) return &steps_[i];
        return nullptr;
    }

    // Call after a step's record: keeps the at-risk index in step with the step.
    void note_risk(StepTrack& s) {
        const bool listed = s.risk_slot != kNone;
        if (s.at_risk && !listed) {
            s.risk_slot = static_cast<std::uint32_t>(at_risk_.size());
            at_risk_.push_back(s.self);
        } else if (!s.at_risk && listed) {
            unlist(s);
        }
    }
    // The run's most recent record (see RunTrack::last), made when it has none.
    LastRecord& last_of(RunTrack& r) {
        if (r.last == kNone) {
            r.last = static_cast<std::uint32_t>(lasts_.size());
            lasts_.emplace_back();
        }
        return lasts_[r.last];
    }
    [[nodiscard]] const LastRecord* last_of(const RunTrack& r) const {
        return r.last == kNone ? nullptr : &lasts_[r.last];
    }

    // A completed reset put the OS default back: steps at risk in the same boot no longer are.
    // (The order the index is visited in does not matter: each such step is settled.)
    void settle_boot(std::string_view boot) {
        for (std::size_t i = 0; i < at_risk_.size();) {
            StepTrack& s = steps_[at_risk_[i]];
            if (s.boot.is(boot)) {
                s.at_risk = false;
                unlist(s);  // the last listed step moves to i: looked at next
            } else {
                ++i;
            }
        }
    }

private:
    // The run named `id`, made when it is new: an open-addressed table of run numbers (+1; 0 is
    // an empty slot), at most half full.
    std::uint32_t find_or_add(std::string_view id) {
        if (2 * (runs_.size() + 1) > slots_.size()) grow();
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = std::hash<std::string_view>{}(id)&mask;; i = (i + 1) & mask) {
            if (slots_[i] == 0) {
                const auto made = static_cast<std::uint32_t>(runs_.size());
                texts.set(runs_.emplace_back().id, id);
                slots_[i] = made + 1;
                return made;
            }
            if (runs_[slots_[i] - 1].id.is(id)) return slots_[i] - 1;
        }
    }
    void grow() {
        slots_.assign(slots_.empty() ? 256 : 2 * slots_.size(), 0);
        const std::size_t mask = slots_.size() - 1;
        for (std::uint32_t r = 0; r < runs_.size(); ++r) {
            std::size_t i = std::hash<std::string_view>{}(runs_[r].id.view()) & mask;
            while (slots_[i] != 0) i = (i + 1) & mask;
            slots_[i] = r + 1;
        }
    }
    // Out of the index in constant time: the last listed step takes its place (a std::set of
    // them cost a node, and its allocation, for every step of every run: callgrind).
    void unlist(StepTrack& s) {
        const std::uint32_t slot = s.risk_slot;
        s.risk_slot = kNone;
        if (slot + 1 != at_risk_.size()) {
            at_risk_[slot] = at_risk_.back();
            steps_[at_risk_[slot]].risk_slot = slot;
        }
        at_risk_.pop_back();
    }

    // Chunks of some 40 KiB.
    Chunked<RunTrack, 256> runs_;
    std::vector<std::uint32_t> slots_;    // find_or_add's table
    std::uint32_t last_ = kNone;          // the run index_of found last
    Chunked<StepTrack, 512> steps_;       // every run's steps, as they first appear
    Chunked<LastRecord, 256> lasts_;      // the runs' most recent records, where kept
    std::vector<std::uint32_t> at_risk_;  // the steps at risk now: each knows its place here
};

// The events the replay tells apart, named once per record (each record was compared with a
// dozen words, most of them more than once: callgrind, bench/journal_scale.sh).
enum class Event {
    intent,
    applied,
    unchanged,
    mismatch,
    write_failed,
    revert_applied,
    confirmed,
    end,
    tripped,
    other
};

Event event_of(std::string_view w) {
    auto is = [&](const auto& word, Event e) { return is_word(w, word) ? e : Event::other; };
    switch (w.size()) {
        case 3: return is(event::end, Event::end);
        case 6: return is(event::intent, Event::intent);
        case 7:
            return is_word(w, event::applied) ? Event::applied : is(event::tripped, Event::tripped);
        case 8: return is(event::mismatch, Event::mismatch);
        case 9:
            return is_word(w, event::unchanged) ? Event::unchanged
                                                : is(event::confirmed, Event::confirmed);
        case 12: return is(event::write_failed, Event::write_failed);
        case 14: return is(event::revert_applied, Event::revert_applied);
        default: return Event::other;
    }
}

void apply_forward(StepTrack& s, const EntryView& e, Event ev, ReplayTexts& texts) {
    if (!s.value) s.value = e.to ? e.to : e.readback;
    texts.set(s.time, e.time);
    texts.set(s.boot, e.boot);
    if (ev == Event::intent) s.intended = true;
    else if (ev == Event::applied || ev == Event::unchanged) s.applied = true;
    else s.failed = true;
    s.at_risk = true;
}

void apply_step_event(StepTrack& s, const EntryView& e, Event ev, std::size_t index,
                      ReplayTexts& texts) {
    if (s.first_index == 0) s.first_index = index;
    auto count = [](const std::optional<MiB>& v) {
        return v ? std::optional<std::uint64_t>(v->count()) : std::nullopt;
    };
    switch (step_effect(e.event, count(s.value), count(e.to))) {  // the one rule (step_risk.hpp)
        case StepEffect::settled: s.at_risk = false; break;
        case StepEffect::at_risk: apply_forward(s, e, ev, texts); break;
        case StepEffect::none: break;
    }
}

StepRef ref_of(const RunTrack& r, const StepTrack& s) {
    StepRef ref{std::string(r.id.view()),      s.step,
                s.value.value_or(MiB::zero()), std::string(s.time.view()),
                std::string(s.boot.view()),    RefKind::ramp_step};
    ref.uid = r.owner;
    return ref;
}

// The confirmed value: what the kernel read back when the person said yes, else what the step
// asked for. A confirmation whose value cannot be known is not reported as any value.
std::optional<MiB> confirmed_value(const EntryView& e, const StepTrack* s) {
    std::optional<MiB> value = e.readback;
    if (!value && s != nullptr) value = s->value;
    if (!value) value = e.to;
    return value;
}

// The confirmation as the last confirmed step: written over the one before in place (its
// strings' storage kept), with every field a new StepRef{run, step, value, time, boot} has.
void set_confirmed(std::optional<StepRef>& last, const EntryView& e, MiB value) {
    if (!last) last.emplace();
    StepRef& r = *last;
    copy_text(r.run, e.run ? std::string_view(*e.run) : std::string_view());
    r.step = e.step.value_or(0);
    r.value = value;
    copy_text(r.time, e.time);
    copy_text(r.boot, e.boot);
    r.kind = RefKind::ramp_step;
    r.writer.clear();
    r.uid = 0;
    r.forgotten = false;
    r.claimed_from.reset();
}

// The highest step that ever had a forward record: the one a ramp was on when it stopped.
const StepTrack* highest_forward(const Runs& runs, const RunTrack& r) {
    return runs.highest(r, [](const StepTrack& s) { return s.has_forward(); });
}

// The highest step still at risk: for a run recorded as hung, the value that hung.
const StepTrack* highest_at_risk(const Runs& runs, const RunTrack& r) {
    return runs.highest(r, [](const StepTrack& s) { return s.at_risk; });
}

// A step whose value is the OS default (a reset) cannot be what hung the machine.
bool can_hang(const StepTrack& s) { return s.value && s.value->count() != 0; }

// A run with nothing recorded that ever put the machine at risk (only refusals, say).
UnresolvedRun nothing_at_risk(const Runs& runs, const RunTrack& r) {
    static const LastRecord kNoRecord{};
    const LastRecord* kept = runs.last_of(r);  // always there for a run with no forward record
    const LastRecord& e = kept != nullptr ? *kept : kNoRecord;
    StepRef at{std::string(r.id.view()),   e.step.value_or(0),         e.to.value_or(MiB::zero()),
               std::string(e.time.view()), std::string(e.boot.view()), RefKind::ramp_step};
    return UnresolvedRun{std::move(at), RunState::ended_without_record};
}

UnresolvedRun classify(const Runs& runs, const RunTrack& r, std::string_view current_boot) {
    const StepTrack* s = highest_forward(runs, r);
    if (s == nullptr) return nothing_at_risk(runs, r);
    StepRef at = ref_of(r, *s);
    if (!s->at_risk) return UnresolvedRun{std::move(at), RunState::ended_without_record};
    // In this boot the ramp may still be running, or its guard is reverting it: leave it alone.
    if (!earlier_boot(s->boot.view(), current_boot))
        return UnresolvedRun{std::move(at), RunState::awaiting_in_this_boot};
    // An earlier boot: the reboot reset the knob. Only a raised value can have caused it.
    if (!can_hang(*s)) return UnresolvedRun{std::move(at), RunState::ended_without_record};
    // A failed write (no applied record) is treated as interrupted: whether the value took
    // effect before the machine went down is unknown, so it is assumed it did.
    const RunState state =
        s->applied ? RunState::hung_in_earlier_boot : RunState::interrupted_in_earlier_boot;
    return UnresolvedRun{std::move(at), state};
}

struct Hang {
    std::size_t order;
    StepRef ref;
};

// `wiredcap reset` outside any ramp that took effect (or found the OS default in force).
bool is_completed_plain_reset(const EntryView& e, Event ev) {
    return !e.run && (ev == Event::applied || ev == Event::unchanged) &&
           is_word(e.command, command::reset);
}

// The boot action's records, which belong to no run.
bool is_boot_apply(const EntryView& e, Event ev) {
    return !e.run &&
           (ev == Event::intent || ev == Event::applied || ev == Event::mismatch ||
            ev == Event::write_failed) &&
           is_word(e.command, command::boot);
}
bool is_boot_trip(const EntryView& e, Event ev) {
    return !e.run && ev == Event::tripped && is_word(e.command, command::boot);
}

// A trip names the value, and the boot that found it; the boot that hung is the one whose apply
// of that value came last before it. Without that record (a journal that lost it) the trip
// itself is the only witness, and says so by its kind.
StepRef trip_ref(const EntryView& trip, const LastRecord* last_apply) {
    const MiB value = *trip.to;
    if (last_apply != nullptr && last_apply->to == trip.to && !last_apply->boot.is(trip.boot))
        return StepRef{"",
                       0,
                       value,
                       std::string(last_apply->time.view()),
                       std::string(last_apply->boot.view()),
                       RefKind::boot_apply};
    return StepRef{
        "", 0, value, std::string(trip.time), std::string(trip.boot), RefKind::boot_trip};
}

void keep(LastRecord& kept, const EntryView& e, ReplayTexts& texts) {
    kept.step = e.step;
    kept.to = e.to;
    texts.set(kept.time, e.time);  // the storage of the record before is reused
    texts.set(kept.boot, e.boot);
}

}  // namespace

// Every record replayed into the runs, noting the last confirmation and the boot guard's trips
// on the way, and the writes outside a ramp scanned alongside.
struct Classifier::State {
    explicit State(std::string_view boot) : current_boot(boot), outside(current_boot) {}
    std::string current_boot;
    Runs runs;
    std::optional<StepRef> last_confirmed;
    std::vector<Hang> boot_hangs;  // from the boot guard's trips, in journal order
    // Per read-back value, its latest confirmation and where it stands in the journal.
    std::map<std::uint64_t, std::pair<std::size_t, Confirmation>> confirmations;
    std::optional<LastRecord> last_boot_apply;
    OutsideRampScan outside;  // after current_boot: it keeps a view of it
    std::size_t order = 0;    // records added so far
    // The last store of a value for boot, if it overrode the hang ceiling (Classifier::For).
    struct Waiver {
        std::size_t order;
        std::string boot;
    };
    std::optional<Waiver> waiver;
    [[nodiscard]] bool waived(std::size_t hang_order, std::string_view hang_boot) const {
        return waiver && hang_order < waiver->order && hang_boot != waiver->boot;
    }
    std::size_t unknown_count = 0;
    std::vector<UnknownRecord> unknown;
    void note_unknown(const EntryView& e, std::size_t at) {
        if (unknown_count++ < kUnknownShown)
            unknown.push_back(UnknownRecord{at, std::string(e.time), std::string(e.boot), e.uid,
                                            std::string(e.command), std::string(e.event)});
    }
    // A value stored for boot (persist): a store without the override keeps every hang binding.
    void note_store(const EntryView& e, std::size_t at) {
        if (!is_word(e.command, command::persist) || !e.to) return;
        if (!is_word(e.event, event::persisted) && !is_word(e.event, event::unchanged)) return;
        waiver.reset();
        if (e.ignore_hang_ceiling) waiver = Waiver{at, std::string(e.boot)};
    }
};

Classifier::Classifier(std::string_view current_boot) : s_(std::make_unique<State>(current_boot)) {}
Classifier::~Classifier() = default;
Classifier::Classifier(Classifier&&) noexcept = default;
Classifier& Classifier::operator=(Classifier&&) noexcept = default;

void Classifier::add(const EntryView& e) {
    State& st = *s_;
    const std::size_t order = ++st.order;
    // A word this version does not know: counted and shown, and read as nothing else.
    if (!is_known_command(e.command) || !is_known_event(e.event)) return st.note_unknown(e, order);
    if (e.uid != 0 && is_roots_word_alone(e.command, e.event)) return;  // no one's word but root's
    const Event ev = event_of(e.event);
    Runs& runs = st.runs;
    StepTrack* step = nullptr;
    std::uint32_t run_index = 0;
    if (e.run) {
        run_index = runs.index_of(*e.run);
        RunTrack& run = runs.at(run_index);
        if (!run.owned) run.owner = e.uid;  // its first record's
        run.owned = true;
        if (!run.target && e.from && is_forward_event(e.event)) run.target = e.from;
        if (ev == Event::end) {
            run.ended = true;
            run.last_end.readback = e.readback;
            runs.texts.set(run.last_end.reason, e.reason);
            runs.texts.set(run.last_end.boot, e.boot);
            // A recorded hang is never lost; but another uid's `hung` for root's (or another
            // member's) run is no one's word but its own: it makes no step a hang.
            const bool may_say_hung = e.uid == 0 || e.uid == run.owner;
            run.ended_hung = run.ended_hung || (may_say_hung && is_word(e.reason, outcome::hung));
        } else if (e.step) {
            step = &runs.step_of(run, *e.step);
            apply_step_event(*step, e, ev, order, runs.texts);
            const bool read_back = is_word(e.command, command::apply) &&
                                   (ev == Event::applied || ev == Event::unchanged);
            if (e.uid == run.owner && !is_word(e.command, command::confirm))
                step->owners_apply =
                    read_back && e.boot == st.current_boot ? e.readback : std::nullopt;
            if (step->has_forward()) run.any_forward = true;
            runs.note_risk(*step);
        }
        if (!run.any_forward) keep(runs.last_of(run), e, runs.texts);
    }
    // A completed reset put the OS default back: steps at risk in the same boot no longer are, so
    // a person who followed recover's advice ("wiredcap reset") is not blocked until a reboot.
    // Steps from an earlier boot keep their risk: the reboot reset the knob, and they stay the
    // hangs they were.
    if (is_completed_plain_reset(e, ev)) runs.settle_boot(e.boot);
    if (is_boot_apply(e, ev)) {
        if (!st.last_boot_apply) st.last_boot_apply.emplace();  // its texts' storage kept
        keep(*st.last_boot_apply, e, runs.texts);
    }
    // A trip at the OS default (0) would be no hang at all; the helper never stores 0.
    if (is_boot_trip(e, ev) && e.to && e.to->count() != 0)
        st.boot_hangs.push_back(
            Hang{order, trip_ref(e, st.last_boot_apply ? &*st.last_boot_apply : nullptr)});
    // A plain `wiredcap set` (no run) is applied but never confirmed; only this event counts.
    if (ev == Event::confirmed) {
        if (auto value = confirmed_value(e, step)) {
            if (e.run) runs.at(run_index).target = *value;
            set_confirmed(st.last_confirmed, e, *value);
        }
        // Only the kernel's read-back says what a confirmation kept.
        if (e.readback && e.step)
            st.confirmations[e.readback->count()] = {
                order, Confirmation{std::string(e.run.value_or("")), *e.step}};
    }
    st.outside.add(e, order);
    st.note_store(e, order);
}

bool is_roots_word_alone(std::string_view command, std::string_view event) noexcept {
    return (command == command::forget_hang && event == event::forgotten) ||
           (command == command::verdict && event == event::not_hung);
}

bool holds_a_step_open(RunState s) noexcept {
    return s == RunState::awaiting_in_this_boot || s == RunState::revert_unproven_in_this_boot;
}

const UnresolvedRun* open_step(const Report& report) noexcept {
    for (const auto& u : report.unresolved)
        if (holds_a_step_open(u.state)) return &u;
    return nullptr;
}

bool open_step_refuses(const StepRef& open, std::uint64_t uid, std::string_view run) noexcept {
    return open.run != run && (uid != 0 || open.uid == 0);
}

bool Classifier::may_answer(std::string_view boot, MiB value, bool root) const {
    return s_->outside.may_answer(boot, value, root);
}

std::optional<MiB> Classifier::own_apply(std::string_view run, std::uint64_t step,
                                         std::uint64_t uid) const {
    const Runs& runs = s_->runs;
    for (std::size_t i = 0; i < runs.count(); ++i) {
        const RunTrack& r = runs.at(i);
        if (!r.id.is(run)) continue;
        const StepTrack* s = runs.highest(r, [&](const StepTrack& t) { return t.step == step; });
        return s != nullptr && r.owner == uid ? s->owners_apply : std::nullopt;
    }
    return std::nullopt;
}

std::vector<std::size_t> Classifier::outside_ramps_in_use() const {
    std::vector<std::size_t> orders;
    s_->outside.add_in_use(orders);
    return orders;
}

Standing Classifier::standing(MiB value) const {
    const State& st = *s_;
    const auto c = st.confirmations.find(value.count());
    const std::size_t since = c == st.confirmations.end() ? 0 : c->second.first;
    Standing out;
    out.tripped = std::any_of(st.boot_hangs.begin(), st.boot_hangs.end(), [&](const Hang& h) {
        return h.order > since && h.ref.value <= value;
    });
    if (c != st.confirmations.end() && !out.tripped) out.confirmation = c->second.second;
    return out;
}

namespace {

// Whether the run's `end` is evidence that nothing is left in force: see recovery.hpp.
// An end of a later boot than the step at risk proves nothing about the boot that went down
// (whoever wrote it: a group member may end any run, docs/design.md §8).
bool end_settles(const Runs& runs, const RunTrack& r) {
    const StepTrack* at_risk = highest_at_risk(runs, r);
    if (at_risk == nullptr) return true;
    const EndRecord& e = r.last_end;
    if (e.boot != at_risk->boot) return false;
    return !is_word(e.reason.view(), outcome::revert_failed) && e.readback && r.target &&
           *e.readback == *r.target;
}

void collect(const Runs& runs, const RunTrack& r, std::string_view current_boot, Report& report,
             std::vector<Hang>& hangs) {
    if (r.ended && r.ended_hung) {
        if (const StepTrack* s = highest_at_risk(runs, r); s != nullptr && can_hang(*s))
            hangs.push_back(Hang{s->first_index, ref_of(r, *s)});
        return;
    }
    if (r.ended && end_settles(runs, r)) return;
    UnresolvedRun u = classify(runs, r, current_boot);
    if (r.ended && u.state == RunState::awaiting_in_this_boot)
        u.state = RunState::revert_unproven_in_this_boot;
    if (u.state == RunState::hung_in_earlier_boot ||
        u.state == RunState::interrupted_in_earlier_boot)
        if (const StepTrack* s = highest_forward(runs, r))
            hangs.push_back(Hang{s->first_index, u.at});
    report.unresolved.push_back(std::move(u));
}

// Writes outside a ramp: their hangs join the others, except a boot action's write that the
// boot guard's trip already names (the same value, applied in the same boot). Every hang found
// before the last forget-hang is kept, marked forgotten.
void add_outside_ramps(OutsideRamps o, std::vector<Hang>& hangs, Report& report) {
    for (auto& entry : o.hangs) {
        // Not a structured binding: clang before 16 cannot capture one in a lambda.
        StepRef& ref = entry.second;
        const bool tripped = ref.writer == writer::boot_action &&
                             std::any_of(hangs.begin(), hangs.end(), [&](const Hang& h) {
                                 return h.ref.kind == RefKind::boot_apply &&
                                        h.ref.boot == ref.boot && h.ref.value == ref.value;
                             });
        if (!tripped) hangs.push_back(Hang{entry.first, std::move(ref)});
    }
    if (o.forgotten)
        for (Hang& h : hangs) h.ref.forgotten = h.order < o.forgotten->order;
    report.suspects = std::move(o.suspects);
    report.forgotten = std::move(o.forgotten);
}

}  // namespace

Report Classifier::finish(For who) const {
    const State& st = *s_;
    Report report;
    report.last_confirmed = st.last_confirmed;
    report.unknown_count = st.unknown_count;
    report.unknown = st.unknown;
    std::vector<Hang> hangs = st.boot_hangs;
    for (std::size_t r = 0; r < st.runs.count(); ++r)
        collect(st.runs, st.runs.at(r), st.current_boot, report, hangs);
    add_outside_ramps(st.outside.result(), hangs, report);
    std::stable_sort(hangs.begin(), hangs.end(),
                     [](const Hang& a, const Hang& b) { return a.order < b.order; });
    // The lowest value that hung and was not forgotten since (nor waived, for the stored value);
    // among equals, the oldest.
    for (Hang& h : hangs) {
        const bool binds =
            !h.ref.forgotten && (who == For::any_writer || !st.waived(h.order, h.ref.boot));
        if (binds && (!report.hang_ceiling || h.ref.value < report.hang_ceiling->value))
            report.hang_ceiling = h.ref;
        report.hangs.push_back(std::move(h.ref));
    }
    return report;
}

}  // namespace wiredcap::journal
