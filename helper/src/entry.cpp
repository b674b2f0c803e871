#include "src/entry.hpp"

#include <unistd.h>

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "identity/caller.hpp"
#include "make_kernel.hpp"
#include "process/hardening.hpp"
#include "src/args.hpp"
#include "src/commands.hpp"
#include "src/usage.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/json_writer.hpp"

namespace wiredcap::helper {
namespace {

void write_fd(int fd, const std::string& s) noexcept {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

int finish(const Result& r) {
    write_fd(1, r.json_line + "\n");
    if (!r.error.empty()) write_fd(2, "wiredcap-helper: " + r.error + "\n");
    return to_int(r.code);
}

int early_failure(ExitCode code, const std::string& message) {
    JsonObject o;
    o.num("v", 1).boolean("ok", false).num("exit", static_cast<std::uint64_t>(to_int(code))).str("error", message);
    return finish(Result{code, o.text(), message});
}

int run_invocation(const Invocation& inv, const BuildPaths& paths) {
    if (inv.dev.any() && process::is_secure_exec())
        return early_failure(ExitCode::not_permitted,
                             "--policy, --journal and --sim-state are for unprivileged test runs; "
                             "a setuid helper uses only its compiled-in paths");
    std::optional<std::string> sim = inv.dev.sim_state;
#ifndef __APPLE__
    if (!sim) sim = std::string(paths.sim_state);
#endif
    const auto kernel = kernel::make_default_kernel(sim);
    if (kernel->backend_name() == "darwin" && inv.command != Command::read && ::geteuid() != 0)
        return early_failure(ExitCode::not_permitted,
                             "wiredcap-helper is not running as root: install it setuid root "
                             "(see README) or run it through sudo");
    Context ctx{*kernel,
                inv.dev.policy.value_or(paths.policy),
                inv.dev.journal.value_or(paths.journal),
                identity::current_caller(),
                ::geteuid(),
                paths.fallback_group ? std::optional<std::string>(paths.fallback_group) : std::nullopt};
    return finish(run(inv, ctx));
}

}  // namespace

int helper_main(int argc, const char* const* argv, const BuildPaths& paths) {
    if (!process::harden()) return to_int(ExitCode::internal_error);  // cannot even report safely
    try {
        // argc == 0 (argv[0] NULL) is a hostile exec; argv[0] itself is never used.
        if (argc < 1 || argv == nullptr || argv[0] == nullptr)
            return early_failure(ExitCode::usage, "called with no arguments (argc == 0)");
        std::vector<std::string_view> args;
        for (int i = 1; i < argc && argv[i] != nullptr; ++i) args.emplace_back(argv[i]);
        if (args.size() == 1 && args[0] == "--help") {
            write_fd(1, kUsage);
            return to_int(ExitCode::ok);
        }
        const auto inv = parse_args(args);
        if (!inv) return early_failure(ExitCode::usage, inv.error().message);
        return run_invocation(*inv, paths);
    } catch (const std::exception& e) {
        return early_failure(ExitCode::internal_error, std::string("internal error: ") + e.what());
    } catch (...) {
        return early_failure(ExitCode::internal_error, "internal error");
    }
}

}  // namespace wiredcap::helper
