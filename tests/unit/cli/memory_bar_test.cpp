// The picture of memory: what is in use is never drawn smaller, a limit never drawn higher, and
// a terminal that may not draw blocks gets ASCII.
#include <gtest/gtest.h>

#include <algorithm>

#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/cli/output/text_wrap.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

MiB mib(std::uint64_t n) { return MiB::from_count_or_throw(n); }

TEST(MemoryBar, WiredAndCapAreRoundedUpToWholeCells) {
    // 100 MiB in 10 cells: 1 MiB wired still takes a cell; 41 MiB of cap takes 5.
    const std::string bar = bar_cells(mib(100), mib(1), mib(41), 10, Glyphs::ascii);
    EXPECT_EQ(bar, "#====.....");
    EXPECT_EQ(bar_cells(mib(100), mib(0), mib(40), 10, Glyphs::ascii), "====......");
    // Wired beyond the cap is still drawn whole.
    EXPECT_EQ(bar_cells(mib(100), mib(61), mib(40), 10, Glyphs::ascii), "#######...");
}

TEST(MemoryBar, UnknownIsDrawnAsUnknown) {
    EXPECT_EQ(bar_cells(mib(100), mib(10), std::nullopt, 10, Glyphs::ascii), "#?????????");
    EXPECT_EQ(bar_cells(mib(100), std::nullopt, mib(50), 10, Glyphs::ascii), "?====.....");
}

TEST(MemoryBar, LimitsAreMarkedInTheColumnAtOrBelowThem) {
    EXPECT_EQ(limit_column(mib(100), mib(49), 10), 4u);
    EXPECT_EQ(limit_column(mib(100), mib(50), 10), 5u);
    EXPECT_EQ(limit_column(mib(100), mib(100), 10), 9u);
    EXPECT_EQ(limit_column(mib(100), mib(500), 10), 9u);
}

MemoryPicture picture() {
    MemoryPicture p;
    p.total = {mib(196608), "reading", "", "[1]"};
    p.wired = {mib(92160), "reading", "", "[2]"};
    p.cap = {mib(98304), "reading", "", "[2]"};
    p.cap_by = "the knob";
    p.headroom = {mib(98304), "computed", "", "[3]"};
    p.reserve = Figure{mib(16384), "claim", "", "[4]"};
    p.band_top = Figure{mib(180224), "claim", "", "[4]"};
    p.hang_ceiling = Figure{mib(112640), "claim", "", "[5]"};
    return p;
}

TEST(MemoryBar, TwoLimitsInOneColumnMoveLeftNeverRight) {
    // The reserve starts at 176 GiB, the band's top is 176 GiB: one column; the reserve's
    // mark moves one column down, toward the safe side.
    const auto lines = render_picture(picture(), 80, Glyphs::ascii);
    const std::string& marks = lines.at(2);
    const auto top = marks.find('^');
    ASSERT_NE(top, std::string::npos);
    EXPECT_EQ(marks.at(top - 1), 'R');
    EXPECT_EQ(top - 3, limit_column(mib(196608), mib(180224), 76));
    EXPECT_EQ(marks.find('!') - 3, limit_column(mib(196608), mib(112640), 76));
}

TEST(MemoryBar, FitsTheWidthAndSaysEachFiguresKind) {
    for (std::size_t width : {20u, 80u, 120u, 200u}) {
        const auto lines = render_picture(picture(), width, Glyphs::blocks);
        EXPECT_EQ(display_width(lines.at(1)), std::max<std::size_t>(width, 20)) << lines.at(1);
    }
    const auto lines = render_picture(picture(), 80, Glyphs::ascii);
    for (const auto& l : lines) {
        EXPECT_LE(l.size(), 80u) << l;
        EXPECT_TRUE(std::all_of(l.begin(), l.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
            << l;
    }
    EXPECT_NE(lines.at(4).find("92160 MiB (90.00 GiB, 96.63 GB) reading [2]"), std::string::npos)
        << lines.at(4);
    EXPECT_NE(lines.at(6).find("computed [3]"), std::string::npos) << lines.at(6);
    EXPECT_NE(lines.at(9).find("! hang ceiling"), std::string::npos) << lines.at(9);
    EXPECT_NE(lines.at(9).find("claim [5]"), std::string::npos) << lines.at(9);
}

TEST(MemoryBar, UnknownMemoryIsOneLineSayingWhy) {
    MemoryPicture p = picture();
    p.total = {std::nullopt, "", "hw.memsize unreadable", ""};
    EXPECT_EQ(render_picture(p, 80, Glyphs::ascii),
              std::vector<std::string>{
                  "memory picture: none, physical memory is unknown (hw.memsize unreadable)"});
}

TEST(MemoryBar, BlocksOnlyOnAUtf8TerminalThatIsNotDumb) {
    EXPECT_EQ(choose_glyphs(true, "xterm-256color", "en_US.UTF-8"), Glyphs::blocks);
    EXPECT_EQ(choose_glyphs(true, "screen", "C.utf8"), Glyphs::blocks);
    EXPECT_EQ(choose_glyphs(false, "xterm-256color", "en_US.UTF-8"), Glyphs::ascii);  // piped
    EXPECT_EQ(choose_glyphs(true, "dumb", "en_US.UTF-8"), Glyphs::ascii);
    EXPECT_EQ(choose_glyphs(true, nullptr, "en_US.UTF-8"), Glyphs::ascii);
    EXPECT_EQ(choose_glyphs(true, "xterm", "C"), Glyphs::ascii);
    EXPECT_EQ(choose_glyphs(true, "xterm", nullptr), Glyphs::ascii);
}

}  // namespace
}  // namespace wiredcap::cli
