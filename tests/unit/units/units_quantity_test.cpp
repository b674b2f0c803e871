#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/quantity.hpp"

using namespace wiredcap::units;
using namespace wiredcap::units::literals;

namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

template <class A, class B>
concept Addable = requires(A a, B b) {
    a + b;
};

template <class A, class B>
concept EqualityComparable = requires(A a, B b) {
    a == b;
};

static_assert((232_GiB).count() == 232);
static_assert((237568_MiB).count() == 237568);
static_assert((16_GB).count() == 16);
static_assert((1_kB).bytes() == 1000);
static_assert((1_TiB).bytes() == 1ULL << 40);
static_assert((18446744073709551615_B).count() == kU64Max);
static_assert((17592186044415_MiB).count() == MiB::max_count);
static_assert(MiB{232_GiB} == 237568_MiB);
static_assert(1_GiB + 1_MiB == 1025_MiB);
static_assert(!checked_add(MiB::max(), 1_MiB).has_value());
static_assert(!exact_cast<MiB>(232000_MB).has_value());

static_assert(std::is_convertible_v<GiB, MiB>);
static_assert(std::is_convertible_v<MiB, Bytes>);
static_assert(std::is_convertible_v<GB, MB>);
static_assert(std::is_convertible_v<MB, Bytes>);
static_assert(std::is_convertible_v<MiB, Pages16KiB>);
static_assert(std::is_convertible_v<Pages16KiB, KiB>);
static_assert(std::is_convertible_v<Pages16KiB, Pages4KiB>);
static_assert(!std::is_convertible_v<Pages4KiB, Pages16KiB>);
static_assert(!std::is_convertible_v<MiB, GiB>);
static_assert(!std::is_convertible_v<Bytes, KiB>);
static_assert(!std::is_convertible_v<MB, MiB>);
static_assert(!std::is_convertible_v<MiB, MB>);
static_assert(!std::is_convertible_v<GB, GiB>);
static_assert(!std::is_constructible_v<MiB, MB>);
static_assert(!std::is_constructible_v<MiB, std::uint64_t>);
static_assert(!std::is_convertible_v<std::uint64_t, MiB>);
static_assert(!std::is_convertible_v<MiB, std::uint64_t>);
static_assert(!std::is_convertible_v<double, MiB>);

static_assert(Addable<MiB, MiB>);
static_assert(Addable<GiB, MiB>);
static_assert(!Addable<MiB, MB>);
static_assert(!Addable<MiB, int>);
static_assert(EqualityComparable<GiB, MiB>);
static_assert(!EqualityComparable<MiB, MB>);
static_assert(!EqualityComparable<MiB, int>);

TEST(QuantityConversion, ImplicitExactConversionsScaleTheCount) {
    const MiB from_gib = 232_GiB;
    EXPECT_EQ(from_gib.count(), 237568U);
    const Bytes from_mib = 237568_MiB;
    EXPECT_EQ(from_mib.count(), 249108103168U);
    const MB from_gb = 232_GB;
    EXPECT_EQ(from_gb.count(), 232000U);
    const Pages16KiB pages = 1_MiB;
    EXPECT_EQ(pages.count(), 64U);
    const KiB from_pages = *Pages16KiB::from_count(3);
    EXPECT_EQ(from_pages.count(), 48U);
    const Bytes from_tb = 2_TB;
    EXPECT_EQ(from_tb.count(), 2000000000000U);
}

TEST(QuantityConversion, ImplicitConversionOfTheLargestValueIsExact) {
    const Bytes b = MiB::max();
    EXPECT_EQ(b.count(), kU64Max - ((1ULL << 20) - 1));
    const KiB k = GiB::max();
    EXPECT_EQ(k.count(), GiB::max_count << 20);
    const Pages4KiB p = Pages16KiB::max();
    EXPECT_EQ(p.count(), Pages16KiB::max_count * 4);
}

TEST(QuantityConversion, BytesAndCountAgree) {
    EXPECT_EQ((5_KiB).bytes(), 5120U);
    EXPECT_EQ((5_kB).bytes(), 5000U);
    EXPECT_EQ((3_TB).bytes(), 3000000000000U);
    EXPECT_EQ(Pages4KiB::from_count(2)->bytes(), 8192U);
}

TEST(QuantityCast, ExactCastAcrossFamilies) {
    EXPECT_EQ(exact_cast<MiB>(232000_MB), std::nullopt);
    EXPECT_EQ(exact_cast<MiB>(1048576_B), 1_MiB);
    EXPECT_EQ(exact_cast<KiB>(128_kB), 125_KiB);
    EXPECT_EQ(exact_cast<GB>(1_GiB), std::nullopt);
    EXPECT_EQ(exact_cast<MB>(15625_MiB), 16384_MB);
    EXPECT_EQ(exact_cast<GiB>(1023_MiB), std::nullopt);
    EXPECT_EQ(exact_cast<GiB>(2048_MiB), 2_GiB);
    EXPECT_EQ(exact_cast<Bytes>(Bytes::max()), Bytes::max());
    EXPECT_EQ(exact_cast<Pages16KiB>(1_MiB), Pages16KiB::from_count(64));
    EXPECT_EQ(exact_cast<Pages16KiB>(1_kB), std::nullopt);
}

TEST(QuantityCast, FloorAndCeilCastAcrossFamilies) {
    EXPECT_EQ(floor_cast<MiB>(232000_MB), 221252_MiB);
    EXPECT_EQ(ceil_cast<MiB>(232000_MB), 221253_MiB);
    EXPECT_EQ(floor_cast<GB>(1_GiB), 1_GB);
    EXPECT_EQ(ceil_cast<GB>(1_GiB), 2_GB);
    EXPECT_EQ(floor_cast<GiB>(1023_MiB), 0_GiB);
    EXPECT_EQ(ceil_cast<GiB>(1023_MiB), 1_GiB);
    EXPECT_EQ(floor_cast<MiB>(2_GiB), 2048_MiB);
    EXPECT_EQ(ceil_cast<MiB>(2_GiB), 2048_MiB);
    EXPECT_EQ(ceil_cast<MiB>(0_B), 0_MiB);
    EXPECT_EQ(ceil_cast<MiB>(1_B), 1_MiB);
}

TEST(QuantityCast, CeilCastOfTheLargestByteCountDoesNotFit) {
    EXPECT_EQ(ceil_cast<MiB>(Bytes::max()), std::nullopt);
    EXPECT_EQ(ceil_cast<TB>(Bytes::max()), std::nullopt);
    EXPECT_EQ(ceil_cast<Pages16KiB>(Bytes::max()), std::nullopt);
    EXPECT_EQ(floor_cast<MiB>(Bytes::max()), MiB::max());
    EXPECT_EQ(ceil_cast<MiB>(MiB::max()), MiB::max());
    EXPECT_EQ(ceil_cast<Bytes>(Bytes::max()), Bytes::max());
}

template <class Q>
struct ExpectedMax;
template <>
struct ExpectedMax<Bytes> {
    static constexpr std::uint64_t value = kU64Max;
};
template <>
struct ExpectedMax<KB> {
    static constexpr std::uint64_t value = 18446744073709551ULL;
};
template <>
struct ExpectedMax<MB> {
    static constexpr std::uint64_t value = 18446744073709ULL;
};
template <>
struct ExpectedMax<GB> {
    static constexpr std::uint64_t value = 18446744073ULL;
};
template <>
struct ExpectedMax<TB> {
    static constexpr std::uint64_t value = 18446744ULL;
};
template <>
struct ExpectedMax<KiB> {
    static constexpr std::uint64_t value = (1ULL << 54) - 1;
};
template <>
struct ExpectedMax<MiB> {
    static constexpr std::uint64_t value = (1ULL << 44) - 1;
};
template <>
struct ExpectedMax<GiB> {
    static constexpr std::uint64_t value = (1ULL << 34) - 1;
};
template <>
struct ExpectedMax<TiB> {
    static constexpr std::uint64_t value = (1ULL << 24) - 1;
};
template <>
struct ExpectedMax<Pages16KiB> {
    static constexpr std::uint64_t value = (1ULL << 50) - 1;
};
template <>
struct ExpectedMax<Pages4KiB> {
    static constexpr std::uint64_t value = (1ULL << 52) - 1;
};

template <class Q>
class EveryQuantity : public ::testing::Test {};

using AllQuantities =
    ::testing::Types<Bytes, KB, MB, GB, TB, KiB, MiB, GiB, TiB, Pages16KiB, Pages4KiB>;
TYPED_TEST_SUITE(EveryQuantity, AllQuantities);

TYPED_TEST(EveryQuantity, MaxCountIsTheLargestCountWhoseBytesFit) {
    using Q = TypeParam;
    EXPECT_EQ(Q::max_count, ExpectedMax<Q>::value);
    EXPECT_EQ(Q::max().count(), Q::max_count);
    EXPECT_EQ(Q::max().bytes() / Q::unit::bytes, Q::max_count);
    EXPECT_GT(Q::max().bytes(), kU64Max - Q::unit::bytes);
}

TYPED_TEST(EveryQuantity, FromCountAcceptsUpToMaxCount) {
    using Q = TypeParam;
    ASSERT_TRUE(Q::from_count(Q::max_count).has_value());
    EXPECT_EQ(Q::from_count(Q::max_count)->count(), Q::max_count);
    EXPECT_EQ(Q::from_count(0), Q::zero());
    EXPECT_EQ(Q::from_count_or_throw(Q::max_count), Q::max());
}

TYPED_TEST(EveryQuantity, FromCountRefusesAboveMaxCount) {
    using Q = TypeParam;
    if constexpr (Q::max_count < kU64Max) {
        EXPECT_EQ(Q::from_count(Q::max_count + 1), std::nullopt);
        EXPECT_EQ(Q::from_count(kU64Max), std::nullopt);
        EXPECT_THROW((void)Q::from_count_or_throw(Q::max_count + 1), OverflowError);
    } else {
        EXPECT_EQ(Q::from_count(kU64Max), Q::max());
    }
}

TYPED_TEST(EveryQuantity, AdditionAndSubtractionThrowAtTheEdges) {
    using Q = TypeParam;
    const Q one = *Q::from_count(1);
    EXPECT_THROW((void)(Q::max() + one), OverflowError);
    EXPECT_THROW((void)(one + Q::max()), OverflowError);
    EXPECT_THROW((void)(Q::max() + Q::max()), OverflowError);
    EXPECT_THROW((void)(Q::zero() - one), OverflowError);
    EXPECT_THROW((void)(one - Q::max()), OverflowError);
    EXPECT_EQ(*Q::from_count(Q::max_count - 1) + one, Q::max());
    EXPECT_EQ(Q::max() + Q::zero(), Q::max());
    EXPECT_EQ(Q::max() - Q::max(), Q::zero());
    EXPECT_EQ(one - one, Q::zero());
}

TYPED_TEST(EveryQuantity, CheckedArithmeticReturnsNulloptAtTheEdges) {
    using Q = TypeParam;
    const Q one = *Q::from_count(1);
    EXPECT_EQ(checked_add(Q::max(), one), std::nullopt);
    EXPECT_EQ(checked_add(*Q::from_count(Q::max_count - 1), one), Q::max());
    EXPECT_EQ(checked_sub(Q::zero(), one), std::nullopt);
    EXPECT_EQ(checked_sub(one, one), Q::zero());
}

TEST(QuantityArithmetic, OperatorsOnLiterals) {
    EXPECT_EQ(232_GiB + 4_GiB, 236_GiB);
    EXPECT_EQ(232_GiB - 4096_MiB, 233472_MiB);
    EXPECT_EQ(1_GB + 1_MB, 1001_MB);
    EXPECT_THROW((void)(0_MiB - 1_MiB), OverflowError);
    EXPECT_THROW((void)(MiB::max() + 1_MiB), OverflowError);
    EXPECT_THROW((void)(MiB::max() + 1_GiB), OverflowError);
}

TEST(QuantityArithmetic, OverflowErrorIsAStdOverflowError) {
    EXPECT_THROW((void)(0_B - 1_B), std::overflow_error);
    EXPECT_THROW((void)(TiB::max() + 1_TiB), std::overflow_error);
}

TEST(QuantityComparison, AcrossExactlyConvertibleTypes) {
    EXPECT_TRUE(1_GiB == 1024_MiB);
    EXPECT_TRUE(1024_MiB == 1_GiB);
    EXPECT_FALSE(1_GiB == 1023_MiB);
    EXPECT_TRUE(1_GiB != 1025_MiB);
    EXPECT_TRUE(1_GiB > 1023_MiB);
    EXPECT_TRUE(1_GiB < 1025_MiB);
    EXPECT_TRUE(1023_MiB < 1_GiB);
    EXPECT_TRUE(1_GiB >= 1024_MiB);
    EXPECT_TRUE(1_GB == 1000_MB);
    EXPECT_TRUE(1_MB == 1000000_B);
    EXPECT_TRUE(1_MiB == 1048576_B);
    EXPECT_TRUE(1_MiB > 1048575_B);
    EXPECT_TRUE(*Pages16KiB::from_count(1) == 16_KiB);
    EXPECT_TRUE((1_GiB <=> 1024_MiB) == std::strong_ordering::equal);
    EXPECT_TRUE((1_GiB <=> 1025_MiB) == std::strong_ordering::less);
}

}  // namespace
