#include "wiredcap/cli/readings/launchd_state.hpp"

#include <cctype>
#include <filesystem>
#include <string>

#include "wiredcap/simulator/default_state_path.hpp"
#include "wiredcap/cli/readings/daemon_texts.hpp"
#include "wiredcap/simulator/sim_state.hpp"

#if defined(__APPLE__)
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <vector>
#endif

namespace wiredcap::cli {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0)
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0)
        s.remove_suffix(1);
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
    // Apple's POSIX_SPAWN_CLOEXEC_DEFAULT: launchctl inherits only the three descriptors above,
    // never one wiredcap holds open (the journal, a lock) whatever its close-on-exec flag says.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_CLOEXEC_DEFAULT);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv_s[0].c_str(), &actions, &attr, argv.data(), envp);
    posix_spawnattr_destroy(&attr);
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
    while (::waitpid(pid, &c.status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(c.status)) return std::nullopt;
    c.status = WEXITSTATUS(c.status);
    return c;
}

constexpr std::string_view kPlistPath = "/Library/LaunchDaemons/org.wiredcap.boot.plist";

std::optional<bool> file_exists(std::string_view path) {
    std::error_code ec;
    const bool present = std::filesystem::exists(path, ec);
    if (ec) return std::nullopt;
    return present;
}

// The macOS release ("15.6") from SystemVersion.plist: wiredcap reads no sysctl itself (only
// the helper does; tools/cross-build checks that wiredcap imports no sysctlbyname).
std::optional<std::string> os_product_version() {
    std::ifstream f("/System/Library/CoreServices/SystemVersion.plist");
    std::string text(65536, '\0');
    f.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(f.gcount()));
    return product_version_in(text);
}
#endif

// The simulated launchd (sim_state.hpp, key launchd), for the profile's macOS release.
DaemonState simulated_daemon_state(const std::optional<std::string>& sim_state) {
    DaemonState d;
    d.why_unknown = "the SIMULATED Mac has no launchd";
    const std::string path = sim_state.value_or(std::string(kernel::default_sim_state_path()));
    auto s = kernel::sim::load_state(path);
    if (!s || s->launchd == "none") return d;
    d.applicable = true;
    d.source = "SIMULATED launchd (wiredcap-sim launchd " + s->launchd + ")";
    d.why_unknown.clear();
    if (const auto* p = kernel::sim::find_profile(s->profile)) d.macos = std::string(p->macos);
    d.loaded = s->launchd == "loaded" || s->launchd == "disabled";
    d.enabled = s->launchd != "disabled";
    d.plist_present = s->launchd != "not-installed";
    return d;
}

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

std::optional<std::string> product_version_in(std::string_view plist) {
    constexpr std::string_view key = "<key>ProductVersion</key>", open = "<string>",
                               close = "</string>";
    const auto k = plist.find(key);
    if (k == std::string_view::npos) return std::nullopt;
    const auto o = plist.find(open, k + key.size());
    // Only white space between the key and its <string>: another type (or key) is not the release.
    if (o == std::string_view::npos ||
        !trim(plist.substr(k + key.size(), o - k - key.size())).empty())
        return std::nullopt;
    const auto c = plist.find(close, o + open.size());
    if (c == std::string_view::npos) return std::nullopt;
    const std::string_view v = plist.substr(o + open.size(), c - o - open.size());
    if (v.empty() || v.size() > 16) return std::nullopt;
    return std::string(v);
}

std::optional<bool> loaded_from_print_status(int status) {
    if (status == 0) return true;
    if (status == 113) return false;
    return std::nullopt;
}

DaemonState read_daemon_state(bool simulated, const std::optional<std::string>& sim_state) {
    if (simulated) return simulated_daemon_state(sim_state);
    DaemonState d;
#if defined(__APPLE__)
    d.applicable = true;
    d.macos = os_product_version();
    d.plist_present = file_exists(kPlistPath);
    d.source =
        "launchctl print system/" + std::string(kDaemonLabel) + "; launchctl print-disabled system";
    if (auto p = launchctl({"print", "system/" + std::string(kDaemonLabel)})) {
        d.loaded = loaded_from_print_status(p->status);
        if (!d.loaded)
            d.why_unknown = "launchctl print exited " + std::to_string(p->status) +
                            " (only 113 means not loaded)";
    } else {
        d.why_unknown = "cannot run /bin/launchctl print";
    }
    // Each unknown part adds its reason: one must not overwrite the other's.
    auto why = [&d](const std::string& reason) {
        d.why_unknown += (d.why_unknown.empty() ? "" : "; ") + reason;
    };
    if (auto p = launchctl({"print-disabled", "system"}); p && p->status == 0) {
        if (auto disabled = disabled_in(p->out, kDaemonLabel)) d.enabled = !*disabled;
        else why("launchctl print-disabled lists it with a value wiredcap does not know");
    } else {
        why("cannot run /bin/launchctl print-disabled");
    }
#else
    d.why_unknown = "not macOS: no launchd";
#endif
    return d;
}

std::string daemon_text(const DaemonState& d) {
    if (!d.applicable) return "not applicable (" + d.why_unknown + ")";
    std::string loaded = !d.loaded ? "loaded: unknown" : *d.loaded ? "loaded" : "NOT LOADED";
    std::string enabled = !d.enabled   ? "enabled: unknown"
                          : *d.enabled ? "enabled"
                                       : disabled_text(d.macos);
    std::string text = loaded + ", " + enabled;
    if (!d.loaded || !d.enabled) text += " (" + d.why_unknown + ")";
    return text;
}

std::optional<std::string> persist_warning(const DaemonState& d) {
    if (!d.applicable) return std::nullopt;
    if (d.enabled == false) return disabled_warning(d.macos);
    // No bootstrap advice for a plist that is not there (a Homebrew install): unknown counts as there.
    if (d.loaded == false) return not_loaded_warning(d.plist_present.value_or(true));
    return std::nullopt;
}

}  // namespace wiredcap::cli
