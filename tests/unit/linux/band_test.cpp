// The TTM band (linux/src/band.cpp): built in from MemTotal, moved by root's policy, in whole pages.
#include <gtest/gtest.h>

#include <cstdint>

#include "wiredcap/linux/band.hpp"
#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/pages.hpp"

using namespace wiredcap::linux_amd;
using namespace wiredcap::units;
using namespace wiredcap::units::literals;

namespace {
const PageSize k4K = *PageSize::from_bytes(4096);
}  // namespace

namespace {
const Bytes kStrix128 =
    *Bytes::from_count(131752264ULL * 1024);  // MemTotal, amd-ttm's docs: 125.65 GiB
const Pages p4k(std::uint64_t n) { return *Pages::from_count(n, k4K); }
}  // namespace

TEST(Band, BuiltInCoversWhatStrixHaloOwnersRun) {
    const auto band = builtin_ttm_band(kStrix128, k4K);
    ASSERT_TRUE(band);
    EXPECT_FALSE(band_refusal(*band, p4k(27648000),
                              std::nullopt));  // 108000 MiB (amdttm.pages_limit=27648000)
    EXPECT_FALSE(band_refusal(*band, p4k(31457280), std::nullopt));  // 120 GiB
    EXPECT_FALSE(
        band_refusal(*band, p4k(32505856), std::nullopt));  // 124 GiB (the toolboxes' value)
    EXPECT_FALSE(
        band_refusal(*band, floor_pages(Bytes(8_GiB), k4K), std::nullopt));  // below the default
    // MemTotal - 1 GiB, down to a page, is the top; one page above it is refused.
    EXPECT_EQ(band->high.to_bytes(), floor_pages(kStrix128 - Bytes(1_GiB), k4K).to_bytes());
    EXPECT_TRUE(band_refusal(*band, p4k(band->high.count() + 1), std::nullopt));
    EXPECT_FALSE(band->max_step);
}

TEST(Band, PolicyPermitsOwnersValuesInWholePages) {
    const auto band =
        policy_ttm_band("min = 16GiB\nmax = 120GiB\nreserve = 4GiB\nmax_step = 64GiB\n",
                        "/etc/wiredcap.conf", kStrix128, k4K);
    ASSERT_TRUE(band) << band.error().message;
    EXPECT_EQ(band->low.count(), 4194304U);
    EXPECT_EQ(band->high.count(), 31457280U);
    EXPECT_FALSE(band_refusal(*band, p4k(27648000), p4k(16469033)));  // 108000 MiB from the default
    EXPECT_FALSE(band_refusal(*band, p4k(31457280), p4k(16469033)));  // 120 GiB
    EXPECT_TRUE(band_refusal(*band, p4k(31457281), p4k(16469033)));   // one page above max
    EXPECT_TRUE(band_refusal(*band, p4k(31457280), p4k(4194304)));    // a step of 104 GiB > 64
    EXPECT_FALSE(band_refusal(*band, p4k(4194304), p4k(31457280)));   // lowering is never a step
}

TEST(Band, AboveMemTotalMinusTheReserveIsRefusedWhateverThePolicySays) {
    // 124 GiB with a 4 GiB reserve on 125.65 GiB: max is above MemTotal - reserve.
    EXPECT_FALSE(policy_ttm_band("min = 16GiB\nmax = 124GiB\nreserve = 4GiB\nmax_step = 8GiB\n",
                                 "p", kStrix128, k4K));
    // And no reserve below Linux's floor of 1 GiB.
    const auto low = policy_ttm_band(
        "min = 16GiB\nmax = 124GiB\nreserve = 512MiB\nmax_step = 8GiB\n", "p", kStrix128, k4K);
    ASSERT_FALSE(low);
    EXPECT_NE(low.error().message.find("below the floor of 1024 MiB"), std::string::npos)
        << low.error().message;
}

TEST(Band, ASizeThatIsNotWholePagesNamesBothNeighbours) {
    const auto e = whole_pages("the trial's size",
                               *Bytes::from_count(100ULL * 1024 * 1024 * 1024 + 1024), k4K);
    ASSERT_FALSE(e);
    EXPECT_NE(
        e.error().message.find(
            "either side are 26214400 pages of 4 KiB (102400 MiB, 100 GiB) and 26214401 pages"),
        std::string::npos)
        << e.error().message;
    // 64 KiB pages: 1 MiB is 16 pages, 1.5 MiB + 4 KiB is not whole.
    const PageSize k64K = *PageSize::from_bytes(65536);
    EXPECT_EQ(whole_pages("x", Bytes(1_MiB), k64K)->count(), 16U);
    EXPECT_FALSE(whole_pages("x", *Bytes::from_count(1536 * 1024 + 4096), k64K));
}

TEST(Band, ABrokenPolicyIsNoBand) {
    const PolicyText unreadable{"/etc/wiredcap.conf", wiredcap::Error{"owned by uid 1000"}};
    EXPECT_FALSE(ttm_band(unreadable, kStrix128, k4K));
    const PolicyText absent{"/etc/wiredcap.conf", std::optional<std::string>{}};
    EXPECT_TRUE(ttm_band(absent, kStrix128, k4K));
    EXPECT_FALSE(
        ttm_band(PolicyText{"p", std::optional<std::string>{"max = 1GiB\n"}}, kStrix128, k4K));
}
