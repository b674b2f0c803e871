// wiredcap: the command people type. Unprivileged; every change to the kernel goes through
// wiredcap-helper, run by absolute path. This file only wires the command line to ramp/*.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/commands/convert.hpp"
#include "wiredcap/cli/commands/fit_cmd.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/cli/json_mode.hpp"
#include "wiredcap/cli/commands/persist_cmd.hpp"
#include "wiredcap/cli/commands/policy_check.hpp"
#include "wiredcap/cli/commands/ramp_cmd.hpp"
#include "wiredcap/cli/commands/recover_cmd.hpp"
#include "wiredcap/cli/commands/set_reset.hpp"
#include "wiredcap/cli/commands/metrics_cmd.hpp"
#include "wiredcap/cli/commands/status.hpp"
#include "wiredcap/cli/commands/status_field.hpp"
#include "wiredcap/cli/commands/watch_cmd.hpp"
#ifdef WIREDCAP_LINUX_BACKEND
#include "wiredcap/cli/commands/linux_front.hpp"
#include "wiredcap/cli/commands/linux_metrics.hpp"
#include "wiredcap/cli/commands/linux_status.hpp"
#endif
#include "wiredcap/cli/suggest.hpp"
#include "wiredcap/cli/output/terminal_width.hpp"
#include "wiredcap/cli/output/wrapping_buf.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/version.hpp"
#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/cli/fail.hpp"

namespace {

using wiredcap::ExitCode;
using wiredcap::cli::fail;
using wiredcap::cli::say;

// set, reset and persist: the dry run is the real run's decision, the helper's included.
constexpr const char* kDryRunHelp =
    "Make every check the real run makes, the helper's under its lock, then stop: nothing is written "
    "or journaled, nothing asked; exit as the real run would";

// Shown once, in the top-level help (and in wiredcap(1)); each subcommand's help leaves it out.
constexpr const char* kExitCodeHelp = R"(Exit codes (0 only when the cap holds what was asked for):
  0 ok                    1 internal error          2 usage error
  3 refused by policy     4 not permitted           5 kernel write failed
  6 read-back differs     7 unsupported platform    8 ramp stopped by user
  9 ramp reverted        10 unresolved journal     11 policy file invalid
 12 journal or boot state write failed             13 declined at the prompt
 14 no safe band here    15 no policy file         16 policy unreadable
 17 fit --check: fits only after raising the cap
 18 set on Linux: one trial boot scheduled, not held yet
 19 output could not be written (stdout, stderr, metrics' textfile)
)";

struct Options {
    bool json = false;
    bool quiet = false;
    std::optional<std::string> helper;
    wiredcap::cli::DevPaths dev;
    wiredcap::cli::ConvertRequest convert;
    std::vector<std::string> convert_size;  // "96GiB", or "96" "GiB" as two arguments
    std::string convert_to;
    std::vector<std::string> set_size;
    std::vector<std::string> persist_size;
    wiredcap::cli::SetRequest set;
    std::optional<std::string> policy_file;
    wiredcap::cli::RampRequest ramp;
    wiredcap::cli::PersistRequest persist;
    wiredcap::cli::RecoverRequest recover;
    wiredcap::fit::FitRequest fit;
    std::vector<CLI::Option*> ramp_model_options;  // fit's options on ramp: only with --for
    wiredcap::cli::MetricsRequest metrics;
    wiredcap::cli::WatchRequest watch;
    bool yes_asks_nothing =
        false;                   // reset/persist --yes, ramp --unattended --yes: nothing is asked
    bool reset_dry_run = false;  // reset --dry-run
    std::optional<std::string> help_verb;
    std::vector<std::string>
        status_fields;       // status --field NAME, repeatable  // wiredcap help [VERB]
    std::string linux_root;  // --linux-root of status, set, reset, recover: the Linux AMD backend
                             // under DIR (docs/linux.md); without it, detected on "/"
};

// The options that describe how a model is run: `fit` and `ramp --for` take the same list, so a
// ramp plans to fit's own figure. `lead` starts each description ("With --for: ").
std::vector<CLI::Option*> add_model_options(CLI::App& cmd, wiredcap::fit::FitRequest& r,
                                            const std::string& lead) {
    const auto on_off = [&](const std::string& name, std::optional<bool>& into,
                            const std::string& help) {
        auto* on = cmd.add_flag_callback(
            "--" + name, [&into] { into = true; }, lead + help);
        auto* off = cmd.add_flag_callback(
            "--no-" + name, [&into] { into = false; }, lead + "Not: " + help);
        on->excludes(off);
        return std::pair{on, off};
    };
    const auto [fa, no_fa] =
        on_off("flash-attn", r.flash_attn,
               "The runtime uses flash attention (llama.cpp's -fa on; default: the runtime's)");
    const auto [kvu, no_kvu] = on_off(
        "kv-unified", r.kv_unified, "One KV cache the sequences share (llama.cpp's --kv-unified)");
    return {
        cmd.add_option(
            "--runtime", r.runtime,
            lead +
                "The runtime that will load the model, with its defaults: llama.cpp, llama-server, ollama, "
                "lm-studio, mlx (default: by where the model was found)"),
        cmd.add_option("--context", r.context,
                       lead + "Tokens of context per sequence (default: the runtime's)"),
        cmd.add_option(
            "--kv-type", r.kv_type,
            lead + "KV cache type of K and V: f16, q8_0, q4_0, ... (default: the runtime's)"),
        cmd.add_option("--kv-type-k", r.kv_type_k, lead + "K cache type alone (llama.cpp's -ctk)"),
        cmd.add_option("--kv-type-v", r.kv_type_v, lead + "V cache type alone (llama.cpp's -ctv)"),
        cmd.add_option("--parallel", r.parallel,
                       lead + "Sequences with their own context (default: the runtime's)"),
        cmd.add_option("--batch", r.batch,
                       lead + "Logical batch in tokens, llama.cpp's -b (default: the runtime's)"),
        cmd.add_option("--ubatch", r.ubatch,
                       lead + "Micro-batch in tokens, llama.cpp's -ub (default: the runtime's)"),
        fa,
        no_fa,
        kvu,
        no_kvu,
    };
}

void add_recover(CLI::App& app, Options& o) {
    auto* recover = app.add_subcommand(
        "recover", "After a hang and reboot: which write hung, and the last good value");
    auto* hung = recover->add_flag_callback(
        "--hung", [&o] { o.recover.answer = wiredcap::journal::event::hung; },
        "Answer for every suspect: the machine hung with it in force");
    auto* not_hung = recover->add_flag_callback(
        "--not-hung", [&o] { o.recover.answer = wiredcap::journal::event::not_hung; },
        "Answer for every suspect: it did not hang");
    hung->excludes(not_hung);
    recover->add_flag("--forget-hang", o.recover.forget_hang,
                      "Clear the hang ceiling (journaled; the hang stays as history)");
    recover->add_option("--why", o.recover.why,
                        "Why it is forgotten: macos-update, hardware-change or other-cause");
    recover->add_flag(
        "-y,--yes", o.recover.yes,
        "Forget the hang ceiling without asking (--forget-hang); a suspect is answered only by "
        "--hung or --not-hung");
}

void add_global_options(CLI::App& app, Options& o) {
    app.add_flag("--json", o.json,
                 std::string("One JSON object on stdout, also on failure (schemas: ") +
                     WIREDCAP_SCHEMA_DIR + ")");
    app.add_flag(
        "-q,--quiet", o.quiet,
        "set, reset, persist, ramp, recover: no narration (errors still on stderr; a question is still "
        "asked in full)");
    app.add_option(
           "--helper", o.helper,
           "The wiredcap-helper to run (absolute path; default: beside wiredcap, else installed)")
        ->check(CLI::ExistingFile);
    auto* dev = "Development and tests only (a setuid helper refuses it)";
    app.add_option("--policy", o.dev.policy, std::string("Policy file to use. ") + dev);
    app.add_option("--journal", o.dev.journal, std::string("Journal to use. ") + dev);
    app.add_option("--sim-state", o.dev.sim_state, std::string("Simulated Mac state file. ") + dev);
}

void add_ramp(CLI::App& app, Options& o) {
    auto* ramp = app.add_subcommand(
        "ramp", "Raise the cap step by step; each step reverts unless you confirm it");
    auto* to = ramp->add_option("--to", o.ramp.to, "Target size, with unit (e.g. 176GiB)");
    ramp->add_option("--for", o.ramp.for_model, "Plan to the value `wiredcap fit MODEL` recommends")
        ->excludes(to);
    o.ramp_model_options = add_model_options(*ramp, o.ramp.model, "With --for: ");
    ramp->add_option("--step", o.ramp.step, "Size of each raise (default: the policy's max_step)");
    ramp->add_option("--timeout", o.ramp.timeout,
                     "Time to confirm each step, e.g. 60s or 2m (default 60s)");
    ramp->add_option("--probe", o.ramp.probe,
                     "Command run (as you, never root) after each step; its result is shown");
    ramp->add_option("--probe-timeout", o.ramp.probe_timeout,
                     "Time limit for --probe/--check (default 60s)");
    ramp->add_flag("--dry-run", o.ramp.dry_run, "Print the plan and change nothing");
    ramp->add_flag("--unattended", o.ramp.unattended, "No person: --check decides each step");
    ramp->add_option("--check", o.ramp.check,
                     "With --unattended: a command whose exit 0 keeps the step");
    ramp->add_flag("--ignore-hang-ceiling", o.ramp.ignore_hang_ceiling,
                   "Allow steps at or above a value that hung before");
    ramp->add_flag(
        "-y,--yes", o.yes_asks_nothing,
        "With --unattended: accepted, nothing is asked (a person's step is confirmed only as it is applied)");
    ramp->add_option("--from", o.ramp.from,
                     "The GPU's cap now, when wiredcap cannot read it (no Metal); journaled");
}

void add_fit(CLI::App& app, Options& o) {
    auto* fit = app.add_subcommand(
        "fit", "How much memory a model needs, and whether it fits under the cap");
    fit->add_option(
           "PATH", o.fit.path,
           "A GGUF file (any name; a split's part), a model folder (safetensors, Hugging Face cache, "
           "LM Studio), a Hugging Face repo id in its cache (org/name[@rev]), or an Ollama model name (llama3.1:70b)")
        ->required();
    add_model_options(*fit, o.fit, "");
    fit->add_flag(
        "--check", o.fit.check,
        "Exit by the verdict: 0 fits now, 17 fits after a raise, 3 does not fit, 1 unknown");
}

// Which combinations make sense is checked by run_persist (check_persist_args), not by CLI11, so
// that the messages are wiredcap's own and the unit tests can reach them.
void add_persist(CLI::App& app, Options& o) {
    auto* persist = app.add_subcommand(
        "persist", "Store a confirmed value for the boot action (or --off to forget it)");
    persist
        ->add_option("SIZE", o.persist_size,
                     "A size with its unit (default: the journal's last confirmed value)")
        ->expected(1, 2);
    persist->add_flag("--off", o.persist.off, "Forget the stored value: boots keep the OS default");
    persist->add_flag("--unconfirmed", o.persist.unconfirmed,
                      "Store SIZE although no ramp confirmed it (journaled)");
    persist->add_flag(
        "--lower", o.persist.lower,
        "With --unconfirmed: store SIZE below the effective cap (lowers it at every boot)");
    persist->add_flag("--ignore-hang-ceiling", o.persist.ignore_hang_ceiling,
                      "Allow a value at or above one that hung before");
    persist->add_flag("-y,--yes", o.yes_asks_nothing, "Accepted for scripts; persist asks nothing");
    persist->add_flag("--dry-run", o.persist.dry_run, kDryRunHelp);
}

// A size may be typed as two arguments, `96 GiB`: the parser reads "96 GiB" (one space).
std::string size_text(const std::vector<std::string>& words) {
    return words.size() == 2 ? words[0] + " " + words[1] : words.empty() ? std::string() : words[0];
}

// After a failed parse: when the first word CLI11 could not place is where a command belongs
// (wiredcap WORD, wiredcap policy WORD), names it and the nearest command. nullopt otherwise,
// and CLI11's own message stands.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv) {
    const CLI::App* at = &app;
    for (int i = 1; i < argc; ++i) {
        const std::string_view word = argv[i];
        if (word.starts_with("-")) {
            if (word.find('=') != std::string_view::npos) continue;
            const CLI::Option* opt = at->get_option_no_throw(std::string(word));
            if (opt == nullptr)
                opt = app.get_option_no_throw(std::string(word));          // a global option
            if (opt != nullptr && opt->get_items_expected_min() > 0) ++i;  // skip its value
            continue;
        }
        const auto subs = at->get_subcommands([](const CLI::App*) { return true; });
        if (subs.empty()) return std::nullopt;  // a leaf command: the word is an argument
        std::vector<std::string> names;
        for (const auto* sub : subs) names.push_back(sub->get_name());
        if (std::find(names.begin(), names.end(), word) != names.end()) {
            at = at->get_subcommand(std::string(word));
            continue;
        }
        std::string msg = "unknown command " + wiredcap::units::quote_input(word);
        if (at != &app) msg = at->get_name() + ": " + msg;
        if (const auto near = wiredcap::cli::nearest_word(word, names))
            return msg + "; did you mean '" + *near + "'?";
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        return msg + "; the commands are " + list;
    }
    return std::nullopt;
}

#ifdef WIREDCAP_LINUX_BACKEND
// What the Mac's set/recover take and Linux's try-once story has no use for: refused, never
// ignored. A hang ceiling is cleared only by recover --forget-hang; a trial needs no --from
// (the driver is read back) and asks nothing (a hang reverts itself at the next boot).
std::optional<std::string> linux_unsupported(const CLI::App& app, const Options& o) {
    if (o.json && !app.got_subcommand("status"))
        return std::string("--json is status's only on Linux");
    if (o.set.ignore_hang_ceiling)
        return std::string("--ignore-hang-ceiling does not exist on Linux");
    if (o.set.from) return std::string("--from does not exist on Linux: the driver is read back");
    if (o.set.dry_run || o.reset_dry_run)
        return std::string("--dry-run does not exist on Linux yet");
    if (o.recover.answer) return std::string("--hung/--not-hung do not exist on Linux");
    return std::nullopt;
}
#endif

// wiredcap help [COMMAND]: the usage CLI11 prints for --help, on stdout.
ExitCode print_usage(const CLI::App& app, const std::optional<std::string>& verb, std::ostream& out,
                     std::ostream& err) {
    if (!verb) {
        // Not app.help(): once a command is parsed it prints that command's usage (here, help's).
        out << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
        return ExitCode::ok;
    }
    const auto found =
        app.get_subcommands([&](const CLI::App* a) { return a->get_name() == *verb; });
    if (found.empty() || *verb == "help") {
        return fail(err, "help", ExitCode::usage, "no command ",
                    wiredcap::units::quote_input(*verb), " (run 'wiredcap help')");
    }
    out << found.front()->help();
    return ExitCode::ok;
}

ExitCode run_command(CLI::App& app, Options& o, std::ostream& out, std::ostream& err) {
    wiredcap::cli::CliContext ctx{
        wiredcap::cli::HelperClient(wiredcap::cli::locate_helper(o.helper), o.dev), o.json, out,
        err};
    auto is = [&](const char* name) { return app.got_subcommand(name); };
    if (is("convert")) {
        o.convert.json = o.json;
        return wiredcap::cli::run_convert(o.convert, out, err);
    }
#ifdef WIREDCAP_LINUX_BACKEND
    // On an AMD Linux host (or a simulated one, --linux-root), the same words drive the
    // try-once story (commands/linux_front.hpp); elsewhere, the Mac's (the simulated Mac here).
    // watch draws the Mac's picture; on Linux, status --linux-root gives the readings.
    if (is("watch") && wiredcap::cli::linux_target(o.linux_root, o.dev)) {
        return fail(err, "watch", ExitCode::unsupported_platform,
                    "the Mac's only for now; on Linux: wiredcap status (docs/linux.md)");
    }
    if (is("ramp") || is("persist"))
        if (const auto linux_host = wiredcap::cli::linux_target(o.linux_root, o.dev))
            return wiredcap::cli::refuse_linux_unsupported(
                *linux_host, is("ramp") ? "ramp" : "persist",
                is("ramp") ? std::optional<std::string>(o.ramp.to) : o.persist.size, err);
    if (is("metrics") && !o.json)
        if (const auto linux_host = wiredcap::cli::linux_target(o.linux_root, o.dev))
            return wiredcap::cli::run_linux_metrics(
                linux_host->root, wiredcap::cli::journal_path(o.dev),
                wiredcap::cli::installed_policy_path(o.dev), o.metrics.textfile_dir, out, err);
    if (is("status") || is("set") || is("reset") || is("recover"))
        if (const auto linux_host = wiredcap::cli::linux_target(o.linux_root, o.dev)) {
            if (is("status"))
                return wiredcap::cli::run_linux_status(
                    linux_host->root, wiredcap::cli::journal_path(o.dev),
                    wiredcap::cli::installed_policy_path(o.dev), o.json, out, err);
            if (auto why = linux_unsupported(app, o)) {
                return fail(err, "", ExitCode::usage, *why, " (docs/linux.md)");
            }
            if (is("set")) return wiredcap::cli::run_linux_set(*linux_host, o.set.size, out, err);
            if (is("reset")) return wiredcap::cli::run_linux_reset(*linux_host, out, err);
            return wiredcap::cli::run_linux_recover(
                *linux_host, {o.recover.forget_hang, o.recover.why}, out, err);
        }
#endif
    if (is("help")) return print_usage(app, o.help_verb, out, err);
    if (is("ramp") && o.yes_asks_nothing && !o.ramp.unattended) {
        return fail(err, "ramp", ExitCode::usage,
                    "--yes cannot confirm a step before it is applied and seen; without a person, "
                    "name the check that decides: --unattended --check CMD");
    }
    if (is("status") && !o.status_fields.empty()) {
        if (o.json) {
            return fail(err, "status", ExitCode::usage,
                        "--field prints bare values; --json the whole object: choose one");
        }
        return wiredcap::cli::run_status_fields(ctx, o.status_fields);
    }
    if (is("status")) return wiredcap::cli::run_status(ctx);
    if (is("watch")) {
        if (o.json) {
            return fail(err, "watch", ExitCode::usage,
                        "a live view for people; for JSON: wiredcap status --json");
        }
        return wiredcap::cli::run_watch(ctx, o.watch, STDIN_FILENO, STDOUT_FILENO);
    }
    if (is("metrics")) {
        if (o.json) {
            return fail(
                err, "metrics", ExitCode::usage,
                "prints the Prometheus text format, not JSON (for JSON: wiredcap status --json)");
        }
        return wiredcap::cli::run_metrics(ctx, o.metrics);
    }
    if (is("set")) return wiredcap::cli::run_set(ctx, o.set, STDIN_FILENO);
    if (is("reset")) return wiredcap::cli::run_reset(ctx, o.reset_dry_run);
    if (is("policy")) return wiredcap::cli::run_policy_check(ctx, o.policy_file);
    if (is("ramp")) {
        for (const auto* opt : o.ramp_model_options)
            if (opt->count() != 0) o.ramp.model_options.push_back(opt->get_name());
        return wiredcap::cli::run_ramp(ctx, o.ramp);
    }
    if (is("recover")) return wiredcap::cli::run_recover(ctx, o.recover, STDIN_FILENO);
    if (is("persist")) return wiredcap::cli::run_persist(ctx, o.persist);
    if (is("fit")) return wiredcap::fit::run_fit(ctx, o.fit);
    return ExitCode::usage;
}

// The command's name as the error object gives it ("set", "policy check"); empty when none.
std::string command_name(const CLI::App& app) {
    std::string name;
    for (const CLI::App* at = &app;;) {
        const auto got = at->get_subcommands();
        if (got.empty()) return name;
        at = got.front();
        name += (name.empty() ? "" : " ") + at->get_name();
    }
}

// The first word of argv that names a command, for an error object after a refused parse.
std::string command_word(const CLI::App& app, int argc, const char* const* argv) {
    const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
    for (int i = 1; i < argc; ++i)
        for (const auto* sub : subs)
            if (sub->get_name() == argv[i]) return argv[i];
    return {};
}

// -q: the verbs that narrate what they do say nothing on success. Errors still go to stderr, and
// a question is never asked without what it is about: recover on a terminal, where it may ask
// about a suspect or a hang ceiling, keeps its narration unless the command line answers both.
bool silenced(const CLI::App& app, const Options& o) {
    if (!o.quiet || o.json) return false;
    if (app.got_subcommand("recover"))
        return ::isatty(STDIN_FILENO) == 0 ||
               (o.recover.answer && (!o.recover.forget_hang || o.recover.yes));
    return app.got_subcommand("set") || app.got_subcommand("reset") ||
           app.got_subcommand("persist") || app.got_subcommand("ramp");
}

int dispatch(CLI::App& app, Options& o) {
    std::ostream nowhere(nullptr);
    if (!o.json)
        return wiredcap::to_int(
            run_command(app, o, silenced(app, o) ? nowhere : std::cout, std::cerr));
    wiredcap::cli::JsonMode mode(std::cout, std::cerr);
    const ExitCode code = run_command(app, o, mode.out(), mode.err());
    mode.finish(command_name(app), code);
    return wiredcap::to_int(code);
}

// A failed write to standard output or error (a full disk, a closed descriptor): whatever the
// command changed is done and journaled by now, but its answer was lost, so the exit says so.
// A command that failed anyway keeps its own code; the message may itself be lost when stderr
// is what failed, the exit code is not.
int with_output_checked(int code) {
    std::cout.flush();
    std::cerr.flush();
    const bool out_lost = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || std::cout.bad();
    const bool err_lost = std::fflush(stderr) != 0 || std::ferror(stderr) != 0 || std::cerr.bad();
    if (!out_lost && !err_lost) return code;
    std::clearerr(stderr);
    std::fprintf(stderr,
                 "wiredcap: standard %s could not be written (a full disk or a closed file?)%s\n",
                 out_lost && err_lost ? "output and error"
                 : out_lost           ? "output"
                                      : "error",
                 code == 0 ? "; the command itself succeeded" : "");
    return code == 0 ? wiredcap::to_int(ExitCode::output_failed) : code;
}

int run(int argc, char** argv) {
    // Human output fits the terminal (or COLUMNS, or 80 when piped): every message, table and
    // refusal is wrapped at one place. Standard output is wrapped only without --json below.
    const wiredcap::cli::WrappedStream err_fits(std::cerr,
                                                wiredcap::cli::output_width(STDERR_FILENO));
    // Named here, so that Usage: shows "wiredcap" and not argv[0]'s absolute path.
    CLI::App app{
        "wiredcap: set the Apple Silicon GPU wired-memory cap (iogpu.wired_limit_mb) safely",
        "wiredcap"};
    app.set_version_flag("-V,--version", std::string("wiredcap ") + wiredcap::kVersion,
                         "Print the version and exit");
    app.require_subcommand(1);
    app.fallthrough();  // global options (--json, --helper, ...) may follow the subcommand
    Options o;
    add_global_options(app, o);

    auto* convert = app.add_subcommand(
        "convert", "Print a size exactly in other units (MiB for iogpu.wired_limit_mb)");
    convert
        ->add_option("SIZE", o.convert_size,
                     "A size with its unit, e.g. 232GiB (units: B kB MB GB TB KiB MiB GiB TiB)")
        ->required()
        ->expected(1, 2);
    auto* to = convert->add_option("--to", o.convert_to,
                                   "Print only this unit (B kB MB GB TB KiB MiB GiB TiB)");

    auto* status = app.add_subcommand(
        "status", "Every ceiling that can bind, side by side, each with its source");
    status->add_option(
        "--field", o.status_fields,
        "Print only this member of status --json, bare (sizes in MiB); repeatable, one line each "
        "(policy.max_mib for a nested one)");
#ifdef WIREDCAP_LINUX_BACKEND
    status->add_option(
        "--linux-root", o.linux_root,
        "Linux AMD APU: TTM and amdgpu read under DIR ('/': this machine; docs/linux.md)");
#endif
    auto* watch =
        app.add_subcommand("watch",
                           "The picture of memory status leads with, redrawn while a model loads: "
                           "wired now against the cap, its peak, a warning near the cap");
    watch->add_option("--interval", o.watch.interval,
                      "Time between samples, e.g. 2s or 1m (default 2s)");
    // Checked as text: CLI11 would otherwise take "-1" as 2^64 - 1, a watch without end.
    watch
        ->add_option("--count", o.watch.count,
                     "Stop after N samples (for scripts; default: until q or Ctrl-C)")
        ->check(CLI::Validator(
            [](const std::string& n) {
                const bool digits =
                    !n.empty() && n.find_first_not_of("0123456789") == std::string::npos;
                return digits && n.find_first_not_of('0') != std::string::npos && n.size() <= 9
                           ? std::string()
                           : "'" + n + "' is not a number of samples (1 to 999999999)";
            },
            "N"));
    auto* metrics = app.add_subcommand(
        "metrics", "The status readings for Prometheus (node_exporter's textfile collector)");
    metrics->add_option(
        "--textfile-dir", o.metrics.textfile_dir,
        "Write DIR/wiredcap.prom atomically instead of printing (the collector's directory)");
    auto* set = app.add_subcommand(
        "set", "Set the cap to SIZE (or 'default'); prints the kernel's read-back");
    set->add_option("SIZE", o.set_size, "A size with its unit (e.g. 96GiB), or 'default'")
        ->required()
        ->expected(1, 2);
    set->add_flag("-y,--yes", o.set.yes, "Do not ask before raising the cap (for scripts)");
    set->add_flag("--ignore-hang-ceiling", o.set.ignore_hang_ceiling,
                  "Allow a value at or above one that hung before");
    set->add_option("--from", o.set.from,
                    "The GPU's cap now, when wiredcap cannot read it (no Metal); journaled");
    set->add_flag("--dry-run", o.set.dry_run, kDryRunHelp);
    auto* reset = app.add_subcommand(
        "reset",
        "Back to the OS default (iogpu.wired_limit_mb = 0), and forget any value stored for boot; always permitted");
    reset->add_flag("-y,--yes", o.yes_asks_nothing, "Accepted for scripts; reset asks nothing");
    reset->add_flag("--dry-run", o.reset_dry_run, kDryRunHelp);
    auto* policy = app.add_subcommand("policy", "The permitted band");
    policy->require_subcommand(1);
    auto* check = policy->add_subcommand(
        "check", "Validate a policy file as the helper would (default: the installed one)");
    check->add_option("FILE", o.policy_file, "The policy file to check");
    add_ramp(app, o);
    add_recover(app, o);
    add_persist(app, o);
#ifdef WIREDCAP_LINUX_BACKEND
    metrics->add_option(
        "--linux-root", o.linux_root,
        "Linux AMD APU: TTM and amdgpu read under DIR ('/': this machine; docs/linux.md)");
    for (const char* name : {"set", "reset", "recover"})
        app.get_subcommand(name)->add_option(
            "--linux-root", o.linux_root,
            "Linux AMD APU: the try-once trial under DIR ('/': this machine)");
    for (const char* name : {"ramp", "persist"})
        app.get_subcommand(name)->add_option(
            "--linux-root", o.linux_root,
            "Linux AMD APU under DIR: refused (exit 7); there, use set");
#endif
    add_fit(app, o);
    app.add_subcommand("help", "Print this usage, or a command's: wiredcap help [COMMAND]")
        ->add_option("COMMAND", o.help_verb, "The command whose usage to print");
    // After the subcommands: CLI11 copies the footer into each subcommand made after it.
    app.footer(kExitCodeHelp);

    // `wiredcap` alone is asking what it can do: the usage, on stderr (it did nothing: exit 2).
    if (argc == 1) {
        std::cerr << app.help();
        return wiredcap::to_int(ExitCode::usage);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --version --json is an answer like any other (wiredcap.version/1), one line.
        if (dynamic_cast<const CLI::CallForVersion*>(&e) != nullptr &&
            wiredcap::cli::wants_json(argc, argv)) {
            std::cout << wiredcap::cli::contract::head("wiredcap.version/1").text() << "\n";
            return wiredcap::to_int(ExitCode::ok);
        }
        if (e.get_exit_code() == 0) {  // --help or --version: fits the terminal like the rest
            const wiredcap::cli::WrappedStream help_fits(
                std::cout, wiredcap::cli::output_width(STDOUT_FILENO));
            return app.exit(e);
        }
        // CLI11's own exit numbers would collide with ours: every usage error is 2.
        const auto unknown = unknown_command(app, argc, argv);
        const std::string message = unknown ? *unknown : std::string(e.what());
        say(std::cerr, "", message, "\n(run 'wiredcap --help' for usage)");
        if (wiredcap::cli::wants_json(argc, argv))
            std::cout << wiredcap::cli::contract::error(command_word(app, argc, argv),
                                                        ExitCode::usage, message)
                      << "\n";
        return wiredcap::to_int(ExitCode::usage);
    }
    // The JSON object on stdout is one line by design, whatever the width.
    std::optional<wiredcap::cli::WrappedStream> out_fits;
    // Nor is the Prometheus text: a line wrapped is a line lost. watch's lines fit the width
    // already, and its redrawing moves the cursor: wrapping would count the escape codes. Nor
    // status --field's values: one per line, for scripts (a list is one line of JSON).
    const bool bare_values =
        app.got_subcommand("metrics") || app.got_subcommand("watch") || !o.status_fields.empty();
    if (!o.json && !bare_values)
        out_fits.emplace(std::cout, wiredcap::cli::output_width(STDOUT_FILENO));
    try {
        if (*to) o.convert.to_unit = o.convert_to;
        o.convert.size = size_text(o.convert_size);
        o.set.size = size_text(o.set_size);
        if (!o.persist_size.empty()) o.persist.size = size_text(o.persist_size);
        return dispatch(app, o);
    } catch (const std::exception& e) {
        say(std::cerr, "", "internal error: ", e.what());
        return wiredcap::to_int(ExitCode::internal_error);
    }
}

}  // namespace

int main(int argc, char** argv) { return with_output_checked(run(argc, argv)); }
