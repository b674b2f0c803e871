#include "wiredcap/cli/commands/linux_front.hpp"

#include <unistd.h>

#include <ostream>
#include <vector>

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/linux/host.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"
#include "wiredcap/linux/trial_journal.hpp"
#include "wiredcap/linux/trial_state.hpp"
#include "wiredcap/linux/verb_command.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using linux_amd::shell_word;
using linux_amd::SystemRoot;

// wiredcap-system's arguments for a verb: `--root DIR` off "/" (only test builds accept it).
std::vector<std::string> verb(const LinuxTarget& t, const std::string& name,
                              const std::vector<std::string>& args) {
    std::vector<std::string> v{name};
    if (t.root != "/") v.insert(v.end(), {"--root", t.root});
    v.insert(v.end(), args.begin(), args.end());
    return v;
}

// The exact command a person runs through sudo: the same argv wiredcap would run as root.
std::string sudo_command(const LinuxTarget& t, const std::vector<std::string>& args) {
    std::string s = "sudo " + shell_word(locate_system());
    if (t.dev.policy) s += " --policy " + shell_word(*t.dev.policy);
    if (t.dev.journal) s += " --journal " + shell_word(*t.dev.journal);
    if (t.dev.sim_state) s += " --sim-state " + shell_word(*t.dev.sim_state);
    for (const auto& a : args) s += " " + shell_word(a);
    return s;
}

// Runs root's verb and prints its lines; anyone else is given the sudo command (exit 4).
ExitCode run_verb(const LinuxTarget& t, const std::vector<std::string>& args, std::string_view what,
                  std::ostream& out, std::ostream& err) {
    if (::geteuid() != 0) {
        return fail(err, what, ExitCode::not_permitted,
                    "on Linux this is root's wiredcap-system; nothing was done. Run:\n  ",
                    sudo_command(t, args));
    }
    const HelperReply r = HelperClient(locate_system(), t.dev).run(args);
    if (r.json)
        if (const json::Value* lines = json::get(*r.json, "lines"); lines && lines->is_array())
            for (const auto& line : *lines)
                if (const std::string* text = json::as_string(line)) out << *text << "\n";
    if (!r.error.empty()) say(err, what, r.error);
    if (r.exit_code < 0) return ExitCode::internal_error;
    return r.exit_code <= to_int(ExitCode::trial_scheduled) ? static_cast<ExitCode>(r.exit_code)
                                                            : ExitCode::internal_error;
}

std::string boot_id(const SystemRoot& root) {
    return root.read_value("/proc/sys/kernel/random/boot_id").value_or("unknown");
}

}  // namespace

std::optional<LinuxTarget> linux_target(const std::string& linux_root, const DevPaths& dev) {
    if (!linux_root.empty()) return LinuxTarget{linux_root, dev};
    if (dev.sim_state || !linux_amd::is_amd_ttm_host(SystemRoot("/"))) return std::nullopt;
    return LinuxTarget{"/", dev};
}

ExitCode run_linux_set(const LinuxTarget& t, const std::string& size, std::ostream& out,
                       std::ostream& err) {
    if (size == "default") return run_linux_reset(t, out, err);
    std::string word;
    for (char c : size)
        if (c != ' ') word += c;
    if (auto parsed = units::parse_size(word); !parsed) {
        return fail(err, "set", ExitCode::usage, parsed.error().message);
    }
    const ExitCode code = run_verb(t, verb(t, "ttm-trial", {word}), "set", out,
                                   err);  // not a journal word: wiredcap-system's verb
    if (code != ExitCode::ok) return code;
    // What the machine holds now, from the state ttm-trial left: a trial scheduled is not held.
    const SystemRoot root(t.root);
    const auto state = linux_amd::load_trial_state(root);
    if (state && state->phase == "default") return ExitCode::ok;
    out << "Not held yet (exit 18): reboot; on the trial boot, once it reads back, confirm it:\n  "
        << sudo_command(t, verb(t, "ttm-confirm", {}))
        << "\n";  // not a journal word: wiredcap-system's verb
    return ExitCode::trial_scheduled;
}

ExitCode refuse_linux_unsupported(const LinuxTarget& t, std::string_view command,
                                  const std::optional<std::string>& size, std::ostream& err) {
    std::string word;
    for (char c : size.value_or(""))
        if (c != ' ') word += c;
    // The caller's size only when set would take it; else the placeholder, explained.
    const bool usable = !word.empty() && units::parse_size(word).has_value();
    const std::string here = t.root != "/" ? " --linux-root " + shell_word(t.root) : std::string();
    say(err, command, "unsupported on Linux (exit 7); nothing was done.\n",
        "On Linux, set schedules one trial boot, confirmed after it (docs/linux.md):\n  wiredcap set ",
        (usable ? shell_word(word) : std::string("SIZE")), here);
    if (!usable) err << "SIZE: a size with its unit, e.g. 40GiB\n";
    return ExitCode::unsupported_platform;
}

ExitCode run_linux_reset(const LinuxTarget& t, std::ostream& out, std::ostream& err) {
    return run_verb(t, verb(t, "ttm-reset", {}), "reset", out,
                    err);  // not a journal word: wiredcap-system's verb
}

ExitCode run_linux_recover(const LinuxTarget& t, const LinuxRecoverRequest& req, std::ostream& out,
                           std::ostream& err) {
    if (req.forget_hang) {
        if (!req.why) {
            return fail(err, "recover", ExitCode::usage,
                        "--forget-hang needs --why: kernel-update, hardware-change or other-cause");
        }
        const ExitCode forgot =
            run_verb(t, verb(t, "ttm-forget-hang", {"--why", *req.why}), "recover", out,
                     err);  // not a journal word: wiredcap-system's verb
        if (forgot != ExitCode::ok) return forgot;
    }
    const SystemRoot root(t.root);
    const std::string journal = journal_path(t.dev);
    auto contents = journal_view::read_journal(journal);
    if (!contents) {
        return fail(err, "recover", ExitCode::internal_error, contents.error().message);
    }
    for (const auto& w : contents->warnings) out << "journal: " << w << "\n";
    const auto rep = recovery::analyse(contents->entries, boot_id(root));
    // Every figure in pages of the kernel's page size, as status --linux-root prints them.
    const auto r = linux_amd::SysfsTtmKernel(root).read();
    const auto page_size = r.page_size.value;
    if (rep.hang_ceiling) {
        out << "Hang ceiling: " << linux_amd::describe_ceiling(rep.hang_ceiling->value, page_size)
            << " " << recovery::hang_origin(*rep.hang_ceiling) << ". Later trials stop below it.\n"
            << "If it was not a hang (a trial left unconfirmed), forget it (journaled):\n  wiredcap recover"
            << (t.root != "/" ? " --linux-root " + shell_word(t.root) : std::string())
            << " --forget-hang --why other-cause\n";
    } else {
        out << (rep.hangs.empty() ? "No trial has ever hung.\n" : "No hang ceiling binds.\n");
    }
    if (rep.forgotten)
        out << "The hang ceiling " << linux_amd::describe_ceiling(rep.forgotten->value, page_size)
            << " was forgotten at " << rep.forgotten->time << " by uid " << rep.forgotten->uid
            << " (" << rep.forgotten->why << ").\n";
    const auto state = linux_amd::load_trial_state(root);
    const bool pending = state && (state->phase == "scheduled" || state->phase == "booted");
    const auto ceiling =
        rep.hang_ceiling ? std::optional<units::MiB>(rep.hang_ceiling->value) : std::nullopt;
    out << "Trial: "
        << (state ? linux_amd::trial_summary(*state, ceiling)
                  : "UNREADABLE: " + state.error().message)
        << "   [" << linux_amd::kStateFile << "]\n";
    const std::string here = t.root != "/" ? " --linux-root " + shell_word(t.root) : std::string();
    // Not settled: what settles it, complete (exit 10 leaves a script the next step).
    if (state && state->phase == "scheduled")
        out << "Not settled: reboot to try it once, or cancel it: wiredcap reset" << here << "\n";
    if (state && state->phase == "booted")
        out << "Not settled: keep it (the default from the next boot on; only on this boot):\n  "
            << sudo_command(t, verb(t, "ttm-confirm", {})) << "\nor drop it: wiredcap reset" << here
            << "\n";  // not a journal word: wiredcap-system's verb
    out << "pages_limit now reads "
        << (r.pages_limit.value ? units::describe(*r.pages_limit.value)
                                : "unknown (" + r.pages_limit.note + ")")
        << "   [" << r.pages_limit.source << "]\n";
    // A trial not yet settled is the journal's open question, as a ramp in progress is.
    return pending || !state ? ExitCode::unresolved_journal : ExitCode::ok;
}

}  // namespace wiredcap::cli
