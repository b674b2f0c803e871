#include "wiredcap/cli/suggest.hpp"

#include <gtest/gtest.h>

namespace wiredcap::cli {
namespace {

const std::vector<std::string> kCommands{"convert", "status", "set",     "reset",
                                         "policy",  "ramp",   "recover", "persist"};

TEST(NearestWord, NamesTheCommandATypoMeant) {
    EXPECT_EQ(nearest_word("stauts", kCommands), "status");  // two letters swapped
    EXPECT_EQ(nearest_word("statu", kCommands), "status");   // one missing
    EXPECT_EQ(nearest_word("rest", kCommands), "reset");
    EXPECT_EQ(nearest_word("recovr", kCommands), "recover");
    EXPECT_EQ(nearest_word("persits", kCommands), "persist");
    EXPECT_EQ(nearest_word("chek", {"check"}), "check");
}

TEST(NearestWord, SuggestsNothingForAWordFarFromEveryCommand) {
    EXPECT_EQ(nearest_word("frobnicate", kCommands), std::nullopt);
    EXPECT_EQ(nearest_word("x", kCommands), std::nullopt);
    EXPECT_EQ(nearest_word("", kCommands), std::nullopt);
    EXPECT_EQ(nearest_word(std::string(100000, 's'), kCommands), std::nullopt);
}

}  // namespace
}  // namespace wiredcap::cli
