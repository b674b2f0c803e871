// How many runs a caller other than root holds open, and how long its run is
// (helper/include/wiredcap/helper/journal/run_bound.hpp): only its own records of this boot count, and a run closes
// with an end once each of its steps is settled by its own records.
#include "wiredcap/helper/journal/run_bound.hpp"

#include <gtest/gtest.h>

#include <string>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::journal {
namespace {

using namespace units::literals;

std::string line(const std::string& run, const std::string& event, uid_t uid = 501,
                 const std::string& boot = "B1", std::uint64_t step = 1) {
    const std::string command = event == "end" ? "end" : event == "confirmed" ? "confirm" : "apply";
    const std::optional<std::uint64_t> s = event == "end" ? std::nullopt : std::optional(step);
    return to_json_line(Record{command, event, run, s, std::nullopt, 96_GiB, std::nullopt, ""},
                        Stamp{boot, uid}, 1764410000);
}
constexpr CallersRun kNew{"new", 501, "B1"};

TEST(RunBound, OpenRunsAreTheCallersInThisBootNotClosed) {
    const std::string text =
        line("a", "applied") +                                                   // at risk, no end
        line("b", "applied") + line("b", "confirmed") +                          // settled, no end
        line("c", "applied") + line("c", "end") +                                // ended, at risk
        line("d", "applied") + line("d", "revert_applied") + line("d", "end") +  // closed
        line("e", "applied", 0) + line("f", "applied", 502) +  // root's, another's
        line("g", "applied", 501, "B0") +                      // another boot's
        line("h", "refused") + line("h", "end", 0);            // closed by another's end
    EXPECT_EQ(run_use(text, kNew).open_others, 3U);            // a, b, c
    EXPECT_EQ(run_use(text, CallersRun{"a", 501, "B1"}).open_others, 2U);
    EXPECT_EQ(run_use(text, CallersRun{"a", 501, "B1"}).records, 1U);
}

TEST(RunBound, AFreshRunPastTheOpenRunsAndARunPastItsRecordsAreRefused) {
    std::string text;
    for (std::size_t i = 0; i < kMaxOpenRuns; ++i) text += line("r" + std::to_string(i), "applied");
    EXPECT_TRUE(run_bound_refusal(run_use(text, kNew), kNew));
    EXPECT_FALSE(
        run_bound_refusal(run_use(text, CallersRun{"r0", 501, "B1"}), CallersRun{"r0", 501, "B1"}));
    EXPECT_FALSE(run_bound_refusal(run_use(text, CallersRun{"new", 501, "B2"}),
                                   CallersRun{"new", 501, "B2"}));
    std::string one;
    for (std::size_t i = 0; i + 1 < kMaxRunRecords; ++i)
        one += line("long", "unchanged", 501, "B1", i + 1);
    const CallersRun long_run{"long", 501, "B1"};
    EXPECT_FALSE(run_bound_refusal(run_use(one, long_run), long_run));
    one += line("long", "confirmed");
    EXPECT_TRUE(run_bound_refusal(run_use(one, long_run), long_run));
}

TEST(RunBound, ARunOfAnotherUidOrAnEarlierBootMayOnlyBeEnded) {
    const std::string text = line("roots", "applied", 0, "B0") +
                             line("mine", "applied", 501, "B0") + line("theirs", "applied", 502) +
                             line("shared", "applied") + line("shared", "end", 0) +
                             line("own", "applied");
    for (const char* run : {"roots", "mine", "theirs", "shared"}) {
        const CallersRun apply{run, 501, "B1"}, end{run, 501, "B1", true};
        EXPECT_TRUE(run_bound_refusal(run_use(text, apply), apply)) << run;
        EXPECT_FALSE(run_bound_refusal(run_use(text, end), end)) << run;
    }
    const CallersRun own{"own", 501, "B1"};
    EXPECT_FALSE(run_bound_refusal(run_use(text, own), own));
    EXPECT_FALSE(run_bound_refusal(run_use(text, kNew), kNew));
}

}  // namespace
}  // namespace wiredcap::journal
