// Human output fits the width, and breaks only where a reader expects it.
#include <gtest/gtest.h>

#include <sstream>

#include "wiredcap/cli/output/footnotes.hpp"
#include "wiredcap/cli/output/terminal_width.hpp"
#include "wiredcap/cli/output/text_wrap.hpp"
#include "wiredcap/cli/output/wrapping_buf.hpp"

namespace wiredcap::cli {
namespace {

std::string joined(const std::vector<std::string>& rows) {
    std::string s;
    for (const auto& r : rows) s += r + "\n";
    return s;
}

void expect_fits(const std::vector<std::string>& rows, std::size_t width) {
    for (const auto& r : rows) EXPECT_LE(display_width(r), width) << "row too wide: '" << r << "'";
}

TEST(TextWrap, ALineThatFitsIsUnchanged) {
    const std::string line = "step 1: iogpu.wired_limit_mb = 81920 MiB   [kernel read-back]  ";
    EXPECT_EQ(wrap_line(line, 80), std::vector<std::string>{line});
}

TEST(TextWrap, BreaksAtSpacesUnderTheValueColumn) {
    const auto rows = wrap_line(
        "binding now                    the OS default policy, 161792 MiB (158.00 GiB, 169.65 GB) per Metal",
        80);
    EXPECT_EQ(joined(rows),
              "binding now                    the OS default policy, 161792 MiB\n"
              "                               (158.00 GiB, 169.65 GB) per Metal\n");
}

TEST(TextWrap, ProseHangsTwoSpacesPastItsIndent) {
    const auto rows = wrap_line(
        "  if the machine hangs: hold the power button; the reboot restores the OS default; then run: wiredcap recover",
        80);
    expect_fits(rows, 80);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1], "    default; then run: wiredcap recover");
}

TEST(TextWrap, ASuggestedCommandIsNeverSplit) {
    const std::string line =
        "wiredcap persist: no value was ever confirmed in a ramp on this machine; confirm xx wiredcap ramp --to 96GiB --step 8GiB first";
    const auto rows = wrap_line(line, 80);
    expect_fits(rows, 80);
    EXPECT_NE(joined(rows).find("wiredcap ramp --to 96GiB --step 8GiB first"), std::string::npos)
        << joined(rows);
    // Wherever the row boundary falls, the command is on one row.
    for (std::size_t k = 1; k < 80; ++k) {
        const auto r =
            joined(wrap_line("wiredcap recover: " + std::string(k, 'x') +
                                 " run: wiredcap ramp --to 96GiB --step 8GiB and then rest",
                             80));
        EXPECT_NE(r.find("wiredcap ramp --to 96GiB --step 8GiB"), std::string::npos) << r;
    }
}

TEST(TextWrap, AMessagePrefixIsNotACommand) {
    // "wiredcap set:" is glued to nothing: the line may break right after it.
    const auto rows = wrap_line("wiredcap set: " + std::string(70, 'x'), 80);
    EXPECT_EQ(rows.front(), "wiredcap set:");
}

TEST(TextWrap, ASourceMovesWholeToTheNextRow) {
    const auto rows = wrap_line(
        "  effective cap     161792 MiB (158.00 GiB, 169.65 GB)   [SIMULATED Metal recommendedMaxWorkingSetSize (simulator model)]",
        80);
    EXPECT_EQ(joined(rows),
              "  effective cap     161792 MiB (158.00 GiB, 169.65 GB)\n"
              "    [SIMULATED Metal recommendedMaxWorkingSetSize (simulator model)]\n");
}

TEST(TextWrap, ANumberStaysWithItsUnitAndAFootnoteWithItsValue) {
    const auto rows = wrap_line(
        "permitted band                 65536 MiB to 180224 MiB (176.00 GiB, 188.97 GB) [5]", 80);
    EXPECT_EQ(joined(rows),
              "permitted band                 65536 MiB to 180224 MiB\n"
              "                               (176.00 GiB, 188.97 GB) [5]\n");
    for (const auto& r : wrap_line(std::string(75, 'x') + " 16384 MiB", 80)) EXPECT_NE(r, "MiB");
}

TEST(TextWrap, APathWiderThanARowIsKeptWholeOnItsOwn) {
    const std::string path = "/" + std::string(100, 'p') + "/wiredcap.conf";
    const auto rows = wrap_line("policy file " + path + ": valid", 80);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0], "policy file");
    EXPECT_EQ(rows[1], "  " + path + ":");
    EXPECT_EQ(rows[2], "  valid");
}

TEST(TextWrap, AFootnoteMarkLeavesAPathThatFillsTheRow) {
    const std::string path = "/" + std::string(76, 'p') + ")";
    const auto rows =
        wrap_line("boot action                    enabled (nothing at " + path + " [11]", 80);
    EXPECT_EQ(rows.back().substr(rows.back().find_first_not_of(' ')), "[11]");
    for (const auto& r : rows) {
        if (r.find(' ', r.find_first_not_of(' ')) != std::string::npos) {
            EXPECT_LE(r.size(), 80u) << r;
        }
    }
}

TEST(TextWrap, NoRowExceedsTheWidthAtAnyWidth) {
    const std::string line =
        "wiredcap ramp: every step would be at or above 98304 MiB (96.00 GiB, 103.07 GB), which hung in run "
        "r-20261201-101010-abcd step 2 (2026-12-01T10:10:10Z); choose --to below it, or pass --ignore-hang-ceiling";
    for (std::size_t w = 40; w <= 200; ++w) expect_fits(wrap_line(line, w), w);
}

TEST(TerminalWidth, ColumnsThenTheTerminalThen80) {
    EXPECT_EQ(choose_width("120", std::nullopt), 120u);
    EXPECT_EQ(choose_width("120", 100), 120u);
    EXPECT_EQ(choose_width(std::nullopt, 100), 100u);
    EXPECT_EQ(choose_width(std::nullopt, std::nullopt), 80u);
    EXPECT_EQ(choose_width(std::nullopt, 0), 80u);  // a pty nobody sized
    EXPECT_EQ(choose_width("0", std::nullopt), 80u);
    EXPECT_EQ(choose_width("wide", 90), 90u);
    EXPECT_EQ(choose_width("120x", std::nullopt), 80u);
    EXPECT_EQ(choose_width("19", 100), 100u) << "below the least width a row can hold";
    EXPECT_EQ(choose_width("-100", std::nullopt), 80u);
    EXPECT_EQ(choose_width("", 90), 90u);
    EXPECT_EQ(choose_width("999999999999999999999999", std::nullopt), 80u)
        << "an overflow is not a width";
}

TEST(WrappingBuf, WrapsEachLineAndKeepsAHalfLineOpenAcrossAFlush) {
    std::ostringstream sink;
    {
        WrappingBuf buf(sink.rdbuf(), 40);
        std::ostream out(&buf);
        out << "one two three four five six seven eight nine ten\n";
        out << "Type yes to continue: " << std::flush;
        out << "yes\n{\"json\":\"is not wrapped only when the stream is not wrapped\"}";
    }
    EXPECT_EQ(sink.str(),
              "one two three four five six seven eight\n"
              "  nine ten\n"
              "Type yes to continue: yes\n"
              "{\"json\":\"is not wrapped only when the\n"
              "  stream is not wrapped\"}");
}

TEST(Footnotes, OneNumberPerSourceInOrder) {
    Footnotes f;
    EXPECT_EQ(f.mark("kernel"), "[1]");
    EXPECT_EQ(f.mark("policy file /etc/wiredcap.conf"), "[2]");
    EXPECT_EQ(f.mark("kernel"), "[1]");
    EXPECT_EQ(f.mark(""), "");
    std::ostringstream out;
    f.print(out, "sources:");
    EXPECT_EQ(out.str(), "sources:\n   [1] kernel\n   [2] policy file /etc/wiredcap.conf\n");
}

}  // namespace
}  // namespace wiredcap::cli
