#include "wiredcap/system/ttm_commands.hpp"

#include <limits.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wiredcap/policy/policy.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/system/ttm_journal.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/linux/driver_ready.hpp"
#include "wiredcap/linux/trial.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::system {
namespace {

using linux_amd::SystemRoot;
using linux_amd::VerbResult;

// A test build takes `--root DIR` first: a simulated machine's tree (wiredcap-sim-linux).
// Every other build works on "/" only.
std::optional<std::string> take_root(Args& args, std::string& root) {
    root = "/";
    if (args.empty() || args.front() != "--root") return std::nullopt;
#ifndef WIREDCAP_HELPER_DEV_OPTIONS
    return std::string("--root exists only in test builds of wiredcap-system");
#else
    if (args.size() < 2) return std::string("--root needs a DIR");
    root = std::string(args[1]);
    args.erase(args.begin(), args.begin() + 2);
    return std::nullopt;
#endif
}

helper::Result shaped(std::string_view command, const VerbResult& r) {
    JsonObject o;
    o.num("v", 1).boolean("ok", r.ok()).num("exit", static_cast<std::uint64_t>(to_int(r.code)));
    o.str("command", command).strings("lines", r.lines);
    std::string error;
    if (!r.ok())
        for (const auto& line : r.lines) error += (error.empty() ? "" : "; ") + line;
    return helper::Result{r.code, o.text(), error};
}

// The verb's records go to the project's journal (ctx.journal_path), stamped with its name.
SharedTrialJournal journal_for(std::string_view command, const helper::Context& ctx,
                               const SystemRoot& root) {
    return SharedTrialJournal(std::string(command), ctx.journal_path, ctx.trusted_owner,
                              ctx.caller.uid, root);
}

template <class F>
helper::Result with_root(std::string_view command, const helper::Context& ctx, const Args& given,
                         std::size_t min_args, std::size_t max_args, F run) {
    Args args = given;
    std::string root;
    if (auto why = take_root(args, root)) return usage_error(*why);
    if (args.size() < min_args || args.size() > max_args)
        return usage_error(std::string(command) + ": wrong number of arguments (see --help)");
    const SystemRoot system_root(root);
    auto journal = journal_for(command, ctx, system_root);
    return shaped(command, run(system_root, journal, args));
}

// How a person runs this program's verbs: through sudo, by its absolute path (the file the
// kernel ran), with the journal a test build was given.
linux_amd::VerbCommand self_command(const helper::Context& ctx) {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    const std::string self =
        n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("wiredcap-system");
    std::string prefix = "sudo " + linux_amd::shell_word(self);
#ifdef WIREDCAP_HELPER_DEV_OPTIONS
    prefix += " --journal " + linux_amd::shell_word(ctx.journal_path);
#else
    (void)ctx;
#endif
    return {prefix};
}

// Root's policy file, read as the helper reads it on a Mac: owned by root along its path.
linux_amd::PolicyText policy_text(const helper::Context& ctx) {
    return {ctx.policy_path,
            trusted::read_file(ctx.policy_path, ctx.trusted_owner, policy::kMaxPolicyBytes)};
}

}  // namespace

helper::Result ttm_trial(helper::Context& ctx, const Args& args) {
    Args rest = args;
    std::string root;
    if (auto why = take_root(rest, root)) return usage_error(*why);
    if (rest.size() != 1) return usage_error("ttm-trial takes one SIZE");
    auto size = units::parse_size(rest.front());
    if (!size) return usage_error("ttm-trial: " + size.error().message);
    const SystemRoot system_root(root);
    auto journal = journal_for(journal::command::ttm_trial, ctx, system_root);
    return shaped(journal::command::ttm_trial,
                  linux_amd::schedule_trial(system_root, journal, policy_text(ctx), size->bytes,
                                            self_command(ctx)));
}

helper::Result ttm_after_boot(helper::Context& ctx, const Args& args) {
    const auto self = self_command(ctx);
    return with_root(journal::command::ttm_after_boot, ctx, args, 0, 2,
                     [&](const SystemRoot& r, SharedTrialJournal& j, const Args& a) {
                         // --wait-driver SECONDS: the unit's bounded wait for amdgpu, before the lock is taken.
                         std::optional<std::uint64_t> wait =
                             a.empty() ? std::optional<std::uint64_t>(0) : std::nullopt;
                         if (a.size() == 2 && a[0] == "--wait-driver")
                             wait = linux_amd::parse_u64(a[1]);
                         if (!wait || *wait > 600)
                             return VerbResult{
                                 ExitCode::usage,
                                 {"ttm-after-boot takes only --wait-driver SECONDS (0 to 600)"}};
                         (void)linux_amd::wait_for_driver(r, std::chrono::seconds(*wait));
                         return linux_amd::after_boot(r, j, self);
                     });
}

helper::Result ttm_confirm(helper::Context& ctx, const Args& args) {
    return with_root(journal::command::ttm_confirm, ctx, args, 0, SIZE_MAX,
                     [](const SystemRoot& r, SharedTrialJournal& j, const Args& a) {
                         std::vector<std::string> check;
                         if (!a.empty() && (a.front() != "--check" || a.size() < 2))
                             return VerbResult{ExitCode::usage,
                                               {"ttm-confirm takes only --check CMD [ARGS...]"}};
                         for (std::size_t i = 1; i < a.size(); ++i) check.emplace_back(a[i]);
                         return linux_amd::confirm_trial(r, j, check);
                     });
}

helper::Result ttm_forget_hang(helper::Context& ctx, const Args& args) {
    return with_root(
        journal::command::ttm_forget_hang, ctx, args, 2, 2,
        [](const SystemRoot& r, SharedTrialJournal& j, const Args& a) {
            if (a[0] != "--why")
                return VerbResult{ExitCode::usage, {"ttm-forget-hang takes --why WHY"}};
            return linux_amd::forget_hang(r, j, a[1]);
        });
}

helper::Result ttm_reset(helper::Context& ctx, const Args& args) {
    return with_root(journal::command::ttm_reset, ctx, args, 0, 0,
                     [](const SystemRoot& r, SharedTrialJournal& j, const Args&) {
                         return linux_amd::reset_ttm(r, j);
                     });
}

}  // namespace wiredcap::system
