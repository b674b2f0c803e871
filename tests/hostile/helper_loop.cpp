// Test tool: run the setuid helper many times as an unprivileged caller, optionally hitting
// each run with a random signal at a random moment, and check the simulated knob after every
// run. Run as root (it drops to the caller in the child, just before execve).
//
//   helper-loop --runs N --as UID:GID:GROUPS --state SIM_STATE --values A,B,...
//               [--signals] [--max-delay-us US] [--seed S] [--expect-unchanged]
//               -- HELPER ARGS...        ("{}" in ARGS is replaced by the run's value)
//
// Run k uses value k % count; each value is a size in MiB with its unit, e.g. 81920MiB. After
// every run the knob must be the value it had before or the value requested; a run that
// exited 0 must have set the requested value; with --expect-unchanged no run may change it
// (and none may exit 0). A run that takes longer than 10 s is a hang: it fails the test.
//
// --signals: after a random delay of 0..US microseconds (default 3000), one of SIGINT,
// SIGTERM, SIGHUP, SIGTSTP, SIGSTOP, SIGQUIT, SIGUSR1, SIGPIPE, SIGALRM is sent; SIGSTOP and
// SIGTSTP are followed by SIGCONT after another random delay. Exit status: 0 all good, 1 a
// check failed, 2 usage.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr, "helper-loop: %s\n", why.c_str());
    std::exit(2);
}

unsigned long number(const std::string& s) {
    char* end = nullptr;
    errno = 0;
    const unsigned long v = std::strtoul(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno != 0) usage("not a number: " + s);
    return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, sep);) out.push_back(part);
    return out;
}

// knob_mib from the simulator's state file (replaced atomically, so never torn); -1 unreadable.
long long read_knob(const std::string& state) {
    std::ifstream in(state);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("knob_mib=", 0) == 0) return std::stoll(line.substr(9));
    return -1;
}

void sleep_us(long us) {
    if (us <= 0) return;
    const struct timespec ts { us / 1000000, (us % 1000000) * 1000 };
    ::nanosleep(&ts, nullptr);
}

volatile sig_atomic_t g_timed_out = 0;
extern "C" void on_alarm(int) { g_timed_out = 1; }

const char* signal_name(int sig) {
    switch (sig) {
        case SIGINT: return "INT";
        case SIGTERM: return "TERM";
        case SIGHUP: return "HUP";
        case SIGTSTP: return "TSTP";
        case SIGSTOP: return "STOP";
        case SIGQUIT: return "QUIT";
        case SIGUSR1: return "USR1";
        case SIGPIPE: return "PIPE";
        case SIGALRM: return "ALRM";
        case SIGABRT: return "ABRT";
        case SIGKILL: return "KILL";
        case SIGSEGV: return "SEGV";
        default: return "other";
    }
}

}  // namespace

int main(int argc, char** argv) {
    unsigned long runs = 0, max_delay = 3000, seed = 1;
    bool signals = false, expect_unchanged = false;
    std::string state, as;
    std::vector<std::string> values;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string opt = argv[i];
        if (opt == "--") break;
        if (opt == "--signals") {
            signals = true;
            continue;
        }
        if (opt == "--expect-unchanged") {
            expect_unchanged = true;
            continue;
        }
        if (i + 1 >= argc) usage(opt + " needs a value");
        const std::string v = argv[++i];
        if (opt == "--runs") runs = number(v);
        else if (opt == "--as") as = v;
        else if (opt == "--state") state = v;
        else if (opt == "--values") values = split(v, ',');
        else if (opt == "--max-delay-us") max_delay = number(v);
        else if (opt == "--seed") seed = number(v);
        else usage("unknown option " + opt);
    }
    if (i + 1 >= argc || runs == 0 || state.empty() || values.empty() || as.empty())
        usage(
            "usage: helper-loop --runs N --as UID:GID:GROUPS --state FILE --values A,B [...] -- HELPER ARGS...");
    const auto ids = split(as, ':');
    if (ids.size() < 2) usage("--as UID:GID:GROUPS");
    const auto uid = static_cast<uid_t>(number(ids[0]));
    const auto gid = static_cast<gid_t>(number(ids[1]));
    std::vector<gid_t> groups;
    if (ids.size() > 2)
        for (const auto& g : split(ids[2], ',')) groups.push_back(static_cast<gid_t>(number(g)));

    struct sigaction sa {};
    sa.sa_handler = on_alarm;  // no SA_RESTART: waitpid returns EINTR when the run hangs
    ::sigaction(SIGALRM, &sa, nullptr);

    std::mt19937_64 rng(seed);
    constexpr int kSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGTSTP, SIGSTOP,
                                SIGQUIT, SIGUSR1, SIGPIPE, SIGALRM};
    std::map<std::string, unsigned long> outcomes;
    unsigned long failures = 0, changed = 0;

    for (unsigned long run = 0; run < runs; ++run) {
        const std::string& value = values[run % values.size()];
        const long long wanted = std::stoll(value);  // "81920MiB" -> 81920
        std::vector<std::string> args_storage(argv + i + 1, argv + argc);
        for (auto& a : args_storage)
            if (a == "{}") a = value;
        std::vector<char*> args;
        for (auto& a : args_storage) args.push_back(a.data());
        args.push_back(nullptr);
        char* empty_env[] = {nullptr};

        const long long before = read_knob(state);
        const pid_t pid = ::fork();
        if (pid < 0) usage("fork failed");
        if (pid == 0) {
            sigset_t none;
            sigemptyset(&none);
            ::sigprocmask(SIG_SETMASK, &none, nullptr);
            ::signal(SIGALRM, SIG_DFL);
            const int null = ::open("/dev/null", O_WRONLY);  // one JSON line per run is noise here
            if (null < 0 || ::dup2(null, 1) != 1 || ::dup2(null, 2) != 2) std::_Exit(121);
            ::close(null);
            if (::setgroups(groups.size(), groups.data()) != 0 || ::setresgid(gid, gid, gid) != 0 ||
                ::setresuid(uid, uid, uid) != 0)
                std::_Exit(121);
            ::execve(args[0], args.data(), empty_env);
            std::_Exit(127);
        }
        int sent = 0;
        if (signals) {
            sleep_us(static_cast<long>(rng() % (max_delay + 1)));
            sent = kSignals[rng() % std::size(kSignals)];
            ::kill(pid, sent);
            if (sent == SIGSTOP || sent == SIGTSTP) {
                sleep_us(static_cast<long>(rng() % (max_delay + 1)));
                ::kill(pid, SIGCONT);
            }
        }
        g_timed_out = 0;
        ::alarm(10);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) usage("waitpid failed");
            if (g_timed_out) {
                std::fprintf(stderr, "FAIL run %lu: the helper hung (10 s) after SIG%s\n", run,
                             signal_name(sent));
                ::kill(pid, SIGKILL);
                ++failures;
            }
        }
        ::alarm(0);

        const long long after = read_knob(state);
        std::string outcome = WIFEXITED(status)
                                  ? "exit " + std::to_string(WEXITSTATUS(status))
                                  : std::string("killed by SIG") + signal_name(WTERMSIG(status));
        if (sent != 0) outcome += " (sent SIG" + std::string(signal_name(sent)) + ")";
        ++outcomes[outcome];
        if (after != before) ++changed;

        auto fail = [&](const std::string& why) {
            ++failures;
            if (failures <= 10)
                std::fprintf(stderr, "FAIL run %lu (%s, %s): %s; knob before %lld, after %lld\n",
                             run, value.c_str(), outcome.c_str(), why.c_str(), before, after);
        };
        if (after != before && after != wanted)
            fail("the knob holds neither the old nor the new value");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && after != wanted)
            fail("exit 0 but the value is not set");
        if (expect_unchanged && after != before) fail("the knob changed");
        if (expect_unchanged && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            fail("the helper accepted it");
        if (WIFEXITED(status) && (WEXITSTATUS(status) == 121 || WEXITSTATUS(status) == 127))
            fail("could not start the helper");
    }

    std::printf("helper-loop: %lu runs, %lu changed the knob, %lu failed checks\n", runs, changed,
                failures);
    for (const auto& [what, n] : outcomes) std::printf("  %6lu  %s\n", n, what.c_str());
    return failures == 0 ? 0 : 1;
}
