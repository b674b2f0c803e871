// The probe: the person's own check command, run through /bin/sh, never as root, killed with
// its whole process group when it runs past its timeout.
#include "wiredcap/ramp/probe.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

namespace wiredcap::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A scratch directory the probe can write to whoever it runs as (nobody, when the tests run
// as root): mode 0777, so it lives in /tmp rather than under the build tree.
class ScratchDir {
public:
    ScratchDir() {
        std::string tmpl = "/tmp/wiredcap-probe-XXXXXX";
        if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
        ::chmod(path_.c_str(), 0777);
    }
    ~ScratchDir() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Sets (or, with nullopt, removes) an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        set(value);
    }
    ~ScopedEnv() { set(old_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    void set(const std::optional<std::string>& v) {
        if (v) ::setenv(name_, v->c_str(), 1);
        else ::unsetenv(name_);
    }
    const char* name_;
    std::optional<std::string> old_;
};

// ---- results ----------------------------------------------------------------------------------

TEST(Probe, ExitZeroPasses) {
    const ProbeResult r = run_probe("true", seconds(10));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(r.signal);
    EXPECT_FALSE(r.timed_out);
    EXPECT_TRUE(r.passed());
    EXPECT_EQ(r.describe().rfind("exit 0 in ", 0), 0U) << r.describe();
}

TEST(Probe, NonZeroExitIsReportedAndFails) {
    const ProbeResult r = run_probe("exit 3", seconds(10));
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_FALSE(r.passed());
    EXPECT_EQ(r.describe().rfind("exit 3 in ", 0), 0U) << r.describe();
}

TEST(Probe, DeathBySignalIsReported) {
    const ProbeResult r = run_probe("kill -9 $$", seconds(10));
    EXPECT_FALSE(r.exit_code);
    EXPECT_EQ(r.signal, SIGKILL);
    EXPECT_FALSE(r.timed_out);
    EXPECT_FALSE(r.passed());
    EXPECT_EQ(r.describe().rfind("killed by signal 9 after ", 0), 0U) << r.describe();
}

TEST(Probe, ElapsedTimeIsMeasured) {
    const ProbeResult r = run_probe("sleep 0.3", seconds(10));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_GE(r.elapsed, milliseconds(290));
    EXPECT_LT(r.elapsed, milliseconds(3000));
}

// ---- timeout ----------------------------------------------------------------------------------

TEST(Probe, TimeoutKillsTheWholeProcessGroup) {
    ScratchDir dir;
    const std::string witness = dir.file("survived");
    // A background child of the shell that would write the witness file after 1.5 s.
    const ProbeResult r =
        run_probe("(sleep 1.5; echo yes > " + witness + ") & sleep 30", seconds(1));
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.passed());
    EXPECT_GE(r.elapsed, milliseconds(1000));
    EXPECT_LT(r.elapsed, milliseconds(2500));
    EXPECT_EQ(r.describe(), "timed out after 1 s (killed)");
    std::this_thread::sleep_for(
        milliseconds(1200));  // past the moment the child would have written
    EXPECT_FALSE(std::filesystem::exists(witness)) << "a child of the probe outlived its timeout";
}

// ---- isolation --------------------------------------------------------------------------------

TEST(Probe, StdinIsDevNull) {
    // `cat` on a terminal or an open pipe would wait; on /dev/null it ends at once.
    const ProbeResult r = run_probe("cat", seconds(5));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(r.timed_out);
}

TEST(Probe, RunsInItsOwnProcessGroup) {
    ScratchDir dir;
    const std::string out = dir.file("pgid");
    // The shell's process group: field 5 of /proc/PID/stat (Linux), else ps (macOS).
    const ProbeResult r = run_probe(
        "{ cut -d' ' -f5 /proc/$$/stat 2>/dev/null || ps -o pgid= -p $$; } > " + out, seconds(5));
    ASSERT_EQ(r.exit_code, 0);
    const std::string text = slurp(out);
    ASSERT_FALSE(text.empty()) << "no process group read";
    EXPECT_NE(std::stol(text), static_cast<long>(::getpgrp()));
}

TEST(Probe, IgnoredSignalsAreNotInherited) {
    // wiredcap ignores SIGPIPE (the guard's pipe) and a caller may ignore SIGINT: the person's
    // command must start with default dispositions all the same.
    struct sigaction ign {
    }, old_int{};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    ::sigaction(SIGINT, &ign, &old_int);
    const ProbeResult r = run_probe("kill -INT $$; sleep 1", seconds(5));
    ::sigaction(SIGINT, &old_int, nullptr);
    EXPECT_EQ(r.signal, SIGINT) << r.describe();
}

std::string ids_of_probe(const ScratchDir& dir) {
    const std::string out = dir.file("ids");
    const ProbeResult r = run_probe("{ id -u; id -g; } > " + out, seconds(5));
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return slurp(out);
}

TEST(Probe, NeverRunsAsRootWithoutSudo) {
    ScratchDir dir;
    ScopedEnv uid("SUDO_UID", std::nullopt), gid("SUDO_GID", std::nullopt);
    if (::geteuid() != 0) {
        EXPECT_EQ(ids_of_probe(dir),
                  std::to_string(::getuid()) + "\n" + std::to_string(::getgid()) + "\n");
        return;
    }
    EXPECT_EQ(ids_of_probe(dir), "65534\n65534\n");
}

TEST(Probe, RunsAsTheSudoCallerWhenRoot) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root";
    ScratchDir dir;
    ScopedEnv uid("SUDO_UID", "1234"), gid("SUDO_GID", "2345");
    EXPECT_EQ(ids_of_probe(dir), "1234\n2345\n");
}

TEST(Probe, InvalidSudoIdsFallBackToNobody) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root";
    ScratchDir dir;
    for (const char* bad : {"0", "", "12x", "-5", " 7", "99999999999"}) {
        ScopedEnv uid("SUDO_UID", bad), gid("SUDO_GID", "2345");
        EXPECT_EQ(ids_of_probe(dir), "65534\n65534\n") << "SUDO_UID=" << bad;
    }
    ScopedEnv uid("SUDO_UID", "1234"), gid("SUDO_GID", "0");
    EXPECT_EQ(ids_of_probe(dir), "65534\n65534\n") << "SUDO_GID=0";
}

// ---- describe() -------------------------------------------------------------------------------

TEST(ProbeDescribe, SaysWhatHappenedWithHundredths) {
    ProbeResult r;
    r.exit_code = 0;
    r.elapsed = milliseconds(1236);
    EXPECT_EQ(r.describe(), "exit 0 in 1.24 s");
    r.exit_code = 3;
    r.elapsed = milliseconds(20);
    EXPECT_EQ(r.describe(), "exit 3 in 0.02 s");
    r.exit_code.reset();
    r.signal = 9;
    r.elapsed = milliseconds(500);
    EXPECT_EQ(r.describe(), "killed by signal 9 after 0.50 s");
    r.timed_out = true;
    r.elapsed = milliseconds(30012);
    EXPECT_EQ(r.describe(), "timed out after 30 s (killed)");
}

TEST(ProbeDescribe, ACommandThatNeverStartedSaysWhy) {
    ProbeResult r;
    r.error = "cannot fork: Resource temporarily unavailable";
    EXPECT_EQ(r.describe(), "could not start: cannot fork: Resource temporarily unavailable");
    EXPECT_FALSE(r.passed());
}

}  // namespace
}  // namespace wiredcap::cli
