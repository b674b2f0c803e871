#include "wiredcap/cli/commands/persist_cmd.hpp"

#include <ostream>

#include "wiredcap/cli/commands/policy_cause.hpp"
#include "wiredcap/cli/commands/policy_check.hpp"
#include "wiredcap/ramp/effective_cap.hpp"
#include "wiredcap/ramp/open_step.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/cli/readings/daemon_texts.hpp"
#include "wiredcap/cli/readings/launchd_state.hpp"
#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

constexpr const char* kReadBackSource = "boot state file read-back";
constexpr const char* kForgetHint = "to forget the stored value: wiredcap persist --off";

constexpr const char* kFromCommandLine = "the command line";

PersistError usage(std::string message) {
    return PersistError{ExitCode::usage, std::move(message)};
}

// --off takes nothing else: each option it would ignore is named, so nothing is silently dropped.
std::optional<PersistError> off_conflict(const PersistRequest& req) {
    if (req.size)
        return usage("persist --off forgets the stored value and takes no SIZE (got " +
                     units::quote_input(*req.size) + "); to store a value: wiredcap persist SIZE");
    if (req.unconfirmed)
        return usage(
            "--unconfirmed is for storing a value; persist --off takes no other option but --dry-run");
    if (req.lower)
        return usage(
            "--lower is for storing a value; persist --off takes no other option but --dry-run");
    if (req.ignore_hang_ceiling)
        return usage(
            "--ignore-hang-ceiling is for storing a value; persist --off takes no other option but --dry-run");
    return std::nullopt;
}

// SIZE as `set` reads it, except that the OS default is not a value to store: with nothing
// stored, every boot keeps the OS default already.
Expected<MiB, PersistError> parse_size(const std::string& text) {
    if (text == "default")
        return usage(
            "'default' is the OS default, which every boot keeps when nothing is stored; " +
            std::string(kForgetHint));
    auto value = units::parse_size_as<MiB>(text);
    if (!value) return usage(value.error().message);
    if (value->count() == 0)
        return usage(
            "0 means the OS default to the kernel, which every boot keeps when nothing is stored; " +
            std::string(kForgetHint));
    return *value;
}

std::string ramp_ref_text(const recovery::StepRef& r) {
    return "run " + r.run + " step " + std::to_string(r.step) + ", " + r.time;
}

std::string minutes_or_seconds(std::uint64_t s) {
    if (s % 60 == 0) return std::to_string(s / 60) + " min";
    return std::to_string(s) + " s";
}

// What happens next, in one sentence: the boot action's rule, with this machine's healthy_after.
std::string next_sentence(const MachineReadings& m) {
    const auto& g = m.boot_guard;
    const auto healthy_after = m.policy ? m.policy->healthy_after_s : std::nullopt;
    const std::string after = healthy_after ? minutes_or_seconds(*healthy_after) + " of uptime"
                                            : "healthy_after of uptime (the policy's; unknown now)";
    std::string s = "The LaunchDaemon applies it once at each boot and marks it healthy after " +
                    after +
                    "; it never applies it again after a boot that did not get there. "
                    "To forget it: wiredcap persist --off (or wiredcap reset).";
    s += " " + std::string(kStartServersAfter);
    if (g && g->disabled.value_or(false))
        s += "\nThe boot action is disabled now: " + g->switch_path +
             " exists (or cannot be checked).";
    // A daemon that is missing (Homebrew), not loaded or disabled: persist_warning says so once.
    return s;
}

struct ReadBack {
    std::optional<MiB> value;
    std::string error;
};

// The helper's {"value":N|null,"source":"boot state file read-back","error"?}.
ReadBack persisted_of(const json::Value& j) {
    ReadBack r;
    const json::Value* o = json::get(j, "persisted_mib");
    if (o == nullptr)
        return ReadBack{std::nullopt, "the helper reported no read-back of the boot state file"};
    if (const json::Value* e = json::get(*o, "error"); e && json::as_string(*e))
        r.error = *json::as_string(*e);
    const json::Value* v = json::get(*o, "value");
    if (v != nullptr && json::as_u64(*v)) r.value = MiB::from_count(*json::as_u64(*v));
    else if ((v == nullptr || !v->is_null()) && r.error.empty())
        r.error = "the helper's read-back of the boot state file is not a MiB count";
    return r;
}

bool flag(const json::Value& j, std::string_view key) {
    const json::Value* v = json::get(j, key);
    return v && json::as_bool(*v).value_or(false);
}

std::string basis_of(const json::Value& j) {
    const json::Value* b = json::get(j, "basis");
    return b && json::as_string(*b) ? *json::as_string(*b) : std::string();
}

JsonObject persisted_json(const ReadBack& r) {
    JsonObject o;
    // Null without why_unknown: nothing is stored (a valid answer, not an unknown one).
    if (r.value) o.num("value", r.value->count());
    else o.null("value");
    o.str("source", kReadBackSource);
    if (!r.error.empty()) o.str("why_unknown", r.error);
    return o;
}

// A refusal before the helper read the file back has no read-back to report: none is made up.
JsonObject with_read_back(JsonObject o, const json::Value& j, const ReadBack& r) {
    if (json::get(j, "persisted_mib") != nullptr)
        o.object("persisted", persisted_json(r));  // not a journal word: a key of the answer
    return o;
}

// The start of every JSON answer, success or not.
JsonObject json_head(bool off, bool simulated) {
    JsonObject o = contract::head("wiredcap.persist/2");
    return o.boolean("simulated", simulated).boolean("off", off);
}

ExitCode fail(CliContext& ctx, JsonObject o, ExitCode code, const std::string& message) {
    if (ctx.json)
        ctx.out << o.boolean("ok", false)
                       .num("exit", static_cast<std::uint64_t>(to_int(code)))
                       .str("error", message)
                       .text()
                << "\n";
    return cli::fail(ctx.err, "persist", code, message);
}

std::string stored_line(bool simulated, const ReadBack& r) {
    const std::string value = r.value           ? units::describe(*r.value)
                              : r.error.empty() ? "nothing"
                                                : "unknown (" + r.error + ")";
    return std::string(simulated ? "SIMULATED " : "") + "stored for boot = " + value + "   [" +
           kReadBackSource + "]\n";
}

std::string basis_line(const std::string& basis, const PersistChoice& c, bool from_journal) {
    const std::string what =
        basis == journal::basis::confirmed ? "confirmed in a ramp on this machine (per the journal)"
        : basis == "unconfirmed"           ? "unconfirmed (stored with --unconfirmed)"
        : basis == "vouched" ? "vouched for by the policy file (no ramp on this machine); "
                               "each boot applies it only while the policy still vouches"
                             : "not reported by the helper";
    return "basis: " + what + "\n" + (from_journal ? "value: " + c.from + "\n" : "");
}

// The helper's at_boot {direction, from_mib, from_source, by_mib}: what the stored value does at
// each boot, against the effective cap when it was stored (persist --unconfirmed only).
struct AtBoot {
    std::string direction;  // raised | lowered | unchanged
    MiB from = MiB::zero();
    std::string from_source;
    MiB by = MiB::zero();
};

std::optional<AtBoot> at_boot_of(const json::Value& j) {
    const json::Value* o = json::get(j, "at_boot");
    if (o == nullptr) return std::nullopt;
    const json::Value* d = json::get(*o, "direction");
    const json::Value* src = json::get(*o, "from_source");
    const json::Value* from = json::get(*o, "from_mib");
    const json::Value* by = json::get(*o, "by_mib");
    if (!d || !json::as_string(*d) || !src || !json::as_string(*src) || !from ||
        !json::as_u64(*from) || !by || !json::as_u64(*by))
        return std::nullopt;
    const auto from_mib = MiB::from_count(*json::as_u64(*from));
    const auto by_mib = MiB::from_count(*json::as_u64(*by));
    if (!from_mib || !by_mib) return std::nullopt;
    return AtBoot{*json::as_string(*d), *from_mib, *json::as_string(*src), *by_mib};
}

JsonObject at_boot_json(const AtBoot& b) {
    return JsonObject()
        .str("direction", b.direction)
        .num("from_mib", b.from.count())
        .str("from_source", b.from_source)
        .num("by_mib", b.by.count());
}

std::string at_boot_text(const AtBoot& b) {
    const std::string start = units::describe(b.from);
    if (b.direction == "lowered")
        return "at every boot: LOWERS the GPU's cap by " + units::describe(b.by) +
               " below the OS default (the effective cap was " + start +
               " when stored), because of --lower\n";
    if (b.direction == "raised")
        return "at every boot: raises the GPU's cap by " + units::describe(b.by) + " from " +
               start + "\n";
    return "at every boot: the GPU's cap stays at " + start + "\n";
}

// The helper answers 11 for every policy it cannot use (its message says which); a script tells
// a Mac too small for the built-in band (14) and an unreadable file (16) from a malformed one
// (11) by the exit code, as with set and ramp, so the cause is judged from the file here.
ExitCode refusal_code(const CliContext& ctx, const HelperReply& reply) {
    if (reply.code() != ExitCode::policy_invalid) return reply.code();
    return no_band_code(installed_policy_path(ctx.helper.dev()));
}

ExitCode report_store(CliContext& ctx, const HelperReply& reply, const PersistChoice& c,
                      const MachineReadings& m) {
    JsonObject o = json_head(false, m.simulated());
    o.num("requested_mib", c.value.count()).str("requested_from", c.from);
    if (!reply.json)
        return fail(ctx, o, reply.code() == ExitCode::ok ? ExitCode::internal_error : reply.code(),
                    reply.error);
    const json::Value& j = *reply.json;
    const ReadBack stored = persisted_of(j);
    if (!reply.ok())
        return fail(ctx, with_read_back(o, j, stored), refusal_code(ctx, reply), reply.error);
    const std::string basis = basis_of(j);
    const bool changed = flag(j, "changed");
    const std::string next = next_sentence(m);
    if (ctx.json) {
        if (basis.empty()) o.null("basis");
        else o.str("basis", basis);
        o.object("persisted", persisted_json(stored))
            .boolean("changed", changed);  // not a journal word: a key of the answer
        o.boolean("at_or_above_hang_ceiling", c.at_or_above_ceiling);
        if (const auto b = at_boot_of(j)) o.object("at_boot", at_boot_json(*b));
        const auto healthy_after = m.policy ? m.policy->healthy_after_s : std::nullopt;
        if (healthy_after) o.num("healthy_after_s", *healthy_after);
        else o.null("healthy_after_s");
        ctx.out
            << o.str("next", next).boolean("ok", stored.value == std::optional<MiB>(c.value)).text()
            << "\n";
    } else {
        ctx.out << stored_line(m.simulated(), stored)
                << basis_line(basis, c, c.from != kFromCommandLine);
        if (c.at_or_above_ceiling)
            ctx.out << "at or above the hang ceiling: stored because of --ignore-hang-ceiling\n";
        if (const auto b = at_boot_of(j)) ctx.out << at_boot_text(*b);
        ctx.out << (changed ? "stored now\n"
                            : "unchanged: this value was already stored for boot\n")
                << next << "\n";
    }
    if (!stored.value) {
        return cli::fail(
            ctx.err, "persist", ExitCode::internal_error,
            "the helper reported success, but the boot state file reads back no value");
    }
    if (*stored.value != c.value) {
        return cli::fail(ctx.err, "persist", ExitCode::internal_error,
                         "the boot state file reads back ", units::to_string(*stored.value),
                         ", not the ", units::to_string(c.value), " asked for");
    }
    // Stored is not applied: a daemon that is not loaded, or that the person switched off in
    // Login Items, never runs. Said on stderr, so scripts reading the JSON see it too.
    if (auto warning =
            persist_warning(read_daemon_state(m.simulated(), ctx.helper.dev().sim_state)))
        say(ctx.err, "persist", "warning: ", *warning);
    return ExitCode::ok;
}

ExitCode report_off(CliContext& ctx, const HelperReply& reply) {
    const json::Value* backend = reply.json ? json::get(*reply.json, "backend") : nullptr;
    const bool simulated =
        backend && json::as_string(*backend) && *json::as_string(*backend) == "simulated";
    JsonObject o = json_head(true, simulated);
    if (!reply.json)
        return fail(ctx, o, reply.code() == ExitCode::ok ? ExitCode::internal_error : reply.code(),
                    reply.error);
    const ReadBack stored = persisted_of(*reply.json);
    if (!reply.ok())
        return fail(ctx, with_read_back(o, *reply.json, stored), reply.code(), reply.error);
    const bool changed = flag(*reply.json, "changed");
    // Forgotten means the file reads back as nothing, not merely that the helper said so.
    const bool gone = !stored.value && stored.error.empty();
    if (ctx.json) {
        ctx.out << o.object("persisted", persisted_json(stored))
                       .boolean("changed", changed)
                       .boolean("ok", gone)
                       .text()
                << "\n";  // not a journal word: a key of the answer
    } else {
        ctx.out << stored_line(simulated, stored)
                << (changed ? "forgot the value stored for boot\n"
                            : "unchanged: nothing was stored for boot\n");
        if (gone)
            ctx.out << "The boot action has nothing to apply: every boot keeps the OS default.\n";
    }
    if (!gone) {
        return cli::fail(
            ctx.err, "persist", ExitCode::internal_error,
            "the helper reported success, but the boot state file does not read back empty");
    }
    return ExitCode::ok;
}

// A dry run's answer (--check): the helper made every check of the real command under its lock
// and stopped before the store (or the removal). Refused: the real run's refusal and exit code.
// Permitted: exit 0, what is stored now (the helper's read of the boot state file) and whether
// the run would change it (the helper's own comparison for a store).
ExitCode report_check(CliContext& ctx, const HelperReply& reply,
                      const std::optional<PersistChoice>& c, const MachineReadings& m) {
    JsonObject o = json_head(!c, m.simulated()).boolean("dry_run", true);
    if (c) o.num("requested_mib", c->value.count()).str("requested_from", c->from);
    if (!reply.json)
        return fail(ctx, o, reply.code() == ExitCode::ok ? ExitCode::internal_error : reply.code(),
                    reply.error);
    const json::Value& j = *reply.json;
    if (!reply.ok()) return fail(ctx, o, refusal_code(ctx, reply), reply.error);
    const ReadBack now = m.boot_guard ? ReadBack{m.boot_guard->persisted, m.boot_guard->error}
                                      : ReadBack{std::nullopt, "the helper reported no boot state"};
    // Forgetting changes something when a value is stored (or may be); a store, when the helper's
    // comparison with what is stored says so.
    const bool would_change =
        c ? flag(j, "would_change") : now.value.has_value() || !now.error.empty();
    const std::string basis = basis_of(j);
    if (ctx.json) {
        if (c) {
            if (basis.empty()) o.null("basis");
            else o.str("basis", basis);
        }
        o.object("persisted", persisted_json(now))
            .boolean("changed", false)
            .boolean("would_change", would_change);  // not a journal word: a key of the answer
        if (const auto b = at_boot_of(j)) o.object("at_boot", at_boot_json(*b));
        ctx.out << o.boolean("ok", true).text() << "\n";
        return ExitCode::ok;
    }
    ctx.out << (m.simulated() ? "SIMULATED " : "") << "dry run: wiredcap persist would ";
    if (!would_change) ctx.out << "change nothing";
    else if (c) ctx.out << "store " << units::describe(c->value) << " for boot";
    else ctx.out << "forget the value stored for boot";
    ctx.out << "\n" << stored_line(m.simulated(), now);
    if (c) ctx.out << basis_line(basis, *c, c->from != kFromCommandLine);
    if (const auto b = at_boot_of(j)) ctx.out << at_boot_text(*b);
    ctx.out << "permitted: every check passed, the helper's under its lock; nothing was changed\n";
    return ExitCode::ok;
}

// --unconfirmed: the boot action moves the knob from the OS default in one write, so its one
// step counts from the OS default's effective cap, read now (Metal; the simulator's model of it),
// which the helper journals and stores with the value. With the knob set, Metal follows the knob
// and the OS default's cap cannot be read: counting from the knob would understate the boot's
// step whenever the knob is above the default, so that is refused. --lower lets the helper
// store a value below the effective cap.
Expected<std::vector<std::string>> unconfirmed_args(const MachineReadings& m, const DevPaths& dev,
                                                    bool lower) {
    std::vector<std::string> a{"--unconfirmed"};
    if (lower) a.emplace_back("--lower");
    if (!m.knob.value) return Error{"cannot read iogpu.wired_limit_mb: " + m.knob.error};
    if (m.knob.value->count() != 0)
        return Error{
            "iogpu.wired_limit_mb is set (" + units::describe(*m.knob.value) +
            "), and the GPU's cap follows "
            "it: the OS default's cap, where the boot action's one step starts, cannot be read now; for "
            "--unconfirmed, first go back to the OS default (wiredcap reset), then persist again; or "
            "confirm the value in a ramp (wiredcap ramp --to SIZE) and persist it"};
    const auto metal = read_metal(m, dev);
    if (!metal.working_set)
        return Error{
            "the effective cap cannot be read (" + metal.why_unknown +
            ") and the cap is the OS default: "
            "--unconfirmed needs it, to count the boot action's one step from it; confirm the value "
            "in a ramp instead (wiredcap ramp --to SIZE, then wiredcap persist)"};
    const auto e = effective_cap(m, metal, std::nullopt);
    if (!e) return e.error();
    const auto extra = effective_args(*e);
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

ExitCode store(CliContext& ctx, const PersistRequest& req, const PersistArgs& args) {
    auto machine = read_machine(ctx.helper);
    if (!machine) {
        return cli::fail(ctx.err, "persist", ExitCode::internal_error, machine.error().message);
    }
    const std::string path = journal_path(ctx.helper.dev());
    auto contents = journal_view::read_journal(path);
    if (!contents)
        return fail(ctx, json_head(false, machine->simulated()), ExitCode::internal_error,
                    contents.error().message +
                        "; the last confirmed value and the hang ceiling are unknown");
    const auto report = recovery::analyse(contents->entries, machine->boot_id.value.value_or(""));
    // A value stored while a step awaits confirmation would be chosen on a state nobody settled.
    if (const auto* open = open_step_refusing(report))
        return fail(ctx, json_head(false, machine->simulated()), ExitCode::unresolved_journal,
                    open_step_refusal(*open));
    auto choice = choose_persist_value(args, report, req.ignore_hang_ceiling, "journal " + path);
    if (!choice)
        return fail(ctx, json_head(false, machine->simulated()), choice.error().code,
                    choice.error().message);
    std::vector<std::string> helper_args{"persist", units::to_string(choice->value)};
    if (req.unconfirmed) {
        auto start = unconfirmed_args(*machine, ctx.helper.dev(), req.lower);
        if (!start) {
            // A Mac without the knob (before macOS 14) is unsupported, as set, ramp and status say.
            const ExitCode code = machine->helper_exit == to_int(ExitCode::unsupported_platform)
                                      ? ExitCode::unsupported_platform
                                      : ExitCode::refused_by_policy;
            return fail(ctx, json_head(false, machine->simulated()), code, start.error().message);
        }
        helper_args.insert(helper_args.end(), start->begin(), start->end());
    }
    if (choice->at_or_above_ceiling)
        helper_args.emplace_back("--ignore-hang-ceiling");  // journaled
    if (req.dry_run) {
        helper_args.emplace_back("--check");
        return report_check(ctx, ctx.helper.run(helper_args), *choice, *machine);
    }
    return report_store(ctx, ctx.helper.run(helper_args), *choice, *machine);
}

}  // namespace

Expected<PersistArgs, PersistError> check_persist_args(const PersistRequest& req) {
    if (req.off) {
        if (auto e = off_conflict(req)) return *e;
        return PersistArgs{true, std::nullopt};
    }
    if (req.lower && !req.unconfirmed)
        return usage(
            "--lower goes with --unconfirmed: a confirmed value was reached step by step from the cap "
            "it raised");
    if (!req.size) {
        if (req.unconfirmed)
            return usage(
                "--unconfirmed needs SIZE: without SIZE the value is the journal's last confirmed one, "
                "which needs no override");
        return PersistArgs{false, std::nullopt};
    }
    auto value = parse_size(*req.size);
    if (!value) return value.error();
    return PersistArgs{false, *value};
}

Expected<PersistChoice, PersistError> choose_persist_value(const PersistArgs& args,
                                                           const recovery::Report& journal,
                                                           bool ignore_hang_ceiling,
                                                           const std::string& journal_source) {
    PersistChoice c{MiB::zero(), kFromCommandLine, false};
    if (args.size) {
        c.value = *args.size;
    } else if (journal.last_confirmed) {
        c.value = journal.last_confirmed->value;
        c.from =
            "the journal's last confirmed step (" + ramp_ref_text(*journal.last_confirmed) + ")";
    } else {
        return usage("no value was ever confirmed in a ramp on this machine (" + journal_source +
                     "); confirm one with wiredcap ramp --to SIZE first, and persist stores it "
                     "(or give SIZE, with --unconfirmed for a value no ramp confirmed)");
    }
    const auto& ceiling = journal.hang_ceiling;
    if (ceiling && c.value >= ceiling->value) {
        if (!ignore_hang_ceiling)
            return PersistError{ExitCode::refused_by_policy,
                                units::to_string(c.value) + " is at or above the hang ceiling: " +
                                    units::describe(ceiling->value) + " " +
                                    recovery::hang_origin(*ceiling) +
                                    "; persist a lower value, or pass --ignore-hang-ceiling"};
        c.at_or_above_ceiling = true;
    }
    return c;
}

ExitCode run_persist(CliContext& ctx, const PersistRequest& req) {
    auto args = check_persist_args(req);
    if (!args) {
        return cli::fail(ctx.err, "persist", args.error().code, args.error().message);
    }
    if (args->off && req.dry_run) {
        auto machine = read_machine(ctx.helper);
        if (!machine) {
            return cli::fail(ctx.err, "persist", ExitCode::internal_error, machine.error().message);
        }
        return report_check(ctx, ctx.helper.run({"persist", "--off", "--check"}), std::nullopt,
                            *machine);
    }
    if (args->off) return report_off(ctx, ctx.helper.run({"persist", "--off"}));
    return store(ctx, req, *args);
}

}  // namespace wiredcap::cli
