#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "wiredcap/units/format.hpp"
#include "wiredcap/units/literals.hpp"

using namespace wiredcap::units;
using namespace wiredcap::units::literals;

namespace {

// The GiB and GB figures are cut, never rounded up: a limit printed in GiB or GB is
// never above the limit itself.
TEST(Describe, ShowsExactMiBThenGiBAndGBCutToTwoDecimals) {
    EXPECT_EQ(describe(237568_MiB), "237568 MiB (232.00 GiB, 249.10 GB)");
    EXPECT_EQ(describe(114688_MiB), "114688 MiB (112.00 GiB, 120.25 GB)");
    EXPECT_EQ(describe(232_GiB), "237568 MiB (232.00 GiB, 249.10 GB)");
}

TEST(Describe, AFigureJustBelowAWholeGiBIsNeverShownAsIt) {
    // 229375 MiB is the highest value below a hang at 224 GiB: it must not read as 224.00 GiB.
    EXPECT_EQ(describe(229375_MiB), "229375 MiB (223.99 GiB, 240.51 GB)");
}

TEST(TruncatedDecimal, CutsAndNeverRoundsUp) {
    EXPECT_EQ(truncated_decimal(1023_MiB, SizeUnit::gibibytes, 2), "0.99");
    EXPECT_EQ(truncated_decimal(995_MB, SizeUnit::gigabytes, 2), "0.99");
    EXPECT_EQ(truncated_decimal(1_GB, SizeUnit::gigabytes, 2), "1.00");
    EXPECT_EQ(truncated_decimal(0_B, SizeUnit::gigabytes, 2), "0.00");
    EXPECT_EQ(truncated_decimal(Bytes::max(), SizeUnit::bytes, 18),
              "18446744073709551615.000000000000000000");
    EXPECT_THROW((void)truncated_decimal(1_B, SizeUnit::bytes, 19), std::invalid_argument);
}

// What a model needs, printed for orientation: 5565841408 B is 5.1836 GiB, never "5.18 GiB".
TEST(RoundedUpDecimal, RoundsUpAndNeverDown) {
    EXPECT_EQ(rounded_up_decimal(5565841408_B, SizeUnit::gibibytes, 2), "5.19");
    EXPECT_EQ(rounded_up_decimal(1_B, SizeUnit::gigabytes, 2), "0.01");
    EXPECT_EQ(rounded_up_decimal(1_GB, SizeUnit::gigabytes, 2), "1.00");
    EXPECT_EQ(rounded_up_decimal(0_B, SizeUnit::gigabytes, 2), "0.00");
    EXPECT_EQ(rounded_up_decimal(Bytes::max(), SizeUnit::gibibytes, 2), "17179869184.00");
    EXPECT_EQ(rounded_up_decimal(Bytes::max(), SizeUnit::bytes, 18),
              "18446744073709551615.000000000000000000");
    EXPECT_THROW((void)rounded_up_decimal(1_B, SizeUnit::bytes, 19), std::invalid_argument);
}

TEST(Describe, EdgeValues) {
    EXPECT_EQ(describe(0_MiB), "0 MiB (0.00 GiB, 0.00 GB)");
    EXPECT_EQ(describe(1_MiB),
              "1 MiB (0.0009 GiB, 0.001 GB)");  // never 0.00 for a size that is not 0
    EXPECT_EQ(describe(1023_MiB), "1023 MiB (0.99 GiB, 1.07 GB)");
    EXPECT_EQ(describe(MiB::max()), "17592186044415 MiB (17179869183.99 GiB, 18446744073.70 GB)");
}

TEST(ToString, CountSpaceSymbol) {
    EXPECT_EQ(to_string(237568_MiB), "237568 MiB");
    EXPECT_EQ(to_string(232_GiB), "232 GiB");
    EXPECT_EQ(to_string(5_kB), "5 kB");
    EXPECT_EQ(to_string(16_GB), "16 GB");
    EXPECT_EQ(to_string(0_TiB), "0 TiB");
    EXPECT_EQ(to_string(1_TB), "1 TB");
    EXPECT_EQ(to_string(3_KiB), "3 KiB");
    EXPECT_EQ(to_string(Bytes::max()), "18446744073709551615 B");
    EXPECT_EQ(to_string(*Pages16KiB::from_count(3)), "3 pages[16KiB]");
    EXPECT_EQ(to_string(*Pages4KiB::from_count(7)), "7 pages[4KiB]");
}

TEST(ExactDecimal, WholeValuesHaveNoPoint) {
    EXPECT_EQ(exact_decimal(232_GiB, SizeUnit::gibibytes), "232");
    EXPECT_EQ(exact_decimal(232_GiB, SizeUnit::mebibytes), "237568");
    EXPECT_EQ(exact_decimal(0_B, SizeUnit::tebibytes), "0");
    EXPECT_EQ(exact_decimal(Bytes::max(), SizeUnit::bytes), "18446744073709551615");
    EXPECT_EQ(exact_decimal(16_GB, SizeUnit::megabytes), "16000");
}

TEST(ExactDecimal, FractionsAreWrittenInFull) {
    EXPECT_EQ(exact_decimal(232000_MB, SizeUnit::mebibytes), "221252.44140625");
    EXPECT_EQ(exact_decimal(1_GiB, SizeUnit::gigabytes), "1.073741824");
    EXPECT_EQ(exact_decimal(237568_MiB, SizeUnit::gigabytes), "249.108103168");
    EXPECT_EQ(exact_decimal(1_B, SizeUnit::kilobytes), "0.001");
    EXPECT_EQ(exact_decimal(1_KiB, SizeUnit::kilobytes), "1.024");
    EXPECT_EQ(exact_decimal(1_kB, SizeUnit::kibibytes), "0.9765625");
    EXPECT_EQ(exact_decimal(1_B, SizeUnit::tebibytes),
              "0.0000000000009094947017729282379150390625");
    EXPECT_EQ(exact_decimal(Bytes::max(), SizeUnit::tebibytes),
              "16777215.9999999999990905052982270717620849609375");
    EXPECT_EQ(exact_decimal(Bytes::max(), SizeUnit::terabytes), "18446744.073709551615");
}

TEST(FixedDecimal, PadsTheFractionWithZeros) {
    EXPECT_EQ(truncated_decimal(1_B, SizeUnit::bytes, 3), "1.000");
    EXPECT_EQ(truncated_decimal(1_MB, SizeUnit::gigabytes, 3), "0.001");
    EXPECT_EQ(truncated_decimal(0_B, SizeUnit::gigabytes, 2), "0.00");
}

TEST(FixedDecimal, EighteenDecimalsAtMost) {
    EXPECT_EQ(truncated_decimal(Bytes::max(), SizeUnit::bytes, 18),
              "18446744073709551615.000000000000000000");
    EXPECT_EQ(truncated_decimal(Bytes::max(), SizeUnit::tebibytes, 18),
              "16777215.999999999999090505");
    EXPECT_THROW((void)truncated_decimal(1_B, SizeUnit::bytes, 19), std::invalid_argument);
}

}  // namespace
