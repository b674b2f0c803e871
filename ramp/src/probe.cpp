#include "wiredcap/ramp/probe.hpp"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifndef NSIG
#define NSIG 32  // NOLINT: the classic signals; NSIG is an extension, present on Linux and macOS
#endif

extern char** environ;  // NOLINT: POSIX declares it nowhere in a header

namespace wiredcap::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// --- who the probe runs as -------------------------------------------------------------------

struct Identity {
    uid_t uid;
    gid_t gid;
};

// nobody: 65534 on Linux; on macOS -2 (/etc/passwd "nobody:*:-2:-2", uid and gid 4294967294).
#if defined(__APPLE__)
constexpr Identity kNobody{static_cast<uid_t>(-2), static_cast<gid_t>(-2)};
#else
constexpr Identity kNobody{65534, 65534};
#endif

// A SUDO_UID/SUDO_GID value we would accept: digits only, not 0 (root), not -1.
std::optional<std::uint32_t> parse_id(const char* s) {
    if (s == nullptr || *s == '\0' || std::strlen(s) > 10) return std::nullopt;
    std::uint64_t v = 0;
    for (const char* p = s; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9') return std::nullopt;
        v = v * 10 + static_cast<std::uint64_t>(*p - '0');
    }
    if (v == 0 || v >= UINT32_MAX) return std::nullopt;
    return static_cast<std::uint32_t>(v);
}

// Root never runs the person's command: it runs as the person sudo says invoked us, else as
// nobody. Decided in the parent, so the child does nothing but async-signal-safe calls.
std::optional<Identity> identity_to_drop_to() {
    if (::geteuid() != 0) return std::nullopt;  // already unprivileged
    const auto uid = parse_id(std::getenv("SUDO_UID"));
    const auto gid = parse_id(std::getenv("SUDO_GID"));
    if (!uid || !gid) return kNobody;
    return Identity{static_cast<uid_t>(*uid), static_cast<gid_t>(*gid)};
}

// --- the child -------------------------------------------------------------------------------

// Why the child could not run the command, sent to the parent over a close-on-exec pipe
// (which simply closes if execve succeeds).
enum class Stage : int { drop_privileges = 1, still_root, open_dev_null, exec };

struct ChildFailure {
    Stage stage;
    int error;
};

[[noreturn]] void child_fail(int report_fd, Stage stage, int code) {
    const ChildFailure f{stage, errno};
    [[maybe_unused]] const ssize_t n = ::write(report_fd, &f, sizeof f);
    ::_exit(code);
}

void reset_signals() {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig)
        ::sigaction(sig, &dfl, nullptr);  // SIGKILL/SIGSTOP just fail
}

[[noreturn]] void child_main(const std::optional<Identity>& drop, char* const argv[],
                             int report_fd) {
    ::setpgid(0, 0);  // its own group, so a timeout can kill everything it started
    if (drop) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(drop->gid) != 0 || ::setuid(drop->uid) != 0)
            child_fail(report_fd, Stage::drop_privileges, 126);
    }
    if (::getuid() == 0 || ::geteuid() == 0) child_fail(report_fd, Stage::still_root, 126);
    reset_signals();
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0 || ::dup2(null_fd, 0) < 0) child_fail(report_fd, Stage::open_dev_null, 126);
    if (null_fd != 0) ::close(null_fd);
    ::execve("/bin/sh", argv, environ);
    child_fail(report_fd, Stage::exec, 127);
}

std::string failure_text(const ChildFailure& f) {
    const std::string why = std::strerror(f.error);
    switch (f.stage) {
        case Stage::drop_privileges: return "cannot drop root privileges: " + why;
        case Stage::still_root: return "refusing to run the command as root";
        case Stage::open_dev_null: return "cannot open /dev/null: " + why;
        case Stage::exec: return "cannot run /bin/sh: " + why;
    }
    return "unknown failure";
}

// --- the parent ------------------------------------------------------------------------------

// Blocks until the child has exec'd (the pipe closes empty) or reported why it could not.
std::optional<ChildFailure> read_failure(int fd) {
    ChildFailure f{};
    ssize_t n = -1;
    do {
        n = ::read(fd, &f, sizeof f);
    } while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof f)) return f;
    return std::nullopt;
}

void nap(milliseconds d) {
    struct timespec ts {};
    ts.tv_sec = static_cast<time_t>(d.count() / 1000);
    ts.tv_nsec = static_cast<long>((d.count() % 1000) * 1000000);
    ::nanosleep(&ts, nullptr);
}

int reap(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return status;
}

// Waits for the child up to `deadline`. waitpid with WNOHANG and short naps: portable (no
// pidfd on macOS) and needs no SIGCHLD handler shared with the rest of wiredcap.
struct Wait {
    enum class State { exited, running, stopped, lost } state;
    int status;
};

Wait wait_until(pid_t pid, steady_clock::time_point deadline, const std::function<bool()>& stop) {
    for (milliseconds step{1};; step = std::min(step * 2, milliseconds{20})) {
        int status = 0;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) return {Wait::State::exited, status};
        if (r < 0 && errno != EINTR)
            return {Wait::State::lost, 0};  // reaped elsewhere (SIGCHLD ignored)
        if (stop && stop()) return {Wait::State::stopped, 0};
        if (steady_clock::now() >= deadline) return {Wait::State::running, 0};
        nap(step);
    }
}

void record_status(ProbeResult& r, int status) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
}

// "1.24" from 1236 ms: integer arithmetic, rounded to hundredths.
std::string seconds_2dp(milliseconds ms) {
    const long long cs = (ms.count() + 5) / 10;
    const long long frac = cs % 100;
    return std::to_string(cs / 100) + (frac < 10 ? ".0" : ".") + std::to_string(frac);
}

}  // namespace

ProbeResult run_probe(const std::string& command, std::chrono::seconds timeout,
                      const std::function<bool()>& stop) {
    ProbeResult result;
    const auto drop = identity_to_drop_to();
    std::string sh = "sh", dash_c = "-c", cmd = command;
    char* const argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};

    int report[2] = {-1, -1};
    if (::pipe(report) != 0) {
        result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
        return result;
    }
    for (int fd : report) ::fcntl(fd, F_SETFD, FD_CLOEXEC);

    const auto start = steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = std::string("cannot fork: ") + std::strerror(errno);
        ::close(report[0]);
        ::close(report[1]);
        return result;
    }
    if (pid == 0) {
        ::close(report[0]);
        child_main(drop, argv, report[1]);
    }
    ::setpgid(pid, pid);  // also here, so the group exists before we might kill it
    ::close(report[1]);
    const auto failure = read_failure(report[0]);
    ::close(report[0]);
    if (failure) {
        reap(pid);
        result.error = failure_text(*failure);
        return result;
    }

    Wait w = wait_until(pid, start + timeout, stop);
    if (w.state == Wait::State::running || w.state == Wait::State::stopped) {
        ::kill(-pid, SIGKILL);  // the whole group: a shell's children must not outlive it
        ::kill(pid, SIGKILL);
        result.timed_out = w.state == Wait::State::running;
        result.interrupted = w.state == Wait::State::stopped;
        w = {Wait::State::exited, reap(pid)};
    }
    result.elapsed = std::chrono::duration_cast<milliseconds>(steady_clock::now() - start);
    if (w.state == Wait::State::lost)
        result.error = "its exit status was lost (is SIGCHLD ignored?)";
    else record_status(result, w.status);
    return result;
}

std::string ProbeResult::describe() const {
    if (!error.empty()) return "could not start: " + error;
    if (interrupted) return "interrupted after " + seconds_2dp(elapsed) + " s (killed)";
    if (timed_out) {
        const long long whole = (elapsed.count() + 500) / 1000;
        return "timed out after " + std::to_string(whole) + " s (killed)";
    }
    if (exit_code)
        return "exit " + std::to_string(*exit_code) + " in " + seconds_2dp(elapsed) + " s";
    if (signal)
        return "killed by signal " + std::to_string(*signal) + " after " + seconds_2dp(elapsed) +
               " s";
    return "ended after " + seconds_2dp(elapsed) + " s";
}

}  // namespace wiredcap::cli
