// What the journal says about past ramps (docs/design.md section 6): the last value a person
// confirmed, the lowest value that hung, and any run that never concluded.
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
// went down, so it counts as a hang: never round toward danger).
//
// The boot action (wiredcap persist, the LaunchDaemon) adds one more kind of hang: a
// "command":"boot","event":"tripped" record with to_mib V says the boot guard found a boot
// that applied V and never became healthy. It counts as a hang at V. The boot action's other
// records (intent, applied, healthy, ...) carry no run: they are neither ramp steps nor runs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "readings/journal_reader.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::recovery {

// Where a recorded value came from.
enum class RefKind {
    ramp_step,   // a step of a ramp run: run and step say which
    boot_apply,  // the boot action's apply of a stored value, in a boot that never became
                 // healthy (time and boot are the apply's)
    boot_trip,   // the same, when the apply is no longer in the journal: time and boot are
                 // those of the boot that found it (the guard's trip)
    unread_write,  // a write outside a ramp never read back before its boot ended
                   // (outside_ramps.hpp); writer says who wrote it
    answered_hung, // a suspect (a raised write in force when its boot ended) a person said hung
    suspect,       // the same, not answered yet: not a hang
    trial_hung,    // Linux: a try-once trial whose boot ended without a confirmation
                   // (wiredcap-system ttm-after-boot or ttm-reset recorded it `hung`)
};

struct StepRef {
    std::string run;         // empty unless ramp_step
    std::uint64_t step = 0;  // 0 unless ramp_step
    units::MiB value = units::MiB::zero();
    std::string time;
    std::string boot;
    RefKind kind = RefKind::ramp_step;
    std::string writer = {};   // outside a ramp: "set", "helper-apply", "boot-action"
    std::uint64_t uid = 0;     // who ran it (the journal's uid)
    bool forgotten = false;    // a hang recorded before a person's forget-hang: history only
    // A write from the OS default, measured against the effective cap its caller gave
    // (--effective): that caller's claim, never a measurement (issue 23).
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
    hung_in_earlier_boot,        // applied, never confirmed, then the machine rebooted
    interrupted_in_earlier_boot, // intent recorded, no outcome, then the machine rebooted
    awaiting_in_this_boot,       // applied or intended in this boot, not yet confirmed/reverted
    revert_unproven_in_this_boot,// ended in this boot, but its `end` says revert_failed or reads
                                 // back another value than the run's revert target, and no
                                 // record since shows the step settled (issue 12)
    ended_without_record,        // nothing at risk (last step confirmed or reverted), no "end"
};

struct UnresolvedRun {
    StepRef at;  // the step in question (for ended_without_record: the last step)
    RunState state;
};

struct Report {
    std::optional<StepRef> last_confirmed;  // the most recent confirmed step, any run
    std::optional<StepRef> hang_ceiling;    // the lowest value that hung (recorded or found now),
                                            // of the hangs not forgotten
    std::vector<StepRef> hangs;             // every step that hung, oldest first (forgotten too)
    std::vector<UnresolvedRun> unresolved;  // runs with no "end" record
    std::vector<StepRef> suspects;          // writes outside a ramp a person must judge
    std::optional<Forgotten> forgotten;     // the last time a person cleared the ceiling
};

// Whether `boot` is known to be an earlier boot than the current one. When either identity
// could not be read (the helper stamps "unknown"), nothing proves a reboot happened, and a
// ramp that may be running now must not be declared hung.
[[nodiscard]] bool earlier_boot(std::string_view boot, std::string_view current_boot);

[[nodiscard]] Report analyse(const std::vector<journal_view::Entry>& entries, std::string_view current_boot);

// The same, one record at a time in file order: a journal read line by line is analysed without
// holding its entries (journal_view::read_journal with a sink; status and recover, issue 25
// point 4). Nothing of a lent record (views into its line) is kept by reference.
class Analysis {
public:
    explicit Analysis(std::string_view current_boot);
    ~Analysis();
    Analysis(Analysis&&) noexcept;
    Analysis& operator=(Analysis&&) noexcept;
    void add(const journal_view::EntryView& e);
    // The answers on the records added so far (more may be added after).
    [[nodiscard]] Report finish() const;

private:
    struct State;
    std::unique_ptr<State> s_;
};

// The journal at `path` read and analysed record by record; what reading found besides the
// records (torn tail, skipped lines) in `notes` when given.
[[nodiscard]] Expected<Report> analyse_file(const std::string& path, std::string_view current_boot,
                                            journal_view::Notes* notes = nullptr);

// The same, kept open: recover reads the journal, records outcomes through the helper (which
// appends them), and answers on the journal as it is then. catch_up() reads only what was
// appended since (journal_view::read_journal_after), or all of it again when the file is not
// the one read (compacted since, say): the answer is the one a new reading would give.
class JournalReplay {
public:
    [[nodiscard]] static Expected<JournalReplay> read(const std::string& path, std::string_view current_boot,
                                                      journal_view::Notes* notes = nullptr);
    [[nodiscard]] Expected<Report> catch_up();
    [[nodiscard]] Report report() const { return analysis_.finish(); }

private:
    JournalReplay(std::string path, std::string_view current_boot)
        : path_(std::move(path)), boot_(current_boot), analysis_(boot_) {}
    std::string path_;
    std::string boot_;
    Analysis analysis_;
    journal_view::Position end_;
};

// How a hang at `r` came about, to follow its value in a sentence: "hung in run R step N (T)",
// or for the boot action "was applied by the boot action at T in boot B, and that boot never
// became healthy".
[[nodiscard]] std::string hang_origin(const StepRef& r);

// The writer word in a sentence: "wiredcap's set", ... (never a command line: it is not one).
[[nodiscard]] std::string writer_text(std::string_view writer);

// "ramp_step", "boot_apply", "boot_trip", "unread_write", "answered_hung", "suspect" or
// "trial_hung" (the JSON
// `kind` of a step reference).
[[nodiscard]] std::string_view kind_name(RefKind k);

// The "end" outcome recover records for each unresolved run (nullopt: leave it alone).
[[nodiscard]] std::optional<std::string_view> outcome_to_record(RunState s);

}  // namespace wiredcap::recovery
