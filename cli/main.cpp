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

#include "wiredcap/cli/app_definition.hpp"
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
using wiredcap::cli::Options;
using wiredcap::cli::say;

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
    CLI::App app;
    Options o;
    wiredcap::cli::define_app(app, o);

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
        if (*o.convert_to_option) o.convert.to_unit = o.convert_to;
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
