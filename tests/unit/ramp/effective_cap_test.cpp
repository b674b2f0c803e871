// The effective cap: Metal's reading when there is one, the knob when it is
// set and Metal cannot be read, --from SIZE only when neither says; never a silent guess.
#include "wiredcap/ramp/effective_cap.hpp"

#include <gtest/gtest.h>

#include "wiredcap/cli/commands/set_reset.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::cli {
namespace {

using namespace units::literals;
using units::MiB;

MachineReadings machine(MiB knob, bool simulated = false) {
    MachineReadings m;
    m.backend = simulated ? "simulated" : "darwin";
    m.knob.value = knob;
    m.knob.source = "kernel";
    return m;
}

MetalReading metal(std::optional<units::Bytes> ws) {
    MetalReading r;
    r.source = "Metal recommendedMaxWorkingSetSize";
    r.working_set = ws;
    if (!ws) r.why_unknown = "there is no Metal on this machine";
    return r;
}

TEST(EffectiveCap, FromTheOsDefaultItIsMetalsReadingRoundedDownWithItsSource) {
    auto e = effective_cap(machine(0_MiB),
                           metal(units::Bytes(161792_MiB) + units::Bytes(1_MiB) -
                                 units::Bytes::from_count_or_throw(1)),
                           std::nullopt);
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_EQ(e->value, 161792_MiB);  // a raise must exceed it: rounding down keeps that exact
    EXPECT_EQ(e->source, "Metal recommendedMaxWorkingSetSize");
    EXPECT_EQ(effective_args(*e), (std::vector<std::string>{"--effective", "161792MiB",
                                                            "--effective-source", "metal"}));
    auto sim = effective_cap(machine(0_MiB, true), metal(units::Bytes(158_GiB)), std::nullopt);
    ASSERT_TRUE(sim);
    EXPECT_EQ(effective_args(*sim)[3], "simulated-metal");
}

TEST(EffectiveCap, WithTheKnobSetTheHelperNeedsNoneAndTheKnobStandsInForMetal) {
    auto e = effective_cap(machine(96_GiB), metal(std::nullopt), std::nullopt);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->value, 96_GiB);
    EXPECT_NE(e->source.find("kernel iogpu.wired_limit_mb"), std::string::npos) << e->source;
    EXPECT_TRUE(effective_args(*e).empty());
}

TEST(EffectiveCap, UnknownFromTheOsDefaultNeedsFromAndTakesItAsGiven) {
    auto none = effective_cap(machine(0_MiB), metal(std::nullopt), std::nullopt);
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("--from SIZE"), std::string::npos) << none.error().message;
    EXPECT_NE(none.error().message.find("there is no Metal"), std::string::npos)
        << none.error().message;
    auto given = effective_cap(machine(0_MiB), metal(std::nullopt), 150_GiB);
    ASSERT_TRUE(given);
    EXPECT_EQ(given->value, 150_GiB);
    EXPECT_EQ(given->source, "given with --from");
    EXPECT_EQ(effective_args(*given), (std::vector<std::string>{"--effective", "153600MiB",
                                                                "--effective-source", "given"}));
}

TEST(EffectiveCap, FromIsRefusedWhenTheCapCanBeRead) {
    auto e = effective_cap(machine(0_MiB), metal(units::Bytes(158_GiB)), 150_GiB);
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("only for when the effective cap cannot be read"),
              std::string::npos);
    EXPECT_NE(e.error().message.find("161792 MiB"), std::string::npos) << e.error().message;
}

TEST(EffectiveCap, FromIsParsedAsEverySizeIs) {
    EXPECT_FALSE(parse_from(std::string("150")));       // no unit
    EXPECT_FALSE(parse_from(std::string("0MiB")));      // not a cap
    EXPECT_FALSE(parse_from(std::string("150000MB")));  // not whole MiB
    EXPECT_EQ(*parse_from(std::string("150GiB")), std::optional<MiB>(150_GiB));
    EXPECT_EQ(*parse_from(std::nullopt), std::nullopt);
}

TEST(SetDirection, IsJudgedAgainstTheEffectiveCapNotTheKnob) {
    EXPECT_EQ(direction_of(158_GiB, 96_GiB), Direction::lower);  // from the OS default: a lowering
    EXPECT_EQ(direction_of(158_GiB, 166_GiB), Direction::raise);
    EXPECT_EQ(direction_of(158_GiB, 158_GiB), Direction::same);
    EXPECT_EQ(direction_name(Direction::lower), "lower");
}

}  // namespace
}  // namespace wiredcap::cli
