// The command line of wiredcap (see app_definition.hpp): every option, its help text and where
// its value lands. main.cpp runs what was parsed; wiredcap-cli-reference walks the same App.
#include "wiredcap/cli/app_definition.hpp"

#include <string>
#include <utility>
#include <vector>

#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::cli {

namespace {

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

}  // namespace

void define_app(CLI::App& app, Options& o) {
    // Named here, so that Usage: shows "wiredcap" and not argv[0]'s absolute path.
    app.name("wiredcap");
    app.description(
        "wiredcap: set the Apple Silicon GPU wired-memory cap (iogpu.wired_limit_mb) safely");
    app.set_version_flag("-V,--version", std::string("wiredcap ") + wiredcap::kVersion,
                         "Print the version and exit");
    app.require_subcommand(1);
    app.fallthrough();  // global options (--json, --helper, ...) may follow the subcommand
    add_global_options(app, o);

    auto* convert = app.add_subcommand(
        "convert", "Print a size exactly in other units (MiB for iogpu.wired_limit_mb)");
    convert
        ->add_option("SIZE", o.convert_size,
                     "A size with its unit, e.g. 232GiB (units: B kB MB GB TB KiB MiB GiB TiB)")
        ->required()
        ->expected(1, 2);
    o.convert_to_option = convert->add_option(
        "--to", o.convert_to, "Print only this unit (B kB MB GB TB KiB MiB GiB TiB)");

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
}

}  // namespace wiredcap::cli
