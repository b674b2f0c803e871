#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/parse.hpp"

using namespace wiredcap::units;
using namespace wiredcap::units::literals;

namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::string_view kUnitList = "B kB MB GB TB KiB MiB GiB TiB";

constexpr std::optional<SizeUnit> kAny{};
constexpr std::optional<SizeUnit> kBytes{SizeUnit::bytes};
constexpr std::optional<SizeUnit> kKB{SizeUnit::kilobytes};
constexpr std::optional<SizeUnit> kGB{SizeUnit::gigabytes};
constexpr std::optional<SizeUnit> kTB{SizeUnit::terabytes};
constexpr std::optional<SizeUnit> kKiB{SizeUnit::kibibytes};
constexpr std::optional<SizeUnit> kMiB{SizeUnit::mebibytes};
constexpr std::optional<SizeUnit> kGiB{SizeUnit::gibibytes};
constexpr std::optional<SizeUnit> kTiB{SizeUnit::tebibytes};

// target: the unit handed to parse_count_in, or kAny for parse_size (count then in bytes).
struct Row {
    std::string input;
    std::optional<SizeUnit> target;
    std::optional<std::uint64_t> count;
    std::vector<std::string> fragments;
};

void PrintTo(const Row& row, std::ostream* os) {
    *os << quote_input(row.input) << " as " << (row.target ? info(*row.target).symbol : "any");
}

Row ok(std::string input, std::optional<SizeUnit> target, std::uint64_t count) {
    return {std::move(input), target, count, {}};
}

Row refused(std::string input, std::optional<SizeUnit> target, std::vector<std::string> fragments) {
    return {std::move(input), target, std::nullopt, std::move(fragments)};
}

std::vector<Row> rows() {
    const std::string list(kUnitList);
    return {
        ok("0MiB", kMiB, 0),
        ok("0.0MiB", kMiB, 0),
        ok("0B", kAny, 0),
        ok("5MiB", kMiB, 5),
        ok("232GiB", kMiB, 237568),
        ok("237568MiB", kMiB, 237568),
        ok("232000MB", kAny, 232000000000),
        ok("232 GB", kAny, 232000000000),
        ok("232 GB", kGB, 232),
        ok("1.5GiB", kMiB, 1536),
        ok("1.5 GiB", kMiB, 1536),
        ok("0.5GiB", kMiB, 512),
        ok("1.50GiB", kMiB, 1536),
        ok("1.0GiB", kGiB, 1),
        ok("1.00000000000000000000000000000000000000000000000000MiB", kMiB, 1),
        ok("0.000001MB", kAny, 1),
        ok("0.001kB", kAny, 1),
        ok("0.5kB", kAny, 500),
        ok("1.048576MB", kMiB, 1),
        ok("0.0009765625MiB", kKiB, 1),
        ok("1B", kAny, 1),
        ok("1kB", kAny, 1000),
        ok("1KiB", kAny, 1024),
        ok("1MB", kAny, 1000000),
        ok("1MiB", kAny, 1048576),
        ok("1GB", kAny, 1000000000),
        ok("1GiB", kAny, 1073741824),
        ok("1TB", kAny, 1000000000000),
        ok("1TiB", kAny, 1099511627776),
        ok("2048MiB", kGiB, 2),
        ok("1000MB", kGB, 1),
        ok("128kB", kKiB, 125),
        ok("18446744073709551615B", kAny, kU64Max),
        ok("18446744073709551615 B", kBytes, kU64Max),
        ok("18446744073709551615.0B", kAny, kU64Max),
        ok("18446744073.709551615GB", kAny, kU64Max),
        ok("17592186044415MiB", kMiB, 17592186044415),
        ok("17179869183.9990234375GiB", kMiB, 17592186044415),
        ok("16777215TiB", kTiB, 16777215),
        ok("18446744TB", kTB, 18446744),
        ok("18446744073709551kB", kKB, 18446744073709551),
        ok("17592186044415.99999904632568359375MiB", kAny, kU64Max),
        ok("0.0000000000363797880709171295166015625TiB", kAny, 40),

        refused("232000", kMiB, {"no unit", "never guessed", "e.g. 232000MiB"}),
        refused("0", kMiB, {"no unit"}),
        refused("5", kAny, {"no unit", list}),
        refused("1.5", kAny, {"no unit", "e.g. 1.5MiB"}),
        refused("232000MB", kMiB,
                {"= 221252.44140625 MiB,", "not a whole number of MiB", "221252MiB and 221253MiB",
                 "a MB is 1000000 B, a MiB 1048576 B"}),
        refused("232000MB", kGiB,
                {"not a whole number of GiB", "216GiB and 217GiB", "a MB is 1000000 B"}),
        refused("16GB", kGiB,
                {"= 14.90", "14GiB and 15GiB", "a GB is 1000000000 B, a GiB 1073741824 B"}),
        refused("16GB", kMiB, {"15258MiB and 15259MiB", "a GB is 1000000000 B"}),
        refused("1kB", kKiB, {"0KiB and 1KiB", "a kB is 1000 B, a KiB 1024 B"}),
        // Exact up to 20 decimals; a longer expansion (1 B is 2^-40 TiB) is cut and marked.
        refused("1B", kTiB, {"= 0.00000000000090949470... TiB,", "0TiB and 1TiB"}),
        refused("1000TB", kTiB, {"909TiB and 910TiB"}),
        refused("1000GB", kTiB, {"0TiB and 1TiB"}),
        refused("1.5GB", kMiB, {"1430MiB and 1431MiB"}),
        refused("2.5MiB", kMiB, {"= 2.5 MiB", "2MiB and 3MiB"}),
        refused("1MiB", kGiB, {"not a whole number of GiB", "0GiB and 1GiB"}),
        refused("18446744073709551615B", kMiB, {"the nearest whole values are 17592186044415MiB"}),
        refused("0.3MiB", kAny, {"not a whole number of bytes", "314572.8 B"}),
        refused("0.3MiB", kMiB, {"not a whole number of bytes"}),
        refused("0.5B", kAny, {"not a whole number of bytes", "0.5 B"}),
        refused("18446744073709551615.5B", kAny, {"not a whole number of bytes"}),
        refused("1234567890.123456789012345678901234567GiB", kAny, {"not a whole number of bytes"}),
        refused("232  GB", kAny, {"one space"}),
        refused("232\tGB", kAny, {"control characters"}),
        refused("232 \tGB", kAny, {"control characters"}),
        refused("5\nMiB", kMiB, {"control characters"}),
        refused("K", kAny, {"digits then a unit", list}),
        refused("M", kAny, {"digits then a unit", list}),
        refused("G", kAny, {"digits then a unit", list}),
        refused("MiB", kMiB, {"digits then a unit", list}),
        refused("default", kMiB, {"digits then a unit"}),
        refused("5K", kAny, {"unknown unit 'K'", list, "did you mean kB or KiB?"}),
        refused("5M", kAny, {"unknown unit 'M'", list, "did you mean MB or MiB?"}),
        refused("5G", kAny, {"unknown unit 'G'", list, "did you mean GB or GiB?"}),
        refused("5T", kAny, {"unknown unit 'T'", list, "did you mean TB or TiB?"}),
        refused("5mb", kMiB, {"unknown unit 'mb'", list, "did you mean MB or MiB?"}),
        refused("5Mb", kMiB, {"unknown unit 'Mb'", list, "did you mean MB or MiB?"}),
        refused("5mB", kMiB, {"unknown unit 'mB'", list, "did you mean MB or MiB?"}),
        refused("5KB", kAny, {"unknown unit 'KB'", list, "did you mean kB or KiB?"}),
        refused("5kb", kAny, {"unknown unit 'kb'", list, "did you mean kB or KiB?"}),
        refused("5Kb", kAny, {"unknown unit 'Kb'", list, "did you mean kB or KiB?"}),
        refused("5kib", kAny, {"unknown unit 'kib'", list, "did you mean kB or KiB?"}),
        refused("5mib", kMiB, {"unknown unit 'mib'", list, "did you mean MB or MiB?"}),
        refused("5MIB", kMiB, {"unknown unit 'MIB'", list, "did you mean MB or MiB?"}),
        refused("5gib", kMiB, {"unknown unit 'gib'", list, "did you mean GB or GiB?"}),
        refused("5GIB", kMiB, {"unknown unit 'GIB'", list, "did you mean GB or GiB?"}),
        refused("5gb", kAny, {"unknown unit 'gb'", list, "did you mean GB or GiB?"}),
        refused("5tb", kAny, {"unknown unit 'tb'", list, "did you mean TB or TiB?"}),
        refused("5 mb", kAny, {"unknown unit 'mb'", "did you mean MB or MiB?"}),
        refused("5b", kAny, {"unknown unit 'b'", list}),
        refused("5bytes", kAny, {"unknown unit 'bytes'", list}),
        refused("5EiB", kAny, {"unknown unit 'EiB'", list}),
        refused("5PB", kAny, {"unknown unit 'PB'", list}),
        refused("5MiBx", kMiB, {"unknown unit 'MiBx'"}),
        refused("5MiB ", kMiB, {"whitespace"}),
        refused("5MiB\t", kMiB, {"control characters"}),
        refused(" 5MiB", kMiB, {"whitespace"}),
        refused("5MiB\n", kMiB, {"control characters"}),
        refused("\t", kAny, {"control characters"}),
        refused("-1GiB", kMiB, {"no sign"}),
        refused("+1GiB", kMiB, {"no sign"}),
        refused("-0MiB", kMiB, {"no sign"}),
        refused("0x10MiB", kMiB, {"hexadecimal"}),
        refused("0X10MiB", kMiB, {"hexadecimal"}),
        refused("010GiB", kMiB, {"leading zeros"}),
        refused("00MiB", kMiB, {"leading zeros"}),
        refused("00.5GiB", kMiB, {"leading zeros"}),
        refused("1e3MiB", kMiB, {"exponent"}),
        refused("1E3MiB", kMiB, {"exponent"}),
        refused("1e+3MiB", kMiB, {"exponent"}),
        refused("1e-3GiB", kMiB, {"exponent"}),
        refused("1.5e3MiB", kMiB, {"exponent"}),
        refused("1,000MiB", kMiB, {"separators"}),
        refused("1_000MiB", kMiB, {"separators"}),
        refused("1'000MiB", kMiB, {"separators"}),
        refused("\u0663MiB", kMiB, {"non-ASCII"}),
        refused("\uff15MiB", kMiB, {"non-ASCII"}),
        refused("5\u00a0MiB", kMiB, {"non-ASCII"}),
        refused("5\u00b5B", kAny, {"non-ASCII"}),
        refused(std::string(100000, '9') + "MiB", kMiB, {"too large"}),
        refused("18446744073709551616B", kAny, {"too large"}),
        refused("18446744073709551616.0B", kAny, {"too large"}),
        refused("99999999999999999999999TiB", kAny, {"too large"}),
        refused("17592186044416MiB", kMiB, {"too large"}),
        refused("16777216TiB", kTiB, {"too large"}),
        refused("18446745TB", kAny, {"too large"}),
        refused(".5GiB", kMiB, {"decimal point"}),
        refused("1.GiB", kMiB, {"decimal point"}),
        refused("1.2.3MiB", kMiB, {"decimal point"}),
        refused("1..5GiB", kMiB, {"decimal point"}),
        refused("", kMiB, {"empty size"}),
        refused("", kAny, {"empty size"}),
        refused("5\x01MiB", kMiB, {"control characters"}),
        refused("5MiB\x7f", kMiB, {"control characters"}),
        refused(std::string("5\0MiB", 5), kMiB, {"control characters"}),
        refused("\x1b[31m5MiB", kMiB, {"control characters"}),
    };
}

std::string list_of_units() { return std::string(kUnitList); }

wiredcap::Expected<std::uint64_t> parse_row(const Row& row) {
    if (row.target) return parse_count_in(row.input, *row.target);
    auto parsed = parse_size(row.input);
    if (!parsed) return parsed.error();
    return parsed->bytes.count();
}

class ParseTable : public ::testing::TestWithParam<Row> {};

TEST_P(ParseTable, Row) {
    const Row& row = GetParam();
    const auto got = parse_row(row);

    if (row.count) {
        ASSERT_TRUE(got.has_value()) << got.error().message;
        EXPECT_EQ(*got, *row.count);
        if (row.target) {
            auto parsed = parse_size(row.input);
            ASSERT_TRUE(parsed.has_value());
            EXPECT_EQ(parsed->bytes.count(), *row.count * info(*row.target).bytes);
        }
        return;
    }

    ASSERT_FALSE(got.has_value()) << "accepted as " << *got;
    ASSERT_FALSE(row.fragments.empty());
    const std::string& message = got.error().message;
    for (const auto& fragment : row.fragments)
        EXPECT_NE(message.find(fragment), std::string::npos)
            << "missing '" << fragment << "' in: " << message;
    EXPECT_EQ(message.rfind(quote_input(row.input), 0), 0U) << message;
    // Every refusal shows what would be accepted: the units and an example, or (for a value
    // that is not whole in the target unit) the nearest whole values written as sizes.
    const bool forms = message.find(list_of_units()) != std::string::npos &&
                       message.find("e.g. ") != std::string::npos;
    EXPECT_TRUE(forms || message.find("the nearest whole values are") != std::string::npos)
        << "names no accepted form with an example: " << message;
    for (const char c : message) {
        const auto u = static_cast<unsigned char>(c);
        EXPECT_TRUE(u >= 0x20 && u != 0x7f) << "raw control byte in: " << quote_input(message);
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ParseTable, ::testing::ValuesIn(rows()));

TEST(ParseTableSize, HasAtLeastSeventyRows) { EXPECT_GE(rows().size(), 70U); }

TEST(ParseSize, ReportsTheWrittenUnitAndFraction) {
    const auto a = parse_size("1.50GiB");
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->unit, SizeUnit::gibibytes);
    EXPECT_TRUE(a->had_fraction);
    EXPECT_EQ(a->bytes, 1536_MiB);

    const auto b = parse_size("232 GB");
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(b->unit, SizeUnit::gigabytes);
    EXPECT_FALSE(b->had_fraction);
    EXPECT_EQ(b->bytes, 232_GB);
}

TEST(ParseSize, EveryWrittenUnitIsAccepted) {
    for (const auto& u : kSizeUnits) {
        SCOPED_TRACE(u.symbol);
        const auto p = parse_size("3" + std::string(u.symbol));
        ASSERT_TRUE(p.has_value()) << p.error().message;
        EXPECT_EQ(p->unit, u.unit);
        EXPECT_EQ(p->bytes.count(), 3 * u.bytes);
    }
}

TEST(ParseSizeAs, ReturnsTheTypedQuantity) {
    EXPECT_EQ(parse_size_as<MiB>("232GiB").value(), 237568_MiB);
    EXPECT_EQ(parse_size_as<GiB>("237568MiB").value(), 232_GiB);
    EXPECT_EQ(parse_size_as<Bytes>("1.5kB").value(), 1500_B);
    EXPECT_EQ(parse_size_as<KB>("5MB").value(), 5000_kB);
    EXPECT_EQ(parse_size_as<TiB>("16777215TiB").value(), TiB::max());
    EXPECT_EQ(parse_size_as<MiB>("17592186044415MiB").value(), MiB::max());
}

TEST(ParseSizeAs, RefusesInexactValues) {
    const auto r = parse_size_as<MiB>("232000MB");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().message.find("did you mean"), std::string::npos);  // no same-digits guess
    EXPECT_FALSE(parse_size_as<GiB>("1MiB").has_value());
    EXPECT_THROW((void)parse_size_as<GiB>("1MiB").value(), std::logic_error);
}

TEST(ParseCountIn, NearestValuesNeverExceedTheLargestSize) {
    const auto r = parse_count_in("18446744073709551615B", SizeUnit::mebibytes);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().message.find("17592186044416"), std::string::npos) << r.error().message;
}

TEST(ParseSize, ErrorMessagesStayShortForHugeInput) {
    const std::string digits(100000, '1');
    for (const std::string& input :
         {digits, digits + "MiB", digits + ".5", "1." + digits, "1." + digits + "MiB",
          digits + "mb", digits + " ", std::string(100000, 'x')}) {
        SCOPED_TRACE(quote_input(input));
        const auto r = parse_size(input);
        ASSERT_FALSE(r.has_value());
        EXPECT_LT(r.error().message.size(), 512U) << r.error().message.substr(0, 200);
    }
}

TEST(QuoteInput, PrintableAsciiIsQuotedAsIs) {
    EXPECT_EQ(quote_input("232GiB"), "'232GiB'");
    EXPECT_EQ(quote_input(""), "''");
    EXPECT_EQ(quote_input("a b~"), "'a b~'");
}

TEST(QuoteInput, EscapesBackslashAndQuote) {
    EXPECT_EQ(quote_input("a\\b"), R"('a\\b')");
    EXPECT_EQ(quote_input("it's"), R"('it\'s')");
}

TEST(QuoteInput, EscapesControlCharactersAsHex) {
    EXPECT_EQ(quote_input("5\x01MiB\n"), R"('5\x01MiB\x0a')");
    EXPECT_EQ(quote_input("\t\r\x7f"), R"('\x09\x0d\x7f')");
    EXPECT_EQ(quote_input(std::string("a\0b", 3)), R"('a\x00b')");
    EXPECT_EQ(quote_input("\x1b[2J"), R"('\x1b[2J')");
}

TEST(QuoteInput, EscapesNonAsciiBytes) {
    EXPECT_EQ(quote_input("\u0663MiB"), R"('\xd9\xa3MiB')");
    EXPECT_EQ(quote_input("\xff"), R"('\xff')");
}

TEST(QuoteInput, ShortensInputLongerThan48Bytes) {
    const std::string a48(48, 'a');
    EXPECT_EQ(quote_input(a48), "'" + a48 + "'");
    EXPECT_EQ(quote_input(a48 + "b"), "'" + a48 + "'... (49 bytes)");
    EXPECT_EQ(quote_input(std::string(100000, 'a')), "'" + a48 + "'... (100000 bytes)");
}

TEST(QuoteInput, ShortensByInputBytesNotOutputLength) {
    std::string escaped;
    for (int i = 0; i < 48; ++i) escaped += R"(\x01)";
    EXPECT_EQ(quote_input(std::string(60, '\x01')), "'" + escaped + "'... (60 bytes)");
}

}  // namespace
