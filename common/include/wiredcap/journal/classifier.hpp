// The one classifier of the journal (docs/design.md, "One classifier"): for a journal and the
// current boot, the hangs (and so the hang ceiling: value, record, writer, whether a forget
// lifted it), the suspects, the steps at risk and awaiting confirmation, the last confirmed value
// and Linux trials' outcomes, and whose records count for each. The setuid helper (apply,
// persist, verdict), wiredcap-system (the boot action, Linux trials) and the CLI (status,
// recover, set, ramp, persist, metrics) all take their answers from here; they add only wording.
//
// The rule: a step that was applied (or whose intent was recorded) but was never confirmed
// nor reverted, in an EARLIER boot than the current one, is where the machine hung: the
// forced reboot was the rollback. In the CURRENT boot the same state means a ramp is running
// now or its process died (its guard reverts it): unresolved, never a hang.
//
// An `end` record settles a run only on evidence: no step is still at risk, or the end's own
// read-back is the run's revert target (the value before step 1, or the last confirmed one) and
// its outcome is not revert_failed. Otherwise the run is treated as if it had not ended: in this
// boot it is revert_unproven_in_this_boot (a `wiredcap reset` settles it, as for awaiting), after
// a reboot it is classified like any step left at risk (the value was in force when the machine
// went down, so it counts as a hang: never round toward danger). Root's or the run owner's
// `end ... hung` binds its step at risk in any boot; another uid's binds nothing.
//
// The boot action (wiredcap persist, the LaunchDaemon) adds one more kind of hang: a
// "command":"boot","event":"tripped" record with to_mib V says the boot guard found a boot
// that applied V and never became healthy. It counts as a hang at V. Writes outside a ramp
// (set, the helper run directly, the boot action's apply) are outside_ramps.hpp's.
//
// Records are taken in file order, never by their times (one second holds many records, and a
// clock can be set back). Memory grows with the runs and steps the journal holds, and the helper
// reads at most journal::kMaxJournalBytes of it. Allocation failure is the caller's to catch
// (the helper's adapter, helper/include/wiredcap/helper/journal/hang_ceiling.hpp, turns it into "cannot tell": refused).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/journal/record.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

// Where a recorded value came from.
enum class RefKind {
    ramp_step,      // a step of a ramp run: run and step say which
    boot_apply,     // the boot action's apply of a stored value, in a boot that never became
                    // healthy (time and boot are the apply's)
    boot_trip,      // the same, when the apply is no longer in the journal: time and boot are
                    // those of the boot that found it (the guard's trip)
    unread_write,   // a write outside a ramp never read back before its boot ended
                    // (common/journal/outside_ramps.hpp); writer says who wrote it
    answered_hung,  // a suspect (a raised write in force when its boot ended) a person said hung
    suspect,        // the same, not answered yet: not a hang
    trial_hung,     // Linux: a try-once trial whose boot ended without a confirmation
                    // (wiredcap-system ttm-after-boot or ttm-reset recorded it `hung`)
};

struct StepRef {
    std::string run;         // empty unless ramp_step
    std::uint64_t step = 0;  // 0 unless ramp_step
    units::MiB value = units::MiB::zero();
    std::string time;
    std::string boot;
    RefKind kind = RefKind::ramp_step;
    std::string writer = {};  // outside a ramp: "set", "helper-apply", "boot-action"
    std::uint64_t uid = 0;    // who ran it (the journal's uid)
    bool forgotten = false;   // a hang recorded before a person's forget-hang: history only
    // A write from the OS default, measured against the effective cap its caller gave
    // (--effective): that caller's claim, never a measurement (docs/design.md §8).
    std::optional<units::MiB> claimed_from = std::nullopt;
};

// A person cleared the hang ceiling (wiredcap recover --forget-hang).
struct Forgotten {
    std::size_t order = 0;  // 1-based position of the record: hangs before it no longer bind
    units::MiB value = units::MiB::zero();  // the ceiling the person cleared
    std::string time;
    std::uint64_t uid = 0;
    std::string why;  // macos-update | hardware-change | other-cause
};

enum class RunState {
    hung_in_earlier_boot,          // applied, never confirmed, then the machine rebooted
    interrupted_in_earlier_boot,   // intent recorded, no outcome, then the machine rebooted
    awaiting_in_this_boot,         // applied or intended in this boot, not yet confirmed/reverted
    revert_unproven_in_this_boot,  // ended in this boot, but its `end` says revert_failed or reads
                                   // back another value than the run's revert target, and no
    // record since shows the step settled (docs/design.md §6, crash points and recover)
    ended_without_record,  // nothing at risk (last step confirmed or reverted), no "end"
};

struct UnresolvedRun {
    StepRef at;  // the step in question (for ended_without_record: the last step)
    RunState state;
};

// Whether a run in this state holds a step open in this boot (awaiting confirmation, or ended
// with its revert not shown): a state every writer respects. Only a reset, or that run's own
// next record, goes through while one is open (docs/design.md, "A step awaiting confirmation").
[[nodiscard]] bool holds_a_step_open(RunState s) noexcept;

// What the journal says about storing a value for boot (persist): its latest confirmation with
// that read-back, unless a boot guard's trip at or below the value came since (a value that may
// have hung is not stored again until a later ramp confirms it); and whether such a trip came
// (without a confirmation: ever), which withdraws a policy's vouch too.
struct Confirmation {
    std::string run;
    std::uint64_t step = 0;
};
struct Standing {
    std::optional<Confirmation> confirmation;
    bool tripped = false;
};

// A record whose command or event this version does not know (a newer helper's, say): kept in
// the journal, read as nothing, and shown as unknown.
struct UnknownRecord {
    std::size_t order = 0;  // 1-based position among the records
    std::string time;
    std::string boot;
    std::uint64_t uid = 0;
    std::string command;
    std::string event;
};
inline constexpr std::size_t kUnknownShown = 8;  // the first ones kept; the rest only counted

struct Report {
    std::optional<StepRef> last_confirmed;  // the most recent confirmed step, any run
    std::optional<StepRef> hang_ceiling;    // the lowest value that hung (recorded or found now),
                                            // of the hangs not forgotten
    std::vector<StepRef> hangs;             // every step that hung, oldest first (forgotten too)
    std::vector<UnresolvedRun> unresolved;  // runs with no "end" record
    std::vector<StepRef> suspects;          // writes outside a ramp a person must judge
    std::optional<Forgotten> forgotten;     // the last time a person cleared the ceiling
    std::size_t unknown_count = 0;          // records with a word this version does not know
    std::vector<UnknownRecord> unknown;     // the first kUnknownShown of them
};

// The first run that holds a step open, per the report; null when none does.
[[nodiscard]] const UnresolvedRun* open_step(const Report& report) noexcept;

// Whether that open step refuses a write by `uid` in run `run` (empty: none): every write outside
// its run, except root's past another uid's step (a member cannot hold root's commands back).
[[nodiscard]] bool open_step_refuses(const StepRef& open, std::uint64_t uid,
                                     std::string_view run) noexcept;

// Whether `boot` is known to be an earlier boot than the current one. When either identity
// could not be read (the helper stamps "unknown"), nothing proves a reboot happened, and a
// ramp that may be running now must not be declared hung.
[[nodiscard]] bool earlier_boot(std::string_view boot, std::string_view current_boot);

// The journal replayed one record at a time in file order, holding no record: a journal read
// line by line is classified without holding its lines. Nothing of a lent record (views into its
// line) is kept by reference.
// A record only root's word makes: a forget-hang (it lifts every hang before it) and a verdict's
// not-hung (it settles a write for every writer). The helper refuses one from anyone else, and
// the classifier reads one already in a journal from anyone else as nothing: one rule for both.
[[nodiscard]] bool is_roots_word_alone(std::string_view command, std::string_view event) noexcept;

class Classifier {
public:
    explicit Classifier(std::string_view current_boot);
    ~Classifier();
    Classifier(Classifier&&) noexcept;
    Classifier& operator=(Classifier&&) noexcept;
    void add(const EntryView& e);

    // Whose hangs bind: every writer, or the boot action applying the value stored for boot. For
    // that one, hangs known when it was stored with persist --ignore-hang-ceiling (before that
    // record, from boots other than its) were overridden by a person and do not bind it; a later
    // store without the override counts every hang again.
    enum class For { any_writer, stored_value };
    // The answers on the records added so far (more may be added after).
    [[nodiscard]] Report finish(For who = For::any_writer) const;

    // Whether `value` in boot `boot` is a suspect this caller may answer (a `verdict`): the write
    // outside a ramp last read back in that earlier boot was `value`, raised the cap and was in
    // force when the boot ended; and for a caller other than root, root has not answered it.
    [[nodiscard]] bool may_answer(std::string_view boot, units::MiB value, bool root) const;

    // What a `confirm` by `uid` of the run's step may confirm: the read-back of that uid's own
    // apply of it in the current boot, in a run it opened, not taken back by a later record of its
    // own for the step (another uid's records change nothing). Nothing: not confirmable.
    [[nodiscard]] std::optional<units::MiB> own_apply(std::string_view run, std::uint64_t step,
                                                      std::uint64_t uid) const;

    // The 1-based orders (as added) of the run-less writes, verdicts and forgets the answers rest
    // on, unordered: the compaction drops every other one of them.
    [[nodiscard]] std::vector<std::size_t> outside_ramps_in_use() const;

    // Whether `value` may be stored for boot as confirmed (Standing).
    [[nodiscard]] Standing standing(units::MiB value) const;

private:
    struct State;
    std::unique_ptr<State> s_;
};

}  // namespace wiredcap::journal
