#include "guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

namespace wiredcap::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::system_clock;

// The guard's exit status tells whoever reaps it whether it had to revert a step. The journal
// (the helper's `end --outcome reverted`) is the record that matters; this is a convenience.
constexpr int kGuardExitClean = 0;
constexpr int kGuardExitReverted = 3;

// Messages are a few dozen bytes; anything longer is not from us and is dropped.
constexpr std::size_t kMaxMessage = 256;

long long now_ms() {
    return std::chrono::duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// --- the guard process -----------------------------------------------------------------------

// What the guard knows: the step awaiting confirmation, if any.
struct Armed {
    std::uint64_t step = 0;
    std::optional<std::uint64_t> revert_to_mib;  // nullopt: the OS default
    long long deadline_ms = 0;
};

std::optional<std::uint64_t> parse_u64(const std::string& s) {
    if (s.empty() || s.size() > 20 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno != 0) return std::nullopt;
    return v;
}

// "arm <step> <revert-to-MiB|default> <deadline-ms>"; nullopt if malformed.
std::optional<Armed> parse_arm(const std::string& rest) {
    std::istringstream in(rest);
    std::string step, to, deadline, extra;
    if (!(in >> step >> to >> deadline) || (in >> extra)) return std::nullopt;
    Armed a;
    const auto s = parse_u64(step);
    const auto d = parse_u64(deadline);
    if (!s || !d || *d > static_cast<std::uint64_t>(LLONG_MAX)) return std::nullopt;
    a.step = *s;
    a.deadline_ms = static_cast<long long>(*d);
    if (to != "default") {
        a.revert_to_mib = parse_u64(to);
        if (!a.revert_to_mib) return std::nullopt;
    }
    return a;
}

class GuardProcess {
public:
    GuardProcess(const HelperClient& helper, std::string run_id, int pipe_fd, int tty_fd,
                 std::optional<struct termios> saved)
        : helper_(helper), run_id_(std::move(run_id)), pipe_(pipe_fd), tty_(tty_fd), saved_(saved) {}

    [[noreturn]] void run() {
        for (;;) {
            struct pollfd pfd = {pipe_, POLLIN, 0};
            const int rc = ::poll(&pfd, 1, poll_timeout());
            if (rc < 0 && errno != EINTR) finish();  // cannot watch any more: behave as if orphaned
            // Messages first: a disarm that arrived in time counts even if we woke up late.
            if (rc > 0) read_messages();
            if (armed_ && now_ms() >= armed_->deadline_ms + grace_ms()) revert();
        }
    }

private:
    static long long grace_ms() { return std::chrono::duration_cast<milliseconds>(kGuardGrace).count(); }

    // Sleep until the armed deadline plus the grace, or forever while nothing is armed.
    [[nodiscard]] int poll_timeout() const {
        if (!armed_) return -1;
        const long long left = armed_->deadline_ms + grace_ms() - now_ms();
        return static_cast<int>(std::clamp(left, 0LL, static_cast<long long>(INT_MAX)));
    }

    void read_messages() {
        char buf[512];
        const ssize_t n = ::read(pipe_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) return;
        if (n <= 0) finish();  // the prompting process is gone
        pending_.append(buf, static_cast<std::size_t>(n));
        for (auto nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n')) {
            const std::string line = pending_.substr(0, nl);
            pending_.erase(0, nl + 1);
            handle(line);
        }
        if (pending_.size() > kMaxMessage) pending_.clear();
    }

    void handle(const std::string& line) {
        if (line == "done") ::_exit(exit_status());  // the ramp ended cleanly: touch nothing
        if (line == "disarm") {
            armed_.reset();
        } else if (line.rfind("arm ", 0) == 0) {
            if (auto a = parse_arm(line.substr(4))) armed_ = *a;
        }
    }

    // The pipe closed: if a step was awaiting confirmation, nobody will confirm it now.
    [[noreturn]] void finish() {
        if (armed_) revert();
        ::_exit(exit_status());
    }

    void revert() {
        const Armed a = *armed_;
        armed_.reset();  // once: a revert is never repeated, whatever happens next
        const std::string step = std::to_string(a.step);
        if (a.revert_to_mib) {
            (void)helper_.run({"apply", std::to_string(*a.revert_to_mib) + "MiB", "--run", run_id_, "--step", step,
                               "--revert", "guard"});
        } else {
            (void)helper_.run({"reset", "--run", run_id_, "--step", step, "--revert", "guard"});
        }
        (void)helper_.run({"end", "--run", run_id_, "--outcome", "reverted"});
        if (tty_ >= 0 && saved_) ::tcsetattr(tty_, TCSAFLUSH, &*saved_);
        reverted_ = true;
    }

    [[nodiscard]] int exit_status() const { return reverted_ ? kGuardExitReverted : kGuardExitClean; }

    const HelperClient& helper_;
    std::string run_id_;
    int pipe_;
    int tty_;
    std::optional<struct termios> saved_;
    std::optional<Armed> armed_;
    std::string pending_;
    bool reverted_ = false;
};

// Moves `fd` to a number above stdin/stdout/stderr (so redirecting those cannot clobber it)
// and marks it close-on-exec (so the helper the guard runs does not inherit it).
int keep_fd(int fd) {
    if (fd < 0) return -1;
    return ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

void close_all_except(int keep1, int keep2) {
    struct rlimit rl {};
    rlim_t limit = 1024;
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) limit = rl.rlim_cur;
    const int top = static_cast<int>(std::min<rlim_t>(limit, 65536));
    for (int fd = 3; fd < top; ++fd) {
        if (fd != keep1 && fd != keep2) ::close(fd);
    }
}

// Detaches from the terminal and from everything the prompting process had open.
// wiredcap is single-threaded, so the forked child may use the whole library afterwards.
void become_daemon_like(int& pipe_fd, int& tty_fd) {
    ::setsid();  // own session: closing the terminal or Ctrl-C does not reach the guard
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_IGN);
    ::signal(SIGCHLD, SIG_DFL);  // the helper must be reapable
    pipe_fd = keep_fd(pipe_fd);
    tty_fd = keep_fd(tty_fd);
    const int null_fd = ::open("/dev/null", O_RDWR);
    for (int target = 0; target <= 2; ++target) {
        if (null_fd >= 0) ::dup2(null_fd, target);
    }
    close_all_except(pipe_fd, tty_fd);
}

[[noreturn]] void guard_main(const HelperClient& helper, std::string run_id, int pipe_fd, int tty_fd,
                             std::optional<struct termios> saved) {
    if (!saved) tty_fd = -1;
    become_daemon_like(pipe_fd, tty_fd);
    if (pipe_fd < 0) ::_exit(kGuardExitClean);
    GuardProcess(helper, std::move(run_id), pipe_fd, tty_fd, saved).run();
}

// A pipe whose read end will be the guard's. Both ends close-on-exec in the parent, so no
// helper or probe it runs later inherits them (which would keep the pipe open).
bool make_pipe(int fds[2]) {
    if (::pipe(fds) != 0) return false;
    for (int i = 0; i < 2; ++i) ::fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    return true;
}

}  // namespace

// --- the prompting side ----------------------------------------------------------------------

Expected<Guard> Guard::start(const HelperClient& helper, std::string run_id, int tty_fd, const struct termios* saved) {
    // A write to the pipe after the guard died must be an error we ignore, not a SIGPIPE that
    // kills wiredcap mid-ramp. wiredcap handles every write's result, so ignoring it is safe.
    ::signal(SIGPIPE, SIG_IGN);
    int fds[2] = {-1, -1};
    if (!make_pipe(fds)) return Error{std::string("cannot create the guard's pipe: ") + std::strerror(errno)};
    std::optional<struct termios> saved_copy;
    if (saved != nullptr) saved_copy = *saved;

    const pid_t pid = ::fork();
    if (pid < 0) {
        const int err = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        return Error{std::string("cannot start the guard process: ") + std::strerror(err)};
    }
    if (pid == 0) {
        ::close(fds[1]);
        guard_main(helper, std::move(run_id), fds[0], tty_fd, saved_copy);
    }
    ::close(fds[0]);
    return Guard(pid, fds[1]);
}

Guard::Guard(Guard&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), fd_(std::exchange(other.fd_, -1)), done_(std::exchange(other.done_, true)) {}

Guard::~Guard() {
    if (pid_ <= 0) return;
    done();
    if (fd_ >= 0) ::close(fd_);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
}

void Guard::arm(std::uint64_t step, std::optional<units::MiB> revert_to, system_clock::time_point deadline) {
    const auto ms = std::chrono::duration_cast<milliseconds>(deadline.time_since_epoch()).count();
    const std::string to = revert_to ? std::to_string(revert_to->count()) : "default";
    send("arm " + std::to_string(step) + " " + to + " " + std::to_string(std::max<long long>(ms, 0)) + "\n");
}

void Guard::disarm() { send("disarm\n"); }

void Guard::done() {
    if (done_) return;
    done_ = true;
    send("done\n");
}

// Errors are ignored on purpose: if the guard is gone there is nobody to tell, and the
// prompting process carries on with its own revert.
void Guard::send(const std::string& line) {
    if (fd_ < 0) return;
    std::string_view rest = line;
    while (!rest.empty()) {
        const ssize_t n = ::write(fd_, rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace wiredcap::cli
