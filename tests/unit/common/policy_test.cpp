// The policy file parser and validator, the built-in band, and refusal() (docs/design.md section 5).
#include "wiredcap/policy/policy.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "wiredcap/policy/sha256.hpp"
#include "../temp_tree.hpp"

namespace wiredcap::policy {
namespace {

using namespace units::literals;
using test::error_of;
using units::MiB;

// A 256 GiB machine: physical memory minus a 16 GiB reserve leaves 240 GiB.
constexpr units::Bytes kRam256 = 256_GiB;

constexpr std::string_view kValid =
    "# wiredcap policy\n"
    "min = 96GiB\n"
    "max = 232GiB\n"
    "reserve = 16GiB\n"
    "max_step = 16GiB\n";

// kValid with one key's line replaced (or removed when `line` is empty).
std::string with_line(std::string_view key, std::string_view line) {
    std::string out;
    std::string_view text = kValid;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        const std::string_view l =
            text.substr(0, nl == std::string_view::npos ? text.size() : nl + 1);
        text.remove_prefix(l.size());
        if (l.substr(0, key.size() + 1) == std::string(key) + " ") {
            if (!line.empty()) out += std::string(line) + "\n";
        } else {
            out += l;
        }
    }
    return out;
}

// --- valid files ---------------------------------------------------------------------------

TEST(PolicyParse, ValidFileWithoutGroup) {
    auto p = parse(kValid, kRam256);
    ASSERT_TRUE(p) << error_of(p);
    EXPECT_EQ(p->min, 96_GiB);
    EXPECT_EQ(p->max, 232_GiB);
    EXPECT_EQ(p->reserve, 16_GiB);
    EXPECT_EQ(p->max_step, 16_GiB);
    EXPECT_FALSE(p->group.has_value());
    EXPECT_EQ(p->source, Source::file);
    EXPECT_TRUE(p->warnings.empty());
}

TEST(PolicyParse, HealthyAfterDefaultsToTenMinutes) {
    auto p = parse(kValid, kRam256);
    ASSERT_TRUE(p) << error_of(p);
    EXPECT_EQ(p->healthy_after, std::chrono::seconds(600));
    auto b = builtin(kRam256);
    ASSERT_TRUE(b) << error_of(b);
    EXPECT_EQ(b->healthy_after, std::chrono::seconds(600));
}

TEST(PolicyParse, HealthyAfterTakesADurationWithItsUnit) {
    for (const auto& [text, seconds] :
         {std::pair{"60s", 60}, std::pair{"30m", 1800}, std::pair{"1440m", 86400}}) {
        auto p = parse(std::string(kValid) + "healthy_after = " + text + "\n", kRam256);
        ASSERT_TRUE(p) << text << ": " << error_of(p);
        EXPECT_EQ(p->healthy_after, std::chrono::seconds(seconds)) << text;
    }
}

TEST(PolicyParse, HealthyAfterBadValuesAreRefusedWithTheLine) {
    const std::pair<const char*, const char*> cases[] = {
        {"600", "the unit must be s or m"},
        {"10h", "the unit must be s or m"},
        {"59s", "at least 60s"},
        {"0m", "at least 1s"},
        {"1441m", "at most 24 hours"},
        {"-5m", "a duration is digits and a unit"},
        {"10 m", "the unit must be s or m"},
        {"010m", "write the number plainly"},
    };
    for (const auto& [value, fragment] : cases) {
        auto p = parse(std::string(kValid) + "healthy_after = " + value + "\n", kRam256);
        ASSERT_FALSE(p) << value;
        EXPECT_CONTAINS(p.error().message, "line 6: healthy_after") << value;
        EXPECT_CONTAINS(p.error().message, fragment) << value;
    }
    auto twice = parse(std::string(kValid) + "healthy_after = 10m\nhealthy_after = 20m\n", kRam256);
    ASSERT_FALSE(twice);
    EXPECT_CONTAINS(twice.error().message, "duplicate key 'healthy_after'");
}

TEST(PolicyParse, ValidFileWithGroup) {
    auto p = parse(std::string(kValid) + "group = admin\n", kRam256);
    ASSERT_TRUE(p) << error_of(p);
    ASSERT_TRUE(p->group.has_value());
    EXPECT_EQ(*p->group, "admin");
}

TEST(PolicyParse, CommentsBlankLinesAndSpacing) {
    const std::string text =
        "# a comment\n"
        "\n"
        "   # an indented comment\n"
        "min=98304MiB\n"
        "   \t\n"
        "max   =   232 GiB   \n"
        "\treserve\t=\t16384MiB\n"
        "max_step = 8GiB";  // no final newline
    auto p = parse(text, kRam256);
    ASSERT_TRUE(p) << error_of(p);
    EXPECT_EQ(p->min, 96_GiB);
    EXPECT_EQ(p->max, 232_GiB);
    EXPECT_EQ(p->reserve, 16_GiB);
    EXPECT_EQ(p->max_step, 8_GiB);
}

TEST(PolicyParse, ExactBoundariesAccepted) {
    // reserve exactly at the floor, max exactly at RAM - reserve: both allowed.
    auto q = parse("min = 32GiB\nmax = 60GiB\nreserve = 4GiB\nmax_step = 1MiB\n", 64_GiB);
    ASSERT_TRUE(q) << error_of(q);
    EXPECT_EQ(q->max, 60_GiB);
    EXPECT_EQ(q->reserve, kReserveFloor);
}

TEST(PolicyParse, LineOfExactly1024CharactersAccepted) {
    const std::string comment = "#" + std::string(1023, 'x');
    auto p = parse(comment + "\n" + std::string(kValid), kRam256);
    EXPECT_TRUE(p) << error_of(p);
}

// --- refusals ------------------------------------------------------------------------------

class PolicyMissingKey : public ::testing::TestWithParam<const char*> {};

TEST_P(PolicyMissingKey, IsRefusedNamingTheKey) {
    const std::string key = GetParam();
    auto p = parse(with_line(key, ""), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "missing key '" + key + "'");
}
INSTANTIATE_TEST_SUITE_P(Required, PolicyMissingKey,
                         ::testing::Values("min", "max", "reserve", "max_step"));

TEST(PolicyParse, EmptyTextIsMissingKeys) {
    auto p = parse("", kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "missing key");
}

TEST(PolicyParse, DuplicateKeyNamesBothLines) {
    auto p = parse(std::string(kValid) + "min = 100GiB\n", kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "line 6");
    EXPECT_CONTAINS(error_of(p), "duplicate key 'min'");
    EXPECT_CONTAINS(error_of(p), "line 2");
}

TEST(PolicyParse, DuplicateKeyWithSameValueIsStillRefused) {
    auto p = parse(std::string(kValid) + "max = 232GiB\n", kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "duplicate key 'max'");
}

TEST(PolicyParse, UnknownKey) {
    auto p = parse(std::string(kValid) + "maximum = 232GiB\n", kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "line 6");
    EXPECT_CONTAINS(error_of(p), "unknown key 'maximum'");
}

TEST(PolicyParse, KeysAreCaseSensitive) {
    auto p = parse(with_line("max", "MAX = 232GiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "unknown key 'MAX'");
}

TEST(PolicyParse, BareNumberIsRefused) {
    auto p = parse(with_line("max", "max = 232000"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "line 3");
    EXPECT_CONTAINS(error_of(p), "max");
    EXPECT_CONTAINS(error_of(p), "no unit");
}

class PolicyBadUnit : public ::testing::TestWithParam<const char*> {};

TEST_P(PolicyBadUnit, IsRefusedListingAcceptedUnits) {
    auto p = parse(with_line("max", std::string("max = ") + GetParam()), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "line 3");
    EXPECT_CONTAINS(error_of(p), "unknown unit");
    EXPECT_CONTAINS(error_of(p), "B kB MB GB TB KiB MiB GiB TiB");
}
INSTANTIATE_TEST_SUITE_P(Spellings, PolicyBadUnit,
                         ::testing::Values("232gib", "232Gib", "232G", "232GIB", "237568mb",
                                           "237568M", "237568Mb"));

// No suggestion turns the decimal figure into the same digits in a binary unit
// (232000MiB is the GB x 1000 slip the policy warns about); the exact neighbours are given.
TEST(PolicyParse, DecimalMegabytesNotWholeMiBGivesTheExactNeighboursOnly) {
    auto p = parse(with_line("max", "max = 232000MB"), kRam256);
    ASSERT_FALSE(p);
    const std::string e = error_of(p);
    EXPECT_CONTAINS(e, "line 3");
    EXPECT_CONTAINS(e, "not a whole number of MiB");
    EXPECT_CONTAINS(e, "221252MiB and 221253MiB");
    EXPECT_EQ(e.find("232000MiB"), std::string::npos) << e;
    EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
}

TEST(PolicyParse, TwoSpacesInsideSizeAreRefused) {
    auto p = parse(with_line("max", "max = 232  GiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "at most one space");
}

TEST(PolicyParse, EmptyValue) {
    for (const char* line : {"max =", "max =   ", "max=\t"}) {
        auto p = parse(with_line("max", line), kRam256);
        ASSERT_FALSE(p) << line;
        EXPECT_CONTAINS(error_of(p), "max has no value") << line;
    }
}

TEST(PolicyParse, LineWithoutEquals) {
    auto p = parse(with_line("max", "max 232GiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "line 3");
    EXPECT_CONTAINS(error_of(p), "expected 'key = value'");
}

TEST(PolicyParse, MinEqualToMaxIsRefused) {
    auto p = parse(with_line("min", "min = 232GiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "must be below max");
}

TEST(PolicyParse, MinAboveMaxIsRefused) {
    auto p = parse(with_line("min", "min = 233GiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "must be below max");
}

TEST(PolicyParse, MinZeroIsRefused) {
    auto p = parse(with_line("min", "min = 0MiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "min must be above 0 MiB");
}

TEST(PolicyParse, ReserveBelowFloorIsRefused) {
    auto p = parse(with_line("reserve", "reserve = 4095MiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "reserve (4095 MiB");
    EXPECT_CONTAINS(error_of(p), "below the floor of 4096 MiB");
}

TEST(PolicyParse, MaxAboveMemoryMinusReserveIsRefused) {
    // 256 GiB - 16 GiB = 240 GiB: exactly 240 GiB is allowed, one MiB more is not.
    auto ok = parse(with_line("max", "max = 240GiB"), kRam256);
    EXPECT_TRUE(ok) << error_of(ok);
    auto p = parse(with_line("max", "max = 245761MiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "max (245761 MiB");
    EXPECT_CONTAINS(error_of(p), "above physical memory");
}

TEST(PolicyParse, ReserveLargerThanMemoryIsRefused) {
    auto p = parse("min = 1GiB\nmax = 2GiB\nreserve = 32GiB\nmax_step = 1GiB\n", 16_GiB);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "above physical memory");
}

TEST(PolicyParse, MaxStepZeroIsRefused) {
    auto p = parse(with_line("max_step", "max_step = 0GiB"), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "max_step must be above 0 MiB");
}

class PolicyBadGroup : public ::testing::TestWithParam<const char*> {};

TEST_P(PolicyBadGroup, IsRefused) {
    auto p = parse(std::string(kValid) + "group = " + GetParam() + "\n", kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "line 6");
    EXPECT_CONTAINS(error_of(p), "is not a valid group name");
}
INSTANTIATE_TEST_SUITE_P(Names, PolicyBadGroup,
                         ::testing::Values("1admin", "-admin", "ad min", "admin;rm", "../etc",
                                           "a/b", "%admin",
                                           "abcdefghijabcdefghijabcdefghijabc"));  // 33 characters

TEST(PolicyParse, GroupNameOf32CharactersAccepted) {
    const std::string name = "_a-b.c" + std::string(26, 'x');
    auto p = parse(std::string(kValid) + "group = " + name + "\n", kRam256);
    ASSERT_TRUE(p) << error_of(p);
    EXPECT_EQ(p->group, name);
}

// --- characters ----------------------------------------------------------------------------

struct BadText {
    const char* name;
    std::string text;
    const char* fragment;
};

void PrintTo(const BadText& t, std::ostream* os) { *os << t.name; }

class PolicyBadCharacters : public ::testing::TestWithParam<BadText> {};

TEST_P(PolicyBadCharacters, AreRefusedWithTheLineNumber) {
    auto p = parse(GetParam().text, kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "line 2");
    EXPECT_CONTAINS(error_of(p), GetParam().fragment);
}

std::string valid_with_second_line(const std::string& second) {
    return "min = 96GiB\n" + second + "\nmax = 232GiB\nreserve = 16GiB\nmax_step = 16GiB\n";
}

INSTANTIATE_TEST_SUITE_P(
    Characters, PolicyBadCharacters,
    ::testing::Values(
        BadText{"CrLf", "min = 96GiB\nmax = 232GiB\r\nreserve = 16GiB\nmax_step = 16GiB\n",
                "carriage return"},
        BadText{"Nul", valid_with_second_line(std::string("# nul \0 here", 12)), "NUL byte"},
        BadText{"NonAscii", valid_with_second_line("group = adm\xc3\xadn"), "non-ASCII byte"},
        BadText{"NonAsciiInComment", valid_with_second_line("# caf\xc3\xa9"), "non-ASCII byte"},
        BadText{"Escape", valid_with_second_line("# \x1b[2J"), "control character"},
        BadText{"FormFeed", valid_with_second_line("\f"), "control character"},
        // DEL (0x7f) is a control character too (the size parser refuses it as one).
        BadText{"Del", valid_with_second_line("# \x7f"), "control character"},
        BadText{"LongLine", valid_with_second_line("#" + std::string(1024, 'x')),
                "longer than 1024 characters"}),
    [](const ::testing::TestParamInfo<BadText>& param) { return std::string(param.param.name); });

// A tab is allowed on a line (as spacing), so one inside an unknown key or a group name reaches
// the message; it must arrive escaped, like every other byte of the file. (Found by the
// policy_parser fuzz target: "x\tt=" gave "unknown key 'x<TAB>t'".)
bool has_control_byte(const std::string& s) {
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) return true;
    }
    return false;
}

TEST(PolicyParse, TabInsideUnknownKeyIsEscapedInTheMessage) {
    auto p = parse(std::string("x\tt="), kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "unknown key 'x\\x09t'");
    EXPECT_FALSE(has_control_byte(error_of(p))) << error_of(p);
}

TEST(PolicyParse, TabInsideGroupNameIsEscapedInTheMessage) {
    auto p = parse(std::string(kValid) + "group = ad\tmin\n", kRam256);
    ASSERT_FALSE(p);
    EXPECT_CONTAINS(error_of(p), "group 'ad\\x09min' is not a valid group name");
    EXPECT_FALSE(has_control_byte(error_of(p))) << error_of(p);
}

// --- the GB x 1000 slip --------------------------------------------------------------------

TEST(PolicyWarnings, RoundThousandOfMiBEarnsAWarning) {
    auto p = parse(with_line("max", "max = 232000MiB"), kRam256);
    ASSERT_TRUE(p) << error_of(p);
    ASSERT_EQ(p->warnings.size(), 1U);
    const std::string& w = p->warnings[0];
    EXPECT_CONTAINS(w, "max");
    EXPECT_CONTAINS(w, "226.56 GiB");
    EXPECT_CONTAINS(w, "232GiB (237568 MiB)");
}

TEST(PolicyWarnings, MinIsCheckedToo) {
    auto p = parse(with_line("min", "min = 96000MiB"), kRam256);
    ASSERT_TRUE(p) << error_of(p);
    ASSERT_EQ(p->warnings.size(), 1U);
    EXPECT_CONTAINS(p->warnings[0], "min");
    EXPECT_CONTAINS(p->warnings[0], "93.75 GiB");
    EXPECT_CONTAINS(p->warnings[0], "96GiB (98304 MiB)");
}

TEST(PolicyWarnings, WholeGiBValuesEarnNoWarning) {
    auto p = parse(with_line("max", "max = 237568MiB"), kRam256);
    ASSERT_TRUE(p) << error_of(p);
    EXPECT_TRUE(p->warnings.empty());

    // 1024000 MiB is a round thousand, but also exactly 1000 GiB: no slip.
    auto big = parse("min = 512GiB\nmax = 1024000MiB\nreserve = 16GiB\nmax_step = 64GiB\n", 1_TiB);
    ASSERT_TRUE(big) << error_of(big);
    EXPECT_TRUE(big->warnings.empty());
}

// --- the built-in band ---------------------------------------------------------------------

TEST(PolicyBuiltin, HalfOfRamUpToRamMinusReserve) {
    auto p = builtin(192_GiB);
    ASSERT_TRUE(p) << error_of(p);
    EXPECT_EQ(p->min, 96_GiB);
    EXPECT_EQ(p->max, 180_GiB);
    EXPECT_EQ(p->reserve, 12_GiB);  // RAM/16 above the 8 GiB floor
    EXPECT_EQ(p->max_step, kBuiltinMaxStep);
    EXPECT_FALSE(p->group.has_value());
    EXPECT_EQ(p->source, Source::builtin);
}

// docs/bands.md: one row per Apple Silicon memory size sold. Reserve max(8 GiB, RAM/16); none
// below 32 GiB. The 512 GB row stays below 488 GiB, the value reported to hang (oMLX #2184).
TEST(PolicyBuiltin, EveryMemorySizeSoldHasTheDocumentedBand) {
    struct Row {
        MiB ram, min, max, reserve;
    };
    for (const Row& r :
         {Row{32_GiB, 16_GiB, 24_GiB, 8_GiB}, Row{36_GiB, 18_GiB, 28_GiB, 8_GiB},
          Row{48_GiB, 24_GiB, 40_GiB, 8_GiB}, Row{64_GiB, 32_GiB, 56_GiB, 8_GiB},
          Row{96_GiB, 48_GiB, 88_GiB, 8_GiB}, Row{128_GiB, 64_GiB, 120_GiB, 8_GiB},
          Row{192_GiB, 96_GiB, 180_GiB, 12_GiB}, Row{256_GiB, 128_GiB, 240_GiB, 16_GiB},
          Row{512_GiB, 256_GiB, 480_GiB, 32_GiB}}) {
        auto p = builtin(r.ram);
        ASSERT_TRUE(p) << r.ram.count() << ": " << error_of(p);
        EXPECT_EQ(p->min, r.min) << r.ram.count();
        EXPECT_EQ(p->max, r.max) << r.ram.count();
        EXPECT_EQ(p->reserve, r.reserve) << r.ram.count();
    }
    EXPECT_LT(builtin(512_GiB)->max, 499712_MiB);
}

TEST(PolicyBuiltin, SmallMacsGetNoBandAndASentenceSayingWhyAndWhatToDo) {
    for (const MiB ram :
         {MiB(8_GiB), MiB(16_GiB), MiB(18_GiB), MiB(24_GiB), MiB(4_GiB), MiB(32_GiB) - 1_MiB}) {
        auto p = builtin(ram);
        ASSERT_FALSE(p) << ram.count();
        EXPECT_CONTAINS(error_of(p), "raising the cap is unsafe here");
        EXPECT_CONTAINS(error_of(p), "2/3 of memory");
        EXPECT_CONTAINS(error_of(p), "smaller model");
    }
}

TEST(PolicyBuiltin, ReserveGrowsWithMemoryInWholeGiB) {
    EXPECT_EQ(builtin_reserve(32_GiB), 8_GiB);
    EXPECT_EQ(builtin_reserve(128_GiB), 8_GiB);
    EXPECT_EQ(builtin_reserve(128_GiB + 16_MiB), 9_GiB);  // rounded up, never down
    EXPECT_EQ(builtin_reserve(512_GiB), 32_GiB);
}

// --- refusal() -----------------------------------------------------------------------------

class PolicyRefusal : public ::testing::Test {
protected:
    void SetUp() override {
        auto p = parse(kValid, kRam256);  // band 96..232 GiB, reserve 16 GiB, max_step 16 GiB
        ASSERT_TRUE(p) << error_of(p);
        policy_ = *std::move(p);
    }
    [[nodiscard]] std::optional<std::string> refuse(MiB current, MiB value) const {
        return refusal(*policy_, kRam256, current, value);
    }
    std::optional<Policy> policy_;
};

TEST_F(PolicyRefusal, InBandWithinStepIsAllowed) {
    EXPECT_EQ(refuse(96_GiB, 100_GiB), std::nullopt);
    EXPECT_EQ(refuse(100_GiB, 116_GiB), std::nullopt);  // exactly max_step
    EXPECT_EQ(refuse(224_GiB, 232_GiB), std::nullopt);  // exactly max
    EXPECT_EQ(refuse(96_GiB, 96_GiB), std::nullopt);    // exactly min, no change
}

TEST_F(PolicyRefusal, BelowMin) {
    auto r = refuse(100_GiB, 98303_MiB);
    ASSERT_TRUE(r.has_value());
    EXPECT_CONTAINS(*r, "outside the permitted band");
    EXPECT_CONTAINS(*r, "98304 MiB (96.00 GiB, 103.07 GB) to 237568 MiB (232.00 GiB, 249.10 GB)");
}

TEST_F(PolicyRefusal, AboveMax) {
    auto r = refuse(232_GiB, 237569_MiB);
    ASSERT_TRUE(r.has_value());
    EXPECT_CONTAINS(*r, "237569 MiB");
    EXPECT_CONTAINS(*r, "outside the permitted band");
}

TEST_F(PolicyRefusal, AboveMemoryMinusReserve) {
    // The same policy on a machine that reports less RAM than it was validated for:
    // 240 GiB - 16 GiB leaves 224 GiB, so 230 GiB (in band, within step) is refused.
    auto r = refusal(*policy_, 240_GiB, 224_GiB, 230_GiB);
    ASSERT_TRUE(r.has_value());
    EXPECT_CONTAINS(*r, "would leave the OS less than the reserve");
    EXPECT_EQ(refusal(*policy_, 240_GiB, 220_GiB, 224_GiB), std::nullopt);
}

TEST_F(PolicyRefusal, StepLargerThanMaxStep) {
    auto r = refuse(100_GiB, 116_GiB + 1_MiB);
    ASSERT_TRUE(r.has_value());
    EXPECT_CONTAINS(*r,
                    "raising from 102400 MiB (100.00 GiB, 107.37 GB) to 118785 MiB (116.00 GiB");
    EXPECT_CONTAINS(*r, "more than max_step 16384 MiB (16.00 GiB");
}

TEST_F(PolicyRefusal, StepFromOsDefaultIsMeasuredFromMin) {
    EXPECT_EQ(refuse(0_MiB, 112_GiB), std::nullopt);  // min + max_step
    auto r = refuse(0_MiB, 112_GiB + 1_MiB);
    ASSERT_TRUE(r.has_value());
    EXPECT_CONTAINS(*r, "raising from 98304 MiB");
    EXPECT_CONTAINS(*r, "more than max_step");
}

// From the OS default, wiredcap passes the effective cap it read (the helper
// cannot read Metal), and the step is measured from it; never from below min.
TEST_F(PolicyRefusal, StepFromOsDefaultIsMeasuredFromTheEffectiveCapGiven) {
    const auto with = [&](MiB effective, MiB value) {
        return refusal(*policy_, kRam256, 0_MiB, value, effective);
    };
    EXPECT_EQ(with(200_GiB, 216_GiB), std::nullopt);  // effective + max_step
    auto r = with(200_GiB, 216_GiB + 1_MiB);
    ASSERT_TRUE(r.has_value());
    EXPECT_CONTAINS(*r, "raising from 204800 MiB (200.00 GiB");
    EXPECT_EQ(with(200_GiB, 100_GiB), std::nullopt);  // below the effective cap: a lowering
    EXPECT_EQ(with(40_GiB, 112_GiB), std::nullopt);   // below the band: from min
    EXPECT_TRUE(with(40_GiB, 113_GiB).has_value());
    // A set knob is the effective cap: an --effective beside it changes nothing.
    EXPECT_TRUE(refusal(*policy_, kRam256, 100_GiB, 130_GiB, 200_GiB).has_value());
}

// The effective cap is the caller's claim. One above memory is false, and taken at its word it
// would turn every raise into a "lowering" that no max_step binds: refused, whatever the value.
TEST_F(PolicyRefusal, AnEffectiveCapAboveMemoryIsRefused) {
    EXPECT_EQ(refusal(*policy_, kRam256, 0_MiB, 200_GiB, 256_GiB), std::nullopt);  // memory itself
    auto r = refusal(*policy_, kRam256, 0_MiB, 200_GiB, 256_GiB + 1_MiB);
    ASSERT_TRUE(r.has_value());
    EXPECT_CONTAINS(*r, "is more than the machine's memory");
    EXPECT_TRUE(
        refusal(*policy_, kRam256, 0_MiB, 96_GiB, 1024_GiB).has_value());  // even a lowering
}

TEST_F(PolicyRefusal, StepFromBelowMinIsMeasuredFromMin) {
    EXPECT_EQ(refuse(32_GiB, 112_GiB), std::nullopt);
    EXPECT_TRUE(refuse(32_GiB, 113_GiB).has_value());
}

TEST_F(PolicyRefusal, LoweringIsAlwaysAllowedRegardlessOfStep) {
    EXPECT_EQ(refuse(232_GiB, 96_GiB), std::nullopt);
    EXPECT_EQ(refuse(240_GiB, 200_GiB), std::nullopt);  // current above max (set by someone else)
}

// The vouched value. Inside the band it is parsed with its note and the file's hash;
// outside the band, or a note without a value, makes the whole policy invalid (fail closed).
TEST(PolicyVouched, ParsedWithItsNoteAndTheFilesHash) {
    const std::string text =
        std::string(kValid) + "vouched = 200GiB\nvouched_note = M3 Ultra, ops ticket 42\n";
    auto p = parse(text, kRam256);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(p->vouched, std::optional<MiB>(200_GiB));
    EXPECT_EQ(p->vouched_note, "M3 Ultra, ops ticket 42");
    EXPECT_EQ(p->sha256, sha256_hex(text));
    EXPECT_EQ(vouched_by(*p, "/etc/wiredcap.conf"),
              "vouched by the policy file /etc/wiredcap.conf (sha256 " + sha256_hex(text) +
                  "): M3 Ultra, ops ticket 42");
    EXPECT_EQ(parse(kValid, kRam256)->vouched, std::nullopt);
}

TEST(PolicyVouched, OutsideTheBandOrANoteAloneIsInvalid) {
    EXPECT_CONTAINS(error_of(parse(std::string(kValid) + "vouched = 233GiB\n", kRam256)),
                    "outside the band");
    EXPECT_CONTAINS(error_of(parse(std::string(kValid) + "vouched = 95GiB\n", kRam256)),
                    "outside the band");
    EXPECT_CONTAINS(error_of(parse(std::string(kValid) + "vouched = 200\n", kRam256)), "vouched");
    EXPECT_CONTAINS(error_of(parse(std::string(kValid) + "vouched_note = x\n", kRam256)),
                    "vouched_note without vouched");
}

// Only the vouched value itself skips max_step, from the OS default or any other start; the
// band, the reserve and a false effective cap still refuse it.
TEST(PolicyVouched, OnlyThatValueSkipsTheStep) {
    auto p = parse(std::string(kValid) + "vouched = 200GiB\n", kRam256);
    ASSERT_TRUE(p);
    EXPECT_EQ(refusal(*p, kRam256, 0_MiB, 200_GiB), std::nullopt);
    EXPECT_EQ(refusal(*p, kRam256, 0_MiB, 200_GiB, 150_GiB), std::nullopt);
    EXPECT_EQ(refusal(*p, kRam256, 100_GiB, 200_GiB), std::nullopt);
    EXPECT_CONTAINS(refusal(*p, kRam256, 0_MiB, 199_GiB).value_or(""), "more than max_step");
    EXPECT_CONTAINS(refusal(*p, kRam256, 0_MiB, 201_GiB).value_or(""), "more than max_step");
    EXPECT_CONTAINS(refusal(*p, kRam256, 0_MiB, 200_GiB, 257_GiB).value_or(""),
                    "more than the machine's memory");
    // The same file on a smaller machine: memory minus reserve still binds the vouched value.
    EXPECT_CONTAINS(refusal(*p, 210_GiB, 0_MiB, 200_GiB).value_or(""), "less than the reserve");
}

// FIPS 180-4's examples, and a message that crosses a block boundary with its padding.
TEST(Sha256, KnownDigests) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace wiredcap::policy
