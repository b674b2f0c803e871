// The one rule of a step's risk (common/include/wiredcap/journal/step_risk.hpp): the classifier,
// the compaction's keep rule and the helper's run bound each follow it, so they agree on any run.
#include "wiredcap/journal/step_risk.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "wiredcap/journal/classifier.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::journal {
namespace {

using units::MiB;

TEST(StepRisk, ForwardRecordsPutAStepAtRiskAndOnlySettlingOnesTakeItOut) {
    for (const char* e :
         {event::intent, event::applied, event::unchanged, event::mismatch, event::write_failed})
        EXPECT_EQ(step_effect(e, std::nullopt, 98304), StepEffect::at_risk) << e;
    for (const char* e : {event::confirmed, event::revert_applied})
        EXPECT_EQ(step_effect(e, 98304, 98304), StepEffect::settled) << e;
    for (const char* e : {event::refused, event::revert_intent, event::revert_mismatch,
                          event::revert_write_failed, event::end})
        EXPECT_EQ(step_effect(e, 98304, 65536), StepEffect::none) << e;
    // A revert that found its target in force writes `unchanged` with the target: settled.
    EXPECT_EQ(step_effect(event::unchanged, 98304, 65536), StepEffect::settled);
    EXPECT_EQ(step_effect(event::unchanged, 98304, 98304), StepEffect::at_risk);
}

TEST(StepRisk, ARunIsSettledWhenNoStepIsAtRisk) {
    RunSteps run;
    EXPECT_TRUE(run.settled());
    run.add(1, event::refused, 65536, std::nullopt);
    EXPECT_TRUE(run.settled());  // a step with no forward record never was at risk
    run.add(1, event::applied, 65536, 65536);
    run.add(2, event::applied, 81920, 81920);
    run.add(2, event::confirmed, std::nullopt, 81920);
    EXPECT_FALSE(run.settled());         // step 1 is still at risk
    run.add(1, event::unchanged, 0, 0);  // its revert found the OS default in force
    EXPECT_TRUE(run.settled());
}

// A step's records at random, every event word, a few values: the classifier's answer for the
// run (a step open in this boot, or none) is RunSteps' (settled or not), on every journal.
TEST(StepRisk, TheClassifierAndRunStepsAgreeOnRandomRecordsOfAStep) {
    const std::vector<const char*> events = {event::intent,
                                             event::applied,
                                             event::unchanged,
                                             event::mismatch,
                                             event::write_failed,
                                             event::refused,
                                             event::confirmed,
                                             event::revert_intent,
                                             event::revert_applied,
                                             event::revert_mismatch,
                                             event::revert_write_failed};
    const std::vector<std::optional<std::uint64_t>> values = {std::nullopt, 0, 65536, 98304};
    std::mt19937 rng(20261207);
    for (int journal = 0; journal < 2000; ++journal) {
        Classifier c("B1");
        RunSteps steps;
        const int records = 1 + static_cast<int>(rng() % 6);
        for (int i = 0; i < records; ++i) {
            const char* e = events[rng() % events.size()];
            const auto to = values[rng() % values.size()], readback = values[rng() % values.size()];
            EntryView v;
            v.v = 1;
            v.time = "2026-12-07T08:00:00Z";
            v.boot = "B1";
            v.uid = 501;
            v.command = command::apply;
            v.event = e;
            v.run = "r";
            v.step = 1;
            if (to) v.to = MiB::from_count(*to);
            if (readback) v.readback = MiB::from_count(*readback);
            c.add(v);
            steps.add(1, e, to, readback);
        }
        const Report report = c.finish();
        const bool open = open_step(report) != nullptr;
        ASSERT_EQ(open, !steps.settled()) << "journal " << journal;
    }
}

}  // namespace
}  // namespace wiredcap::journal
