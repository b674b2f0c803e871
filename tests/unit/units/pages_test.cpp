// Page counts with their page size (units/src/pages.cpp): a page size is a reading, counts
// convert by flooring, and counts of two page sizes do not compare.
#include <gtest/gtest.h>

#include <cstdint>

#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/pages.hpp"

using namespace wiredcap::units;
using namespace wiredcap::units::literals;

namespace {
const PageSize k4K = *PageSize::from_bytes(4096);
const PageSize k16K = *PageSize::from_bytes(16384);
}  // namespace

TEST(Pages, PageSizeIsAReadingOfAPowerOfTwo) {
    EXPECT_FALSE(PageSize::from_bytes(0));
    EXPECT_FALSE(PageSize::from_bytes(4095));
    EXPECT_FALSE(PageSize::from_bytes(6144));
    EXPECT_FALSE(PageSize::from_bytes(2048));
    EXPECT_TRUE(PageSize::from_bytes(65536));
}

TEST(Pages, DescribeSaysPagesMibAndGib) {
    EXPECT_EQ(describe(*Pages::from_count(27648000, k4K)),
              "27648000 pages of 4 KiB (108000 MiB, 105.46 GiB)");
    EXPECT_EQ(describe(*Pages::from_count(16469033, k4K)),
              "16469033 pages of 4 KiB (64332.16 MiB, 62.82 GiB)");
}

TEST(Pages, BytesAreDescribedAsWholePagesAndTheRest) {
    EXPECT_EQ(describe(*Bytes::from_count(8192 + 512), k4K),
              "2 pages of 4 KiB (0.00 MiB, 0.00 GiB) + 512 bytes");
    EXPECT_EQ(describe(Bytes(4_GiB), k4K), "1048576 pages of 4 KiB (4096 MiB, 4 GiB)");
}

TEST(Pages, ConversionsFloorAndNeverOverflow) {
    EXPECT_EQ(floor_pages(Bytes(100_GiB), k4K).count(), 26214400U);
    EXPECT_EQ(floor_pages(*Bytes::from_count(8191), k4K).count(), 1U);
    EXPECT_FALSE(exact_pages(*Bytes::from_count(8191), k4K));
    EXPECT_FALSE(Pages::from_count(UINT64_MAX / 4096 + 1, k4K));
    EXPECT_EQ(Pages::from_count(3, k16K)->to_bytes().count(), 49152U);
}

TEST(Pages, DifferentPageSizesDoNotCompare) {
    EXPECT_THROW((void)(*Pages::from_count(1, k4K) == *Pages::from_count(1, k16K)),
                 PageSizeMismatch);
}
