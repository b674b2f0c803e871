#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"

using namespace wiredcap::units;

namespace {

constexpr int kValuesPerType = 20000;
// parse_size reads at most 38 digits: integer digits plus fraction digits up to the last non-zero one.
constexpr std::size_t kParserDigitLimit = 38;

// Spread over every magnitude: a random bit length, then a random value of that length.
std::uint64_t random_count(std::mt19937_64& rng, std::uint64_t max_count) {
    const auto width = static_cast<int>(std::bit_width(max_count));
    const int bits = std::uniform_int_distribution<int>(0, width)(rng);
    std::uint64_t v = bits == 0 ? 0 : rng() >> (64 - bits);
    while (v > max_count) v >>= 1;
    return v;
}

template <class Q>
std::vector<Q> sample(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Q> out{Q::zero(), *Q::from_count(1), *Q::from_count(Q::max_count - 1), Q::max()};
    for (int i = 0; i < kValuesPerType; ++i)
        out.push_back(*Q::from_count(random_count(rng, Q::max_count)));
    return out;
}

template <class Q>
class RoundTrip : public ::testing::Test {};

using WrittenQuantities = ::testing::Types<Bytes, KB, MB, GB, TB, KiB, MiB, GiB, TiB>;
TYPED_TEST_SUITE(RoundTrip, WrittenQuantities);

TYPED_TEST(RoundTrip, ToStringParsesBackToTheSameValue) {
    using Q = TypeParam;
    for (const Q& q : sample<Q>(0x5eed0001)) {
        const std::string text = to_string(q);
        const auto back = parse_size_as<Q>(text);
        ASSERT_TRUE(back.has_value()) << text << ": " << back.error().message;
        ASSERT_EQ(back->count(), q.count()) << text;
    }
}

TYPED_TEST(RoundTrip, CountAndSymbolWithoutSpaceParsesBack) {
    using Q = TypeParam;
    for (const Q& q : sample<Q>(0x5eed0002)) {
        const std::string text = std::to_string(q.count()) + std::string(Q::unit::symbol);
        const auto back = parse_size(text);
        ASSERT_TRUE(back.has_value()) << text << ": " << back.error().message;
        ASSERT_EQ(back->bytes.count(), q.bytes()) << text;
        ASSERT_EQ(info(back->unit).symbol, Q::unit::symbol) << text;
    }
}

TEST(RoundTripDescribe, LeadingMiBParsesBackAndGBFigureIsCutNeverAbove) {
    for (const MiB& m : sample<MiB>(0x5eed0003)) {
        const std::string text = describe(m);
        const auto open = text.find(" (");
        ASSERT_NE(open, std::string::npos) << text;
        const auto back = parse_size_as<MiB>(text.substr(0, open));
        ASSERT_TRUE(back.has_value()) << text << ": " << back.error().message;
        ASSERT_EQ(*back, m) << text;

        if (m.bytes() > std::numeric_limits<std::uint64_t>::max() - 5000000) continue;
        const auto comma = text.find(", ");
        const auto gb_end = text.rfind(" GB)");
        ASSERT_NE(comma, std::string::npos) << text;
        ASSERT_NE(gb_end, std::string::npos) << text;
        const auto gb = parse_size(text.substr(comma + 2, gb_end - comma - 2) + "GB");
        ASSERT_TRUE(gb.has_value()) << text << ": " << gb.error().message;
        const std::uint64_t exact = m.bytes();
        const std::uint64_t shown = gb->bytes.count();
        ASSERT_LE(shown, exact) << text;  // cut, never rounded up
        ASSERT_LT(exact - shown, 10000000U) << text;
    }
}

std::size_t digits_written(const std::string& decimal) {
    std::size_t n = 0;
    for (const char c : decimal) n += (c >= '0' && c <= '9') ? 1 : 0;
    return n;
}

TEST(RoundTripExactDecimal, ParsesBackToTheSameBytesWithinTheParserDigitLimit) {
    std::size_t checked = 0;
    std::vector<std::string> failures;
    for (const Bytes& b : sample<Bytes>(0x5eed0004)) {
        for (const auto& u : kSizeUnits) {
            const std::string decimal = exact_decimal(b, u.unit);
            if (digits_written(decimal) > kParserDigitLimit) continue;
            const std::string text = decimal + std::string(u.symbol);
            const auto back = parse_size(text);
            ++checked;
            if (!back) failures.push_back(back.error().message);
            else if (back->bytes != b)
                failures.push_back(text + " parsed as " + std::to_string(back->bytes.count()) +
                                   " B");
        }
    }
    EXPECT_GT(checked, 7U * kValuesPerType);
    EXPECT_EQ(failures.size(), 0U)
        << "of " << checked << "; first: " << (failures.empty() ? "" : failures.front());
}

TEST(RoundTripExactDecimal, WholeValuesPrintAsTheirCount) {
    for (const GiB& g : sample<GiB>(0x5eed0005)) {
        ASSERT_EQ(exact_decimal(g, SizeUnit::gibibytes), std::to_string(g.count()));
        ASSERT_EQ(exact_decimal(g, SizeUnit::mebibytes), std::to_string(g.count() * 1024));
    }
}

}  // namespace
