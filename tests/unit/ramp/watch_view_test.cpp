// What watch shows of a sample: never further from the cap than it is, and warned near it.
#include <gtest/gtest.h>

#include "output/watch_view.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

MiB mib(std::uint64_t n) { return MiB::from_count_or_throw(n); }

TEST(WatchView, PercentOfTheCapIsRoundedUp) {
    EXPECT_EQ(percent_of_cap({mib(6144), mib(81920)}), 8u);  // 7.5%
    EXPECT_EQ(percent_of_cap({mib(1), mib(81920)}), 1u);
    EXPECT_EQ(percent_of_cap({mib(81920), mib(81920)}), 100u);
    EXPECT_EQ(percent_of_cap({std::nullopt, mib(81920)}), std::nullopt);
    EXPECT_EQ(percent_of_cap({mib(1), std::nullopt}), std::nullopt);
}

TEST(WatchView, WarnsWithinATenthOfTheCapAndAboveIt) {
    EXPECT_EQ(near_cap_warning({mib(73727), mib(81920)}), std::nullopt);
    EXPECT_EQ(near_cap_warning({mib(73728), mib(81920)}),
              "wired memory is within 10% of the cap: 8192 MiB (8.00 GiB, 8.58 GB) left");
    EXPECT_EQ(near_cap_warning({mib(90000), mib(81920)}), "wired memory is at or above the cap (81920 MiB)");
    EXPECT_EQ(near_cap_warning({std::nullopt, mib(81920)}), std::nullopt);
}

TEST(WatchView, OneLinePerSample) {
    EXPECT_EQ(sample_line(std::chrono::seconds(4), {mib(77824), mib(81920)}, mib(77824)),
              "+4s wired 77824 MiB of the cap 81920 MiB (95%), peak 77824 MiB");
    EXPECT_EQ(sample_line(std::chrono::seconds(0), {mib(6144), std::nullopt}, mib(6144)),
              "+0s wired 6144 MiB of the cap unknown, peak 6144 MiB");
}

TEST(WatchView, SparklineKeepsTheLastSamplesRoundedUp) {
    const std::deque<std::optional<MiB>> h{mib(0), mib(1), mib(40), mib(41), std::nullopt, mib(100), mib(500)};
    EXPECT_EQ(sparkline(h, mib(80), 20, Glyphs::ascii), "__:=?##");
    EXPECT_EQ(sparkline(h, mib(80), 3, Glyphs::ascii), "?##");
    EXPECT_EQ(sparkline(h, std::nullopt, 2, Glyphs::ascii), "??");
}

}  // namespace
}  // namespace wiredcap::cli
