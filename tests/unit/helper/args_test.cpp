// The helper's argv parser (docs/design.md section 8): a small fixed grammar; every other shape is
// a usage error that says what was wrong.
#include "wiredcap/helper/args.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "../temp_tree.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::helper {
namespace {

using namespace units::literals;
using test::error_of;

Expected<Invocation> parse(std::initializer_list<std::string_view> args) {
    return parse_args(std::vector<std::string_view>(args));
}

// The error message for args, or a marker when they parsed.
std::string refusal(std::initializer_list<std::string_view> args) { return error_of(parse(args)); }

// --- valid command lines -------------------------------------------------------------------

TEST(HelperArgs, Read) {
    auto inv = parse({"read"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->command, Command::read);
    EXPECT_FALSE(inv->value.has_value());
    EXPECT_FALSE(inv->run.has_value());
    EXPECT_FALSE(inv->step.has_value());
    EXPECT_FALSE(inv->dev.any());
}

TEST(HelperArgs, ApplyWithSize) {
    auto inv = parse({"apply", "237568MiB"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->command, Command::apply);
    EXPECT_EQ(inv->value, 232_GiB);
    EXPECT_FALSE(inv->run.has_value());

    auto gib = parse({"apply", "232GiB"});
    ASSERT_TRUE(gib) << error_of(gib);
    EXPECT_EQ(gib->value, 237568_MiB);
}

TEST(HelperArgs, ApplyAsRampStepWithRevert) {
    auto inv =
        parse({"apply", "96GiB", "--run", "2026-11-29-abc", "--step", "3", "--revert", "timeout"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->command, Command::apply);
    EXPECT_EQ(inv->value, 96_GiB);
    EXPECT_EQ(inv->run, "2026-11-29-abc");
    EXPECT_EQ(inv->step, 3U);
    EXPECT_EQ(inv->revert, "timeout");
    EXPECT_FALSE(inv->outcome.has_value());
}

TEST(HelperArgs, RampOptionsInAnyOrder) {
    auto inv = parse({"apply", "96GiB", "--step", "100000", "--run", "r"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->step, 100000U);
    EXPECT_EQ(inv->run, "r");
}

TEST(HelperArgs, Persist) {
    auto inv = parse({"persist", "96GiB"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->command, Command::persist);
    EXPECT_EQ(inv->value, 96_GiB);
    EXPECT_FALSE(inv->unconfirmed);
    EXPECT_FALSE(inv->off);

    auto unconfirmed = parse({"persist", "98304MiB", "--unconfirmed"});
    ASSERT_TRUE(unconfirmed) << error_of(unconfirmed);
    EXPECT_TRUE(unconfirmed->unconfirmed);
    EXPECT_FALSE(unconfirmed->lower);

    // The starting point wiredcap read, and --lower for a value below it.
    auto lower = parse({"persist", "80GiB", "--unconfirmed", "--lower", "--effective", "158GiB",
                        "--effective-source", "simulated-metal"});
    ASSERT_TRUE(lower) << error_of(lower);
    EXPECT_TRUE(lower->lower);
    EXPECT_EQ(lower->effective, 158_GiB);
    EXPECT_EQ(lower->effective_source, std::optional<std::string>("simulated-metal"));

    auto off = parse({"persist", "--off"});
    ASSERT_TRUE(off) << error_of(off);
    EXPECT_TRUE(off->off);
    EXPECT_FALSE(off->value.has_value());
}

// The boot action is wiredcap-system's (root's own program): the setuid helper has none.
TEST(HelperArgs, BootIsNotTheHelpers) {
    EXPECT_CONTAINS(refusal({"boot"}), "wiredcap-system boot-action");
    EXPECT_CONTAINS(refusal({"boot", "--run", "r1", "--step", "1"}), "wiredcap-system boot-action");
}

TEST(HelperArgsUsage, PersistBadShapes) {
    EXPECT_CONTAINS(refusal({"persist"}), "persist needs a size");
    EXPECT_CONTAINS(refusal({"persist", "98304"}), "unit");
    EXPECT_CONTAINS(refusal({"persist", "0MiB"}), "use persist --off");
    EXPECT_CONTAINS(refusal({"persist", "--off", "96GiB"}), "unexpected or repeated argument");
    EXPECT_CONTAINS(refusal({"persist", "--off", "--unconfirmed"}),
                    "unexpected or repeated argument");
    EXPECT_CONTAINS(refusal({"persist", "--unconfirmed", "96GiB"}), "unit");
    EXPECT_CONTAINS(refusal({"persist", "96GiB", "--unconfirmed", "--unconfirmed"}),
                    "unexpected or repeated argument");
    EXPECT_CONTAINS(refusal({"persist", "96GiB", "--run", "r1", "--step", "1"}),
                    "persist takes no ramp options");
    EXPECT_CONTAINS(refusal({"apply", "96GiB", "--unconfirmed"}),
                    "unexpected or repeated argument");
    EXPECT_CONTAINS(refusal({"persist", "96GiB", "--lower"}), "unexpected or repeated argument");
    EXPECT_CONTAINS(refusal({"persist", "96GiB", "--lower", "--unconfirmed"}),
                    "unexpected or repeated argument");
    EXPECT_CONTAINS(refusal({"persist", "96GiB", "--effective", "158GiB"}),
                    "--effective belongs to apply and persist --unconfirmed");
    EXPECT_CONTAINS(refusal({"persist", "96GiB", "--unconfirmed", "--effective", "158GiB",
                             "--effective-source", "knob"}),
                    "--effective-source needs one of");
}

TEST(HelperArgs, Reset) {
    auto inv = parse({"reset"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->command, Command::reset);
    EXPECT_FALSE(inv->value.has_value());

    auto ramp = parse({"reset", "--run", "r1", "--step", "1", "--revert", "interrupt"});
    ASSERT_TRUE(ramp) << error_of(ramp);
    EXPECT_EQ(ramp->revert, "interrupt");
}

TEST(HelperArgs, EveryRevertReasonIsAccepted) {
    for (const auto reason : kRevertReasons) {
        auto inv = parse({"reset", "--run", "r", "--step", "2", "--revert", reason});
        ASSERT_TRUE(inv) << reason << ": " << error_of(inv);
        EXPECT_EQ(inv->revert, reason);
    }
}

TEST(HelperArgs, Confirm) {
    auto inv = parse({"confirm", "--run", "r1", "--step", "7"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->command, Command::confirm);
    EXPECT_EQ(inv->run, "r1");
    EXPECT_EQ(inv->step, 7U);
}

TEST(HelperArgs, EndWithEveryOutcome) {
    for (const auto outcome : kOutcomes) {
        auto inv = parse({"end", "--run", "r1", "--outcome", outcome});
        ASSERT_TRUE(inv) << outcome << ": " << error_of(inv);
        EXPECT_EQ(inv->command, Command::end);
        EXPECT_EQ(inv->outcome, outcome);
        EXPECT_FALSE(inv->step.has_value());
    }
}

TEST(HelperArgs, DevOptions) {
    auto inv = parse({"--policy", "/etc/p.conf", "--journal", "/var/j.jsonl", "--sim-state",
                      "/var/sim", "read"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_TRUE(inv->dev.any());
    EXPECT_EQ(inv->dev.policy, "/etc/p.conf");
    EXPECT_EQ(inv->dev.journal, "/var/j.jsonl");
    EXPECT_EQ(inv->dev.sim_state, "/var/sim");
    EXPECT_EQ(inv->command, Command::read);
}

TEST(HelperArgs, RunIdOf64CharactersIsAccepted) {
    const std::string id(64, 'a');
    auto inv = parse({"confirm", "--run", id, "--step", "1"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->run, id);
}

TEST(HelperArgs, CommandNames) {
    EXPECT_EQ(command_name(Command::read), "read");
    EXPECT_EQ(command_name(Command::apply), "apply");
    EXPECT_EQ(command_name(Command::reset), "reset");
    EXPECT_EQ(command_name(Command::confirm), "confirm");
    EXPECT_EQ(command_name(Command::end), "end");
}

// --- usage errors --------------------------------------------------------------------------

TEST(HelperArgsUsage, NoCommand) {
    EXPECT_CONTAINS(refusal({}), "no command");
    EXPECT_CONTAINS(refusal({"--policy", "/etc/p.conf"}), "no command");
}

TEST(HelperArgsUsage, UnknownCommand) {
    EXPECT_CONTAINS(refusal({"set"}), "unknown command 'set'");
    EXPECT_CONTAINS(refusal({"READ"}), "unknown command 'READ'");
    EXPECT_CONTAINS(refusal({""}), "unknown command ''");
}

TEST(HelperArgsUsage, UnknownCommandIsQuotedSafely) {
    const std::string e = refusal({"read\n\x1b[2J"});
    EXPECT_CONTAINS(e, "unknown command 'read\\x0a\\x1b[2J'");
    EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(HelperArgsUsage, UnknownOption) {
    EXPECT_CONTAINS(refusal({"--backend", "/x", "read"}), "unknown option '--backend'");
    EXPECT_CONTAINS(refusal({"--", "read"}), "unknown option '--'");
}

TEST(HelperArgsUsage, DevOptionTwice) {
    EXPECT_CONTAINS(refusal({"--policy", "/a", "--policy", "/b", "read"}), "--policy given twice");
    EXPECT_CONTAINS(refusal({"--journal", "/a", "--journal", "/b", "read"}),
                    "--journal given twice");
}

TEST(HelperArgsUsage, DevOptionWithoutValue) {
    EXPECT_CONTAINS(refusal({"--policy"}), "--policy needs a value");
    EXPECT_CONTAINS(refusal({"--sim-state"}), "--sim-state needs a value");
}

TEST(HelperArgsUsage, DevPathMustBeAbsolutePrintable) {
    EXPECT_CONTAINS(refusal({"--policy", "etc/p.conf", "read"}), "--policy needs an absolute path");
    EXPECT_CONTAINS(refusal({"--journal", "", "read"}), "--journal needs an absolute path");
    EXPECT_CONTAINS(refusal({"--policy", "read"}), "--policy needs an absolute path");
    EXPECT_CONTAINS(refusal({"--policy", "/etc/p\n.conf", "read"}), "printable ASCII");
    EXPECT_CONTAINS(refusal({"--policy", "/" + std::string(1024, 'a'), "read"}),
                    "--policy needs an absolute path");
}

TEST(HelperArgsUsage, DevOptionAfterTheCommandIsRefused) {
    EXPECT_CONTAINS(refusal({"read", "--policy", "/etc/p.conf"}),
                    "unexpected or repeated argument '--policy'");
}

TEST(HelperArgsUsage, ApplyWithoutSize) {
    EXPECT_CONTAINS(refusal({"apply"}), "apply needs a size");
}

TEST(HelperArgsUsage, ApplyWithBareNumber) {
    EXPECT_CONTAINS(refusal({"apply", "237568"}), "no unit");
}

TEST(HelperArgsUsage, ApplyZeroSaysUseReset) {
    EXPECT_CONTAINS(refusal({"apply", "0MiB"}), "use reset");
    EXPECT_CONTAINS(refusal({"apply", "0GiB"}), "use reset");
}

TEST(HelperArgsUsage, ApplyDecimalMegabytes) {
    const std::string e = refusal({"apply", "232000MB"});
    EXPECT_CONTAINS(e, "not a whole number of MiB");
    EXPECT_CONTAINS(e, "a MB is 1000000 B, a MiB 1048576 B");
    EXPECT_EQ(e.find("232000MiB"), std::string::npos) << e;
}

TEST(HelperArgsUsage, ApplyNegative) { EXPECT_CONTAINS(refusal({"apply", "-1MiB"}), "no sign"); }

TEST(HelperArgsUsage, ApplyHex) { EXPECT_CONTAINS(refusal({"apply", "0x10MiB"}), "hexadecimal"); }

TEST(HelperArgsUsage, ApplyMisspeltUnit) {
    EXPECT_CONTAINS(refusal({"apply", "232gb"}), "unknown unit");
}

TEST(HelperArgsUsage, ResetTakesNoSize) { EXPECT_FALSE(parse({"reset", "0MiB"})); }

TEST(HelperArgsUsage, RunWithoutStep) {
    EXPECT_CONTAINS(refusal({"apply", "96GiB", "--run", "r"}), "--run and --step go together");
    EXPECT_CONTAINS(refusal({"reset", "--step", "1"}), "--run and --step go together");
}

class HelperBadRunId : public ::testing::TestWithParam<std::string> {};

TEST_P(HelperBadRunId, IsRefused) {
    EXPECT_CONTAINS(refusal({"confirm", "--run", GetParam(), "--step", "1"}),
                    "--run needs 1 to 64 letters");
}
INSTANTIATE_TEST_SUITE_P(Ids, HelperBadRunId,
                         ::testing::Values(std::string(), std::string(65, 'a'), "a/b", "a b",
                                           "../x", "r_1", "r.1", "r\n1", "caf\xc3\xa9"));

class HelperBadStep : public ::testing::TestWithParam<std::string> {};

TEST_P(HelperBadStep, IsRefused) {
    EXPECT_CONTAINS(refusal({"confirm", "--run", "r", "--step", GetParam()}),
                    "--step needs a whole number from 1 to 100000");
}
INSTANTIATE_TEST_SUITE_P(Steps, HelperBadStep,
                         ::testing::Values("0", "01", "100001", "-1", "+1", "1e3", "", " 1", "1 ",
                                           "0x1", "9999999", "18446744073709551617"));

TEST(HelperArgsUsage, UnknownRevertReason) {
    EXPECT_CONTAINS(refusal({"reset", "--run", "r", "--step", "1", "--revert", "because"}),
                    "--revert needs one of");
    EXPECT_CONTAINS(refusal({"reset", "--run", "r", "--step", "1", "--revert", "NO"}),
                    "--revert needs one of");
}

TEST(HelperArgsUsage, RevertWithoutRun) {
    EXPECT_CONTAINS(refusal({"reset", "--revert", "no"}), "--revert needs --run and --step");
}

TEST(HelperArgsUsage, UnknownOutcome) {
    EXPECT_CONTAINS(refusal({"end", "--run", "r", "--outcome", "done"}), "--outcome needs one of");
}

TEST(HelperArgsUsage, OutcomeOnApply) {
    EXPECT_CONTAINS(
        refusal({"apply", "96GiB", "--run", "r", "--step", "1", "--outcome", "completed"}),
        "--outcome belongs to end");
}

TEST(HelperArgsUsage, ConfirmWithoutRun) {
    EXPECT_CONTAINS(refusal({"confirm"}), "confirm needs exactly --run and --step");
    EXPECT_CONTAINS(refusal({"confirm", "--step", "1"}), "--run and --step go together");
}

TEST(HelperArgsUsage, ConfirmWithRevertOrOutcome) {
    EXPECT_CONTAINS(refusal({"confirm", "--run", "r", "--step", "1", "--revert", "no"}),
                    "confirm needs exactly");
    EXPECT_CONTAINS(refusal({"confirm", "--run", "r", "--step", "1", "--outcome", "completed"}),
                    "confirm needs exactly");
}

TEST(HelperArgsUsage, EndWithoutOutcome) {
    EXPECT_CONTAINS(refusal({"end", "--run", "r"}), "end needs exactly --run and --outcome");
    EXPECT_CONTAINS(refusal({"end", "--outcome", "completed"}),
                    "end needs exactly --run and --outcome");
}

TEST(HelperArgsUsage, EndWithStep) {
    EXPECT_CONTAINS(refusal({"end", "--run", "r", "--step", "1", "--outcome", "completed"}),
                    "end needs exactly --run and --outcome");
}

TEST(HelperArgsUsage, ReadWithOptions) {
    EXPECT_CONTAINS(refusal({"read", "--run", "r", "--step", "1"}), "read takes no options");
    EXPECT_FALSE(parse({"read", "--outcome", "completed"}));
}

TEST(HelperArgsUsage, RepeatedOption) {
    EXPECT_CONTAINS(refusal({"confirm", "--run", "a", "--run", "b", "--step", "1"}),
                    "unexpected or repeated argument '--run'");
    EXPECT_CONTAINS(refusal({"confirm", "--run", "a", "--step", "1", "--step", "1"}),
                    "unexpected or repeated argument '--step'");
}

TEST(HelperArgsUsage, OptionWithoutValueAfterCommand) {
    EXPECT_CONTAINS(refusal({"confirm", "--run", "a", "--step"}), "'--step' needs a value");
}

TEST(HelperArgsUsage, StrayArgumentAfterOptionsIsUnexpected) {
    // A word that is not an option is reported as unexpected, whether or not another word
    // follows it (not as an option missing its value).
    EXPECT_CONTAINS(refusal({"confirm", "--run", "a", "--step", "1", "extra", "words"}),
                    "unexpected or repeated argument 'extra'");
    EXPECT_CONTAINS(refusal({"confirm", "--run", "a", "--step", "1", "extra"}), "unexpected");
    EXPECT_CONTAINS(refusal({"read", "extra"}), "unexpected");
    EXPECT_CONTAINS(refusal({"apply", "96GiB", "97GiB"}), "unexpected");
}

// --- --effective and --ignore-hang-ceiling ----------------------------------------

TEST(HelperArgs, ApplyTakesTheEffectiveCapWithItsSourceAndTheHangOverride) {
    auto inv = parse({"apply", "166GiB", "--effective", "161792MiB", "--effective-source",
                      "simulated-metal", "--ignore-hang-ceiling", "--run", "r-1", "--step", "1"});
    ASSERT_TRUE(inv) << error_of(inv);
    EXPECT_EQ(inv->effective, std::optional<units::MiB>(161792_MiB));
    EXPECT_EQ(inv->effective_source, std::optional<std::string>("simulated-metal"));
    EXPECT_TRUE(inv->ignore_hang_ceiling);
    EXPECT_EQ(inv->step, std::optional<std::uint64_t>(1));
    auto p = parse({"persist", "96GiB", "--unconfirmed", "--ignore-hang-ceiling"});
    ASSERT_TRUE(p) << error_of(p);
    EXPECT_TRUE(p->ignore_hang_ceiling);
}

TEST(HelperArgs, EffectiveAloneIsAFigureTheCallerGives) {
    auto inv = parse_args({"apply", "166GiB", "--effective", "158GiB"});
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->effective_source, std::optional<std::string>("given"));
}

TEST(HelperArgsUsage, EffectiveIsStrict) {
    EXPECT_CONTAINS(refusal({"apply", "96GiB", "--effective", "161792"}), "no unit");
    EXPECT_CONTAINS(
        refusal({"apply", "96GiB", "--effective", "0MiB", "--effective-source", "metal"}),
        "above 0 MiB");
    EXPECT_CONTAINS(
        refusal({"apply", "96GiB", "--effective", "150000MB", "--effective-source", "metal"}),
        "not a whole number of MiB");
    EXPECT_CONTAINS(
        refusal({"apply", "96GiB", "--effective", "158GiB", "--effective-source", "guess"}),
        "--effective-source needs one of");
    EXPECT_CONTAINS(refusal({"apply", "96GiB", "--effective-source", "metal"}),
                    "needs --effective");
    EXPECT_CONTAINS(refusal({"apply", "96GiB", "--effective", "158GiB", "--effective", "158GiB",
                             "--effective-source", "metal"}),
                    "unexpected or repeated");
    EXPECT_CONTAINS(refusal({"reset", "--effective", "158GiB", "--effective-source", "metal"}),
                    "belongs to apply");
    EXPECT_CONTAINS(
        refusal({"persist", "96GiB", "--effective", "158GiB", "--effective-source", "metal"}),
        "belongs to apply");
    EXPECT_CONTAINS(refusal({"apply", "96GiB", "--ignore-hang-ceiling", "--ignore-hang-ceiling"}),
                    "unexpected or repeated");
    EXPECT_CONTAINS(refusal({"persist", "--off", "--ignore-hang-ceiling"}),
                    "--ignore-hang-ceiling to apply and persist");
    EXPECT_CONTAINS(refusal({"confirm", "--run", "r", "--step", "1", "--ignore-hang-ceiling"}),
                    "--ignore-hang-ceiling to apply and persist");
}

}  // namespace
}  // namespace wiredcap::helper
