// `wiredcap persist`'s own decisions (cli/commands/persist_cmd.cpp): the command line, and which value
// to store. Every bad value is refused before the helper runs, with its own message and the
// exit code a script can rely on (2 usage, 3 refused at the hang ceiling).
#include "wiredcap/cli/commands/persist_cmd.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "wiredcap/units/literals.hpp"

namespace wiredcap::cli {
namespace {

using namespace units::literals;
using units::MiB;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

PersistRequest with_size(std::string size) {
    PersistRequest r;
    r.size = std::move(size);
    return r;
}

// The refusal for `req`, which must be one.
PersistError refusal(const PersistRequest& req) {
    auto a = check_persist_args(req);
    EXPECT_FALSE(a) << (req.size ? *req.size : "(no SIZE)");
    return a ? PersistError{ExitCode::ok, ""} : a.error();
}

TEST(PersistArgs, ASizeWithItsUnitIsExact) {
    auto a = check_persist_args(with_size("96GiB"));
    ASSERT_TRUE(a);
    EXPECT_FALSE(a->off);
    EXPECT_EQ(a->size, std::optional<MiB>(98304_MiB));
    a = check_persist_args(with_size("98304MiB"));
    ASSERT_TRUE(a);
    EXPECT_EQ(a->size, std::optional<MiB>(96_GiB));
}

TEST(PersistArgs, NoSizeMeansTheJournalsLastConfirmedValue) {
    auto a = check_persist_args(PersistRequest{});
    ASSERT_TRUE(a);
    EXPECT_FALSE(a->off);
    EXPECT_FALSE(a->size);
}

TEST(PersistArgs, OffAlone) {
    PersistRequest r;
    r.off = true;
    auto a = check_persist_args(r);
    ASSERT_TRUE(a);
    EXPECT_TRUE(a->off);
}

TEST(PersistArgs, BareNumberIsAUsageErrorThatAsksForAUnit) {
    const PersistError e = refusal(with_size("96"));
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "no unit; a unit is never guessed")) << e.message;
}

TEST(PersistArgs, ZeroIsRefusedWithAdviceToUseOff) {
    for (const char* zero : {"0MiB", "0GiB", "0B"}) {
        const PersistError e = refusal(with_size(zero));
        EXPECT_EQ(e.code, ExitCode::usage);
        EXPECT_TRUE(contains(e.message, "0 means the OS default")) << e.message;
        EXPECT_TRUE(contains(e.message, "wiredcap persist --off")) << e.message;
    }
}

TEST(PersistArgs, DefaultIsRefusedWithAdviceToUseOff) {
    const PersistError e = refusal(with_size("default"));
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "'default' is the OS default")) << e.message;
    EXPECT_TRUE(contains(e.message, "wiredcap persist --off")) << e.message;
}

TEST(PersistArgs, NegativeIsAUsageError) {
    const PersistError e = refusal(with_size("-5GiB"));
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "a size has no sign")) << e.message;
}

TEST(PersistArgs, UnknownUnitIsAUsageErrorThatListsTheUnits) {
    for (const char* bad : {"96G", "96gib", "96mb"}) {
        const PersistError e = refusal(with_size(bad));
        EXPECT_EQ(e.code, ExitCode::usage);
        EXPECT_TRUE(contains(e.message, "unknown unit")) << e.message;
        EXPECT_TRUE(contains(e.message, "B kB MB GB TB KiB MiB GiB TiB")) << e.message;
    }
}

TEST(PersistArgs, NotAWholeMiBIsAUsageError) {
    const PersistError e = refusal(with_size("232000MB"));
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "not a whole number of MiB")) << e.message;
}

TEST(PersistArgs, OffWithSizeIsAUsageError) {
    PersistRequest r = with_size("96GiB");
    r.off = true;
    const PersistError e = refusal(r);
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "persist --off forgets the stored value and takes no SIZE"))
        << e.message;
    // Even a SIZE that would be bad on its own: --off with anything is the error reported.
    r.size = "default";
    EXPECT_TRUE(contains(refusal(r).message, "takes no SIZE"));
}

TEST(PersistArgs, OffWithUnconfirmedOrIgnoreHangCeilingIsAUsageError) {
    PersistRequest r;
    r.off = true;
    r.unconfirmed = true;
    PersistError e = refusal(r);
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "--unconfirmed is for storing a value")) << e.message;
    r.unconfirmed = false;
    r.ignore_hang_ceiling = true;
    e = refusal(r);
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "--ignore-hang-ceiling is for storing a value")) << e.message;
}

TEST(PersistArgs, UnconfirmedNeedsASize) {
    PersistRequest r;
    r.unconfirmed = true;
    const PersistError e = refusal(r);
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "--unconfirmed needs SIZE")) << e.message;
}

TEST(PersistArgs, EveryRefusalHasItsOwnMessage) {
    std::vector<PersistRequest> bad{with_size("96"), with_size("0MiB"), with_size("default"),
                                    with_size("-5GiB"), with_size("96G")};
    PersistRequest off_size = with_size("96GiB");
    off_size.off = true;
    bad.push_back(off_size);
    PersistRequest off_unconfirmed;
    off_unconfirmed.off = off_unconfirmed.unconfirmed = true;
    bad.push_back(off_unconfirmed);
    PersistRequest unconfirmed_alone;
    unconfirmed_alone.unconfirmed = true;
    bad.push_back(unconfirmed_alone);
    std::set<std::string> messages;
    for (const auto& r : bad) messages.insert(refusal(r).message);
    EXPECT_EQ(messages.size(), bad.size());
}

// ---- which value ----------------------------------------------------------------------------

recovery::StepRef ramp_step(MiB v) {
    return recovery::StepRef{"r-1", 2, v, "T", "B", recovery::RefKind::ramp_step};
}
recovery::StepRef boot_hang(MiB v) {
    return recovery::StepRef{"", 0, v, "T9", "B9", recovery::RefKind::boot_apply};
}

TEST(PersistChoice, WithoutSizeTheLastConfirmedValueAndWhereItCameFrom) {
    recovery::Report r;
    r.last_confirmed = ramp_step(96_GiB);
    auto c = choose_persist_value(PersistArgs{false, std::nullopt}, r, false, "journal J");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->value, 96_GiB);
    EXPECT_EQ(c->from, "the journal's last confirmed step (run r-1 step 2, T)");
}

TEST(PersistChoice, WithoutSizeAndNothingConfirmedIsAUsageErrorWithAdvice) {
    auto c = choose_persist_value(PersistArgs{false, std::nullopt}, recovery::Report{}, false,
                                  "journal J");
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ExitCode::usage);
    EXPECT_TRUE(contains(c.error().message,
                         "no value was ever confirmed in a ramp on this machine (journal J)"));
    EXPECT_TRUE(contains(c.error().message, "wiredcap ramp --to SIZE"));
}

TEST(PersistChoice, AtOrAboveTheHangCeilingIsRefused) {
    recovery::Report r;
    r.hang_ceiling = ramp_step(96_GiB);
    for (const MiB v : {96_GiB, 112_GiB}) {
        auto c = choose_persist_value(PersistArgs{false, v}, r, false, "journal J");
        ASSERT_FALSE(c);
        EXPECT_EQ(c.error().code, ExitCode::refused_by_policy);
        EXPECT_TRUE(contains(c.error().message, "at or above the hang ceiling"))
            << c.error().message;
        EXPECT_TRUE(contains(c.error().message, "hung in run r-1 step 2")) << c.error().message;
        EXPECT_TRUE(contains(c.error().message, "--ignore-hang-ceiling")) << c.error().message;
    }
    auto below = choose_persist_value(PersistArgs{false, 95_GiB}, r, false, "journal J");
    ASSERT_TRUE(below);
    EXPECT_FALSE(below->at_or_above_ceiling);
}

TEST(PersistChoice, TheLastConfirmedValueIsRefusedWhenABootWithItTripped) {
    recovery::Report r;
    r.last_confirmed = ramp_step(96_GiB);
    r.hang_ceiling = boot_hang(96_GiB);
    auto c = choose_persist_value(PersistArgs{false, std::nullopt}, r, false, "journal J");
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ExitCode::refused_by_policy);
    EXPECT_TRUE(contains(c.error().message, "applied by the boot action at T9 in boot B9"))
        << c.error().message;
}

TEST(PersistChoice, IgnoreHangCeilingLetsItThroughAndSaysSo) {
    recovery::Report r;
    r.hang_ceiling = ramp_step(96_GiB);
    auto c = choose_persist_value(PersistArgs{false, 96_GiB}, r, true, "journal J");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->value, 96_GiB);
    EXPECT_TRUE(c->at_or_above_ceiling);
    EXPECT_EQ(c->from, "the command line");
}

// --lower says "store a value below the effective cap" of an unconfirmed value: alone, or with
// --off, it has nothing to apply to.
TEST(PersistArgs, LowerNeedsUnconfirmed) {
    PersistRequest r = with_size("80GiB");
    r.lower = true;
    const PersistError e = refusal(r);
    EXPECT_EQ(e.code, ExitCode::usage);
    EXPECT_TRUE(contains(e.message, "--lower goes with --unconfirmed")) << e.message;
    PersistRequest off;
    off.off = true;
    off.lower = true;
    EXPECT_TRUE(contains(refusal(off).message, "--lower is for storing a value"))
        << refusal(off).message;
    r.unconfirmed = true;
    EXPECT_TRUE(check_persist_args(r));
}

}  // namespace
}  // namespace wiredcap::cli
