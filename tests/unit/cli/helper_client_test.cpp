// How wiredcap runs the helper: a helper call, a revert above all, must not
// be reachable by the end of the terminal session. A fake helper (a shell script) reports what
// it was started with, as Linux's /proc shows it.
#include "wiredcap/cli/readings/helper_client.hpp"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace wiredcap::cli {
namespace {

#if defined(__linux__)

std::string scratch_base() {
#ifdef WIREDCAP_TEST_TMP
    return WIREDCAP_TEST_TMP;
#else
    return (std::filesystem::current_path() / "helper-client-test-tmp").string();
#endif
}

class SpawnTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::filesystem::create_directories(scratch_base());
        std::string tmpl = std::filesystem::absolute(scratch_base()).string() + "/spawn-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
        script_ = dir_ + "/fake-helper";
        // Field 5 of /proc/PID/stat is the process group; SigBlk the blocked signals (hex).
        std::ofstream(script_)
            << "#!/bin/sh\n"
            << "pgid=$(cut -d' ' -f5 /proc/$$/stat)\n"
            << "blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$$/status)\n"
            << "in=$(readlink /proc/$$/fd/0)\n"
            << "printf '{\"pid\":%s,\"pgid\":%s,\"blocked\":\"%s\",\"stdin\":\"%s\"}\\n' "
               "$$ \"$pgid\" \"$blk\" \"$in\"\n";
        ::chmod(script_.c_str(), 0755);
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    std::string dir_;
    std::string script_;
};

bool blocked(const std::string& hex_mask, int sig) {
    const std::uint64_t mask = std::stoull(hex_mask, nullptr, 16);
    return ((mask >> (sig - 1)) & 1U) != 0;
}

TEST_F(SpawnTest, TheHelperRunsInItsOwnGroupOffTheTerminalWithHangupBlocked) {
    const HelperClient client(script_, DevPaths{});
    const HelperReply r = client.run({"read"});
    ASSERT_TRUE(r.ok()) << r.error;
    const auto pid = json::as_u64(*json::get(*r.json, "pid"));
    const auto pgid = json::as_u64(*json::get(*r.json, "pgid"));
    ASSERT_TRUE(pid && pgid);
    EXPECT_EQ(*pgid, *pid) << "the helper must lead its own process group";
    EXPECT_NE(*pgid, static_cast<std::uint64_t>(::getpgrp()))
        << "the helper is in wiredcap's process group";
    EXPECT_EQ(*json::as_string(*json::get(*r.json, "stdin")), "/dev/null");
    const std::string mask = *json::as_string(*json::get(*r.json, "blocked"));
    for (const int sig : {SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU})
        EXPECT_TRUE(blocked(mask, sig))
            << "signal " << sig << " is not blocked (mask " << mask << ")";
    EXPECT_FALSE(blocked(mask, SIGCHLD))
        << "more than the ending signals blocked (mask " << mask << ")";
}

#endif

}  // namespace
}  // namespace wiredcap::cli
