// The persist check (journal::Classifier::standing, through helper/include/wiredcap/helper/journal/hang_ceiling.hpp): a value counts as confirmed only by the
// helper's own confirm record with that read-back, and a later boot trip at or below it
// withdraws the confirmation.
#include "wiredcap/helper/journal/hang_ceiling.hpp"

#include <gtest/gtest.h>

#include <string>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/system/journal/pages_record.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::journal {
namespace {

using namespace units::literals;

// Lines exactly as the helper writes them.
std::string line(const Record& r) { return to_json_line(r, Stamp{"B1", 501}, 1764410000); }

std::string confirm(std::uint64_t step, units::MiB readback, const std::string& run = "r-1") {
    return line(
        Record{"confirm", "confirmed", run, step, std::nullopt, std::nullopt, readback, ""});
}
std::string tripped(units::MiB at) {
    return line(Record{"boot", "tripped", std::nullopt, std::nullopt, std::nullopt, at,
                       std::nullopt, "never healthy"});
}
std::string applied(units::MiB v) {
    return line(Record{"apply", "applied", "r-1", 3, 80_GiB, v, v, ""});
}
// The latest standing confirmation of `value`, if any.
std::optional<Confirmation> find_confirmation(std::string_view text, units::MiB value) {
    return find_standing(text, value)->confirmation;
}

TEST(Confirmation, FindsTheLatestConfirmationOfTheValue) {
    const std::string j =
        confirm(1, 80_GiB, "r-a") + confirm(2, 96_GiB, "r-a") + confirm(1, 96_GiB, "r-b");
    auto c = find_confirmation(j, 96_GiB);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->run, "r-b");
    EXPECT_EQ(c->step, 1u);
}

TEST(Confirmation, AnotherValueOrAnApplyIsNotAConfirmation) {
    EXPECT_FALSE(find_confirmation(confirm(1, 80_GiB), 96_GiB));
    EXPECT_FALSE(find_confirmation(confirm(1, 960_MiB), 96_MiB)) << "the whole number must match";
    EXPECT_FALSE(find_confirmation(applied(96_GiB), 96_GiB)) << "applied is not confirmed";
}

TEST(Confirmation, ABootTripAtOrBelowWithdrawsIt) {
    EXPECT_FALSE(find_confirmation(confirm(1, 96_GiB) + tripped(96_GiB), 96_GiB));
    EXPECT_FALSE(find_confirmation(confirm(1, 96_GiB) + tripped(88_GiB), 96_GiB));
    EXPECT_TRUE(find_confirmation(confirm(1, 80_GiB) + tripped(88_GiB), 80_GiB))
        << "a lower value still stands";
    EXPECT_TRUE(
        find_confirmation(confirm(1, 96_GiB) + tripped(96_GiB) + confirm(4, 96_GiB), 96_GiB))
        << "a later ramp confirms it again";
}

// What persist of a vouched value asks: a trip at or below it since the last confirmation (or
// ever, without one) withdraws the vouch too; a later confirmation answers it.
TEST(Confirmation, ATripAtOrBelowIsRememberedWithoutAConfirmation) {
    EXPECT_FALSE(find_standing("", 96_GiB)->tripped);
    EXPECT_TRUE(find_standing(tripped(96_GiB), 96_GiB)->tripped);
    EXPECT_TRUE(find_standing(tripped(88_GiB), 96_GiB)->tripped);
    EXPECT_FALSE(find_standing(tripped(100_GiB), 96_GiB)->tripped)
        << "a trip above it says nothing of it";
    EXPECT_TRUE(find_standing(confirm(1, 96_GiB) + tripped(96_GiB), 96_GiB)->tripped);
    const auto again = find_standing(tripped(96_GiB) + confirm(4, 96_GiB), 96_GiB);
    ASSERT_TRUE(again);
    EXPECT_FALSE(again->tripped);
    EXPECT_TRUE(again->confirmation);
}

TEST(Confirmation, TornOrForeignLinesNeverMatch) {
    std::string torn = confirm(1, 96_GiB);
    torn.pop_back();  // no newline: a torn last record
    EXPECT_FALSE(find_confirmation(torn, 96_GiB));
    // A reason string cannot forge the keys: the writer escapes its quotes.
    const std::string forged = line(
        Record{"apply", "refused", std::nullopt, std::nullopt, std::nullopt, 96_GiB, std::nullopt,
               ",\"command\":\"confirm\",\"event\":\"confirmed\",\"readback_mib\":98304}"});
    EXPECT_FALSE(find_confirmation(forged, 96_GiB));
    EXPECT_FALSE(find_confirmation(
        "{\"v\":2,\"command\":\"confirm\",\"event\":\"confirmed\",\"step\":1,\"readback_mib\":98304}\n",
        96_GiB))
        << "another schema version";
}

// --- find_hang_ceiling: the boot action's check ----------------------------

// The ceiling's value, the journal classified (a text this small always is).
std::optional<units::MiB> hang_ceiling_value(std::string_view text, std::string_view boot,
                                             bool stored = false) {
    const auto c = find_hang_ceiling(text, boot, stored);
    EXPECT_TRUE(c.known);
    return c.value;
}

std::string step_line(std::string_view event, const std::string& command, std::uint64_t step,
                      units::MiB v, const std::string& boot, std::int64_t time) {
    return to_json_line(
        Record{command, std::string(event), std::string("r-9"), step, 80_GiB, v, std::nullopt, ""},
        Stamp{boot, 0}, time);
}

std::string store_line(units::MiB v, const std::string& boot, std::int64_t time,
                       bool ignore_hang_ceiling, const std::string& event = "persisted") {
    Record r{"persist",    event, std::nullopt, std::nullopt,
             std::nullopt, v,     std::nullopt, "unconfirmed"};
    r.ignore_hang_ceiling = ignore_hang_ceiling;
    return to_json_line(r, Stamp{boot, 0}, time);
}

// Step 1 confirmed at 96 GiB, step 2 at 112 GiB applied and never concluded, all in boot B1.
std::string hung_ramp(std::int64_t t0) {
    return step_line("intent", "apply", 1, 96_GiB, "B1", t0) +
           step_line("applied", "apply", 1, 96_GiB, "B1", t0 + 1) +
           step_line("confirmed", "confirm", 1, 96_GiB, "B1", t0 + 2) +
           step_line("intent", "apply", 2, 112_GiB, "B1", t0 + 3) +
           step_line("applied", "apply", 2, 112_GiB, "B1", t0 + 4);
}

TEST(HangCeiling, AnUnconfirmedStepFromAnEarlierBootIsAHang) {
    const std::string j = hung_ramp(1764410000);
    EXPECT_EQ(hang_ceiling_value(j, "B2"), std::optional<units::MiB>(112_GiB));
    EXPECT_EQ(hang_ceiling_value(j, "B1"), std::nullopt) << "this boot: still running";
    const std::string reverted =
        j + step_line("revert_applied", "apply", 2, 96_GiB, "B1", 1764410006);
    EXPECT_EQ(hang_ceiling_value(reverted, "B2"), std::nullopt);
}

// A revert that found its target already in force is journaled `unchanged`, naming the target:
// the step's value is no longer in force, as recover reads it (is_unchanged_revert). A forward
// apply of the value already in force is `unchanged` too, naming the step's own value: that one
// settles nothing.
TEST(HangCeiling, ARevertThatFoundItsTargetInForceSettlesTheStep) {
    const std::int64_t t = 1764410000;
    const std::string failed = step_line("intent", "apply", 1, 96_GiB, "B1", t) +
                               step_line("applied", "apply", 1, 96_GiB, "B1", t + 1) +
                               step_line("confirmed", "confirm", 1, 96_GiB, "B1", t + 2) +
                               step_line("intent", "apply", 2, 112_GiB, "B1", t + 3) +
                               step_line("write_failed", "apply", 2, 112_GiB, "B1", t + 4);
    EXPECT_EQ(hang_ceiling_value(failed, "B2"), std::optional<units::MiB>(112_GiB)) << "control";
    EXPECT_EQ(
        hang_ceiling_value(failed + step_line("unchanged", "apply", 2, 96_GiB, "B1", t + 5), "B2"),
        std::nullopt);
    EXPECT_EQ(hang_ceiling_value(
                  hung_ramp(t) + step_line("unchanged", "reset", 2, 0_MiB, "B1", t + 6), "B2"),
              std::nullopt)
        << "a revert to the OS default that found it in force";
    EXPECT_EQ(hang_ceiling_value(
                  hung_ramp(t) + step_line("unchanged", "apply", 2, 112_GiB, "B1", t + 6), "B2"),
              std::optional<units::MiB>(112_GiB))
        << "the step's own value again: still in force";
}

// Only a revert that read its value back settles a step, as recover and the compaction read it
// (audit a1): a revert cut short (its intent alone, the machine down in its write), refused by
// the kernel or read back wrong leaves the step's value in force, and a confirm that was
// refused confirmed nothing.
TEST(HangCeiling, ARevertThatNeverTookOrARefusedConfirmSettlesNothing) {
    const std::int64_t t = 1764410000;
    for (const char* event : {"revert_intent", "revert_write_failed", "revert_mismatch"}) {
        const std::string j = hung_ramp(t) + step_line(event, "apply", 2, 96_GiB, "B1", t + 6);
        EXPECT_EQ(hang_ceiling_value(j, "B2"), std::optional<units::MiB>(112_GiB)) << event;
    }
    const std::string refused =
        hung_ramp(t) + step_line("refused", "confirm", 2, 112_GiB, "B1", t + 6);
    EXPECT_EQ(hang_ceiling_value(refused, "B2"), std::optional<units::MiB>(112_GiB));
    const std::string confirmed =
        hung_ramp(t) + step_line("confirmed", "confirm", 2, 112_GiB, "B1", t + 6);
    EXPECT_EQ(hang_ceiling_value(confirmed, "B2"), std::nullopt);
}

// The golden hang_binds_every_write stored a value and hung a ramp within one second: the
// boot action compared times to the second and missed the hang. Order, not time, decides.
TEST(HangCeiling, AHangInTheSameSecondAsTheStoreStillBinds) {
    const std::int64_t t = 1764410000;
    const std::string same_second = store_line(112_GiB, "B1", t, false) + hung_ramp(t - 4);
    EXPECT_EQ(hang_ceiling_value(same_second, "B2", true), std::optional<units::MiB>(112_GiB));
    const std::string overridden_then = store_line(112_GiB, "B1", t, true) + hung_ramp(t - 4);
    EXPECT_EQ(hang_ceiling_value(overridden_then, "B2", true), std::optional<units::MiB>(112_GiB))
        << "the hang came after the override: nobody overrode it";
    const std::string clock_set_back = store_line(112_GiB, "B1", t, true) + hung_ramp(t - 3600);
    EXPECT_EQ(hang_ceiling_value(clock_set_back, "B2", true), std::optional<units::MiB>(112_GiB));
}

TEST(HangCeiling, OnlyAStoreThatOverrodeAKnownHangWaivesIt) {
    const std::int64_t t = 1764410000;
    const std::string hang = hung_ramp(t);
    EXPECT_EQ(hang_ceiling_value(hang + store_line(112_GiB, "B2", t + 60, true), "B3", true),
              std::nullopt)
        << "known in B2 (a hang from B1) and overridden";
    EXPECT_EQ(hang_ceiling_value(hang + store_line(112_GiB, "B2", t + 60, false), "B3", true),
              std::optional<units::MiB>(112_GiB))
        << "a store without the override keeps it binding";
    EXPECT_EQ(hang_ceiling_value(hang + store_line(112_GiB, "B2", t + 60, true) +
                                     store_line(112_GiB, "B2", t + 70, false),
                                 "B3", true),
              std::optional<units::MiB>(112_GiB))
        << "the last store decides";
    EXPECT_EQ(
        hang_ceiling_value(hang + store_line(112_GiB, "B2", t + 60, true, "unchanged"), "B3", true),
        std::nullopt)
        << "storing the same value again with the override";
    EXPECT_EQ(hang_ceiling_value(hang + store_line(112_GiB, "B1", t + 5, true), "B2", true),
              std::optional<units::MiB>(112_GiB))
        << "stored in the boot the ramp ran in: the step was no hang yet, so nothing was overridden";
}

// The waiver is the stored value's, for the boot action that applies it (audit a1: a member's
// persist of 72 GiB with --ignore-hang-ceiling, below a hang at 112 GiB, let every later apply
// and persist of 112 GiB through, their records without the override). Any other write
// overrides with its own --ignore-hang-ceiling.
TEST(HangCeiling, AStoresOverrideWaivesHangsForTheStoredValueOnly) {
    const std::string j = hung_ramp(1764410000) + store_line(72_GiB, "B2", 1764410060, true);
    EXPECT_EQ(hang_ceiling_value(j, "B2", true), std::nullopt)
        << "the boot action, for the value stored";
    EXPECT_EQ(hang_ceiling_value(j, "B2"), std::optional<units::MiB>(112_GiB))
        << "apply and persist";
}

// Writes outside a ramp: an apply without --run never read back in its boot is a
// hang for the boot action too; a person's verdict binds; a forget-hang clears what came before.
std::string plain_line(std::string_view event, units::MiB v, std::optional<units::MiB> back,
                       const std::string& boot) {
    return to_json_line(
        Record{"apply", std::string(event), std::nullopt, std::nullopt, 0_GiB, v, back, ""},
        Stamp{boot, 0}, 1764410000);
}

TEST(HangCeiling, AWriteOutsideARampNeverReadBackIsAHang) {
    const std::string j = plain_line("intent", 166_GiB, std::nullopt, "B1") +
                          plain_line("mismatch", 166_GiB, std::nullopt, "B1");
    EXPECT_EQ(hang_ceiling_value(j, "B2"), std::optional<units::MiB>(166_GiB));
    EXPECT_EQ(hang_ceiling_value(j, "B1"), std::nullopt)
        << "this boot: nothing proves it went down";
    const std::string read_back = plain_line("intent", 166_GiB, std::nullopt, "B1") +
                                  plain_line("applied", 166_GiB, 166_GiB, "B1");
    EXPECT_EQ(hang_ceiling_value(read_back, "B2"), std::nullopt)
        << "read back: a suspect at most, for a person";
}

// The boot action's write binds like the guard that judges it: a trip at once, and a write its
// boot never settled (healthy, a revert, a failed write the kernel answered, a plain reset)
// once that boot is over, whether or not the trip was recorded yet; for the boot action too.
std::string boot_line(std::string_view command, std::string_view event, units::MiB v,
                      std::optional<units::MiB> back, const std::string& boot) {
    return to_json_line(Record{std::string(command), std::string(event), std::nullopt, std::nullopt,
                               0_GiB, v, back, ""},
                        Stamp{boot, 0}, 1764410000);
}

TEST(HangCeiling, TheBootActionsWriteBindsUntilItsBootSettlesIt) {
    const std::string applied = boot_line("boot", "intent", 166_GiB, std::nullopt, "B1") +
                                boot_line("boot", "applied", 166_GiB, 166_GiB, "B1");
    const auto at = std::optional<units::MiB>(166_GiB);
    EXPECT_EQ(hang_ceiling_value(applied, "B1"), std::nullopt) << "its own boot: on trial";
    EXPECT_EQ(hang_ceiling_value(applied, "B2"), at) << "read back, never healthy";
    EXPECT_EQ(hang_ceiling_value(applied, "B2", true), at) << "the boot action is bound too";
    EXPECT_EQ(
        hang_ceiling_value(applied + boot_line("boot", "healthy", 166_GiB, 166_GiB, "B1"), "B2"),
        std::nullopt);
    EXPECT_EQ(hang_ceiling_value(applied + boot_line("reset", "applied", 0_GiB, 0_GiB, "B1"), "B2"),
              std::nullopt);
    EXPECT_EQ(hang_ceiling_value(applied + boot_line("reset", "applied", 0_GiB, 0_GiB, "B2"), "B3"),
              at)
        << "a reset in a later boot undoes nothing of B1";
    const std::string trip = boot_line("boot", "tripped", 166_GiB, std::nullopt, "B2");
    EXPECT_EQ(hang_ceiling_value(trip, "B2"), at) << "a trip binds at once";
}

TEST(HangCeiling, AVerdictBindsAndForgetHangClearsEarlierHangs) {
    const std::string verdict = to_json_line(Record{"verdict", "hung", std::nullopt, std::nullopt,
                                                    std::nullopt, 162_GiB, std::nullopt, "B1"},
                                             Stamp{"B2", 0}, 1764410000);
    EXPECT_EQ(hang_ceiling_value(verdict, "B2"), std::nullopt)
        << "a verdict on no write answers nothing";
    // The suspect it answers: a write of that value read back in B1, in force when B1 ended.
    const std::string hung = plain_line("intent", 162_GiB, std::nullopt, "B1") +
                             plain_line("applied", 162_GiB, 162_GiB, "B1") + verdict;
    EXPECT_EQ(hang_ceiling_value(hung, "B2"), std::optional<units::MiB>(162_GiB));
    const std::string forget =
        to_json_line(Record{"forget-hang", "forgotten", std::nullopt, std::nullopt, std::nullopt,
                            162_GiB, std::nullopt, "other-cause"},
                     Stamp{"B2", 0}, 1764410001);
    EXPECT_EQ(hang_ceiling_value(hung + forget, "B2"), std::nullopt);
    const std::string again = plain_line("intent", 170_GiB, std::nullopt, "B2");
    EXPECT_EQ(hang_ceiling_value(hung + forget + again, "B3"), std::optional<units::MiB>(170_GiB));
}

// Linux's try-once trials (wiredcap-system ttm-*, docs/linux.md): a trial recorded `hung`
// binds at once, by its size (pages x page size, in whole MiB rounded down), whatever its boot;
// a ttm-forget-hang clears it as forget-hang does.
std::string linux_line(std::string_view command, std::string_view event, std::uint64_t pages,
                       std::uint64_t size) {
    const Record r{std::string(command), std::string(event), std::nullopt, std::nullopt,
                   std::nullopt,         std::nullopt,       std::nullopt, ""};
    const PagesFields p{"ttm.pages_limit", pages, std::nullopt, size};
    return to_json_line(r, p, Stamp{"B1", 501}, 1764410000);
}

TEST(HangCeiling, ALinuxTrialRecordedHungBindsBySizeUntilForgotten) {
    const std::string hung = linux_line("ttm-after-boot", "hung", 26214400, 4096);  // 100 GiB
    EXPECT_EQ(hang_ceiling_value(hung, "B1"), std::optional<units::MiB>(100_GiB))
        << "its own boot too";
    // 16 KiB pages: the same 100 GiB. A part MiB is dropped (the ceiling never rises).
    EXPECT_EQ(hang_ceiling_value(linux_line("ttm-reset", "hung", 6553600, 16384), "B2"),
              std::optional<units::MiB>(100_GiB));
    EXPECT_EQ(hang_ceiling_value(linux_line("ttm-reset", "hung", 26214401, 4096), "B2"),
              std::optional<units::MiB>(100_GiB));
    EXPECT_EQ(hang_ceiling_value(linux_line("ttm-trial", "intent", 26214400, 4096), "B2"),
              std::nullopt)
        << "an intent is judged by after-boot, not here";
    EXPECT_EQ(
        hang_ceiling_value(hung + linux_line("ttm-forget-hang", "forgotten", 26214400, 4096), "B2"),
        std::nullopt);
}

}  // namespace
}  // namespace wiredcap::journal
