#include "wiredcap/helper/entry.hpp"

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
#include "wiredcap/helper/process/setuid_state.hpp"
#include "wiredcap/helper/answer.hpp"
#include "wiredcap/helper/args.hpp"
#include "wiredcap/helper/commands.hpp"
#include "wiredcap/helper/usage.hpp"
#include "wiredcap/durable_write.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::helper {
namespace {

int finish(const Result& r) { return answer(r, "wiredcap-helper"); }

int early_failure(ExitCode code, const std::string& message) {
    return answer_failure(code, message, "wiredcap-helper");
}

// std::terminate's way out: out of memory with no memory left even to throw std::bad_alloc (a
// caller can hand over a tiny RLIMIT_AS), or an exception where none may be. Instead of
// abort()'s SIGABRT and no result line: the one JSON line, a message, exit internal_error. It
// allocates nothing. Whatever the journal already holds stands (an intent without its outcome
// reads as interrupted).
[[noreturn]] void on_terminate() noexcept {
    static constexpr char kLine[] =
        "{\"v\":1,\"ok\":false,\"exit\":1,\"error\":\"internal error: out of memory or a fatal C++ error\"}\n";
    static constexpr char kMessage[] =
        "wiredcap-helper: internal error: out of memory or a fatal C++ error; the journal shows how far it got\n";
    (void)write_fully(1, {kLine, sizeof kLine - 1});
    (void)write_fully(2, {kMessage, sizeof kMessage - 1});
    ::_exit(to_int(ExitCode::internal_error));
}

// A change through the compiled-in paths (root's policy, journal and kernel) needs root; say
// plainly why it is missing instead of failing later on a file root owns. An unprivileged
// development run (simulator options given) may go on: it only touches the caller's files.
std::optional<std::string> missing_privilege(const Invocation& inv, std::string_view backend) {
    if (inv.command == Command::read || ::geteuid() == 0) return std::nullopt;
    if (backend != "darwin" && inv.dev.any()) return std::nullopt;
    if (auto why = process::setuid_ignored_reason())
        return "wiredcap-helper is installed setuid root, but the setuid bit is not in effect here (" + *why +
               "); nothing was changed";
    return "wiredcap-helper is not running as root: install it setuid root (see README) or run it "
           "through sudo; nothing was changed";
}

// The file named `name` in the directory of `path` (the boot state beside the journal, the boot
// switch beside the policy): no further compiled-in paths, no further development options.
std::string beside(const trusted::SplitPath& path, const std::string& name) {
    return (path.dir == "/" ? std::string() : path.dir) + "/" + name;
}

int run_invocation(const Invocation& inv, const BuildPaths& paths, const identity::Caller& caller) {
#ifndef WIREDCAP_HELPER_DEV_OPTIONS
    // A production build has no development options at all: under sudo the helper is not a
    // secure-exec process, and these would let whoever may sudo it pick root's files.
    if (inv.dev.any())
        return early_failure(ExitCode::not_permitted,
                             "--policy, --journal and --sim-state do not exist in this build of wiredcap-helper "
                             "(they are for test builds)");
#endif
    if (inv.dev.any() && process::is_secure_exec())
        return early_failure(ExitCode::not_permitted,
                             "--policy, --journal and --sim-state are for unprivileged test runs; "
                             "a setuid helper uses only its compiled-in paths");
    std::optional<std::string> sim = inv.dev.sim_state;
#ifndef __APPLE__
    if (!sim) sim = std::string(paths.sim_state);
#endif
    const auto kernel = kernel::make_default_kernel(sim);
    if (auto why = missing_privilege(inv, kernel->backend_name())) return early_failure(ExitCode::not_permitted, *why);
    const std::string policy = inv.dev.policy.value_or(paths.policy);
    const std::string journal = inv.dev.journal.value_or(paths.journal);
    const auto policy_dir = trusted::split_path(policy);
    const auto journal_dir = trusted::split_path(journal);
    if (!policy_dir || !journal_dir) return early_failure(ExitCode::usage, "the policy and journal paths must be absolute");
    Context ctx{*kernel,
                policy,
                journal,
                beside(*journal_dir, "boot.state"),
                beside(*policy_dir, "wiredcap.boot-disabled"),
                caller,
                ::geteuid(),
                paths.fallback_group ? std::optional<std::string>(paths.fallback_group) : std::nullopt};
    return finish(run(inv, ctx));
}

}  // namespace

int helper_main(int argc, const char* const* argv, const BuildPaths& paths) {
    if (!process::harden()) return to_int(ExitCode::internal_error);  // cannot even report safely
    std::set_terminate(on_terminate);
    try {
        // Who called, from the kernel, before anything else: then the caller's uid is no longer
        // the helper's, and the caller can neither signal, stop nor trace it (hardening.hpp).
        const identity::Caller caller = identity::current_caller();
        if (!process::become_root_entirely())
            return early_failure(ExitCode::internal_error, "cannot become root in every uid; nothing was changed");
        // argc == 0 (argv[0] NULL) is a hostile exec; argv[0] itself is never used.
        if (argc < 1 || argv == nullptr || argv[0] == nullptr)
            return early_failure(ExitCode::usage, "called with no arguments (argc == 0)");
        std::vector<std::string_view> args;
        for (int i = 1; i < argc && argv[i] != nullptr; ++i) args.emplace_back(argv[i]);
        if (args.size() == 1 && args[0] == "--help") {
            (void)write_fully(1, kUsage);
            return to_int(ExitCode::ok);
        }
        // One JSON line like every other answer, so wiredcap (and scripts) read it the same way.
        if (args.size() == 1 && args[0] == "--version") {
            JsonObject o;
            o.num("v", 1).boolean("ok", true).str("version", kVersion);
            return finish(Result{ExitCode::ok, o.text(), ""});
        }
        const auto inv = parse_args(args);
        if (!inv) return early_failure(ExitCode::usage, inv.error().message);
        return run_invocation(*inv, paths, caller);
    } catch (const std::exception& e) {
        return early_failure(ExitCode::internal_error, std::string("internal error: ") + e.what());
    } catch (...) {
        return early_failure(ExitCode::internal_error, "internal error");
    }
}

}  // namespace wiredcap::helper
