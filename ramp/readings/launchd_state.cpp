#include "readings/launchd_state.hpp"

#include <cctype>
#include <string>

#if defined(__APPLE__)
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>
#endif

namespace wiredcap::cli {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
    return s;
}

#if defined(__APPLE__)
// Runs /bin/launchctl ARGS with no environment, stdin from /dev/null; its stdout (the first
// 64 KiB) and exit status. nullopt if it could not be run or did not exit normally.
struct Captured {
    int status;
    std::string out;
};

std::optional<Captured> launchctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv_s{"/bin/launchctl"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    char* envp[] = {nullptr};
    int fds[2];
    if (::pipe(fds) != 0) return std::nullopt;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv_s[0].c_str(), &actions, nullptr, argv.data(), envp);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    Captured c{0, {}};
    if (rc == 0) {
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            if (c.out.size() < 65536) c.out.append(buf, static_cast<std::size_t>(n));
        }
    }
    ::close(fds[0]);
    if (rc != 0) return std::nullopt;
    while (::waitpid(pid, &c.status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(c.status)) return std::nullopt;
    c.status = WEXITSTATUS(c.status);
    return c;
}
#endif

}  // namespace

std::optional<bool> disabled_in(std::string_view output, std::string_view label) {
    const std::string quoted = "\"" + std::string(label) + "\"";
    while (!output.empty()) {
        const auto nl = output.find('\n');
        std::string_view line = trim(output.substr(0, nl));
        output = nl == std::string_view::npos ? std::string_view{} : output.substr(nl + 1);
        if (line.substr(0, quoted.size()) != quoted) continue;
        line = trim(line.substr(quoted.size()));
        if (line.substr(0, 2) != "=>") continue;
        const std::string_view value = trim(line.substr(2));
        if (value == "disabled" || value == "true") return true;
        if (value == "enabled" || value == "false") return false;
        return std::nullopt;
    }
    return false;  // not listed: launchd's default, enabled
}

std::optional<bool> loaded_from_print_status(int status) {
    if (status == 0) return true;
    if (status == 113) return false;
    return std::nullopt;
}

DaemonState read_daemon_state(bool simulated) {
    DaemonState d;
    if (simulated) {
        d.why_unknown = "the SIMULATED Mac has no launchd";
        return d;
    }
#if defined(__APPLE__)
    d.applicable = true;
    d.source = "launchctl print system/" + std::string(kDaemonLabel) + "; launchctl print-disabled system";
    if (auto p = launchctl({"print", "system/" + std::string(kDaemonLabel)})) {
        d.loaded = loaded_from_print_status(p->status);
        if (!d.loaded)
            d.why_unknown = "launchctl print exited " + std::to_string(p->status) + " (only 113 means not loaded)";
    } else {
        d.why_unknown = "cannot run /bin/launchctl print";
    }
    if (auto p = launchctl({"print-disabled", "system"}); p && p->status == 0) {
        if (auto disabled = disabled_in(p->out, kDaemonLabel)) d.enabled = !*disabled;
        else d.why_unknown = "launchctl print-disabled lists it with a value wiredcap does not know";
    } else {
        d.why_unknown = "cannot run /bin/launchctl print-disabled";
    }
#else
    d.why_unknown = "not macOS: no launchd";
#endif
    return d;
}

std::string daemon_text(const DaemonState& d) {
    if (!d.applicable) return "not applicable (" + d.why_unknown + ")";
    std::string loaded = !d.loaded ? "loaded: unknown" : *d.loaded ? "loaded" : "NOT LOADED";
    std::string enabled = !d.enabled ? "enabled: unknown" : *d.enabled ? "enabled" : "DISABLED (Login Items)";
    std::string text = loaded + ", " + enabled;
    if (!d.loaded || !d.enabled) text += " (" + d.why_unknown + ")";
    return text;
}

std::optional<std::string> persist_warning(const DaemonState& d) {
    if (!d.applicable) return std::nullopt;
    if (d.enabled == false)
        return "the LaunchDaemon " + std::string(kDaemonLabel) +
               " is switched off (System Settings > General > Login Items > Allow in the Background): the stored "
               "value will not be applied at boot until you switch it on";
    if (d.loaded == false)
        return "the LaunchDaemon " + std::string(kDaemonLabel) +
               " is not loaded: the stored value will not be applied at boot (load it: sudo launchctl bootstrap "
               "system /Library/LaunchDaemons/" + std::string(kDaemonLabel) + ".plist)";
    return std::nullopt;
}

}  // namespace wiredcap::cli
