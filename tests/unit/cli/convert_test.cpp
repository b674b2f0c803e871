#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

#include "wiredcap/cli/commands/convert.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/version.hpp"

namespace {

using wiredcap::ExitCode;
using wiredcap::to_int;

struct Outcome {
    int code;
    std::string out;
    std::string err;
};

Outcome convert(std::string size, std::optional<std::string> to = std::nullopt, bool json = false) {
    std::ostringstream out;
    std::ostringstream err;
    const ExitCode code =
        wiredcap::cli::run_convert({std::move(size), std::move(to), json}, out, err);
    return {to_int(code), out.str(), err.str()};
}

void expect_ok(const Outcome& r) {
    EXPECT_EQ(r.code, to_int(ExitCode::ok));
    EXPECT_EQ(r.err, "");
}

void expect_usage_error(const Outcome& r, const std::string& fragment) {
    EXPECT_EQ(r.code, to_int(ExitCode::usage));
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("wiredcap convert: ", 0), 0U) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos)
        << "missing '" << fragment << "' in: " << r.err;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.back(), '\n');
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
}

TEST(ConvertTo, PrintsOneExactValue) {
    const auto r = convert("232GiB", "MiB");
    expect_ok(r);
    EXPECT_EQ(r.out, "237568 MiB\n");
}

TEST(ConvertTo, OtherUnits) {
    EXPECT_EQ(convert("232GiB", "B").out, "249108103168 B\n");
    EXPECT_EQ(convert("232000MB", "GB").out, "232 GB\n");
    EXPECT_EQ(convert("232000MB", "B").out, "232000000000 B\n");
    EXPECT_EQ(convert("237568MiB", "GiB").out, "232 GiB\n");
    EXPECT_EQ(convert("1.5 TiB", "GiB").out, "1536 GiB\n");
    EXPECT_EQ(convert("0MiB", "TB").out, "0 TB\n");
}

TEST(ConvertTo, Json) {
    const auto r = convert("232GiB", "MiB", true);
    expect_ok(r);
    EXPECT_EQ(r.out, R"({"schema":"wiredcap.convert/2","version":")" +
                         std::string(wiredcap::kVersion) +
                         R"(","source":"computed","input":"232GiB","unit":"MiB","count":237568})"
                         "\n");
}

TEST(ConvertForAdmin, PrintsMiBGiBGBAndBytes) {
    const auto r = convert("232GiB");
    expect_ok(r);
    EXPECT_EQ(r.out,
              "232GiB is exactly (computed, not read from any machine):\n"
              "                237568 MiB   the unit of iogpu.wired_limit_mb\n"
              "                   232 GiB\n"
              "         249.108103168 GB\n"
              "          249108103168 B\n");
}

TEST(ConvertForAdmin, FractionalGiB) {
    const auto r = convert("232000MiB");
    expect_ok(r);
    EXPECT_NE(r.out.find(" 232000 MiB "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" 226.5625 GiB\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" 243.269632 GB\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" 243269632000 B\n"), std::string::npos) << r.out;
}

TEST(ConvertForAdmin, Json) {
    const auto r = convert("232GiB", std::nullopt, true);
    expect_ok(r);
    EXPECT_EQ(
        r.out,
        R"({"schema":"wiredcap.convert/2","version":")" + std::string(wiredcap::kVersion) +
            R"(","source":"computed","input":"232GiB","mib":237568,"gib":232,"gb":249.108103168,"bytes":249108103168})"
            "\n");
}

// An accepted size can be long (fraction zeros are dropped): the echo of it is cut, like every
// quoted input, and states the length.
TEST(ConvertForAdmin, LongAcceptedInputIsCutInTheEcho) {
    const std::string input = "1." + std::string(100000, '0') + "GiB";
    const auto r = convert(input);
    expect_ok(r);
    EXPECT_NE(r.out.find("'... (100005 bytes) is exactly"), std::string::npos)
        << r.out.substr(0, 200);
    EXPECT_LT(r.out.size(), 400U) << r.out.substr(0, 200);
    const auto j = convert(input, std::nullopt, true);
    expect_ok(j);
    EXPECT_LT(j.out.size(), 400U) << j.out.substr(0, 200);
}

TEST(ConvertRefuses, InexactShowsTheExactDecimal) {
    expect_usage_error(convert("232000MB", "MiB"),
                       "'232000MB' = 221252.44140625 MiB, not a whole number");
}

TEST(ConvertRefuses, BareNumber) { expect_usage_error(convert("232000"), "no unit"); }

TEST(ConvertRefuses, InexactMegabytesForTheKernel) {
    const auto r = convert("232000MB");
    expect_usage_error(r, "221252MiB and 221253MiB");
    EXPECT_EQ(r.err.find("232000MiB"), std::string::npos) << r.err;  // never the same digits in MiB
}

TEST(ConvertRefuses, InexactWithTo) {
    expect_usage_error(convert("232000MB", "MiB"), "a MB is 1000000 B, a MiB 1048576 B");
    expect_usage_error(convert("1KiB", "kB"), "not a whole number of kB");
    expect_usage_error(convert("1kB"), "not a whole number of MiB");
}

TEST(ConvertRefuses, WrongSpelling) {
    expect_usage_error(convert("5mb"), "did you mean MB or MiB?");
    expect_usage_error(convert("5KB", "MiB"), "did you mean kB or KiB?");
}

TEST(ConvertRefuses, UnknownToUnit) {
    expect_usage_error(convert("232GiB", "Mb"), "unknown unit");
    expect_usage_error(convert("232GiB", "mib"), "B kB MB GB TB KiB MiB GiB TiB");
    expect_usage_error(convert("232GiB", ""), "unknown unit");
}

TEST(ConvertRefuses, EscapesControlCharactersInTheToUnit) {
    const auto r = convert("232GiB", "M\x1b[2J");
    expect_usage_error(r, R"('M\x1b[2J')");
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

TEST(ConvertRefuses, Sign) {
    expect_usage_error(convert("-1GiB"), "no sign");
    expect_usage_error(convert("+1GiB", "MiB"), "no sign");
}

TEST(ConvertRefuses, Empty) {
    expect_usage_error(convert(""), "empty size");
    expect_usage_error(convert("", "MiB"), "empty size");
}

TEST(ConvertRefuses, JsonErrorsStillGoToStderrOnly) {
    expect_usage_error(convert("232000MB", std::nullopt, true), "221252MiB and 221253MiB");
    expect_usage_error(convert("5mb", "MiB", true), "did you mean MB or MiB?");
}

}  // namespace
