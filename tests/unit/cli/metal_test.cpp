// The Metal reading's interpretation (cli/readings/metal_probe.cpp): what `status` says for each way
// the macOS probe (cli/readings/metal_darwin.cpp) can end. The probe itself needs a Mac and is only
// cross-compiled (tools/cross-build); everything it reports is turned into a reading here.
#include "wiredcap/cli/readings/metal_probe.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "wiredcap/cli/readings/metal.hpp"

namespace wiredcap::cli {
namespace {

const std::vector<MetalStep> kFailures{MetalStep::metal_framework, MetalStep::create_device_symbol,
                                       MetalStep::objc_runtime,    MetalStep::objc_symbol,
                                       MetalStep::selector,        MetalStep::no_device,
                                       MetalStep::not_supported,   MetalStep::zero,
                                       MetalStep::internal_error};

TEST(MetalProbe, AValueIsMetalsOwnLabelledFigure) {
    const auto r =
        interpret_metal_probe(MetalProbe{MetalStep::ok, 120259084288ULL, {}});  // 112 GiB
    ASSERT_TRUE(r.working_set.has_value());
    EXPECT_EQ(r.working_set->count(), 120259084288ULL);
    EXPECT_EQ(r.source, "Metal recommendedMaxWorkingSetSize");
    EXPECT_TRUE(r.why_unknown.empty());
}

TEST(MetalProbe, TheLargestCountIsKeptExactly) {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    const auto r = interpret_metal_probe(MetalProbe{MetalStep::ok, max, {}});
    ASSERT_TRUE(r.working_set.has_value());
    EXPECT_EQ(r.working_set->count(), max);
}

TEST(MetalProbe, EveryFailureIsUnknownWithAReasonAndTheSameSource) {
    for (const MetalStep step : kFailures) {
        // A count left over in a failed probe must never surface as a value.
        const auto r = interpret_metal_probe(MetalProbe{step, 4096, {}});
        EXPECT_FALSE(r.working_set.has_value()) << static_cast<int>(step);
        EXPECT_FALSE(r.why_unknown.empty()) << static_cast<int>(step);
        EXPECT_EQ(r.source, "Metal recommendedMaxWorkingSetSize") << static_cast<int>(step);
    }
}

TEST(MetalProbe, EachFailureHasItsOwnReason) {
    std::vector<std::string> seen;
    for (const MetalStep step : kFailures) {
        const std::string why = metal_failure_reason(MetalProbe{step, 0, {}});
        for (const auto& other : seen) EXPECT_NE(why, other);
        seen.push_back(why);
    }
}

TEST(MetalProbe, ZeroIsNeverShownAsACap) {
    // Metal answering 0, or a probe claiming success with 0: unknown, never "0 bytes".
    for (const MetalStep step : {MetalStep::ok, MetalStep::zero}) {
        const auto r = interpret_metal_probe(MetalProbe{step, 0, {}});
        EXPECT_FALSE(r.working_set.has_value());
        EXPECT_NE(r.why_unknown.find("0 bytes"), std::string::npos) << r.why_unknown;
    }
}

TEST(MetalProbe, TheSystemsOwnWordsAreKept) {
    const std::string dl =
        "dlopen(/System/Library/Frameworks/Metal.framework/Metal, 0x0005): image not found";
    const auto r = interpret_metal_probe(MetalProbe{MetalStep::metal_framework, 0, dl});
    EXPECT_NE(r.why_unknown.find("Metal.framework could not be loaded"), std::string::npos)
        << r.why_unknown;
    EXPECT_NE(r.why_unknown.find(dl), std::string::npos) << r.why_unknown;

    const auto sym = metal_failure_reason(MetalProbe{MetalStep::objc_symbol, 0, "objc_msgSend"});
    EXPECT_EQ(sym, "the Objective-C runtime lacks objc_msgSend");
    const auto sel = metal_failure_reason(MetalProbe{MetalStep::selector, 0, "release"});
    EXPECT_EQ(sel, "the Objective-C runtime registered no selector release");
}

TEST(MetalProbe, NoDetailMeansNoEmptyParentheses) {
    for (const MetalStep step : kFailures) {
        const std::string why = metal_failure_reason(MetalProbe{step, 0, {}});
        EXPECT_EQ(why.find("()"), std::string::npos) << why;
        EXPECT_EQ(why.find("( )"), std::string::npos) << why;
    }
}

TEST(MetalProbe, TheNamedFailuresSayWhatHappened) {
    EXPECT_NE(metal_failure_reason(MetalProbe{MetalStep::no_device, 0, {}}).find("no GPU"),
              std::string::npos);
    EXPECT_NE(metal_failure_reason(MetalProbe{MetalStep::create_device_symbol, 0, {}})
                  .find("MTLCreateSystemDefaultDevice"),
              std::string::npos);
    EXPECT_NE(metal_failure_reason(MetalProbe{MetalStep::not_supported, 0, {}})
                  .find("recommendedMaxWorkingSetSize"),
              std::string::npos);
    EXPECT_NE(metal_failure_reason(MetalProbe{MetalStep::objc_runtime, 0, "x"}).find("libobjc"),
              std::string::npos);
}

// No default device, but MTLCopyAllDevices had one: the value, labelled with how it was found.
TEST(MetalProbe, AReadingFromTheFallbackDeviceSaysSo) {
    const auto r = interpret_metal_probe(
        MetalProbe{MetalStep::ok, 51539607552,
                   "MTLCreateSystemDefaultDevice returned nil; the first of MTLCopyAllDevices"});
    ASSERT_TRUE(r.working_set.has_value());
    EXPECT_EQ(r.working_set->count(), 51539607552U);
    EXPECT_EQ(
        r.source,
        "Metal recommendedMaxWorkingSetSize (MTLCreateSystemDefaultDevice returned nil; the first of "
        "MTLCopyAllDevices)");
    // From the default device the label is the plain one.
    EXPECT_EQ(interpret_metal_probe(MetalProbe{MetalStep::ok, 1, {}}).source,
              std::string(kMetalSource));
}

TEST(MetalProbe, NoDeviceNamesBothWaysOfAsking) {
    const std::string why = metal_failure_reason(
        MetalProbe{MetalStep::no_device, 0, "MTLCopyAllDevices listed none either"});
    EXPECT_NE(why.find("MTLCreateSystemDefaultDevice returned nil"), std::string::npos) << why;
    EXPECT_NE(why.find("MTLCopyAllDevices"), std::string::npos) << why;
}

TEST(MetalProbe, ADefaultProbeIsNotASuccess) {
    // What probe_metal_device() returns when even its error text could not be built.
    const auto r = interpret_metal_probe(MetalProbe{});
    EXPECT_FALSE(r.working_set.has_value());
    EXPECT_FALSE(r.why_unknown.empty());
}

TEST(MetalProbe, SuccessHasNoReason) {
    EXPECT_TRUE(metal_failure_reason(MetalProbe{MetalStep::ok, 1, {}}).empty());
}

#if !defined(__APPLE__)
TEST(ReadMetal, AMachineThatIsNotSimulatedHasNoMetalHere) {
    MachineReadings machine;
    machine.backend = "darwin";  // what a real Mac's helper would say; there is no Metal here
    const auto r = read_metal(machine, DevPaths{});
    EXPECT_FALSE(r.working_set.has_value());
    EXPECT_EQ(r.why_unknown, "there is no Metal on this machine");
}
#endif

}  // namespace
}  // namespace wiredcap::cli
