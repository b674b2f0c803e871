// The guard process: it reverts a step nobody confirmed, when the prompting process dies or
// when the deadline (plus the grace) passes, and does nothing at all otherwise. A fake helper
// (a shell script that logs its arguments) stands in for wiredcap-helper.
#include "wiredcap/ramp/guard.hpp"

#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/readings/readings.hpp"

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
constexpr int kExitReverted = 3;      // the guard's exit status after it reverted a step
constexpr int kExitRevertFailed = 4;  // ... after a revert that never read back its target

units::MiB mib(std::uint64_t n) { return *units::MiB::from_count(n); }

std::string scratch_base() {
#ifdef WIREDCAP_TEST_TMP
    return WIREDCAP_TEST_TMP;
#else
    return (std::filesystem::current_path() / "guard-test-tmp")
        .string();  // ctest runs in the build tree
#endif
}

// A directory holding the fake helper, the knob it pretends to set and the log of its
// invocations. It answers as wiredcap-helper does where the guard looks: apply/reset read back
// the value written, `read` reports the knob. While the file `refuse` holds a number N > 0, the
// next N writes are refused (exit 5, no read-back).
class FakeHelper {
public:
    FakeHelper() {
        std::filesystem::create_directories(scratch_base());
        std::string tmpl = std::filesystem::absolute(scratch_base()).string() + "/guard-XXXXXX";
        if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
        dir_ = tmpl;
        log_ = dir_ + "/calls.log";
        set_knob(0);
        const std::string script = dir_ + "/fake-helper";
        std::ofstream(script)
            << "#!/bin/sh\n"
            << "d='" << dir_ << "'\n"
            << "printf '%s\\n' \"$*\" >> \"$d/calls.log\"\n"
            << "refuse=$(cat \"$d/refuse\" 2>/dev/null || echo 0)\n"
            << "case $1 in\n"
            << "apply|reset)\n"
            << "  if [ \"$refuse\" -gt 0 ]; then echo $((refuse - 1)) > \"$d/refuse\";\n"
            << "    printf '{\"ok\":false}\\n'; exit 5; fi\n"
            << "  v=0; [ \"$1\" = apply ] && v=${2%MiB}; echo \"$v\" > \"$d/knob\"\n"
            << "  printf '{\"ok\":true,\"readback_mib\":{\"value\":%s}}\\n' \"$v\" ;;\n"
            << "read) printf '{\"ok\":true,\"wired_limit_mib\":{\"value\":%s}}\\n' \"$(cat \"$d/knob\")\" ;;\n"
            << "*) printf '{\"ok\":true}\\n' ;;\n"
            << "esac\n";
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

    void set_knob(std::uint64_t mib) const { std::ofstream(dir_ + "/knob") << mib << "\n"; }
    void refuse_writes(int n) const { std::ofstream(dir_ + "/refuse") << n << "\n"; }
    [[nodiscard]] std::uint64_t knob() const {
        std::uint64_t v = 0;
        std::ifstream(dir_ + "/knob") >> v;
        return v;
    }

    [[nodiscard]] std::vector<std::string> calls() const {
        std::ifstream in(log_);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    }

    // Waits until the helper has been run `n` times (or `timeout` passes) and returns the calls.
    std::vector<std::string> wait_for_calls(std::size_t n, milliseconds timeout) const {
        const auto until = steady_clock::now() + timeout;
        while (calls().size() < n && steady_clock::now() < until)
            std::this_thread::sleep_for(milliseconds(20));
        return calls();
    }

    // Waits until a call starting with `prefix` is logged; returns all calls.
    std::vector<std::string> wait_for_call(const std::string& prefix, milliseconds timeout) const {
        const auto until = steady_clock::now() + timeout;
        for (;;) {
            auto c = calls();
            for (const auto& line : c)
                if (line.rfind(prefix, 0) == 0) return c;
            if (steady_clock::now() >= until) return c;
            std::this_thread::sleep_for(milliseconds(20));
        }
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
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        return std::nullopt;
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
    pid_t arm_and_kill_prompter(std::uint64_t step, std::optional<units::MiB> revert_to,
                                int tty_fd = -1, const struct termios* saved = nullptr) {
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
TEST_F(GuardTest, DoneAfterAConfirmationEndsTheGuardWithoutTouchingAnything) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g) << g.error().message;
    // setsid() runs in the child just after fork: give it a moment.
    const auto until = steady_clock::now() + milliseconds(1000);
    while (::getsid(g->pid()) != g->pid() && steady_clock::now() < until)
        std::this_thread::sleep_for(milliseconds(5));
    EXPECT_EQ(::getsid(g->pid()), g->pid()) << "the guard must lead its own session";
    g->arm(2, mib(81920), system_clock::now() + std::chrono::seconds(60));
    g->settled_confirmed(2);
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
        g->settled_confirmed(2);
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
        g->settled_confirmed(1);
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
    EXPECT_GE(took, std::chrono::seconds(1) + kGuardGrace - milliseconds(100))
        << "reverted before the grace";
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
TEST_F(GuardTest, ConfirmedSettlementPreventsTheRevert) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    // A deadline that passed almost a grace ago: the guard would act in 300 ms.
    g->arm(2, mib(81920), system_clock::now() - kGuardGrace + milliseconds(300));
    g->settled_confirmed(2);
    std::this_thread::sleep_for(milliseconds(1000));
    EXPECT_TRUE(helper.calls().empty());
    EXPECT_FALSE(exit_status_peek(g->pid()));
}

TEST_F(GuardTest, ReArmingForTheNextStepUsesTheNewStep) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    g->arm(1, std::nullopt, system_clock::now() + std::chrono::seconds(60));
    g->settled_confirmed(1);
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

// --- standing down only on evidence -------------------------------------------------

// `done` while a step is still armed is no reason to leave it in force.
TEST_F(GuardTest, DoneWhileArmedRevertsBeforeItExits) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    g->arm(2, mib(81920), system_clock::now() + std::chrono::seconds(60));
    g->done();
    EXPECT_EQ(wait_exit_peek(g->pid(), milliseconds(3000)), kExitReverted);
    const auto calls = helper.calls();
    ASSERT_EQ(calls.size(), 2U);
    EXPECT_EQ(calls[0], "apply 81920MiB --run R --step 2 --revert guard");
    EXPECT_EQ(calls[1], "end --run R --outcome reverted");
}

// wiredcap claims the step before its own helper call: the guard gives it room (its deadline
// moves to now + kHelperCallBudget) instead of racing it.
TEST_F(GuardTest, AClaimedStepGetsRoomForTheHelperCall) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    g->arm(2, mib(81920), system_clock::now() - kGuardGrace + milliseconds(300));
    EXPECT_EQ(g->claim(2), Guard::Answer::yours);
    std::this_thread::sleep_for(milliseconds(1000));
    EXPECT_TRUE(helper.calls().empty()) << "the guard reverted a step wiredcap had claimed";
    g->settled_confirmed(2);
    g->done();
    EXPECT_EQ(wait_exit_peek(g->pid(), milliseconds(2000)), kExitClean);
}

// wiredcap was stopped past the deadline: the guard reverted and ended the run, and says so,
// so a continued wiredcap writes nothing more (no second revert, no second end).
TEST_F(GuardTest, AClaimAfterTheGuardRevertedIsAnsweredMine) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    g->arm(2, mib(81920), system_clock::now() - kGuardGrace + milliseconds(100));
    ASSERT_EQ(helper.wait_for_calls(2, milliseconds(3000)).size(), 2U);
    EXPECT_EQ(g->claim(2), Guard::Answer::mine);
    EXPECT_EQ(g->settled_restored(2), Guard::Answer::mine);
    g->done();
    EXPECT_EQ(wait_exit_peek(g->pid(), milliseconds(2000)), kExitReverted);
    EXPECT_EQ(helper.calls().size(), 2U) << "the guard acted twice";
}

// wiredcap says its revert restored the target; the guard believes its own read, not that.
TEST_F(GuardTest, RestoredIsCheckedWithTheGuardsOwnRead) {
    helper.set_knob(81920);
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    g->arm(2, mib(81920), system_clock::now() + std::chrono::seconds(60));
    EXPECT_EQ(g->claim(2), Guard::Answer::yours);
    EXPECT_EQ(g->settled_restored(2), Guard::Answer::released);
    EXPECT_EQ(helper.calls(), std::vector<std::string>{"read"});
    g->done();
    EXPECT_EQ(wait_exit_peek(g->pid(), milliseconds(2000)), kExitClean);
    EXPECT_EQ(helper.calls().size(), 1U);
}

// The failure this guards against: wiredcap's revert never took effect (its helper call was killed by
// the hangup) and it said so anyway. The guard reads the step's value and reverts itself.
TEST_F(GuardTest, RestoredButTheKnobSaysOtherwiseTheGuardReverts) {
    helper.set_knob(98304);
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    g->arm(2, mib(81920), system_clock::now() + std::chrono::seconds(60));
    EXPECT_EQ(g->claim(2), Guard::Answer::yours);
    EXPECT_EQ(g->settled_restored(2), Guard::Answer::mine);
    const std::vector<std::string> want{"read", "apply 81920MiB --run R --step 2 --revert guard",
                                        "end --run R --outcome reverted"};
    EXPECT_EQ(helper.calls(), want);
    EXPECT_EQ(helper.knob(), 81920U);
    g->done();
    EXPECT_EQ(wait_exit_peek(g->pid(), milliseconds(2000)), kExitReverted);
}

// A revert the kernel refuses is retried within the grace; one that succeeds ends it.
TEST_F(GuardTest, ARefusedRevertIsRetried) {
    helper.set_knob(98304);
    helper.refuse_writes(2);
    const pid_t guard = arm_and_kill_prompter(2, mib(81920));
    ASSERT_GT(guard, 0);
    const auto calls = helper.wait_for_call("end", kGuardGrace + milliseconds(2000));
    const std::string apply = "apply 81920MiB --run R --step 2 --revert guard";
    const std::vector<std::string> want{apply,  "read", apply,
                                        "read", apply,  "end --run R --outcome reverted"};
    EXPECT_EQ(calls, want);
    EXPECT_EQ(helper.knob(), 81920U);
#if defined(__linux__)
    EXPECT_EQ(reap_orphan(guard, milliseconds(2000)), kExitReverted);
#endif
}

// A revert that never reads back its target: retried for the grace, then the run's end says
// revert_failed (not reverted), and the guard's exit status says so too.
TEST_F(GuardTest, ARevertThatNeverTakesIsJournaledAsFailed) {
    helper.set_knob(98304);
    helper.refuse_writes(1000);
    const auto t0 = steady_clock::now();
    const pid_t guard = arm_and_kill_prompter(2, mib(81920));
    ASSERT_GT(guard, 0);
    const auto calls = helper.wait_for_call("end", kGuardGrace + milliseconds(3000));
    const auto took = steady_clock::now() - t0;
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls.back(), "end --run R --outcome revert_failed");
    EXPECT_GE(calls.size(), 6U) << "fewer than three attempts within the grace";
    EXPECT_GE(took, kGuardGrace - milliseconds(100)) << "gave up before the grace";
    EXPECT_LE(took, kGuardGrace + milliseconds(2500)) << "kept trying long after the grace";
    EXPECT_EQ(helper.knob(), 98304U);
#if defined(__linux__)
    EXPECT_EQ(reap_orphan(guard, milliseconds(2000)), kExitRevertFailed);
#endif
}

// A guard that is gone answers nothing: wiredcap hears `gone` at once and acts alone.
TEST_F(GuardTest, AGuardThatIsGoneAnswersGone) {
    auto g = Guard::start(helper.client(), "R", -1, nullptr);
    ASSERT_TRUE(g);
    ::kill(g->pid(), SIGKILL);
    ASSERT_TRUE(wait_exit_peek(g->pid(), milliseconds(2000)));
    const auto t0 = steady_clock::now();
    EXPECT_EQ(g->claim(1), Guard::Answer::gone);
    EXPECT_LT(steady_clock::now() - t0, milliseconds(1000));
}

// Once Metal has been read (on a Mac: Metal, CoreGraphics and the Objective-C
// runtime loaded, with their threads) the guard is never forked. Checked in a child process, as
// the mark stays for the life of the process.
TEST_F(GuardTest, RefusesToForkAfterMetalWasRead) {
    const pid_t child = ::fork();
    if (child == 0) {
        auto before = Guard::start(helper.client(), "R", -1, nullptr);
        if (!before) ::_exit(10);
        before->done();
        MachineReadings machine;
        machine.backend = "darwin";
        (void)read_metal(machine, DevPaths{});
        auto after = Guard::start(helper.client(), "R", -1, nullptr);
        ::_exit(after ? 11 : 0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "10: the guard did not start before Metal; 11: it started after";
}

}  // namespace
}  // namespace wiredcap::cli
