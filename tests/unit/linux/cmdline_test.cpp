// Kernel command lines (linux/src/cmdline.cpp): split as the kernel splits them.
#include <gtest/gtest.h>

#include "wiredcap/linux/cmdline.hpp"

using namespace wiredcap::linux_amd;

TEST(Cmdline, LastWinsAndDashIsUnderscore) {
    EXPECT_EQ(cmdline_value("ro ttm.pages_limit=1 quiet ttm.pages-limit=2", "ttm.pages_limit"),
              "2");
    EXPECT_FALSE(cmdline_value("ro amdttm.pages_limit=5", "ttm.pages_limit"));
    EXPECT_EQ(remove_param("quiet ttm.pages_limit=1 splash", "ttm.pages_limit"), "quiet splash");
    EXPECT_EQ(set_param("quiet ttm.pages_limit=1", "ttm.pages_limit", "9"),
              "quiet ttm.pages_limit=9");
    EXPECT_EQ(split_cmdline("a=\"b c\" d").size(), 2U);
}
