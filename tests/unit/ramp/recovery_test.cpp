// What `wiredcap recover` concludes from the journal (docs/design.md section 6). Each journal here
// is written with the helper's own record writer and read back with the journal reader, so
// the stories below are the bytes the real programs would exchange.
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/journal/vocabulary.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::units {
// Sizes in assertion failures read "98304 MiB".
template <class Unit>
void PrintTo(const Quantity<Unit>& q, std::ostream* os) {
    *os << q.count() << ' ' << Unit::symbol;
}
}  // namespace wiredcap::units

namespace wiredcap::recovery {

void PrintTo(RunState s, std::ostream* os) {
    switch (s) {
        case RunState::hung_in_earlier_boot: *os << "hung_in_earlier_boot"; return;
        case RunState::interrupted_in_earlier_boot: *os << "interrupted_in_earlier_boot"; return;
        case RunState::awaiting_in_this_boot: *os << "awaiting_in_this_boot"; return;
        case RunState::revert_unproven_in_this_boot: *os << "revert_unproven_in_this_boot"; return;
        case RunState::ended_without_record: *os << "ended_without_record"; return;
    }
}

namespace {

using namespace units::literals;
using journal::Record;
using units::MiB;

constexpr const char* kBootA = "BOOT-A";
constexpr const char* kBootB = "BOOT-B";
constexpr const char* kBootC = "BOOT-C";

// A journal built the way the helper writes it: one to_json_line per event, in order.
class Journal {
public:
    Journal& in_boot(std::string boot) {
        boot_ = std::move(boot);
        return *this;
    }

    Journal& add(const Record& r) {
        text_ += journal::to_json_line(r, journal::Stamp{boot_, uid_}, time_++);
        return *this;
    }
    // The records after it are this uid's (501, a group member, until said otherwise).
    Journal& as(uid_t uid) {
        uid_ = uid;
        return *this;
    }

    // A ramp step as `wiredcap-helper apply SIZE --run R --step N` records it.
    Journal& intent(const std::string& run, std::uint64_t step, MiB from, MiB to) {
        return add(Record{command_for(to), "intent", run, step, from, to, std::nullopt, ""});
    }
    Journal& applied(const std::string& run, std::uint64_t step, MiB from, MiB to) {
        return add(Record{command_for(to), "applied", run, step, from, to, to, ""});
    }
    Journal& step(const std::string& run, std::uint64_t step, MiB from, MiB to) {
        return intent(run, step, from, to).applied(run, step, from, to);
    }
    Journal& outcome(const std::string& run, std::uint64_t step, std::string event, MiB from,
                     MiB to, std::optional<MiB> readback, std::string reason = "") {
        return add(Record{command_for(to), std::move(event), run, step, from, to, readback,
                          std::move(reason)});
    }
    Journal& confirm(const std::string& run, std::uint64_t step, std::optional<MiB> readback) {
        return add(
            Record{"confirm", "confirmed", run, step, std::nullopt, std::nullopt, readback, ""});
    }
    // Undoing `step`: the helper records it with the step being undone and the revert target.
    Journal& revert(const std::string& run, std::uint64_t step, MiB from, MiB to,
                    std::string why = "no") {
        add(Record{command_for(to), "revert_intent", run, step, from, to, std::nullopt, why});
        return add(Record{command_for(to), "revert_applied", run, step, from, to, to, why});
    }
    Journal& end(const std::string& run, std::string_view outcome_text) {
        return add(Record{"end", "end", run, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                          std::string(outcome_text)});
    }
    // `end` as the helper records it: with what the kernel read back at that moment.
    Journal& end_read(const std::string& run, std::string_view outcome_text, MiB readback) {
        return add(Record{"end", "end", run, std::nullopt, std::nullopt, std::nullopt, readback,
                          std::string(outcome_text)});
    }
    // `wiredcap set SIZE`: no run, no step.
    Journal& plain_set(MiB from, MiB to) {
        add(Record{"apply", "intent", std::nullopt, std::nullopt, from, to, std::nullopt, ""});
        return add(Record{"apply", "applied", std::nullopt, std::nullopt, from, to, to, ""});
    }
    // `wiredcap reset` outside a ramp.
    Journal& plain_reset(MiB from) {
        add(Record{"reset", "intent", std::nullopt, std::nullopt, from, MiB::zero(), std::nullopt,
                   ""});
        return add(Record{"reset", "applied", std::nullopt, std::nullopt, from, MiB::zero(),
                          MiB::zero(), ""});
    }
    // The LaunchDaemon's boot action (`wiredcap-helper boot`): no run, no step.
    Journal& boot_apply(MiB from, MiB to) {
        add(Record{"boot", "intent", std::nullopt, std::nullopt, from, to, std::nullopt, ""});
        return add(Record{"boot", "applied", std::nullopt, std::nullopt, from, to, to, ""});
    }
    Journal& boot_event(std::string event, MiB to, std::string reason = "") {
        return add(Record{"boot", std::move(event), std::nullopt, std::nullopt, std::nullopt, to,
                          std::nullopt, std::move(reason)});
    }
    // `wiredcap persist SIZE`.
    Journal& persisted(MiB to) {
        return add(Record{"persist", "persisted", std::nullopt, std::nullopt, std::nullopt, to,
                          std::nullopt, "confirmed in run r1 step 1"});
    }
    // The first `keep` bytes of a record: what a crash during its write(2) leaves.
    Journal& torn(const Record& r, std::size_t keep) {
        text_ += journal::to_json_line(r, journal::Stamp{boot_, 501}, time_++).substr(0, keep);
        return *this;
    }

    [[nodiscard]] journal_view::Contents contents() const {
        return journal_view::parse_journal(text_);
    }
    [[nodiscard]] Report analyse_in(std::string_view current_boot) const {
        const auto c = contents();
        EXPECT_TRUE(c.warnings.empty());
        return analyse(c.entries, current_boot);
    }

    // What `wiredcap recover` does with a report: an `end` for each run it may close.
    Journal& record_outcomes(const Report& r) {
        for (const auto& u : r.unresolved)
            if (auto o = outcome_to_record(u.state)) end(u.at.run, *o);
        return *this;
    }

private:
    static std::string command_for(MiB to) { return to.count() == 0 ? "reset" : "apply"; }

    std::string text_;
    std::string boot_ = kBootA;
    uid_t uid_ = 501;
    std::int64_t time_ = 1795941195;
};

// The common start of a ramp: 64 GiB -> 80 GiB (confirmed) -> 96 GiB (applied, not confirmed).
Journal ramp_to_96_unconfirmed() {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB);
    j.step("r1", 2, 80_GiB, 96_GiB);
    return j;
}

// ---- the story the design is about -----------------------------------------------------------

TEST(Recovery, HangAfterAnUnconfirmedStepSetsTheCeiling) {
    const Report r = ramp_to_96_unconfirmed().analyse_in(kBootB);  // the machine was power-cycled
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::hung_in_earlier_boot);
    EXPECT_EQ(r.unresolved[0].at.run, "r1");
    EXPECT_EQ(r.unresolved[0].at.step, 2u);
    EXPECT_EQ(r.unresolved[0].at.value, 96_GiB);
    EXPECT_EQ(r.unresolved[0].at.boot, kBootA);
    EXPECT_EQ(r.unresolved[0].at.time, "2026-11-29T08:33:19Z");  // the applied record
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
    EXPECT_EQ(r.hang_ceiling->step, 2u);
    ASSERT_EQ(r.hangs.size(), 1u);
    ASSERT_TRUE(r.last_confirmed);
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);
    EXPECT_EQ(r.last_confirmed->run, "r1");
    EXPECT_EQ(r.last_confirmed->step, 1u);
    EXPECT_EQ(outcome_to_record(r.unresolved[0].state), "hung");
}

TEST(Recovery, SameBootUnconfirmedStepIsAwaitingNeverAHang) {
    const Report r = ramp_to_96_unconfirmed().analyse_in(kBootA);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::awaiting_in_this_boot);
    EXPECT_EQ(r.unresolved[0].at.value, 96_GiB);
    EXPECT_FALSE(r.hang_ceiling);
    EXPECT_TRUE(r.hangs.empty());
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);
    EXPECT_EQ(outcome_to_record(r.unresolved[0].state), std::nullopt);
}

// recover's advice for a step awaiting in this boot is "wiredcap reset": once the reset took
// effect, nothing is at risk and nothing blocks the next ramp.
TEST(Recovery, PlainResetInTheSameBootSettlesAnAwaitingStep) {
    Journal j = ramp_to_96_unconfirmed();
    j.plain_reset(96_GiB);
    const Report r = j.analyse_in(kBootA);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record);
    EXPECT_FALSE(r.hang_ceiling);
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);
}

// A reset settles every step at risk in its boot, however the replay's index of steps at risk
// was reordered by the steps taken out of it before (a confirmation moves the last one listed
// into its place): here b1 is listed first and b2 last when a1's confirmation leaves them, so
// settling b1 moves b2 into the place just looked at. Only a2 (boot A) and b3 (after the reset)
// stay at risk, and hung when boot C reads them.
TEST(Recovery, APlainResetSettlesEveryStepAtRiskInItsBootWhateverTheOrder) {
    Journal j;
    j.in_boot(kBootA).step("a1", 1, 64_GiB, 65_GiB).step("a2", 1, 64_GiB, 66_GiB);
    j.in_boot(kBootB)
        .step("b1", 1, 64_GiB, 67_GiB)
        .confirm("a1", 1, 65_GiB)
        .step("b2", 1, 64_GiB, 68_GiB);
    j.plain_reset(68_GiB).step("b3", 1, 64_GiB, 69_GiB);
    const Report r = j.analyse_in(kBootC);
    ASSERT_EQ(r.hangs.size(), 2u);
    EXPECT_EQ(r.hangs[0].run, "a2");
    EXPECT_EQ(r.hangs[0].value, 66_GiB);
    EXPECT_EQ(r.hangs[1].run, "b3");
    EXPECT_EQ(r.hangs[1].value, 69_GiB);
    for (const UnresolvedRun& u : r.unresolved) {
        if (u.at.run == "b1" || u.at.run == "b2" || u.at.run == "a1") {
            EXPECT_EQ(u.state, RunState::ended_without_record) << u.at.run;
        }
    }
}

// After a reboot, a reset does not erase the evidence: the step still hung.
TEST(Recovery, PlainResetAfterARebootLeavesTheHang) {
    Journal j = ramp_to_96_unconfirmed();
    j.in_boot(kBootB).plain_reset(MiB::zero());
    const Report r = j.analyse_in(kBootB);
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
}

TEST(Recovery, IntentOnlyInAnEarlierBootIsInterruptedAndCountsAsAHang) {
    // The machine went down between the intent and the write's outcome.
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).intent("r1", 2, 80_GiB, 96_GiB);
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::interrupted_in_earlier_boot);
    EXPECT_EQ(r.unresolved[0].at.step, 2u);
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
    EXPECT_EQ(outcome_to_record(r.unresolved[0].state), "hung");
}

TEST(Recovery, CrashRightAfterIntentInThisBootIsAwaiting) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).intent("r1", 2, 80_GiB, 96_GiB);
    const Report r = j.analyse_in(kBootA);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::awaiting_in_this_boot);
    EXPECT_FALSE(r.hang_ceiling);
}

// ---- a crash while the journal was being written -----------------------------------------------

TEST(Recovery, TornConfirmationDoesNotConfirm) {
    // The person typed yes, the helper began the confirmed record, and the machine hung.
    Journal j = ramp_to_96_unconfirmed();
    j.torn(Record{"confirm", "confirmed", std::string("r1"), 2, std::nullopt, std::nullopt, 96_GiB,
                  ""},
           60);
    const auto c = j.contents();
    EXPECT_TRUE(c.torn_tail);
    EXPECT_TRUE(c.warnings.empty());
    const Report r = analyse(c.entries, kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::hung_in_earlier_boot);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);  // not 96: that confirmation never reached disk
    EXPECT_EQ(r.last_confirmed->step, 1u);
}

TEST(Recovery, TornAppliedRecordLeavesTheIntent) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).intent("r1", 2, 80_GiB, 96_GiB);
    j.torn(Record{"apply", "applied", std::string("r1"), 2, 80_GiB, 96_GiB, 96_GiB, ""}, 25);
    const auto c = j.contents();
    ASSERT_TRUE(c.torn_tail);
    const Report r = analyse(c.entries, kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::interrupted_in_earlier_boot);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
}

TEST(Recovery, TornIntentOfTheFirstStepPutsNothingAtRisk) {
    // The intent is written before the kernel is touched: a torn intent means no write happened.
    Journal j;
    j.torn(Record{"apply", "intent", std::string("r1"), 1, 64_GiB, 80_GiB, std::nullopt, ""}, 70);
    const auto c = j.contents();
    ASSERT_TRUE(c.torn_tail);
    EXPECT_TRUE(c.entries.empty());
    const Report r = analyse(c.entries, kBootB);
    EXPECT_TRUE(r.unresolved.empty());
    EXPECT_FALSE(r.hang_ceiling);
    EXPECT_FALSE(r.last_confirmed);
}

// ---- runs that ended --------------------------------------------------------------------------

TEST(Recovery, StoppedRunIsResolvedAndKeepsItsConfirmation) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).end("r1", "stopped");
    const Report r = j.analyse_in(kBootB);
    EXPECT_TRUE(r.unresolved.empty());
    EXPECT_TRUE(r.hangs.empty());
    EXPECT_FALSE(r.hang_ceiling);
    ASSERT_TRUE(r.last_confirmed);
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);
    EXPECT_EQ(r.last_confirmed->boot, kBootA);
}

TEST(Recovery, RevertedRunIsNotAHang) {
    Journal j = ramp_to_96_unconfirmed();
    j.revert("r1", 2, 96_GiB, 80_GiB, "timeout").end("r1", "reverted");
    const Report r = j.analyse_in(kBootB);
    EXPECT_TRUE(r.unresolved.empty());
    EXPECT_TRUE(r.hangs.empty());
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);
}

TEST(Recovery, RevertedRunWithoutEndRecordEndedWithoutRecord) {
    // The guard reverted the step, then died before recording the end.
    Journal j = ramp_to_96_unconfirmed();
    j.revert("r1", 2, 96_GiB, 80_GiB, "guard");
    for (const char* boot : {kBootA, kBootB}) {
        const Report r = j.analyse_in(boot);
        ASSERT_EQ(r.unresolved.size(), 1u) << boot;
        EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record) << boot;
        EXPECT_EQ(r.unresolved[0].at.step, 2u);
        EXPECT_TRUE(r.hangs.empty()) << boot;
        EXPECT_EQ(outcome_to_record(r.unresolved[0].state), "aborted");
    }
}

// ---- an end record settles a run only on evidence --------------------------------

// The story: the revert's helper call died with the terminal, and the run's end was
// recorded as "reverted" anyway, reading back the step's own value.
TEST(Recovery, AnEndThatReadsBackTheStepValueDoesNotSettleTheRun) {
    Journal j = ramp_to_96_unconfirmed();
    j.end_read("r1", "reverted", 96_GiB);
    const Report same = j.analyse_in(kBootA);
    ASSERT_EQ(same.unresolved.size(), 1u);
    EXPECT_EQ(same.unresolved[0].state, RunState::revert_unproven_in_this_boot);
    EXPECT_EQ(same.unresolved[0].at.step, 2u);
    EXPECT_EQ(outcome_to_record(same.unresolved[0].state), std::nullopt);
    EXPECT_TRUE(same.hangs.empty());
    // After a reboot the value was in force when the machine went down: a hang, conservatively.
    const Report later = j.analyse_in(kBootB);
    ASSERT_EQ(later.unresolved.size(), 1u);
    EXPECT_EQ(later.unresolved[0].state, RunState::hung_in_earlier_boot);
    EXPECT_EQ(later.hang_ceiling->value, 96_GiB);
}

TEST(Recovery, ARevertFailedEndDoesNotSettleTheRun) {
    Journal j = ramp_to_96_unconfirmed();
    j.add(Record{"apply", "revert_intent", std::string("r1"), 2, 96_GiB, 80_GiB, std::nullopt,
                 "guard"});
    j.add(Record{"apply", "revert_write_failed", std::string("r1"), 2, 96_GiB, 80_GiB, std::nullopt,
                 "guard; EIO"});
    j.end_read("r1", "revert_failed", 80_GiB);
    const Report r = j.analyse_in(kBootA);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::revert_unproven_in_this_boot);
}

// The revert records were lost (the helper was killed after its write), but the end's own
// read-back shows the knob at the run's revert target: that is the evidence.
TEST(Recovery, AnEndReadingTheRevertTargetSettlesTheRun) {
    Journal j = ramp_to_96_unconfirmed();
    j.end_read("r1", "reverted", 80_GiB);
    EXPECT_TRUE(j.analyse_in(kBootA).unresolved.empty());
    EXPECT_TRUE(j.analyse_in(kBootB).hangs.empty());
}

// An end written in a later boot says what that boot holds, not what the boot that went down
// held (a group member's `end --outcome reverted` on root's run, with the knob at the
// run's start, made recover and status forget the hang the helper still binds).
TEST(Recovery, AnEndInALaterBootDoesNotSettleAStepAtRiskInAnEarlierOne) {
    Journal j = ramp_to_96_unconfirmed();
    j.in_boot(kBootB).end_read("r1", "reverted", 80_GiB);
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::hung_in_earlier_boot);
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
}

// Before any confirmation the revert target is the value the run started from.
TEST(Recovery, TheRevertTargetOfAnUnconfirmedFirstStepIsTheValueBeforeIt) {
    Journal good;
    good.step("r1", 1, 64_GiB, 80_GiB).end_read("r1", "reverted", 64_GiB);
    EXPECT_TRUE(good.analyse_in(kBootA).unresolved.empty());
    Journal bad;
    bad.step("r1", 1, 64_GiB, 80_GiB).end_read("r1", "reverted", 80_GiB);
    ASSERT_EQ(bad.analyse_in(kBootA).unresolved.size(), 1u);
    EXPECT_EQ(bad.analyse_in(kBootA).unresolved[0].state, RunState::revert_unproven_in_this_boot);
}

// recover's advice ("wiredcap reset") settles it, as it does a step awaiting in this boot.
TEST(Recovery, APlainResetSettlesAnUnprovenRevert) {
    Journal j = ramp_to_96_unconfirmed();
    j.end_read("r1", "reverted", 96_GiB).plain_reset(96_GiB);
    EXPECT_TRUE(j.analyse_in(kBootA).unresolved.empty());
}

// A run that completed or stopped has nothing at risk: its end settles it whatever it reads.
TEST(Recovery, AnEndWithNothingAtRiskSettlesWhateverItReads) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).end_read("r1", "stopped", 80_GiB);
    j.plain_set(80_GiB, 72_GiB);
    j.end_read("r1", "aborted", 72_GiB);
    EXPECT_TRUE(j.analyse_in(kBootA).unresolved.empty());
}

TEST(Recovery, ConfirmedLastStepWithoutEndRecordEndedWithoutRecord) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB);
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record);
    EXPECT_EQ(r.unresolved[0].at.value, 80_GiB);
    EXPECT_FALSE(r.hang_ceiling);
}

TEST(Recovery, FailedRevertLeavesTheStepAtRisk) {
    Journal j = ramp_to_96_unconfirmed();
    j.add(
        Record{"apply", "revert_intent", std::string("r1"), 2, 96_GiB, 80_GiB, std::nullopt, "no"});
    j.add(Record{"apply", "revert_write_failed", std::string("r1"), 2, 96_GiB, 80_GiB, std::nullopt,
                 "EPERM"});
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::hung_in_earlier_boot);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
}

TEST(Recovery, RevertThatFoundItsTargetAlreadyInForceResolvesTheStep) {
    // The helper writes `unchanged` (not revert_unchanged) when the revert target already holds.
    Journal j = ramp_to_96_unconfirmed();
    j.add(Record{"apply", "unchanged", std::string("r1"), 2, 80_GiB, 80_GiB, 80_GiB, ""});
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record);
    EXPECT_TRUE(r.hangs.empty());
}

TEST(Recovery, UnchangedForwardStepCountsAsApplied) {
    // Someone had set 96 GiB by hand; the ramp's step to 96 GiB changed nothing, then hung.
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB);
    j.add(Record{"apply", "unchanged", std::string("r1"), 2, 96_GiB, 96_GiB, 96_GiB, ""});
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::hung_in_earlier_boot);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
}

// ---- failures during a step -------------------------------------------------------------------

TEST(Recovery, MismatchWithoutRevertIsConservative) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).intent("r1", 2, 80_GiB, 96_GiB);
    j.outcome("r1", 2, "mismatch", 80_GiB, 96_GiB, 88_GiB, "read back 90112 MiB");
    const Report earlier = j.analyse_in(kBootB);
    ASSERT_EQ(earlier.unresolved.size(), 1u);
    EXPECT_EQ(earlier.unresolved[0].state, RunState::interrupted_in_earlier_boot);
    EXPECT_EQ(earlier.hang_ceiling->value, 96_GiB);  // the value asked for, not the read-back
    const Report same = j.analyse_in(kBootA);
    EXPECT_EQ(same.unresolved[0].state, RunState::awaiting_in_this_boot);
    EXPECT_FALSE(same.hang_ceiling);
}

TEST(Recovery, WriteFailedWithoutRevertIsConservative) {
    Journal j;
    j.intent("r1", 1, 64_GiB, 80_GiB)
        .outcome("r1", 1, "write_failed", 64_GiB, 80_GiB, std::nullopt, "EIO");
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::interrupted_in_earlier_boot);
    EXPECT_EQ(r.hang_ceiling->value, 80_GiB);
}

TEST(Recovery, MismatchThenRevertIsResolved) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).intent("r1", 2, 80_GiB, 96_GiB);
    j.outcome("r1", 2, "mismatch", 80_GiB, 96_GiB, 88_GiB)
        .revert("r1", 2, 88_GiB, 80_GiB, "mismatch");
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record);
    EXPECT_TRUE(r.hangs.empty());
}

TEST(Recovery, RefusedStepChangedNothing) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB);
    j.add(Record{"apply", "refused", std::string("r1"), 2, 80_GiB, 200_GiB, std::nullopt,
                 "above max"});
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record);
    EXPECT_EQ(r.unresolved[0].at.step, 1u);  // the refused step was never the ramp's
    EXPECT_TRUE(r.hangs.empty());
}

TEST(Recovery, RunWithOnlyARefusalEndedWithoutRecord) {
    Journal j;
    j.add(Record{"apply", "refused", std::string("r1"), 1, 64_GiB, 200_GiB, std::nullopt,
                 "above max"});
    const Report r = j.analyse_in(kBootA);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record);
    EXPECT_EQ(r.unresolved[0].at.run, "r1");
    EXPECT_TRUE(r.hangs.empty());
}

// A run with no forward record is named by its last record, whatever came before it (the replay
// keeps only that record's step, value, time and boot).
TEST(Recovery, RunWithOnlyRefusalsIsNamedByItsLastRecord) {
    Journal j;
    j.add(Record{"apply", "refused", std::string("r1"), 1, 64_GiB, 200_GiB, std::nullopt,
                 "above max"});
    j.in_boot(kBootB).add(
        Record{"apply", "refused", std::string("r1"), 2, 64_GiB, 96_GiB, std::nullopt, "busy"});
    const auto c = j.contents();
    const Report r = j.analyse_in(kBootC);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::ended_without_record);
    EXPECT_EQ(r.unresolved[0].at.step, 2u);
    EXPECT_EQ(r.unresolved[0].at.value, 96_GiB);
    EXPECT_EQ(r.unresolved[0].at.boot, kBootB);
    ASSERT_EQ(c.entries.size(), 2u);
    EXPECT_EQ(r.unresolved[0].at.time, c.entries[1].time);
}

// ---- many runs --------------------------------------------------------------------------------

TEST(Recovery, LowestOfSeveralHangsIsTheCeilingAndHangsAreOldestFirst) {
    Journal j;
    j.in_boot(kBootA).step("r1", 1, 64_GiB, 112_GiB);  // hung at 112, never closed
    j.in_boot(kBootB).step("r2", 1, 64_GiB, 80_GiB).confirm("r2", 1, 80_GiB);
    j.step("r2", 2, 80_GiB, 96_GiB).end("r2", "hung");  // recorded by an earlier recover
    j.in_boot(kBootC).step("r3", 1, 64_GiB, 104_GiB);   // hung at 104, never closed
    const Report r = j.analyse_in("BOOT-D");
    ASSERT_EQ(r.hangs.size(), 3u);
    EXPECT_EQ(r.hangs[0].run, "r1");
    EXPECT_EQ(r.hangs[0].value, 112_GiB);
    EXPECT_EQ(r.hangs[1].run, "r2");
    EXPECT_EQ(r.hangs[1].value, 96_GiB);
    EXPECT_EQ(r.hangs[1].step, 2u);
    EXPECT_EQ(r.hangs[2].run, "r3");
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->run, "r2");
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
    EXPECT_EQ(r.unresolved.size(), 2u);  // r1 and r3; r2 has its end
}

TEST(Recovery, HangsAreOrderedByWhenTheStepHappenedNotByRun) {
    // Runs interleave in the journal (r1 began first, but r2's step came before r1's last one).
    Journal j;
    j.step("r1", 1, 64_GiB, 72_GiB).confirm("r1", 1, 72_GiB);
    j.step("r2", 1, 72_GiB, 100_GiB).end("r2", "hung");
    j.step("r1", 2, 72_GiB, 90_GiB);
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.hangs.size(), 2u);
    EXPECT_EQ(r.hangs[0].run, "r2");
    EXPECT_EQ(r.hangs[1].run, "r1");
    EXPECT_EQ(r.hang_ceiling->value, 90_GiB);
}

TEST(Recovery, ARecordedHangIsNotUndoneByALaterEndRecord) {
    // recover closed the run as hung; a late `end` from elsewhere must not erase the hang.
    Journal j;
    j.step("r1", 1, 64_GiB, 96_GiB).end("r1", "hung").end("r1", "aborted");
    const Report r = j.analyse_in(kBootB);
    EXPECT_TRUE(r.unresolved.empty());
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);
}

TEST(Recovery, RecoverIsIdempotent) {
    Journal j;
    j.in_boot(kBootA).step("r1", 1, 64_GiB, 112_GiB);
    j.in_boot(kBootB)
        .step("r2", 1, 64_GiB, 80_GiB)
        .confirm("r2", 1, 80_GiB)
        .intent("r2", 2, 80_GiB, 96_GiB);
    j.in_boot(kBootC).step("r3", 1, 64_GiB, 72_GiB).confirm("r3", 1, 72_GiB);  // confirmed, no end
    const Report first = j.in_boot("BOOT-D").analyse_in("BOOT-D");
    ASSERT_EQ(first.unresolved.size(), 3u);
    ASSERT_TRUE(first.hang_ceiling);
    EXPECT_EQ(first.hang_ceiling->value, 96_GiB);

    j.record_outcomes(first);
    const Report second = j.analyse_in("BOOT-D");
    EXPECT_TRUE(second.unresolved.empty());
    ASSERT_TRUE(second.hang_ceiling);
    EXPECT_EQ(second.hang_ceiling->run, first.hang_ceiling->run);
    EXPECT_EQ(second.hang_ceiling->step, first.hang_ceiling->step);
    EXPECT_EQ(second.hang_ceiling->value, first.hang_ceiling->value);
    ASSERT_EQ(second.hangs.size(), first.hangs.size());
    for (std::size_t i = 0; i < first.hangs.size(); ++i) {
        EXPECT_EQ(second.hangs[i].run, first.hangs[i].run);
        EXPECT_EQ(second.hangs[i].value, first.hangs[i].value);
    }
    EXPECT_EQ(second.last_confirmed->value, first.last_confirmed->value);

    // And once more: nothing left to record, nothing changes.
    j.record_outcomes(second);
    const Report third = j.analyse_in("BOOT-D");
    EXPECT_TRUE(third.unresolved.empty());
    EXPECT_EQ(third.hangs.size(), first.hangs.size());
}

TEST(Recovery, AwaitingRunIsLeftAloneByRecover) {
    Journal j = ramp_to_96_unconfirmed();
    const Report first = j.analyse_in(kBootA);
    j.record_outcomes(first);
    const Report second = j.analyse_in(kBootA);
    ASSERT_EQ(second.unresolved.size(), 1u);
    EXPECT_EQ(second.unresolved[0].state, RunState::awaiting_in_this_boot);
}

TEST(Recovery, AConfirmationIsNeverLost) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB).end("r1", "stopped");
    j.in_boot(kBootB).step("r2", 1, 80_GiB, 96_GiB);  // hung
    j.in_boot(kBootC).plain_set(0_MiB, 70_GiB);       // a plain set is applied, never confirmed
    j.step("r3", 1, 70_GiB, 88_GiB).end("r3", "hung");
    const Report r = j.analyse_in("BOOT-D");
    ASSERT_TRUE(r.last_confirmed);
    EXPECT_EQ(r.last_confirmed->run, "r1");
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);
    EXPECT_EQ(r.hang_ceiling->value, 88_GiB);
    EXPECT_EQ(r.hangs.size(), 2u);
}

TEST(Recovery, TheMostRecentConfirmationWins) {
    Journal j;
    j.step("r1", 1, 64_GiB, 96_GiB).confirm("r1", 1, 96_GiB).end("r1", "stopped");
    j.step("r2", 1, 96_GiB, 72_GiB).confirm("r2", 1, 72_GiB).end("r2", "completed");
    const Report r = j.analyse_in(kBootA);
    EXPECT_EQ(r.last_confirmed->run, "r2");
    EXPECT_EQ(r.last_confirmed->value, 72_GiB);  // later, even though lower
}

TEST(Recovery, ConfirmationWithoutReadBackUsesTheStepValue) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, std::nullopt).end("r1", "completed");
    const Report r = j.analyse_in(kBootA);
    ASSERT_TRUE(r.last_confirmed);
    EXPECT_EQ(r.last_confirmed->value, 80_GiB);
}

TEST(Recovery, ConfirmationReportsWhatWasReadBack) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 78_GiB).end("r1", "completed");
    EXPECT_EQ(j.analyse_in(kBootA).last_confirmed->value, 78_GiB);
}

TEST(Recovery, PlainSetsAreNotRunsAndNotConfirmations) {
    Journal j;
    j.plain_set(0_MiB, 96_GiB);
    const Report r = j.analyse_in(kBootB);
    EXPECT_TRUE(r.unresolved.empty());
    EXPECT_TRUE(r.hangs.empty());
    EXPECT_FALSE(r.last_confirmed);
}

TEST(Recovery, ResetStepsAreNeverHangs) {
    Journal j;
    j.step("r1", 1, 96_GiB, 0_MiB);  // a ramp step back to the OS default, unconfirmed
    const Report earlier = j.analyse_in(kBootB);
    ASSERT_EQ(earlier.unresolved.size(), 1u);
    EXPECT_EQ(earlier.unresolved[0].state, RunState::ended_without_record);
    EXPECT_TRUE(earlier.hangs.empty());
    EXPECT_FALSE(earlier.hang_ceiling);
    // In this boot the ramp may still be running: left alone like any other step.
    EXPECT_EQ(j.analyse_in(kBootA).unresolved[0].state, RunState::awaiting_in_this_boot);

    j.end("r1", "hung");  // even when some run was recorded as hung at a reset
    EXPECT_TRUE(j.analyse_in(kBootB).hangs.empty());
}

TEST(Recovery, EndedHungRunUsesItsHighestUnconfirmedStep) {
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB).confirm("r1", 1, 80_GiB);
    j.step("r1", 2, 80_GiB, 96_GiB).confirm("r1", 2, 96_GiB);
    j.intent("r1", 3, 96_GiB, 112_GiB).end("r1", "hung");
    const Report r = j.analyse_in(kBootA);  // a recorded hang counts whatever the boot
    ASSERT_EQ(r.hangs.size(), 1u);
    EXPECT_EQ(r.hangs[0].step, 3u);
    EXPECT_EQ(r.hang_ceiling->value, 112_GiB);
    EXPECT_EQ(r.last_confirmed->value, 96_GiB);
}

TEST(Recovery, UnknownBootNeverProvesAReboot) {
    // The boot identity could not be read, now or when the step was recorded: the step may be
    // a ramp running right now, so it stays unresolved and is not called a hang.
    const Report now_unknown = ramp_to_96_unconfirmed().analyse_in("");
    ASSERT_EQ(now_unknown.unresolved.size(), 1u);
    EXPECT_EQ(now_unknown.unresolved[0].state, RunState::awaiting_in_this_boot);
    EXPECT_FALSE(now_unknown.hang_ceiling);
    EXPECT_EQ(ramp_to_96_unconfirmed().analyse_in("unknown").unresolved[0].state,
              RunState::awaiting_in_this_boot);

    Journal then_unknown;
    then_unknown.in_boot("unknown").step("r1", 1, 64_GiB, 96_GiB);
    EXPECT_EQ(then_unknown.analyse_in(kBootB).unresolved[0].state, RunState::awaiting_in_this_boot);
}

// ---- the boot action ----------------------------------------------------------------

TEST(Recovery, BootActionRecordsAreNeitherRampStepsNorRuns) {
    Journal j;
    j.step("r1", 1, 64_GiB, 96_GiB).confirm("r1", 1, 96_GiB).end("r1", "completed");
    j.persisted(96_GiB);
    j.in_boot(kBootB)
        .boot_apply(0_MiB, 96_GiB)
        .boot_event("healthy", 96_GiB, "up 612 s with the value in place");
    j.in_boot(kBootC).boot_apply(0_MiB, 96_GiB);  // applied, not yet healthy: this boot
    // Looked at from this boot and from a later one: no run, the ramp's confirmation kept.
    for (const char* now : {kBootC, "BOOT-D"}) {
        const Report r = j.analyse_in(now);
        EXPECT_TRUE(r.unresolved.empty()) << now;
        ASSERT_TRUE(r.last_confirmed) << now;
        EXPECT_EQ(r.last_confirmed->run, "r1");
        EXPECT_EQ(r.last_confirmed->value, 96_GiB);
    }
    // In its own boot the apply is on trial; the healthy boot B's is settled. Once boot C is
    // over without becoming healthy, C's apply is a hang, before the guard records the trip.
    EXPECT_TRUE(j.analyse_in(kBootC).hangs.empty());
    const Report later = j.analyse_in("BOOT-D");
    ASSERT_EQ(later.hangs.size(), 1u);
    EXPECT_EQ(later.hangs[0].kind, RefKind::boot_apply);
    EXPECT_EQ(later.hangs[0].boot, kBootC);
    EXPECT_EQ(later.hangs[0].writer, "boot-action");
}

TEST(Recovery, TheBootActionsWriteIsSettledByItsBootOnly) {
    // Healthy, a revert read back, a failed write the kernel answered, a plain reset: settled.
    // A read-back alone (the guard judges later) or a later boot's reset: a hang.
    // Not a generic lambda: clang leaves a consteval literal in one to the linker.
    auto hangs_after = [](void (*then)(Journal&)) {
        Journal j;
        j.in_boot(kBootB).boot_apply(0_MiB, 96_GiB);
        then(j);
        return j.analyse_in("BOOT-D").hangs.size();
    };
    EXPECT_EQ(hangs_after([](Journal& j) { j.boot_event("healthy", 96_GiB); }), 0u);
    EXPECT_EQ(hangs_after([](Journal& j) { j.plain_reset(96_GiB); }), 0u);
    EXPECT_EQ(hangs_after([](Journal&) {}), 1u);
    EXPECT_EQ(hangs_after([](Journal& j) { j.in_boot(kBootC).plain_reset(0_MiB); }), 1u);
}

TEST(Recovery, BootActionRecordsDoNotSettleOrDisturbARamp) {
    // A ramp step awaiting confirmation in this boot stays awaiting when the boot action runs
    // (its records are not a plain reset, nor a step of the run).
    Journal j;
    j.step("r1", 1, 64_GiB, 80_GiB);
    j.boot_apply(80_GiB, 80_GiB).boot_event("healthy", 80_GiB);
    const Report r = j.analyse_in(kBootA);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::awaiting_in_this_boot);
    EXPECT_EQ(r.unresolved[0].at.run, "r1");
    EXPECT_EQ(r.unresolved[0].at.step, 1u);
}

TEST(Recovery, ABootTripIsAHangAtItsValueAttributedToTheApply) {
    Journal j;
    j.step("r1", 1, 64_GiB, 96_GiB).confirm("r1", 1, 96_GiB).end("r1", "completed");
    j.persisted(96_GiB);
    j.in_boot(kBootB).boot_apply(0_MiB, 96_GiB);  // then the machine hung
    j.in_boot(kBootC).boot_event("tripped", 96_GiB,
                                 "boot BOOT-B applied 98304 MiB and it was never recorded healthy");
    const auto entries = j.contents().entries;
    const Report r = j.analyse_in(kBootC);
    ASSERT_EQ(r.hangs.size(), 1u);
    ASSERT_TRUE(r.hang_ceiling);
    const StepRef& h = *r.hang_ceiling;
    EXPECT_EQ(h.kind, RefKind::boot_apply);
    EXPECT_EQ(h.value, 96_GiB);
    EXPECT_EQ(h.boot, kBootB);                            // the boot that never became healthy
    EXPECT_EQ(h.time, entries[entries.size() - 2].time);  // when the boot action applied it
    EXPECT_TRUE(h.run.empty());
    EXPECT_EQ(h.step, 0u);
    EXPECT_TRUE(r.unresolved.empty());
    EXPECT_EQ(r.last_confirmed->value, 96_GiB);  // the confirmation stands; the ceiling decides
    EXPECT_EQ(hang_origin(h), "was applied by the boot action at " + h.time +
                                  " in boot BOOT-B, and that boot never "
                                  "became healthy");
}

TEST(Recovery, ABootTripWithoutItsApplyRecordNamesTheTrip) {
    Journal j;
    j.in_boot(kBootC).boot_event("tripped", 96_GiB,
                                 "boot BOOT-B applied 98304 MiB and it was never recorded healthy");
    const Report r = j.analyse_in(kBootC);
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->kind, RefKind::boot_trip);
    EXPECT_EQ(r.hang_ceiling->boot, kBootC);
    EXPECT_TRUE(hang_origin(*r.hang_ceiling).find("the boot guard found it at") !=
                std::string::npos);
    // An apply of another value does not stand in for the missing one.
    Journal other;
    other.in_boot(kBootB).boot_apply(0_MiB, 80_GiB).boot_event("healthy", 80_GiB);
    other.in_boot(kBootC).boot_event("tripped", 96_GiB);
    EXPECT_EQ(other.analyse_in(kBootC).hang_ceiling->kind, RefKind::boot_trip);
}

TEST(Recovery, BootTripsAndRampHangsShareOneCeiling) {
    Journal j;
    j.in_boot(kBootA).boot_apply(0_MiB, 112_GiB);
    j.in_boot(kBootB).boot_event("tripped", 112_GiB);
    j.step("r1", 1, 64_GiB, 80_GiB)
        .confirm("r1", 1, 80_GiB)
        .step("r1", 2, 80_GiB, 96_GiB);  // hangs
    Report r = j.analyse_in(kBootC);
    ASSERT_EQ(r.hangs.size(), 2u);
    EXPECT_EQ(r.hangs[0].kind, RefKind::boot_apply);  // oldest first
    EXPECT_EQ(r.hangs[1].kind, RefKind::ramp_step);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB);  // the lower of the two
    EXPECT_EQ(r.hang_ceiling->kind, RefKind::ramp_step);

    Journal lower;
    lower.step("r1", 1, 64_GiB, 80_GiB)
        .confirm("r1", 1, 80_GiB)
        .step("r1", 2, 80_GiB, 96_GiB)
        .end("r1", "hung");
    lower.in_boot(kBootB).boot_apply(0_MiB, 88_GiB);
    lower.in_boot(kBootC).boot_event("tripped", 88_GiB);
    r = lower.analyse_in(kBootC);
    EXPECT_EQ(r.hang_ceiling->value, 88_GiB);
    EXPECT_EQ(r.hang_ceiling->kind, RefKind::boot_apply);
}

TEST(Recovery, ATripIsNeverUndone) {
    // Forgetting the stored value (reset, persist --off) does not make the value safe.
    Journal j;
    j.in_boot(kBootA).boot_apply(0_MiB, 96_GiB);
    j.in_boot(kBootB).boot_event("tripped", 96_GiB).plain_reset(0_MiB);
    j.add(Record{"persist", "removed", std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                 std::nullopt, ""});
    EXPECT_EQ(j.analyse_in(kBootB).hang_ceiling->value, 96_GiB);
}

// ---- the replay's own bookkeeping (recovery.cpp: Runs, ReplayTexts) ---------------------------

// A run's steps are kept by number, whatever order their records come in: the highest-numbered
// step at risk is the one that hung, not the one recorded last.
TEST(Recovery, StepsRecordedOutOfOrderAreTakenByTheirNumber) {
    Journal j;
    j.step("r1", 3, 64_GiB, 80_GiB).confirm("r1", 3, 80_GiB);
    j.step("r1", 2, 80_GiB, 96_GiB);
    j.step("r1", 1, 96_GiB, 112_GiB);
    j.end("r1", "hung");
    const Report r = j.analyse_in(kBootA);
    ASSERT_EQ(r.hangs.size(), 1u);
    EXPECT_EQ(r.hangs[0].step, 2u);
    EXPECT_EQ(r.hangs[0].value, 96_GiB);
}

// Runs are found again by their id among many: a thousand ramps left at risk, then every one
// but one confirmed, long after it began. The ids, as wiredcap makes them, differ only in their
// last bytes.
TEST(Recovery, ARunIsFoundAgainAmongAThousand) {
    auto id = [](int i) { return "r-20261201-084000-" + std::to_string(i); };
    Journal j;
    for (int i = 0; i < 1000; ++i) j.step(id(i), 1, 64_GiB, 80_GiB);
    for (int i = 0; i < 1000; ++i)
        if (i != 617) j.confirm(id(i), 1, 80_GiB);
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.unresolved.size(), 1000u);  // the 999 others: confirmed, never ended
    std::size_t hung = 0;
    for (const UnresolvedRun& u : r.unresolved)
        if (u.state == RunState::hung_in_earlier_boot) {
            ++hung;
            EXPECT_EQ(u.at.run, id(617));
        }
    EXPECT_EQ(hung, 1u);
}

// The texts a step keeps are its last record's, whatever their lengths (longer, as long, shorter),
// and one longer than the replay's blocks of text too.
TEST(Recovery, AStepKeepsItsLastRecordsTextsOfAnyLength) {
    const std::string long_boot(70000, 'b');
    auto record = [](std::string run, std::string time, std::string boot, std::string event,
                     MiB to) {
        journal_view::Entry e;
        e.v = 1;
        e.time = std::move(time);
        e.boot = std::move(boot);
        e.command = "apply";
        e.event = std::move(event);
        e.run = std::move(run);
        e.step = 1;
        e.to = to;
        return e;
    };
    const std::vector<journal_view::Entry> entries{
        record("r1", "T-1", "B", "intent", 80_GiB),
        record("r1", "TIME-LONGER", long_boot, "applied", 80_GiB),
        record("r2", "T-2", "C", "intent", 96_GiB),
        record("r2", "T-3", "D", "applied", 96_GiB),
        record("r3", "TIME-LONGER-STILL", long_boot, "intent", 112_GiB),
        record("r3", "T", "C", "applied", 112_GiB),
    };
    const Report r = analyse(entries, "NOW");
    ASSERT_EQ(r.hangs.size(), 3u);
    EXPECT_EQ(r.hangs[0].time, "TIME-LONGER");
    EXPECT_EQ(r.hangs[0].boot, long_boot);
    EXPECT_EQ(r.hangs[0].value, 80_GiB);
    EXPECT_EQ(r.hangs[1].time, "T-3");
    EXPECT_EQ(r.hangs[1].boot, "D");
    EXPECT_EQ(r.hangs[2].time, "T");
    EXPECT_EQ(r.hangs[2].boot, "C");
    EXPECT_EQ(r.hangs[2].run, "r3");
}

TEST(Recovery, KindNames) {
    EXPECT_EQ(kind_name(RefKind::ramp_step), "ramp_step");
    EXPECT_EQ(kind_name(RefKind::boot_apply), "boot_apply");
    EXPECT_EQ(kind_name(RefKind::boot_trip), "boot_trip");
    EXPECT_EQ(hang_origin(StepRef{"r-1", 2, 96_GiB, "T", "B", RefKind::ramp_step}),
              "hung in run r-1 step 2 (T)");
}

TEST(Recovery, EmptyJournal) {
    const Report r = analyse({}, kBootA);
    EXPECT_FALSE(r.last_confirmed);
    EXPECT_FALSE(r.hang_ceiling);
    EXPECT_TRUE(r.hangs.empty());
    EXPECT_TRUE(r.unresolved.empty());
}

TEST(Recovery, OutcomeToRecord) {
    EXPECT_EQ(outcome_to_record(RunState::hung_in_earlier_boot), "hung");
    EXPECT_EQ(outcome_to_record(RunState::interrupted_in_earlier_boot), "hung");
    EXPECT_EQ(outcome_to_record(RunState::ended_without_record), "aborted");
    EXPECT_EQ(outcome_to_record(RunState::awaiting_in_this_boot), std::nullopt);
}

// --- Writes outside a ramp: at risk until read back, whoever wrote them -----------

Record plain(std::string event, MiB from, MiB to, std::optional<MiB> readback,
             std::string by = "set") {
    Record r{"apply", std::move(event), std::nullopt, std::nullopt, from, to, readback, ""};
    r.by = std::move(by);
    return r;
}

TEST(OutsideRamps, ASetNeverReadBackBeforeAReebootIsAHangNamingItsWriter) {
    Journal j;
    j.as(0)
        .in_boot(kBootA)
        .add(plain("intent", MiB::zero(), 166_GiB, std::nullopt))
        .add(plain("mismatch", MiB::zero(), 166_GiB, std::nullopt));  // the read-back failed
    const Report now = j.analyse_in(kBootA);
    EXPECT_FALSE(now.hang_ceiling) << "this boot: nothing proves the machine went down";
    const Report after = j.analyse_in(kBootB);
    ASSERT_TRUE(after.hang_ceiling);
    EXPECT_EQ(after.hang_ceiling->value, 166_GiB);
    EXPECT_EQ(after.hang_ceiling->kind, RefKind::unread_write);
    EXPECT_EQ(after.hang_ceiling->writer, "set");
    EXPECT_EQ(after.hang_ceiling->boot, kBootA);
    // Another caller's --by set is its word: named as its claim.
    Journal member;
    member.in_boot(kBootA).add(plain("intent", MiB::zero(), 166_GiB, std::nullopt));
    ASSERT_TRUE(member.analyse_in(kBootB).hang_ceiling);
    EXPECT_EQ(member.analyse_in(kBootB).hang_ceiling->writer, "set-claim");
}

TEST(OutsideRamps, AKilledHelperLeavesOnlyAnIntentAndTheHelperRunDirectlyIsNamed) {
    Journal j;
    j.in_boot(kBootA).add(plain("intent", MiB::zero(), 166_GiB, std::nullopt, ""));
    const Report r = j.analyse_in(kBootB);
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->writer, "helper-apply");
}

TEST(OutsideRamps, AnyReadBackLaterInTheSameBootSettlesTheWrite) {
    Journal j;
    j.in_boot(kBootA).add(plain("intent", MiB::zero(), 166_GiB, std::nullopt)).plain_reset(166_GiB);
    EXPECT_FALSE(j.analyse_in(kBootB).hang_ceiling);
}

TEST(OutsideRamps, ACleanRaisingSetThenAReebootIsASuspectNeverAHang) {
    Journal j;
    j.in_boot(kBootA)
        .add(plain("intent", 0_GiB, 162_GiB, std::nullopt))
        .add(plain("applied", 0_GiB, 162_GiB, 162_GiB));
    const Report r = j.analyse_in(kBootB);
    EXPECT_FALSE(r.hang_ceiling);
    EXPECT_TRUE(r.hangs.empty());
    ASSERT_EQ(r.suspects.size(), 1u);
    EXPECT_EQ(r.suspects[0].value, 162_GiB);
    EXPECT_EQ(r.suspects[0].boot, kBootA);
    EXPECT_TRUE(j.analyse_in(kBootA).suspects.empty())
        << "still up in the same boot: nothing to judge";
    // A reset before the machine went down: nothing raised was in force.
    Journal reset = j;
    reset.plain_reset(162_GiB);
    EXPECT_TRUE(reset.analyse_in(kBootB).suspects.empty());
}

TEST(OutsideRamps, ALoweringSetIsNoSuspect) {
    Journal j;
    Record lower = plain("applied", MiB::zero(), 80_GiB, 80_GiB);
    lower.effective = 158_GiB;
    lower.effective_source = "simulated-metal";
    j.in_boot(kBootA).add(lower);
    EXPECT_TRUE(j.analyse_in(kBootB).suspects.empty());
}

TEST(OutsideRamps, ARaiseMeasuredAgainstAGivenEffectiveCapCarriesTheClaim) {
    Journal j;
    Record raise = plain("applied", MiB::zero(), 162_GiB, 162_GiB);
    raise.effective = 158_GiB;
    raise.effective_source = "given by uid 501";
    j.in_boot(kBootA).add(raise);
    const Report r = j.analyse_in(kBootB);
    ASSERT_EQ(r.suspects.size(), 1u);
    EXPECT_EQ(r.suspects[0].claimed_from, 158_GiB);
    EXPECT_NE(hang_origin(r.suspects[0]).find("the effective cap uid 501 claimed"),
              std::string::npos)
        << hang_origin(r.suspects[0]);
    // From a knob that was read, nothing rests on a claim.
    Journal read;
    read.in_boot(kBootA).add(plain("applied", 80_GiB, 96_GiB, 96_GiB));
    ASSERT_EQ(read.analyse_in(kBootB).suspects.size(), 1u);
    EXPECT_FALSE(read.analyse_in(kBootB).suspects[0].claimed_from);
}

Record verdict(std::string answer, MiB value, std::string boot) {
    return Record{"verdict", std::move(answer), std::nullopt,   std::nullopt, std::nullopt,
                  value,     std::nullopt,      std::move(boot)};
}

TEST(OutsideRamps, APersonsAnswerSettlesASuspect) {
    Journal hung;
    hung.as(0)
        .in_boot(kBootA)
        .add(plain("applied", 0_GiB, 162_GiB, 162_GiB))
        .in_boot(kBootB)
        .add(verdict("hung", 162_GiB, kBootA));
    const Report h = hung.analyse_in(kBootB);
    EXPECT_TRUE(h.suspects.empty());
    ASSERT_TRUE(h.hang_ceiling);
    EXPECT_EQ(h.hang_ceiling->value, 162_GiB);
    EXPECT_EQ(h.hang_ceiling->kind, RefKind::answered_hung);
    Journal fine;
    fine.as(0)
        .in_boot(kBootA)
        .add(plain("applied", 0_GiB, 162_GiB, 162_GiB))
        .in_boot(kBootB)
        .add(verdict("not-hung", 162_GiB, kBootA));
    EXPECT_TRUE(fine.analyse_in(kBootB).suspects.empty());
    EXPECT_FALSE(fine.analyse_in(kBootB).hang_ceiling);
}

TEST(OutsideRamps, AForgottenCeilingStaysAsHistoryAndALaterHangBindsAgain) {
    Journal j;
    j.as(0).in_boot(kBootA).add(plain("intent", MiB::zero(), 166_GiB, std::nullopt));
    j.in_boot(kBootB).add(Record{"forget-hang", "forgotten", std::nullopt, std::nullopt,
                                 std::nullopt, 166_GiB, std::nullopt, "macos-update"});
    const Report r = j.analyse_in(kBootB);
    EXPECT_FALSE(r.hang_ceiling);
    ASSERT_EQ(r.hangs.size(), 1u);
    EXPECT_TRUE(r.hangs[0].forgotten);
    ASSERT_TRUE(r.forgotten);
    EXPECT_EQ(r.forgotten->why, "macos-update");
    j.add(plain("intent", MiB::zero(), 170_GiB, std::nullopt));
    const Report later = j.analyse_in(kBootC);
    ASSERT_TRUE(later.hang_ceiling);
    EXPECT_EQ(later.hang_ceiling->value, 170_GiB);
}

// Whose records count (docs/design.md): a member's verdict answers only a suspect the journal
// holds, its `not-hung` and its forget-hang count for nothing, and its `end ... hung` of another
// uid's run makes no step a hang.
TEST(Authority, AVerdictOnNoWriteAnswersNothing) {
    Journal j;
    j.as(0)
        .in_boot(kBootB)
        .add(verdict("hung", 64_GiB, "no-such-boot"))
        .add(verdict("hung", 64_GiB, kBootA));
    EXPECT_FALSE(j.analyse_in(kBootC).hang_ceiling);
    EXPECT_TRUE(j.analyse_in(kBootC).hangs.empty());
}

TEST(Authority, AMembersNotHungSettlesNothingAndItsHungBindsUntilRootAnswers) {
    Journal j;
    j.as(0).in_boot(kBootA).add(plain("applied", 0_GiB, 162_GiB, 162_GiB));
    j.as(501).in_boot(kBootB).add(verdict("not-hung", 162_GiB, kBootA));
    EXPECT_EQ(j.analyse_in(kBootB).suspects.size(), 1u) << "a member's not-hung is no answer";
    j.add(verdict("hung", 170_GiB, kBootA));
    EXPECT_FALSE(j.analyse_in(kBootB).hang_ceiling)
        << "no write of that value: it binds no more than the write";
    j.add(verdict("hung", 162_GiB, kBootA));
    ASSERT_TRUE(j.analyse_in(kBootB).hang_ceiling);
    EXPECT_EQ(j.analyse_in(kBootB).hang_ceiling->value, 162_GiB);
    j.as(0).add(verdict("not-hung", 162_GiB, kBootA));
    EXPECT_FALSE(j.analyse_in(kBootB).hang_ceiling) << "root's answer decides";
    j.as(501).add(verdict("hung", 162_GiB, kBootA));
    EXPECT_FALSE(j.analyse_in(kBootB).hang_ceiling) << "and a member's after it changes nothing";
}

TEST(Authority, OnlyRootsForgetLiftsACeiling) {
    Journal j;
    j.as(0).in_boot(kBootA).add(plain("intent", MiB::zero(), 166_GiB, std::nullopt));
    j.as(501).in_boot(kBootB).add(Record{"forget-hang", "forgotten", std::nullopt, std::nullopt,
                                         std::nullopt, 166_GiB, std::nullopt, "other-cause"});
    ASSERT_TRUE(j.analyse_in(kBootB).hang_ceiling);
    EXPECT_FALSE(j.analyse_in(kBootB).forgotten);
}

TEST(Authority, AnotherUidsEndHungMakesNoHang) {
    Journal j;
    j.as(0).in_boot(kBootA).step("r", 1, MiB::zero(), 96_GiB);
    j.as(501).end("r", "hung");
    const Report r = j.analyse_in(kBootA);
    EXPECT_FALSE(r.hang_ceiling);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].state, RunState::revert_unproven_in_this_boot);
    // Root's own (recover's, after a reboot) still records the hang.
    Journal own;
    own.as(0).in_boot(kBootA).step("r", 1, MiB::zero(), 96_GiB).end("r", "hung");
    ASSERT_TRUE(own.analyse_in(kBootA).hang_ceiling);
}

}  // namespace

// A record with a word this version does not know (a newer helper's) is read as nothing: an
// `apply` whose event is unknown puts no step at risk and a command no one knows binds nothing;
// each is counted and shown, the first kUnknownShown of them in full, and the other answers are
// those of the journal without them. Words this version writes are all known.
TEST(Recovery, AWordNoDefinitionKnowsIsShownAsUnknownAndReadAsNothing) {
    Journal j = ramp_to_96_unconfirmed();
    j.add(Record{"apply", "teleported", std::string("r9"), 1, 64_GiB, 120_GiB, 120_GiB, ""});
    j.add(Record{"levitate", "applied", std::nullopt, std::nullopt, 64_GiB, 110_GiB, 110_GiB, ""});
    for (int i = 0; i < 9; ++i)
        j.add(Record{"apply", "future-" + std::to_string(i), std::nullopt, std::nullopt,
                     std::nullopt, 100_GiB, std::nullopt, ""});
    const Report r = j.analyse_in(kBootB), known = ramp_to_96_unconfirmed().analyse_in(kBootB);
    EXPECT_EQ(r.unknown_count, 11u);
    ASSERT_EQ(r.unknown.size(), journal::kUnknownShown);
    EXPECT_EQ(r.unknown[0].command, "apply");
    EXPECT_EQ(r.unknown[0].event, "teleported");
    EXPECT_EQ(r.unknown[1].command, "levitate");
    EXPECT_EQ(r.unknown[1].order, r.unknown[0].order + 1);
    ASSERT_TRUE(r.hang_ceiling);
    EXPECT_EQ(r.hang_ceiling->value, 96_GiB) << "the unknown records bind nothing";
    EXPECT_EQ(r.hangs.size(), known.hangs.size());
    EXPECT_EQ(r.unresolved.size(), known.unresolved.size()) << "run r9 has no step at risk";
    EXPECT_EQ(known.unknown_count, 0u);
    for (const char* w :
         {"apply", "reset", "confirm", "end", "persist", "boot", "verdict", "forget-hang",
          "journal", "ttm-trial", "ttm-after-boot", "ttm-confirm", "ttm-reset", "ttm-forget-hang"})
        EXPECT_TRUE(journal::is_known_command(w)) << w;
    for (const char* w :
         {"revert_intent", "revert_applied", "revert_mismatch", "revert_write_failed",
          "persist_removed_intent", "removed", "trying", "waiting", "trial-booted", "made-default"})
        EXPECT_TRUE(journal::is_known_event(w)) << w;
    EXPECT_FALSE(journal::is_known_event("revert_teleported"));
    EXPECT_FALSE(journal::is_known_command("ttm-"));
}

}  // namespace wiredcap::recovery
