// The ramp's plan and its duration parser: pure functions, so every edge is checked here
// rather than through a terminal.
#include <gtest/gtest.h>

#include "wiredcap/units/duration.hpp"
#include "wiredcap/ramp/plan.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::cli {
namespace {

using namespace units::literals;
using units::MiB;

PolicyView band_192() {
    PolicyView p;
    p.min = 64_GiB;
    p.max = 176_GiB;
    p.reserve = 16_GiB;
    p.max_step = 16_GiB;
    p.source = "test";
    return p;
}

// From a set knob the effective cap is the knob; from the OS default (0) it is what Metal says.
PlanInput input(MiB current, MiB target, std::optional<MiB> effective = std::nullopt) {
    return PlanInput{current,      effective.value_or(current),
                     "test Metal", 192_GiB,
                     band_192(),   target,
                     std::nullopt, std::nullopt,
                     false};
}

std::vector<std::uint64_t> counts(const Plan& p) {
    std::vector<std::uint64_t> v;
    for (const MiB m : p.steps) v.push_back(m.count());
    return v;
}

TEST(Plan, FromTheOsDefaultStepsCountFromTheEffectiveCap) {
    auto p = make_plan(input(MiB::zero(), 176_GiB, 158_GiB));
    ASSERT_TRUE(p);
    EXPECT_EQ(counts(*p), (std::vector<std::uint64_t>{178176, 180224}));
    EXPECT_EQ(p->base, 158_GiB);
}

TEST(Plan, FromTheOsDefaultATargetAtOrBelowTheEffectiveCapIsRefusedNamingIt) {
    for (const MiB target : {112_GiB, 158_GiB}) {
        auto p = make_plan(input(MiB::zero(), target, 158_GiB));
        ASSERT_FALSE(p);
        EXPECT_EQ(p.error().code, ExitCode::usage);
        EXPECT_NE(p.error().message.find("not above the effective cap now, 161792 MiB (158.00 GiB"),
                  std::string::npos)
            << p.error().message;
        EXPECT_NE(p.error().message.find("[test Metal]"), std::string::npos) << p.error().message;
    }
}

TEST(Plan, AnEffectiveCapBelowTheBandCountsFromTheBandFloor) {
    auto p = make_plan(input(MiB::zero(), 96_GiB, 40_GiB));
    ASSERT_TRUE(p);
    EXPECT_EQ(counts(*p), (std::vector<std::uint64_t>{81920, 98304}));
    EXPECT_EQ(p->base, 64_GiB);
}

TEST(Plan, EveryStepIsStrictlyAboveTheEffectiveCap) {
    for (std::uint64_t eff = 40 * 1024; eff <= 176 * 1024; eff += 1531)
        for (std::uint64_t to = 64 * 1024; to <= 176 * 1024; to += 2047) {
            auto p = make_plan(input(MiB::zero(), *MiB::from_count(to), *MiB::from_count(eff)));
            if (to <= eff) {
                EXPECT_FALSE(p) << eff << " -> " << to;
                continue;
            }
            ASSERT_TRUE(p) << eff << " -> " << to << ": " << p.error().message;
            for (const MiB v : p->steps) EXPECT_GT(v.count(), eff);
            EXPECT_EQ(p->steps.back().count(), to);
        }
}

TEST(Plan, TheLastStepStopsExactlyAtTheTarget) {
    auto p = make_plan(input(80_GiB, 100_GiB));
    ASSERT_TRUE(p);
    EXPECT_EQ(counts(*p), (std::vector<std::uint64_t>{98304, 102400}));
}

TEST(Plan, TargetAtTheFloorFromTheDefaultIsOneStep) {
    auto p = make_plan(input(MiB::zero(), 64_GiB, 40_GiB));
    ASSERT_TRUE(p);
    EXPECT_EQ(counts(*p), (std::vector<std::uint64_t>{65536}));
}

TEST(Plan, ASmallerStepGivesMoreSteps) {
    PlanInput in = input(80_GiB, 96_GiB);
    in.step = 4_GiB;
    auto p = make_plan(in);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->steps.size(), 4u);
}

TEST(Plan, RefusalsCarryTheirExitCode) {
    const auto code = [](PlanInput in) { return make_plan(in).error().code; };
    EXPECT_EQ(code(input(MiB::zero(), 200_GiB, 40_GiB)), ExitCode::refused_by_policy);  // above max
    EXPECT_EQ(code(input(MiB::zero(), 32_GiB, 40_GiB)), ExitCode::refused_by_policy);   // below min
    EXPECT_EQ(code(input(96_GiB, 80_GiB)), ExitCode::usage);  // a ramp only raises
    EXPECT_EQ(code(input(96_GiB, 96_GiB)), ExitCode::usage);
    PlanInput big = input(MiB::zero(), 96_GiB, 40_GiB);
    big.step = 32_GiB;
    EXPECT_EQ(code(big), ExitCode::refused_by_policy);  // step above max_step
    PlanInput zero = input(MiB::zero(), 96_GiB, 40_GiB);
    zero.step = MiB::zero();
    EXPECT_EQ(code(zero), ExitCode::usage);
    PlanInput small_ram = input(MiB::zero(), 176_GiB, 40_GiB);
    small_ram.memsize = 180_GiB;  // 176 GiB would leave less than the 16 GiB reserve
    EXPECT_EQ(code(small_ram), ExitCode::refused_by_policy);
}

// A plan the hang ceiling would cut short is refused as a whole (a cut plan ended
// with "completed" and exit 0 below its target), naming the highest step below the ceiling.
TEST(Plan, ATargetAtOrAboveAHangCeilingIsRefusedNotCut) {
    PlanInput in = input(MiB::zero(), 112_GiB, 40_GiB);
    in.hang_ceiling = recovery::StepRef{"r-1", 2, 96_GiB, "T", "B"};
    auto p = make_plan(in);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code, ExitCode::refused_by_policy);
    EXPECT_NE(p.error().message.find("at or above 98304 MiB"), std::string::npos);
    EXPECT_NE(p.error().message.find("hung in run r-1 step 2"), std::string::npos);
    EXPECT_NE(p.error().message.find("wiredcap ramp --to 80GiB"), std::string::npos);
    in.target = 96_GiB;  // the ceiling itself
    EXPECT_FALSE(make_plan(in));
    in.target = 95_GiB;  // below it: the whole plan, to the target
    auto below = make_plan(in);
    ASSERT_TRUE(below);
    EXPECT_EQ(below->steps.back(), 95_GiB);
    in.target = 112_GiB;
    in.ignore_hang_ceiling = true;
    auto all = make_plan(in);
    ASSERT_TRUE(all);
    EXPECT_EQ(all->steps.size(), 3u);
    EXPECT_EQ(all->steps.back(), 112_GiB);
}

TEST(Plan, APlanWithNothingBelowTheCeilingIsRefused) {
    PlanInput in = input(MiB::zero(), 96_GiB, 40_GiB);
    in.hang_ceiling = recovery::StepRef{"r-1", 1, 80_GiB, "T", "B"};
    auto p = make_plan(in);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code, ExitCode::refused_by_policy);
    EXPECT_NE(p.error().message.find("--ignore-hang-ceiling"), std::string::npos);
}

TEST(Plan, PercentOfRamHasOneDecimalRoundedHalfUp) {
    EXPECT_EQ(percent_of(80_GiB, 192_GiB), "41.7 %");
    EXPECT_EQ(percent_of(96_GiB, 192_GiB), "50.0 %");
    EXPECT_EQ(percent_of(MiB::zero(), 192_GiB), "0.0 %");
    EXPECT_EQ(percent_of(1_MiB, units::Bytes::zero()), "?");
}

TEST(Duration, SecondsAndMinutes) {
    EXPECT_EQ(*units::parse_duration("60s"), std::chrono::seconds(60));
    EXPECT_EQ(*units::parse_duration("2m"), std::chrono::seconds(120));
    EXPECT_EQ(*units::parse_duration("1440m"), std::chrono::seconds(86400));
}

TEST(Duration, RefusalsSayWhy) {
    const auto why = [](std::string_view t) { return units::parse_duration(t).error().message; };
    EXPECT_NE(why("60").find("unit must be s or m"), std::string::npos);  // never guessed
    EXPECT_NE(why("5h").find("unit must be s or m"), std::string::npos);
    EXPECT_NE(why("0s").find("at least 1s"), std::string::npos);
    EXPECT_NE(why("1441m").find("at most 24 hours"), std::string::npos);
    EXPECT_NE(why("060s").find("plainly"), std::string::npos);
    EXPECT_NE(why("1234567s").find("plainly"), std::string::npos);
    EXPECT_NE(why("").find("digits and a unit"), std::string::npos);
    EXPECT_NE(why("-5s").find("digits and a unit"), std::string::npos);
    EXPECT_NE(why("1.5m").find("unit must be s or m"), std::string::npos);
}

}  // namespace
}  // namespace wiredcap::cli
