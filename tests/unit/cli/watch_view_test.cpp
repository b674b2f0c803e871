// What watch shows of a sample: never further from the cap than it is, and warned near it.
#include <gtest/gtest.h>

#include "wiredcap/cli/output/watch_view.hpp"

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
    EXPECT_EQ(near_cap_warning({mib(90000), mib(81920)}),
              "wired memory is at or above the cap (81920 MiB)");
    EXPECT_EQ(near_cap_warning({std::nullopt, mib(81920)}), std::nullopt);
}

TEST(WatchView, OneLinePerSample) {
    EXPECT_EQ(sample_line(std::chrono::seconds(4), {mib(77824), mib(81920)}, mib(77824)),
              "+4s wired 77824 MiB of the cap 81920 MiB (95%), peak 77824 MiB");
    EXPECT_EQ(sample_line(std::chrono::seconds(0), {mib(6144), std::nullopt}, mib(6144)),
              "+0s wired 6144 MiB of the cap unknown, peak 6144 MiB");
}

TEST(WatchView, SparklineKeepsTheLastSamplesRoundedUp) {
    const std::deque<std::optional<MiB>> h{mib(0),       mib(1),   mib(40), mib(41),
                                           std::nullopt, mib(100), mib(500)};
    EXPECT_EQ(sparkline(h, mib(80), 20, Glyphs::ascii), "__:=?##");
    EXPECT_EQ(sparkline(h, mib(80), 3, Glyphs::ascii), "?##");
    EXPECT_EQ(sparkline(h, std::nullopt, 2, Glyphs::ascii), "??");
}

TEST(WatchView, GaugeIsTheWidestFormThatFits) {
    const WatchSample s{mib(6144), mib(81920)};  // 7.5%: the bar's first of 10 cells, "8%"
    EXPECT_EQ(cap_gauge(s, 28, Glyphs::ascii), "wired |#=========| 8% of cap");
    EXPECT_EQ(cap_gauge(s, 22, Glyphs::ascii), "wired |#===| 8% of cap");
    EXPECT_EQ(cap_gauge(s, 40, Glyphs::ascii).size(), 40u);
    EXPECT_EQ(cap_gauge(s, 21, Glyphs::ascii), "wired 8% of cap");
    EXPECT_EQ(cap_gauge(s, 15, Glyphs::ascii), "wired 8% of cap");
    EXPECT_EQ(cap_gauge(s, 14, Glyphs::ascii), "wired 8%");
    EXPECT_EQ(cap_gauge(s, 8, Glyphs::ascii), "wired 8%");
    EXPECT_EQ(cap_gauge(s, 7, Glyphs::ascii), "");
    EXPECT_EQ(cap_gauge(s, 0, Glyphs::ascii), "");
}

TEST(WatchView, GaugeNeverShowsLessWiredThanThereIs) {
    // One MiB over nine tenths fills the tenth cell; at or above the cap, every cell.
    EXPECT_EQ(cap_gauge({mib(73729), mib(81920)}, 29, Glyphs::ascii),
              "wired |##########| 91% of cap");
    EXPECT_EQ(cap_gauge({mib(90000), mib(81920)}, 30, Glyphs::ascii),
              "wired |##########| 110% of cap");
    EXPECT_EQ(cap_gauge({std::nullopt, mib(81920)}, 28, Glyphs::ascii),
              "wired |?=========| ?% of cap");
    EXPECT_EQ(cap_gauge({mib(1), std::nullopt}, 28, Glyphs::ascii), "wired |??????????| ?% of cap");
    // Block characters take one column each: the gauge stays within its width.
    const std::string blocks = cap_gauge({mib(6144), mib(81920)}, 28, Glyphs::blocks);
    EXPECT_EQ(blocks,
              "wired |\u2588\u2592\u2592\u2592\u2592\u2592\u2592\u2592\u2592\u2592| 8% of cap");
}

}  // namespace
}  // namespace wiredcap::cli
