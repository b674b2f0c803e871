#include "wiredcap/cli/readings/helper_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "wiredcap/unique_fd.hpp"

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#ifndef WIREDCAP_SYSTEM_INSTALL_PATH
#define WIREDCAP_SYSTEM_INSTALL_PATH "/usr/local/libexec/wiredcap/wiredcap-system"
#endif
#ifndef WIREDCAP_HELPER_INSTALL_PATH
#define WIREDCAP_HELPER_INSTALL_PATH "/usr/local/libexec/wiredcap/wiredcap-helper"
#endif
#ifndef WIREDCAP_JOURNAL_PATH
#define WIREDCAP_JOURNAL_PATH "/var/lib/wiredcap/journal.jsonl"
#endif

namespace wiredcap::cli {
namespace {

// Reads both pipes to the end without deadlocking on either.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
    struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    std::string* sinks[2] = {&out, &err};
    int open_count = 2;
    char buf[4096];
    while (open_count > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;
                --open_count;
            }
        }
    }
}

std::optional<std::string> executable_dir() {
    char buf[PATH_MAX + 1] = {};
#if defined(__APPLE__)
    uint32_t size = PATH_MAX;
    if (_NSGetExecutablePath(buf, &size) != 0) return std::nullopt;
    char resolved[PATH_MAX + 1] = {};
    if (::realpath(buf, resolved) == nullptr) return std::nullopt;
    std::string p(resolved);
#else
    const ssize_t n = ::readlink("/proc/self/exe", buf, PATH_MAX);
    if (n <= 0) return std::nullopt;
    std::string p(buf, static_cast<std::size_t>(n));
#endif
    const auto slash = p.rfind('/');
    if (slash == std::string::npos) return std::nullopt;
    return p.substr(0, slash);
}

// A helper call may be the revert that keeps the ramp's promise, so nothing that ends a session
// may end it halfway (docs/design.md §6, Steps, the prompt and revert). Its own process group: the SIGHUP a hangup sends to the
// terminal's foreground group, the shell's SIGHUP to its job and Ctrl-C's SIGINT do not reach
// it. The job-control and termination signals start blocked: the helper's hardening
// (helper/process/hardening.cpp) blocks every signal and never unblocks, so one that arrives
// anyway stays pending until it exits, from the first instruction on, not only once main() runs.
void set_out_of_reach(posix_spawnattr_t& attr) {
    sigset_t blocked;
    sigemptyset(&blocked);
    for (const int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE})
        sigaddset(&blocked, sig);
    posix_spawnattr_setsigmask(&attr, &blocked);
    posix_spawnattr_setpgroup(&attr, 0);  // a new group, led by the helper
    posix_spawnattr_setflags(&attr,
                             static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK));
}

bool is_executable_file(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

ExitCode HelperReply::code() const {
    if (exit_code >= 0 && exit_code <= to_int(ExitCode::journal_failed))
        return static_cast<ExitCode>(exit_code);
    return ExitCode::internal_error;
}

HelperReply HelperClient::run(const std::vector<std::string>& args) const {
    std::vector<std::string> argv_s{path_};
    if (dev_.policy) argv_s.insert(argv_s.end(), {"--policy", *dev_.policy});
    if (dev_.journal) argv_s.insert(argv_s.end(), {"--journal", *dev_.journal});
    if (dev_.sim_state) argv_s.insert(argv_s.end(), {"--sim-state", *dev_.sim_state});
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    char* envp[] = {nullptr};

    HelperReply reply;
    int out_pipe[2] = {-1, -1};
    int err_pipe[2] = {-1, -1};
    const bool piped = ::pipe(out_pipe) == 0 && ::pipe(err_pipe) == 0;
    UniqueFd out_r(out_pipe[0]), out_w(out_pipe[1]), err_r(err_pipe[0]), err_w(err_pipe[1]);
    // Close-on-exec on all four: the helper gets them only as its fds 1 and 2 (dup2 clears the
    // flag on the copies), never as stray extra descriptors.
    for (const int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
        if (fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (!piped) {
        reply.error = std::string("cannot create a pipe: ") + std::strerror(errno);
        return reply;
    }

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // Never the terminal: a terminal that hangs up must not reach the helper through its stdin.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_w.get(), 1);
    posix_spawn_file_actions_adddup2(&actions, err_w.get(), 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    set_out_of_reach(attr);
    pid_t pid = -1;
    // posix_spawn (not posix_spawnp): the helper is run by its absolute path, never via PATH.
    const int rc = ::posix_spawn(&pid, path_.c_str(), &actions, &attr, argv.data(), envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    out_w.reset();
    err_w.reset();
    if (rc != 0) {
        reply.error = "cannot run " + path_ + ": " + std::strerror(rc);
        return reply;
    }
    std::string out;
    drain(out_r.get(), err_r.get(), out, reply.error);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status)) reply.exit_code = WEXITSTATUS(status);
    else reply.error += "wiredcap-helper was killed by signal " + std::to_string(WTERMSIG(status));
    while (!reply.error.empty() && reply.error.back() == '\n') reply.error.pop_back();
    const std::string prefix = "wiredcap-helper: ";
    if (reply.error.rfind(prefix, 0) == 0) reply.error.erase(0, prefix.size());
    if (auto v = json::parse(out)) reply.json = *v;
    else if (reply.error.empty()) reply.error = "wiredcap-helper printed no valid JSON line";
    return reply;
}

std::string locate_helper(const std::optional<std::string>& explicit_path) {
    if (explicit_path) {
        // Always run by absolute path: a relative --helper is resolved once, here.
        char resolved[PATH_MAX + 1] = {};
        if ((*explicit_path)[0] != '/' && ::realpath(explicit_path->c_str(), resolved) != nullptr)
            return resolved;
        return *explicit_path;
    }
    if (auto dir = executable_dir()) {
        const std::string sibling = *dir + "/wiredcap-helper";
        if (is_executable_file(sibling)) return sibling;
    }
    return WIREDCAP_HELPER_INSTALL_PATH;
}

std::string locate_system() {
    if (auto dir = executable_dir()) {
        const std::string sibling = *dir + "/wiredcap-system";
        if (is_executable_file(sibling)) return sibling;
    }
    return WIREDCAP_SYSTEM_INSTALL_PATH;
}

std::string journal_path(const DevPaths& dev) {
    return dev.journal.value_or(WIREDCAP_JOURNAL_PATH);
}

}  // namespace wiredcap::cli
