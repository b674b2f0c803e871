// fit's need against the cap: both in MiB, the gap never smaller than it is, and a need a little
// over the cap never drawn as if it fitted.
#include <gtest/gtest.h>

#include "wiredcap/cli/commands/fit_picture.hpp"

namespace wiredcap::fit {
namespace {

using units::Bytes;
using units::MiB;

Bytes mib(std::uint64_t n) { return Bytes(MiB::from_count_or_throw(n)); }

TEST(FitPicture, NeedRoundedUpCapDownInMiB) {
    // One byte over 1000 MiB is 1001 MiB needed; one byte under 1000 MiB of cap allows 999.
    const NeedVsCap n{Bytes::from_count_or_throw(mib(1000).count() + 1),
                      Bytes::from_count_or_throw(mib(1000).count() - 1), "Metal", std::nullopt};
    EXPECT_EQ(need_vs_cap_text(n), "1001 MiB needed, 999 MiB allowed now: 2 MiB short");
    EXPECT_EQ(need_vs_cap_text({mib(900), mib(1000), "Metal", std::nullopt}),
              "900 MiB needed, 1000 MiB allowed now: 100 MiB to spare");
    EXPECT_EQ(need_vs_cap_text({mib(900), std::nullopt, "no Metal", std::nullopt}),
              "900 MiB needed; the cap now is unknown");
    EXPECT_TRUE(
        need_vs_cap_bars({mib(900), mib(1000), "Metal", std::nullopt}, 80, cli::Glyphs::ascii)
            .empty());
}

TEST(FitPicture, ANeedOverTheCapNeverLooksShorterThanIt) {
    // 62 cells of 100 MiB: a need of 5001 MiB takes 51 cells, a cap of 5099 MiB draws 50.
    const auto rows =
        need_vs_cap_bars({mib(5001), mib(5099), "Metal", mib(6200)}, 80, cli::Glyphs::ascii);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0], "  need          [" + std::string(51, '#') + std::string(11, '.') + "]");
    EXPECT_EQ(rows[1], "  cap now       [" + std::string(50, '=') + std::string(12, '.') + "]");
    EXPECT_EQ(rows[0].size(), 80u);
    const auto unknown =
        need_vs_cap_bars({mib(5001), std::nullopt, "no Metal", mib(6200)}, 80, cli::Glyphs::ascii);
    EXPECT_EQ(unknown[1], "  cap now       [" + std::string(62, '?') + "]");
}

}  // namespace
}  // namespace wiredcap::fit
