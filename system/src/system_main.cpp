#include "wiredcap/system/system_main.hpp"

#include <unistd.h>

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/helper/identity/caller.hpp"
#include "wiredcap/helper/kernel/make_kernel.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/helper/process/hardening.hpp"
#include "wiredcap/helper/answer.hpp"
#include "wiredcap/system/dispatch.hpp"
#include "wiredcap/system/root_only.hpp"
#include "wiredcap/durable_write.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::system {
namespace {

int finish(const helper::Result& r) { return helper::answer(r, "wiredcap-system"); }

int early_failure(ExitCode code, const std::string& message) {
    return helper::answer_failure(code, message, "wiredcap-system");
}

std::string usage() {
    std::string u =
        "usage: wiredcap-system [--policy PATH] [--journal PATH] [--sim-state PATH]\n"
        "                       COMMAND [ARGS]\n"
        "       wiredcap-system --help | --version\n\n"
        "Root's own program for wiredcap: what no caller of wiredcap-helper may\n"
        "reach. launchd (systemd on Linux) starts it as root; it refuses to run as\n"
        "anyone else or setuid. Prints one JSON line per call.\n\nCommands:\n";
    for (const auto& c : subcommands()) {
        std::string head =
            "  " + std::string(c.name) + (c.usage.empty() ? "" : " " + std::string(c.usage));
        std::string_view s = c.summary;
        bool first = true;
        while (!s.empty()) {
            const auto nl = s.find('\n');
            const std::string_view line = s.substr(0, nl);
            std::string left = first ? head : "";
            if (left.size() >= 28) {
                u += left + "\n";
                left.clear();
            }
            u += left + std::string(28 - left.size(), ' ') + std::string(line) + "\n";
            first = false;
            s = nl == std::string_view::npos ? std::string_view() : s.substr(nl + 1);
        }
    }
    u += "\nDevelopment options (test builds only):\n"
         "  --policy PATH     the policy file\n"
         "  --journal PATH    the journal\n"
         "  --sim-state PATH  the simulated Mac's state file\n\n"
         "Exit codes: as wiredcap-helper's (2 usage, 4 not permitted, 12 journal or\n"
         "boot state write failed, ...).\n";
    return u;
}

// The file named `name` in the directory of `path`, as the helper finds it.
std::string beside(const trusted::SplitPath& path, const std::string& name) {
    return (path.dir == "/" ? std::string() : path.dir) + "/" + name;
}

struct Parsed {
    std::optional<std::string> policy, journal, sim_state;
    const Subcommand* command = nullptr;
    Args args;
};

std::optional<std::string> parse(const std::vector<std::string_view>& words, Parsed& p) {
    std::size_t i = 0;
    for (; i < words.size() && words[i].starts_with("--"); i += 2) {
        std::optional<std::string>* slot = words[i] == "--policy"      ? &p.policy
                                           : words[i] == "--journal"   ? &p.journal
                                           : words[i] == "--sim-state" ? &p.sim_state
                                                                       : nullptr;
        if (slot == nullptr) return "unknown option " + std::string(words[i]);
        if (i + 1 >= words.size()) return std::string(words[i]) + " needs a PATH";
#ifndef WIREDCAP_HELPER_DEV_OPTIONS
        return "--policy, --journal and --sim-state do not exist in this build of wiredcap-system "
               "(they are for test builds)";
#endif
        *slot = std::string(words[i + 1]);
    }
    if (i >= words.size()) return std::string("no command (see --help)");
    for (const auto& c : subcommands())
        if (c.name == words[i]) p.command = &c;
    if (p.command == nullptr) return "unknown command " + std::string(words[i]) + " (see --help)";
    p.args.assign(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
    return std::nullopt;
}

int run_parsed(const Parsed& p, const BuildPaths& paths) {
    std::optional<std::string> sim = p.sim_state;
#ifndef __APPLE__
    if (!sim) sim = std::string(paths.sim_state);
#endif
    const auto kernel = kernel::make_default_kernel(sim);
    const std::string policy = p.policy.value_or(paths.policy);
    const std::string journal = p.journal.value_or(paths.journal);
    const auto policy_dir = trusted::split_path(policy);
    const auto journal_dir = trusted::split_path(journal);
    if (!policy_dir || !journal_dir)
        return early_failure(ExitCode::usage, "the policy and journal paths must be absolute");
    helper::Context ctx{*kernel,
                        policy,
                        journal,
                        beside(*journal_dir, "boot.state"),
                        beside(*policy_dir, "wiredcap.boot-disabled"),
                        identity::current_caller(),
                        ::geteuid(),
                        std::nullopt};
    return finish(p.command->run(ctx, p.args));
}

}  // namespace

int system_main(int argc, const char* const* argv, const BuildPaths& paths) {
    // Before anything else: not root, or setuid, and nothing of it runs.
    if (auto why = refusal_to_run()) return early_failure(ExitCode::not_permitted, *why);
    if (!process::harden()) return to_int(ExitCode::internal_error);
    try {
        if (argc < 1 || argv == nullptr || argv[0] == nullptr)
            return early_failure(ExitCode::usage, "called with no arguments (argc == 0)");
        std::vector<std::string_view> words;
        for (int i = 1; i < argc && argv[i] != nullptr; ++i) words.emplace_back(argv[i]);
        if (words.size() == 1 && words[0] == "--help") {
            (void)write_all(1, usage(), "standard output");
            return to_int(ExitCode::ok);
        }
        if (words.size() == 1 && words[0] == "--version") {
            JsonObject o;
            o.num("v", 1).boolean("ok", true).str("version", kVersion);
            return finish(helper::Result{ExitCode::ok, o.text(), ""});
        }
        Parsed p;
        if (auto why = parse(words, p)) return early_failure(ExitCode::usage, *why);
        return run_parsed(p, paths);
    } catch (const std::exception& e) {
        return early_failure(ExitCode::internal_error, std::string("internal error: ") + e.what());
    } catch (...) {
        return early_failure(ExitCode::internal_error, "internal error");
    }
}

}  // namespace wiredcap::system
