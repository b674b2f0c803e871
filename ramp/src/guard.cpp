#include "wiredcap/ramp/guard.hpp"

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
#include <initializer_list>
#include <sstream>
#include <utility>

#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/durable_write.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::system_clock;

// The guard's exit status tells whoever reaps it whether it had to act. The journal (the
// helper's `end --outcome reverted|revert_failed`) is the record that matters.
constexpr int kGuardExitClean = 0;
constexpr int kGuardExitReverted = 3;
constexpr int kGuardExitRevertFailed = 4;

// Messages are a few dozen bytes; anything longer is not from us and is dropped.
constexpr std::size_t kMaxMessage = 256;

// Between two attempts at a revert that did not read back its target.
constexpr milliseconds kRetryPause{250};

long long now_ms() {
    return std::chrono::duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

long long to_ms(std::chrono::seconds s) {
    return std::chrono::duration_cast<milliseconds>(s).count();
}

// --- the guard process -----------------------------------------------------------------------

// What the guard knows: the step awaiting confirmation, if any.
struct Armed {
    std::uint64_t step = 0;
    std::optional<std::uint64_t> revert_to_mib;  // nullopt: the OS default
    long long deadline_ms = 0;
    std::optional<std::uint64_t> in_force_mib;  // the step's read-back, once it awaits its answer
    [[nodiscard]] std::uint64_t target() const { return revert_to_mib.value_or(0); }
};

std::optional<std::uint64_t> parse_u64(const std::string& s) {
    if (s.empty() || s.size() > 20 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno != 0) return std::nullopt;
    return v;
}

// A message's step number (its second word), or none. A plain pair rather than std::optional:
// GCC 12 at -O3 takes an optional built in a conditional expression for a maybe-uninitialized
// read (-Wmaybe-uninitialized), which fails the release build with warnings as errors.
struct StepNo {
    bool valid = false;
    std::uint64_t n = 0;
};

StepNo step_no(const std::vector<std::string>& w) {
    if (w.size() < 2) return {};
    const auto v = parse_u64(w[1]);
    return v ? StepNo{true, *v} : StepNo{};
}

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string x; in >> x;) w.push_back(x);
    return w;
}

// "arm <step> <revert-to-MiB|default> <deadline-ms> [<in-force-MiB>]"; nullopt if malformed.
std::optional<Armed> parse_arm(const std::vector<std::string>& w) {
    if (w.size() != 4 && w.size() != 5) return std::nullopt;
    Armed a;
    const auto s = parse_u64(w[1]);
    const auto d = parse_u64(w[3]);
    if (!s || !d || *d > static_cast<std::uint64_t>(LLONG_MAX)) return std::nullopt;
    a.step = *s;
    a.deadline_ms = static_cast<long long>(*d);
    if (w[2] != "default") {
        a.revert_to_mib = parse_u64(w[2]);
        if (!a.revert_to_mib) return std::nullopt;
    }
    if (w.size() == 5) {
        a.in_force_mib = parse_u64(w[4]);
        if (!a.in_force_mib) return std::nullopt;
    }
    return a;
}

// A MiB count the helper reported under `key` ({"value":N,...}), if it reported one.
std::optional<std::uint64_t> reported_mib(const HelperReply& r, std::string_view key) {
    const json::Value* o = r.json ? json::get(*r.json, key) : nullptr;
    const json::Value* v = o ? json::get(*o, "value") : nullptr;
    return v ? json::as_u64(*v) : std::nullopt;
}

class GuardProcess {
public:
    GuardProcess(const HelperClient& helper, std::string run_id, int pipe_fd, int answer_fd,
                 int tty_fd, std::optional<struct termios> saved)
        : helper_(helper),
          run_id_(std::move(run_id)),
          pipe_(pipe_fd),
          answer_(answer_fd),
          tty_(tty_fd),
          saved_(saved) {}

    [[noreturn]] void run() {
        for (;;) {
            struct pollfd pfd = {pipe_, POLLIN, 0};
            const int rc = ::poll(&pfd, 1, poll_timeout());
            if (rc < 0 && errno != EINTR) finish();  // cannot watch any more: behave as if orphaned
            // Messages first: a settlement that arrived in time counts even if we woke up late.
            if (rc > 0) read_messages();
            if (armed_ && now_ms() >= armed_->deadline_ms + to_ms(kGuardGrace)) take_over();
        }
    }

private:
    // Sleep until the armed deadline plus the grace, or forever while nothing is armed.
    [[nodiscard]] int poll_timeout() const {
        if (!armed_) return -1;
        const long long left = armed_->deadline_ms + to_ms(kGuardGrace) - now_ms();
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
            handle(words(line));
        }
        if (pending_.size() > kMaxMessage) pending_.clear();
    }

    [[nodiscard]] bool armed_for(StepNo step) const {
        return armed_ && step.valid && armed_->step == step.n;
    }
    [[nodiscard]] bool acted_on(StepNo step) const {
        return acted_step_ && step.valid && *acted_step_ == step.n;
    }

    void handle(const std::vector<std::string>& w) {
        if (w.empty()) return;
        const StepNo step = step_no(w);
        if (w[0] == "done" && w.size() == 1) {
            finish();  // the ramp ended: a step still armed is reverted first
        } else if (w[0] == "arm") {
            if (auto a = parse_arm(w)) armed_ = *a;
        } else if (w[0] == "claim" && w.size() == 3) {
            on_claim(step, w[2]);
        } else if (w[0] == "settled" && w.size() == 3 &&
                   w[2] == "confirmed") {         // not a journal word: the guard's pipe
            if (armed_for(step)) armed_.reset();  // after the helper's confirm reply: evidence
        } else if (w[0] == "settled" && w.size() == 4 && w[2] == "restored") {
            on_restored(step, w[3]);
        } else if (w[0] == "settled" && w.size() == 4 && w[2] == "superseded") {
            on_superseded(step, w[3]);
        }
    }

    // wiredcap is about to resolve the step itself: room for its helper call, unless the guard
    // got there first.
    void on_claim(StepNo step, const std::string& seq) {
        if (acted_on(step) && !armed_for(step)) return answer("mine " + seq);
        if (armed_for(step))
            armed_->deadline_ms =
                std::max(armed_->deadline_ms, now_ms() + to_ms(kHelperCallBudget));
        answer("yours " + seq);
    }

    // wiredcap says the knob is back at the target: believed only after the guard's own read.
    void on_restored(StepNo step, const std::string& seq) {
        if (armed_for(step)) {
            const HelperReply r = helper_.run({"read"});
            if (reported_mib(r, "wired_limit_mib") ==
                std::optional<std::uint64_t>(armed_->target())) {
                armed_.reset();
                return answer("released " + seq);
            }
            take_over();
        }
        answer((acted_on(step) ? "mine " : "released ") + seq);
    }

    // wiredcap says another command replaced the step's value: believed only after the guard's
    // own read; otherwise the step is still in force and the guard reverts it.
    void on_superseded(StepNo step, const std::string& seq) {
        if (armed_for(step)) {
            if (replaced_by_another(*armed_)) {
                armed_.reset();
                return answer("released " + seq);
            }
            take_over();
        }
        answer((acted_on(step) ? "mine " : "released ") + seq);
    }

    // The knob, read now, no longer holds the value the step read back (known only once it
    // awaits its answer): another command wrote it.
    [[nodiscard]] bool replaced_by_another(const Armed& a) const {
        if (!a.in_force_mib) return false;
        const auto now = reported_mib(helper_.run({"read"}), "wired_limit_mib");
        return now && *now != *a.in_force_mib;
    }

    void answer(const std::string& line) {
        if (answer_ < 0) return;
        const std::string text = line + "\n";
        (void)!::write(answer_, text.data(), text.size());  // a dead prompter needs no answer
    }

    // The pipe closed (or done came): if a step was awaiting confirmation, nobody will confirm
    // it now.
    [[noreturn]] void finish() {
        if (armed_) take_over();
        ::_exit(exit_status());
    }

    // The revert, retried for the grace until the helper reads back the target (a write that
    // failed, or a helper killed halfway, gets another try); then the run's end, stating what the
    // kernel read back. Never repeated for the same arming.
    void take_over() {
        const Armed a = *armed_;
        armed_.reset();
        acted_step_ = a.step;
        if (replaced_by_another(a)) return stand_down(a);
        const std::string step = std::to_string(a.step);
        std::vector<std::string> args = {"reset"};
        if (a.revert_to_mib) args = {"apply", std::to_string(*a.revert_to_mib) + "MiB"};
        args.insert(args.end(), {"--run", run_id_, "--step", step, "--revert", "guard"});
        const long long until = now_ms() + to_ms(kGuardGrace);
        bool back = false;
        for (;;) {
            back = reported_mib(helper_.run(args), "readback_mib") ==
                       std::optional<std::uint64_t>(a.target()) ||
                   reported_mib(helper_.run({"read"}), "wired_limit_mib") ==
                       std::optional<std::uint64_t>(a.target());
            if (back || now_ms() >= until) break;
            ::poll(nullptr, 0, static_cast<int>(kRetryPause.count()));
        }
        (void)helper_.run({"end", "--run", run_id_, "--outcome",
                           back ? journal::outcome::reverted : journal::outcome::revert_failed});
        if (tty_ >= 0 && saved_) ::tcsetattr(tty_, TCSAFLUSH, &*saved_);
        worst_ = std::max(worst_, back ? kGuardExitReverted : kGuardExitRevertFailed);
    }

    // Another command replaced the step's value: nothing is written, and the run's end says
    // whether the knob is at the revert target or the OS default (the step stands reverted).
    void stand_down(const Armed& a) {
        const auto now = reported_mib(helper_.run({"read"}), "wired_limit_mib");
        const bool back = now && (*now == a.target() || *now == 0);
        (void)helper_.run({"end", "--run", run_id_, "--outcome",
                           back ? journal::outcome::reverted : journal::outcome::aborted});
        if (tty_ >= 0 && saved_) ::tcsetattr(tty_, TCSAFLUSH, &*saved_);
        worst_ = std::max(worst_, kGuardExitReverted);
    }

    [[nodiscard]] int exit_status() const { return worst_; }

    const HelperClient& helper_;
    std::string run_id_;
    int pipe_;
    int answer_;
    int tty_;
    std::optional<struct termios> saved_;
    std::optional<Armed> armed_;
    std::optional<std::uint64_t> acted_step_;  // the step the guard reverted (or failed to)
    std::string pending_;
    int worst_ = kGuardExitClean;
};

// Moves `fd` to a number above stdin/stdout/stderr (so redirecting those cannot clobber it)
// and marks it close-on-exec (so the helper the guard runs does not inherit it).
int keep_fd(int fd) {
    if (fd < 0) return -1;
    return ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

void close_all_except(std::initializer_list<int> keep) {
    struct rlimit rl {};
    rlim_t limit = 1024;
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) limit = rl.rlim_cur;
    const int top = static_cast<int>(std::min<rlim_t>(limit, 65536));
    for (int fd = 3; fd < top; ++fd) {
        if (std::find(keep.begin(), keep.end(), fd) == keep.end()) ::close(fd);
    }
}

// Detaches from the terminal and from everything the prompting process had open.
// wiredcap is single-threaded, so the forked child may use the whole library afterwards.
void become_daemon_like(int& pipe_fd, int& answer_fd, int& tty_fd) {
    ::setsid();  // own session: closing the terminal or Ctrl-C does not reach the guard
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGTTOU, SIGTTIN, SIGTSTP})
        ::signal(sig, SIG_IGN);
    ::signal(SIGCHLD, SIG_DFL);  // the helper must be reapable
    pipe_fd = keep_fd(pipe_fd);
    answer_fd = keep_fd(answer_fd);
    tty_fd = keep_fd(tty_fd);
    const int null_fd = ::open("/dev/null", O_RDWR);
    for (int target = 0; target <= 2; ++target) {
        if (null_fd >= 0) ::dup2(null_fd, target);
    }
    close_all_except({pipe_fd, answer_fd, tty_fd});
}

[[noreturn]] void guard_main(const HelperClient& helper, std::string run_id, int pipe_fd,
                             int answer_fd, int tty_fd, std::optional<struct termios> saved) {
    if (!saved) tty_fd = -1;
    become_daemon_like(pipe_fd, answer_fd, tty_fd);
    if (pipe_fd < 0) ::_exit(kGuardExitClean);
    GuardProcess(helper, std::move(run_id), pipe_fd, answer_fd, tty_fd, saved).run();
}

// A pipe between wiredcap and its guard. Both ends close-on-exec, so no helper or probe either
// runs inherits them (which would keep the pipe open).
bool make_pipe(int fds[2]) {
    if (::pipe(fds) != 0) return false;
    for (int i = 0; i < 2; ++i) ::fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    return true;
}

void close_pipe(int fds[2]) {
    for (int i = 0; i < 2; ++i)
        if (fds[i] >= 0) ::close(fds[i]);
}

}  // namespace

// --- the prompting side ----------------------------------------------------------------------

Expected<Guard> Guard::start(const HelperClient& helper, std::string run_id, int tty_fd,
                             const struct termios* saved) {
    if (metal_was_read())
        return Error{
            "Metal was already loaded in this process, and forking after it is unsafe (start the guard first)"};
    // A write to the pipe after the guard died must be an error we ignore, not a SIGPIPE that
    // kills wiredcap mid-ramp. wiredcap handles every write's result, so ignoring it is safe.
    ::signal(SIGPIPE, SIG_IGN);
    int requests[2] = {-1, -1};
    int answers[2] = {-1, -1};
    if (!make_pipe(requests) || !make_pipe(answers)) {
        const int err = errno;
        close_pipe(requests);
        close_pipe(answers);
        return Error{std::string("cannot create the guard's pipes: ") + std::strerror(err)};
    }
    std::optional<struct termios> saved_copy;
    if (saved != nullptr) saved_copy = *saved;

    const pid_t pid = ::fork();
    if (pid < 0) {
        const int err = errno;
        close_pipe(requests);
        close_pipe(answers);
        return Error{std::string("cannot start the guard process: ") + std::strerror(err)};
    }
    if (pid == 0) {
        ::close(requests[1]);
        ::close(answers[0]);
        guard_main(helper, std::move(run_id), requests[0], answers[1], tty_fd, saved_copy);
    }
    ::close(requests[0]);
    ::close(answers[1]);
    return Guard(pid, requests[1], answers[0]);
}

Guard::Guard(Guard&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      fd_(std::exchange(other.fd_, -1)),
      answer_fd_(std::exchange(other.answer_fd_, -1)),
      seq_(other.seq_),
      done_(std::exchange(other.done_, true)) {}

Guard::~Guard() {
    if (pid_ <= 0) return;
    done();
    if (fd_ >= 0) ::close(fd_);
    if (answer_fd_ >= 0) ::close(answer_fd_);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
}

void Guard::arm(std::uint64_t step, std::optional<units::MiB> revert_to,
                system_clock::time_point deadline, std::optional<units::MiB> in_force) {
    const auto ms = std::chrono::duration_cast<milliseconds>(deadline.time_since_epoch()).count();
    const std::string to = revert_to ? std::to_string(revert_to->count()) : "default";
    const std::string held = in_force ? " " + std::to_string(in_force->count()) : "";
    (void)send("arm " + std::to_string(step) + " " + to + " " +
               std::to_string(std::max<long long>(ms, 0)) + held + "\n");
}

Guard::Answer Guard::claim(std::uint64_t step) {
    const std::uint64_t seq = ++seq_;
    if (!send("claim " + std::to_string(step) + " " + std::to_string(seq) + "\n"))
        return Answer::gone;
    return await(seq);
}

void Guard::settled_confirmed(std::uint64_t step) {
    (void)send("settled " + std::to_string(step) + " confirmed\n");
}

Guard::Answer Guard::settled_restored(std::uint64_t step) {
    const std::uint64_t seq = ++seq_;
    if (!send("settled " + std::to_string(step) + " restored " + std::to_string(seq) + "\n"))
        return Answer::gone;
    return await(seq);
}

Guard::Answer Guard::settled_superseded(std::uint64_t step) {
    const std::uint64_t seq = ++seq_;
    if (!send("settled " + std::to_string(step) + " superseded " + std::to_string(seq) + "\n"))
        return Answer::gone;
    return await(seq);
}

void Guard::done() {
    if (done_) return;
    done_ = true;
    (void)send("done\n");
}

// Reads answers until the one to request `seq` (a late answer to an earlier request that timed
// out is skipped), the guard's end of the pipe closes, or kGuardAnswerWait passes. Signals only
// interrupt the wait; they do not end it.
Guard::Answer Guard::await(std::uint64_t seq) {
    if (answer_fd_ < 0) return Answer::gone;
    const auto until = std::chrono::steady_clock::now() + kGuardAnswerWait;
    const std::string tail = " " + std::to_string(seq);
    for (;;) {
        for (auto nl = answers_.find('\n'); nl != std::string::npos; nl = answers_.find('\n')) {
            const std::string line = answers_.substr(0, nl);
            answers_.erase(0, nl + 1);
            if (line == "yours" + tail) return Answer::yours;
            if (line == "mine" + tail) return Answer::mine;
            if (line == "released" + tail) return Answer::released;
        }
        const auto left =
            std::chrono::duration_cast<milliseconds>(until - std::chrono::steady_clock::now())
                .count();
        if (left <= 0) return Answer::gone;
        struct pollfd pfd = {answer_fd_, POLLIN, 0};
        const int rc = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) continue;
        char buf[256];
        const ssize_t n = ::read(answer_fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Answer::gone;  // the guard is gone: nobody else will act
        answers_.append(buf, static_cast<std::size_t>(n));
        if (answers_.size() > kMaxMessage) answers_.clear();
    }
}

// Errors are ignored on purpose: if the guard is gone there is nobody to tell, and the
// prompting process carries on with its own revert.
bool Guard::send(const std::string& line) { return fd_ >= 0 && write_fully(fd_, line); }

}  // namespace wiredcap::cli
