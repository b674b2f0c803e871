// The outsider's budget of system-log lines (helper/include/wiredcap/helper/journal/refusal_budget.hpp): ten a minute
// per uid, the tenth saying the rest are muted, a new window after a minute, a count per uid,
// kept in a directory only its owner can open.
#include "wiredcap/helper/journal/refusal_budget.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "../temp_tree.hpp"

namespace wiredcap::journal {
namespace {

class RefusalBudget : public ::testing::Test {
protected:
    test::TempTree tree_;
    const std::string dir_ = tree_.dir("journal");
    RefusalLog count(uid_t uid, std::int64_t now) {
        return count_refusal(dir_, ::geteuid(), uid, now);
    }
};

TEST_F(RefusalBudget, TenLinesAMinuteThenMuted) {
    for (std::uint64_t i = 1; i < kRefusalsPerWindow; ++i)
        EXPECT_EQ(count(501, 1000), RefusalLog::log) << i;
    EXPECT_EQ(count(501, 1010), RefusalLog::log_and_say_muted);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(count(501, 1059), RefusalLog::skip);
    // The window is a minute from its first refusal.
    EXPECT_EQ(count(501, 1060), RefusalLog::log);
}

// A caller's file-size limit survives the setuid exec, and root cannot lift it where it lacks
// CAP_SYS_RESOURCE (a container): at 0 the count could never be written, so every refusal was
// logged (audit a1: an outsider's `prlimit --fsize=0:0` loop flooded the system log). Where no
// count can be kept, none is logged.
TEST_F(RefusalBudget, AFileSizeLimitThatLeavesNoRoomForTheCountLiftsNoBudget) {
    struct rlimit saved {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto old = ::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit none { 0, saved.rlim_max };
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &none), 0);
    std::uint64_t logged = 0;
    for (std::uint64_t i = 0; i < 3 * kRefusalsPerWindow; ++i)
        logged += count(501, 1000) != RefusalLog::skip;
    ::setrlimit(RLIMIT_FSIZE, &saved);
    ::signal(SIGXFSZ, old);
    EXPECT_LE(logged, kRefusalsPerWindow);
}

TEST_F(RefusalBudget, EachUidHasItsOwnCount) {
    for (std::uint64_t i = 0; i < kRefusalsPerWindow + 5; ++i) (void)count(501, 1000);
    EXPECT_EQ(count(502, 1000), RefusalLog::log);
}

TEST_F(RefusalBudget, AClockSetBackStartsANewWindow) {
    for (std::uint64_t i = 0; i < kRefusalsPerWindow + 5; ++i) (void)count(501, 5000);
    EXPECT_EQ(count(501, 10), RefusalLog::log);
}

TEST_F(RefusalBudget, TheCountsAreTheOwnersAlone) {
    (void)count(501, 1000);
    struct stat st {};
    ASSERT_EQ(::stat((dir_ + "/.refusals").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_EQ(st.st_uid, ::geteuid());
}

TEST_F(RefusalBudget, AnUntrustedCountDirectoryLogsEverything) {
    tree_.dir("journal/.refusals", 0777);
    for (std::uint64_t i = 0; i < kRefusalsPerWindow + 5; ++i)
        EXPECT_EQ(count(501, 1000), RefusalLog::log);
}

}  // namespace
}  // namespace wiredcap::journal
