// What a confirm may confirm (journal::Classifier::own_apply, through helper/include/wiredcap/helper/journal/hang_ceiling.hpp): only the caller's own apply of the
// run's step, read back in this boot, and not taken back by a later record of that step.
#include "wiredcap/helper/journal/hang_ceiling.hpp"

#include <gtest/gtest.h>

#include <string>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::journal {
namespace {

using namespace units::literals;

// Lines exactly as the helper writes them.
std::string line(const std::string& command, const std::string& event, uid_t uid = 501,
                 const std::string& boot = "B1", std::uint64_t step = 3,
                 const std::string& run = "r-1") {
    const bool read_back = event == "applied" || event == "unchanged" || event == "revert_applied";
    return to_json_line(Record{command, event, run, step, 80_GiB, 96_GiB,
                               read_back ? std::optional(96_GiB) : std::nullopt, ""},
                        Stamp{boot, uid}, 1764410000);
}
// The step confirm asks about: run r-1's step 3, by uid 501, in boot B1.
struct StepToConfirm {};
const StepToConfirm kStep{};
std::optional<units::MiB> find_own_apply(const std::string& text, StepToConfirm) {
    return journal::find_own_apply(text, "r-1", 3, 501, "B1");
}

TEST(OwnApply, TheCallersAppliedStepInThisBootIsConfirmable) {
    EXPECT_EQ(find_own_apply(line("apply", "intent") + line("apply", "applied"), kStep), 96_GiB);
    EXPECT_EQ(find_own_apply(line("apply", "unchanged"), kStep), 96_GiB);
    // A confirmation or the run's end after it does not change what was applied.
    EXPECT_EQ(
        find_own_apply(line("apply", "applied") + line("confirm", "confirmed") + line("end", "end"),
                       kStep),
        96_GiB);
}

TEST(OwnApply, AStepThatNeverRanIsNot) {
    EXPECT_FALSE(find_own_apply("", kStep));
    EXPECT_FALSE(find_own_apply(line("apply", "intent"), kStep));  // never read back
    EXPECT_FALSE(find_own_apply(line("apply", "applied", 501, "B1", 2), kStep));
    EXPECT_FALSE(find_own_apply(line("apply", "applied", 501, "B1", 3, "r-2"), kStep));
    EXPECT_FALSE(find_own_apply(line("apply", "refused"), kStep));
}

TEST(OwnApply, AnotherCallersOrAnotherBootsStepIsNot) {
    EXPECT_FALSE(find_own_apply(line("apply", "applied", 0), kStep));
    EXPECT_FALSE(find_own_apply(line("apply", "applied", 501, "B0"), kStep));
}

TEST(OwnApply, ALaterRecordOfTheStepTakesItBack) {
    const std::string applied = line("apply", "applied");
    EXPECT_FALSE(find_own_apply(applied + line("apply", "revert_applied"), kStep));
    EXPECT_FALSE(find_own_apply(applied + line("reset", "revert_applied"), kStep));
    EXPECT_FALSE(find_own_apply(applied + line("apply", "mismatch"), kStep));
    EXPECT_FALSE(find_own_apply(applied + line("apply", "intent"), kStep));
}

TEST(OwnApply, AnotherUsersRecordsOfTheSameStepChangeNothing) {
    const std::string applied = line("apply", "applied");
    EXPECT_EQ(find_own_apply(applied + line("apply", "refused", 65534), kStep), 96_GiB);
    EXPECT_FALSE(
        find_own_apply(line("apply", "applied", 65534) + line("confirm", "confirmed"), kStep));
}

TEST(OwnApply, ATornLastLineIsNotARecord) {
    const std::string applied = line("apply", "applied");
    EXPECT_FALSE(find_own_apply(applied.substr(0, applied.size() - 1), kStep));
}

}  // namespace
}  // namespace wiredcap::journal
