// The guard process: it reverts a step nobody confirmed, when the prompting process dies or
// when the deadline (plus the grace) passes, and does nothing at all otherwise. A fake helper
// (a shell script that logs its arguments) stands in for wiredcap-helper.
#include "guard.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace wiredcap::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using std::chrono::system_clock;

constexpr int kExitClean = 0;
constexpr int kExitReverted = 3;  // the guard's exit status after it reverted a step

units::MiB mib(std::uint64_t n) { return *units::MiB::from_count(n); }

std::string scratch_base() {
#ifdef WIREDCAP_TEST_TMP
    return WIREDCAP_TEST_TMP;
#else
    return (std::filesystem::current_path() / "guard-test-tmp").string();  // ctest runs in the build tree
#endif
}

// A directory holding the fake helper and the log of its invocations.
class FakeHelper {
public:
    FakeHelper() {
        std::filesystem::create_directories(scratch_base());
        std::string tmpl = std::filesystem::absolute(scratch_base()).string() + "/guard-XXXXXX";
        if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
        dir_ = tmpl;
        log_ = dir_ + "/calls.log";
        const std::string script = dir_ + "/fake-helper";
        std::ofstream(script) << "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" << log_ << "'\nprintf '{\"ok\":true}\\n'\n";
        ::chmod(script.c_str(), 0755);
        client_.emplace(script, DevPaths{});
    }
    ~FakeHelper() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    FakeHelper(const FakeHelper&) = delete;
    FakeHelper& operator=(const FakeHelper&) = delete;

    [[nodiscard]] const HelperClient& client() const { return *client_; }

    [[nodiscard]] std::vector<std::string> calls() const {
        std::ifstream in(log_);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    }

    // Waits until the helper has been run `n` times (or `timeout` passes) and returns the calls.
    std::vector<std::string> wait_for_calls(std::size_t n, milliseconds timeout) const {
        const auto until = steady_clock::now() + timeout;
        while (calls().size() < n && steady_clock::now() < until) std::this_thread::sleep_for(milliseconds(20));
        return calls();
    }

private:
    std::string dir_;
    std::string log_;
    std::optional<HelperClient> client_;
};

// The exit status of `pid` once it has exited, without reaping it (WNOWAIT), so the Guard's
// destructor can still reap its own child. nullopt while it runs.
std::optional<int> exit_status_peek(pid_t pid) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return std::nullopt;
    if (info.si_pid != pid) return std::nullopt;
    return info.si_code == CLD_EXITED ? info.si_status : -info.si_status;
}

std::optional<int> wait_exit_peek(pid_t pid, milliseconds timeout) {
    const auto until = steady_clock::now() + timeout;
    for (;;) {
        if (auto s = exit_status_peek(pid)) return s;
        if (steady_clock::now() >= until) return std::nullopt;
        std::this_thread::sleep_for(milliseconds(10));
    }
}

// Reaps a guard that is not ours to reap through a Guard object (its parent was killed and
// this process is its subreaper). Returns its exit status, or nullopt.
std::optional<int> reap_orphan(pid_t pid, milliseconds timeout) {
    auto s = wait_exit_peek(pid, timeout);
    if (s) ::waitpid(pid, nullptr, 0);
    return s;
}

class GuardTest : public ::testing::Test {
protected:
    // Guards whose parent we kill are re-parented; on Linux make that parent this test
    // process, so their exit can be observed and they are reaped.
    static void SetUpTestSuite() {
#if defined(__linux__)
        ::prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
    }

    // Starts a guard in a child process, arms it, then kills that child with SIGKILL: the
    // prompting process dies without a word. Returns the guard's pid.
    pid_t arm_and_kill_prompter(std::uint64_t step, std::optional<units::MiB> revert_to, int tty_fd = -1,
                                const struct termios* saved = nullptr) {
        int report[2];
        if (::pipe(report) != 0) return -1;
        const pid_t prompter = ::fork();
        if (prompter == 0) {
            ::close(report[0]);
            auto g = Guard::start(helper.client(), "R", tty_fd, saved);
            if (!g) ::_exit(1);
            g->arm(step, revert_to, system_clock::now() + std::chrono::seconds(60));
            const pid_t guard_pid = g->pid();
            [[maybe_unused]] const ssize_t n = ::write(report[1], &guard_pid, sizeof guard_pid);
            for (;;) ::pause();
        }
        ::close(report[1]);
        pid_t guard_pid = -1;
        const ssize_t n = ::read(report[0], &guard_pid, sizeof guard_pid);
        ::close(report[0]);
        ::kill(prompter, SIGKILL);
        ::waitpid(prompter, nullptr, 0);
        return n == static_cast<ssize_t>(sizeof guard_pid) ? guard_pid : -1;
    }

    FakeHelper helper;
};

// (a) The ramp ended cleanly: the guard goes away and never runs the helper.
TEST_F(GuardTest, DoneEndsTheGuardWithoutTouchingAnything) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g) << g.error().message;
    // setsid() runs in the child just after fork: give it a moment.
    const auto until = steady_clock::now() + milliseconds(1000);
    while (::getsid(g->pid()) != g->pid() && steady_clock::now() < until) std::this_thread::sleep_for(milliseconds(5));
    EXPECT_EQ(::getsid(g->pid()), g->pid()) << "the guard must lead its own session";
    g->arm(2, mib(81920), system_clock::now() + std::chrono::seconds(60));
    g->done();
    EXPECT_EQ(wait_exit_peek(g->pid(), milliseconds(2000)), kExitClean);
    EXPECT_TRUE(helper.calls().empty());
}

TEST_F(GuardTest, DestructorSendsDoneAndReaps) {
    pid_t pid = -1;
    {
        auto g = Guard::start(helper.client(), "R", -1, nullptr);
        ASSERT_TRUE(g);
        pid = g->pid();
        g->arm(2, mib(81920), system_clock::now() + std::chrono::seconds(60));
    }
    EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1) << "already reaped";
    EXPECT_TRUE(helper.calls().empty());
}

// (b) The prompting process was killed while a step awaited confirmation.
TEST_F(GuardTest, PromptKilledWhileArmedRevertsToTheLastConfirmedValue) {
    const pid_t guard = arm_and_kill_prompter(2, mib(81920));
    ASSERT_GT(guard, 0);
    const auto calls = helper.wait_for_calls(2, milliseconds(3000));
    ASSERT_EQ(calls.size(), 2U);
    EXPECT_EQ(calls[0], "apply 81920MiB --run R --step 2 --revert guard");
    EXPECT_EQ(calls[1], "end --run R --outcome reverted");
#if defined(__linux__)
    EXPECT_EQ(reap_orphan(guard, milliseconds(2000)), kExitReverted);
#endif
}

// (e) The last confirmed value was the OS default: the revert is a reset.
TEST_F(GuardTest, RevertToTheDefaultIsAReset) {
    const pid_t guard = arm_and_kill_prompter(1, std::nullopt);
    ASSERT_GT(guard, 0);
    const auto calls = helper.wait_for_calls(2, milliseconds(3000));
    ASSERT_EQ(calls.size(), 2U);
    EXPECT_EQ(calls[0], "reset --run R --step 1 --revert guard");
    EXPECT_EQ(calls[1], "end --run R --outcome reverted");
#if defined(__linux__)
    (void)reap_orphan(guard, milliseconds(2000));
#endif
}

TEST_F(GuardTest, PromptKilledWhileNotArmedTouchesNothing) {
    int report[2];
    ASSERT_EQ(::pipe(report), 0);
    const pid_t prompter = ::fork();
    if (prompter == 0) {
        auto g = Guard::start(helper.client(), "R", -1, nullptr);
        if (!g) ::_exit(1);
        g->arm(1, mib(65536), system_clock::now() + std::chrono::seconds(60));
        g->disarm();
        const pid_t guard_pid = g->pid();
        [[maybe_unused]] const ssize_t n = ::write(report[1], &guard_pid, sizeof guard_pid);
        for (;;) ::pause();
    }
    ::close(report[1]);
    pid_t guard = -1;
    ASSERT_EQ(::read(report[0], &guard, sizeof guard), static_cast<ssize_t>(sizeof guard));
    ::close(report[0]);
    ::kill(prompter, SIGKILL);
    ::waitpid(prompter, nullptr, 0);
#if defined(__linux__)
    EXPECT_EQ(reap_orphan(guard, milliseconds(2000)), kExitClean);
#else
    std::this_thread::sleep_for(milliseconds(500));
#endif
    EXPECT_TRUE(helper.calls().empty());
}

// (c) Nobody confirmed and the prompter is alive but stuck: the deadline plus the grace.
TEST_F(GuardTest, DeadlineWithoutConfirmationRevertsOnceAfterTheGrace) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    const auto t0 = steady_clock::now();
    g->arm(2, mib(81920), system_clock::now() + std::chrono::seconds(1));
    const auto limit = std::chrono::seconds(1) + kGuardGrace + std::chrono::seconds(1);
    const auto calls = helper.wait_for_calls(2, std::chrono::duration_cast<milliseconds>(limit));
    const auto took = steady_clock::now() - t0;
    ASSERT_EQ(calls.size(), 2U);
    EXPECT_EQ(calls[0], "apply 81920MiB --run R --step 2 --revert guard");
    EXPECT_EQ(calls[1], "end --run R --outcome reverted");
    EXPECT_GE(took, std::chrono::seconds(1) + kGuardGrace - milliseconds(100)) << "reverted before the grace";
    EXPECT_LE(took, limit);

    // It stays until told: never a second revert, and it still reports the one it made.
    std::this_thread::sleep_for(milliseconds(300));
    EXPECT_FALSE(exit_status_peek(g->pid())) << "the guard left before the prompter said done";
    EXPECT_EQ(helper.calls().size(), 2U);
    g->done();
    EXPECT_EQ(wait_exit_peek(g->pid(), milliseconds(2000)), kExitReverted);
    EXPECT_EQ(helper.calls().size(), 2U);
}

// (d) Confirmed in time: nothing happens when the deadline passes.
TEST_F(GuardTest, DisarmPreventsTheRevert) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    // A deadline that passed almost a grace ago: the guard would act in 300 ms.
    g->arm(2, mib(81920), system_clock::now() - kGuardGrace + milliseconds(300));
    g->disarm();
    std::this_thread::sleep_for(milliseconds(1000));
    EXPECT_TRUE(helper.calls().empty());
    EXPECT_FALSE(exit_status_peek(g->pid()));
}

TEST_F(GuardTest, ReArmingForTheNextStepUsesTheNewStep) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    g->arm(1, std::nullopt, system_clock::now() + std::chrono::seconds(60));
    g->disarm();
    g->arm(2, mib(73728), system_clock::now() - kGuardGrace + milliseconds(100));
    const auto calls = helper.wait_for_calls(2, milliseconds(2000));
    ASSERT_EQ(calls.size(), 2U);
    EXPECT_EQ(calls[0], "apply 73728MiB --run R --step 2 --revert guard");
}

TEST_F(GuardTest, MovedFromGuardDoesNothing) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    const pid_t pid = g->pid();
    {
        Guard moved(std::move(*g));
        EXPECT_EQ(moved.pid(), pid);
        EXPECT_EQ(g->pid(), -1);
        g->arm(1, std::nullopt, system_clock::now());  // goes nowhere
        g->done();
    }
    EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1) << "the new owner reaped it";
    EXPECT_TRUE(helper.calls().empty());
}

// The guard puts the terminal back the way the prompter found it, since the prompter
// cannot once it is dead.
TEST_F(GuardTest, RestoresTheTerminalSettingsItWasGiven) {
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    ASSERT_GE(master, 0);
    ASSERT_EQ(::grantpt(master), 0);
    ASSERT_EQ(::unlockpt(master), 0);
    const int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
    ASSERT_GE(slave, 0);
    struct termios saved {};
    ASSERT_EQ(::tcgetattr(slave, &saved), 0);
    struct termios raw = saved;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    ASSERT_EQ(::tcsetattr(slave, TCSANOW, &raw), 0);

    const pid_t guard = arm_and_kill_prompter(3, mib(98304), slave, &saved);
    ASSERT_GT(guard, 0);
    EXPECT_EQ(helper.wait_for_calls(2, milliseconds(3000)).size(), 2U);
#if defined(__linux__)
    (void)reap_orphan(guard, milliseconds(2000));
#else
    std::this_thread::sleep_for(milliseconds(300));
#endif
    struct termios now {};
    ASSERT_EQ(::tcgetattr(slave, &now), 0);
    EXPECT_EQ(now.c_lflag, saved.c_lflag);
    EXPECT_EQ(now.c_iflag, saved.c_iflag);
    ::close(slave);
    ::close(master);
}

}  // namespace
}  // namespace wiredcap::cli
