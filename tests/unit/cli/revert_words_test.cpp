// Every --revert word wiredcap can send is one the helper's own parser takes: a word it refused
// (the ramp once sent `yes` after a refused confirmation) left the step applied while the run
// was recorded as reverted.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "wiredcap/ramp/terminal_prompt.hpp"
#include "wiredcap/helper/args.hpp"

namespace wiredcap::cli {
namespace {

bool helper_takes(std::string_view word) {
    const std::vector<std::string_view> args{
        "reset", "--run", "r-20261206-120000-abcd", "--step", "2", "--revert", word};
    return helper::parse_args(args).has_value();
}

TEST(RevertWords, EveryAnswerRevertsWithAWordTheHelperTakes) {
    for (const Answer a : {Answer::yes, Answer::stop, Answer::no, Answer::eof, Answer::interrupt,
                           Answer::terminate, Answer::hangup, Answer::timeout})
        EXPECT_TRUE(helper_takes(revert_word(a)))
            << answer_name(a) << " reverts with " << revert_word(a);
}

TEST(RevertWords, TheRampsOtherWordsAreTheHelpersToo) {
    // The guard's, a read-back that differs, an unattended check that failed (ramp.cpp, guard.cpp).
    for (const std::string_view w : {"guard", "mismatch", "probe"})
        EXPECT_TRUE(helper_takes(w)) << w;
}

TEST(RevertWords, AKeptAnswerIsNeverTheRevertWord) {
    EXPECT_EQ(revert_word(Answer::yes), "unconfirmed");
    EXPECT_EQ(revert_word(Answer::stop), "unconfirmed");
    EXPECT_FALSE(helper_takes("yes"));
}

}  // namespace
}  // namespace wiredcap::cli
