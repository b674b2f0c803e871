// The verdict against the cap now, the policy's highest value and memory minus the reserve.
#include <gtest/gtest.h>

#include "wiredcap/cli/commands/fit_cmd.hpp"
#include "wiredcap/cli/commands/fit_verdict.hpp"
#include "wiredcap/units/parse.hpp"

namespace wiredcap::fit {
namespace {

using units::Bytes;
using units::GiB;
using units::MiB;

Bytes gib(std::uint64_t n) { return GiB::from_count_or_throw(n); }
MiB mib(std::uint64_t n) { return MiB::from_count_or_throw(n); }

cli::PolicyView band(std::uint64_t min_gib, std::uint64_t max_gib, std::uint64_t reserve_gib) {
    cli::PolicyView p;
    p.min = GiB::from_count_or_throw(min_gib);
    p.max = GiB::from_count_or_throw(max_gib);
    p.reserve = GiB::from_count_or_throw(reserve_gib);
    p.max_step = GiB::from_count_or_throw(16);
    return p;
}

// A 192 GiB Mac on the OS default (cap 147 GiB per Metal), band 64..176 GiB, reserve 16 GiB.
VerdictInput mac(Bytes total) {
    return VerdictInput{total, mib(0), gib(147), gib(192), band(64, 176, 16)};
}

TEST(FitVerdict, FitsNowUnderTheEffectiveCap) {
    const auto r = decide(mac(gib(147)), "Metal");
    EXPECT_EQ(r.verdict, Verdict::fits_now);
    EXPECT_FALSE(r.command);
}

TEST(FitVerdict, FitsAfterRaiseToWholeGiBAndTheCommandParses) {
    const auto r =
        decide(mac(checked_add(gib(150), Bytes::from_count_or_throw(1)).value()), "Metal");
    ASSERT_EQ(r.verdict, Verdict::fits_after_raise);
    EXPECT_EQ(*r.recommended, mib(151 * 1024));
    ASSERT_TRUE(r.command);
    EXPECT_EQ(*r.command, "wiredcap ramp --to 151GiB");
    const auto parsed = units::parse_size_as<MiB>("151GiB");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, *r.recommended);
}

TEST(FitVerdict, ExactMiBWhenWholeGiBWouldPassTheLimit) {
    // 175.5 GiB + 1 B: 176 GiB is the max, so 176 GiB is fine; at max - 0.5 GiB exactly...
    auto in = mac(checked_add(Bytes(mib(176 * 1024 - 512)), Bytes::from_count_or_throw(1)).value());
    in.policy = band(64, 176, 16);
    in.policy->max = mib(176 * 1024 - 100);  // a max that is not whole GiB
    const auto r = decide(in, "Metal");
    ASSERT_EQ(r.verdict, Verdict::fits_after_raise);
    EXPECT_EQ(*r.recommended, mib(176 * 1024 - 511));
    EXPECT_EQ(*r.command, "wiredcap ramp --to 179713MiB");
}

TEST(FitVerdict, NeverBelowTheBandFloor) {
    auto in = mac(gib(40));
    in.cap = gib(32);
    const auto r = decide(in, "Metal");
    ASSERT_EQ(r.verdict, Verdict::fits_after_raise);
    EXPECT_EQ(*r.recommended, mib(64 * 1024));
}

TEST(FitVerdict, DoesNotFitAbovePolicyMaxOrMemoryMinusReserve) {
    EXPECT_EQ(
        decide(mac(checked_add(gib(176), Bytes::from_count_or_throw(1)).value()), "Metal").verdict,
        Verdict::does_not_fit);
    auto small = mac(gib(60));
    small.memsize = gib(64);
    small.policy = band(16, 200, 8);
    small.cap = gib(48);
    const auto r = decide(small, "Metal");
    EXPECT_EQ(r.verdict, Verdict::does_not_fit);  // 64 - 8 = 56 GiB < 60 GiB
    EXPECT_EQ(*r.highest, mib(56 * 1024));
    EXPECT_FALSE(r.command);
}

TEST(FitVerdict, UnknownCapIsUnknownNotAGuess) {
    auto in = mac(gib(150));
    in.cap.reset();
    const auto r = decide(in, "Metal");
    EXPECT_EQ(r.verdict, Verdict::unknown);
    EXPECT_FALSE(r.command);
    // With the knob set, the knob is the cap.
    in.knob = mib(160 * 1024);
    EXPECT_EQ(decide(in, "Metal").verdict, Verdict::fits_now);
    in.knob.reset();
    EXPECT_EQ(decide(in, "Metal").verdict, Verdict::unknown);
}

// A value that hung binds fit's advice as it binds the ramp: the suggested ramp is one the ramp
// accepts (strictly below the ceiling), or there is none.
TEST(FitVerdict, TheHangCeilingBindsTheAdvice) {
    auto in = mac(gib(160));
    in.hang_ceiling = mib(168 * 1024);
    auto r = decide(in, "Metal");
    ASSERT_EQ(r.verdict, Verdict::fits_after_raise);
    EXPECT_EQ(*r.highest, mib(168 * 1024 - 1));
    EXPECT_EQ(*r.command, "wiredcap ramp --to 160GiB");
    in.total = gib(168);
    r = decide(in, "Metal");
    EXPECT_EQ(r.verdict, Verdict::does_not_fit) << "168 GiB hung: a model needing it does not fit";
    EXPECT_FALSE(r.command);
    in.total = checked_add(gib(167), Bytes::from_count_or_throw(1)).value();
    r = decide(in, "Metal");
    ASSERT_EQ(r.verdict, Verdict::fits_after_raise);
    EXPECT_EQ(*r.recommended, mib(167 * 1024 + 1))
        << "whole GiB would reach the ceiling: exact MiB";
}

TEST(FitVerdict, AHangCeilingBelowTheBandLeavesNoRaise) {
    auto in = mac(gib(150));
    in.hang_ceiling = mib(60 * 1024);
    const auto r = decide(in, "Metal");
    EXPECT_EQ(r.verdict, Verdict::does_not_fit);
    EXPECT_FALSE(r.command);
}

TEST(FitVerdict, AnUnreadableJournalGivesNoAdvice) {
    auto in = mac(gib(160));
    in.hang_unknown = "cannot read the journal";
    const auto r = decide(in, "Metal");
    EXPECT_EQ(r.verdict, Verdict::unknown);
    EXPECT_FALSE(r.command);
    EXPECT_NE(r.why.find("hang ceiling is unknown"), std::string::npos);
}

// fit --check: a launch script branches on the exit code. 0 only when the cap holds the model
// now (0 means that everywhere); each other verdict its own code, never 0.
TEST(FitVerdict, CheckExitCodeTellsEachVerdictApart) {
    EXPECT_EQ(check_exit_code(decide(mac(gib(100)), "Metal").verdict), ExitCode::ok);
    EXPECT_EQ(check_exit_code(decide(mac(gib(160)), "Metal").verdict), ExitCode::raise_needed);
    EXPECT_EQ(check_exit_code(decide(mac(gib(180)), "Metal").verdict), ExitCode::refused_by_policy);
    VerdictInput unknown = mac(gib(160));
    unknown.policy.reset();
    EXPECT_EQ(check_exit_code(decide(unknown, "Metal").verdict), ExitCode::internal_error);
    EXPECT_EQ(to_int(ExitCode::raise_needed), 17);
}

}  // namespace
}  // namespace wiredcap::fit