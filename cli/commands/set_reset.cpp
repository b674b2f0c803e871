#include "wiredcap/cli/commands/set_reset.hpp"

#include <unistd.h>

#include <iostream>
#include <ostream>

#include "wiredcap/ramp/at_rest.hpp"
#include "wiredcap/ramp/effective_cap.hpp"
#include "wiredcap/ramp/open_step.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/ramp/typed_answer.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/cli/output/wrapping_buf.hpp"
#include "wiredcap/cli/commands/policy_cause.hpp"
#include "wiredcap/cli/commands/policy_check.hpp"
#include "wiredcap/cli/commands/fit_verdict.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/policy/policy.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

std::optional<std::uint64_t> reading_mib(const json::Value& j, std::string_view key) {
    const json::Value* r = json::get(j, key);
    const json::Value* v = r ? json::get(*r, "value") : nullptr;
    return v ? json::as_u64(*v) : std::nullopt;
}

// The knob as the helper's `read` reports it now, or why it cannot say.
struct KnobNow {
    std::optional<std::uint64_t> mib;
    std::string why_unknown;
};

struct Refusal {
    ExitCode code;
    std::string why;
};

KnobNow reread_knob(const CliContext& ctx) {
    const HelperReply r = ctx.helper.run({"read"});
    if (!r.json)
        return KnobNow{std::nullopt, r.error.empty() ? "the helper gave no answer" : r.error};
    if (auto v = reading_mib(*r.json, "wired_limit_mib")) return KnobNow{v, {}};
    const json::Value* wl = json::get(*r.json, "wired_limit_mib");
    const json::Value* err = wl ? json::get(*wl, "error") : nullptr;
    return KnobNow{std::nullopt, err && json::as_string(*err) ? *json::as_string(*err)
                                                              : "the helper reported no value"};
}

// What a `set` knew before the change: which way it moves the GPU's cap, and from what.
struct Before {
    Direction direction;
    EffectiveCap effective;
};

// Reports the helper's answer: the value read back, never the value requested. When the change
// failed without a read-back (a refused write, exit 5), the kernel is asked again: the report
// names what it holds now (or why that is unknown), and a change only if the readings show one.
ExitCode report(CliContext& ctx, const HelperReply& reply, std::string_view verb,
                const std::optional<Before>& before = std::nullopt) {
    if (!reply.json) {
        return fail(ctx.err, verb,
                    reply.code() == ExitCode::ok ? ExitCode::internal_error : reply.code(),
                    reply.error);
    }
    const json::Value& j = *reply.json;
    auto readback = reading_mib(j, "readback_mib");
    std::string source = "kernel read-back";
    std::string why_unknown;
    if (!reply.ok() && !readback) {
        const KnobNow now = reread_knob(ctx);
        readback = now.mib;
        source = "kernel";
        why_unknown = now.why_unknown;
    }
    const auto previous = reading_mib(j, "previous_mib");
    const bool knob_changed = readback && previous && *readback != *previous;
    // A plain reset also forgets the value stored for boot; only the helper knows if there was one.
    // Two plain bools, not an optional<bool>: GCC 12 at -O2 reports the optional's flag as
    // maybe-uninitialized (a false positive that -Werror turned into a broken release build).
    const json::Value* forgot =
        json::get(j, "persist_removed");  // not a journal word: a key of the helper's answer
    const bool persist_known = forgot && json::as_bool(*forgot);
    const bool persist_removed = persist_known && *json::as_bool(*forgot);
    // Forgetting the value stored for boot is a change too (`set default` after `persist`).
    const bool changed = knob_changed || persist_removed;
    const json::Value* backend = json::get(j, "backend");
    const bool simulated =
        backend && json::as_string(*backend) && *json::as_string(*backend) == "simulated";
    if (ctx.json) {
        JsonObject o = contract::head("wiredcap.change/2");
        o.str("command", verb).boolean("ok", reply.ok()).boolean("simulated", simulated);
        const JsonObject now = contract::size_of_count(
            readback, source,
            why_unknown.empty() ? "the helper reported no read-back" : why_unknown);
        o.object("previous",
                 contract::size_of_count(previous, "kernel read-back",
                                         "the helper reported no reading before the change"))
            .object("wired_limit", now)
            .boolean("changed", changed);
        if (const json::Value* req = json::get(j, "requested_mib"); req && json::as_u64(*req))
            o.num("requested_mib", *json::as_u64(*req));
        if (persist_known)
            o.boolean("persist_removed",
                      persist_removed);  // not a journal word: a key of the helper's answer
        if (before) {
            o.str("direction", direction_name(before->direction));
            o.object("effective_before",
                     contract::size(before->effective.value, before->effective.source, ""));
        }
        if (!reply.ok())
            o.num("exit", static_cast<std::uint64_t>(to_int(reply.code())))
                .str("error", reply.error);
        ctx.out << o.text() << "\n";
    }
    if (!reply.ok()) {
        say(ctx.err, verb, reply.error);
        if (readback)
            ctx.err << "iogpu.wired_limit_mb now reads "
                    << (*readback == 0 ? std::string("0 (the OS default)")
                                       : std::to_string(*readback) + " MiB")
                    << " [" << source << "]\n";
        else if (!why_unknown.empty())
            ctx.err << "iogpu.wired_limit_mb now: unknown (" << why_unknown << ")\n";
        return reply.code();
    }
    if (!readback) {
        return fail(ctx.err, verb, ExitCode::internal_error, "the helper reported no read-back");
    }
    if (ctx.json) return ExitCode::ok;
    const MiB now = *MiB::from_count(*readback);
    const std::string value = now.count() == 0 ? "0 (OS default policy)" : units::describe(now);
    ctx.out << (simulated ? "SIMULATED " : "") << "iogpu.wired_limit_mb = " << value
            << "   [kernel read-back]\n";
    if (before && knob_changed)
        ctx.out << (before->direction == Direction::raise   ? "raised"
                    : before->direction == Direction::lower ? "lowered"
                                                            : "kept")
                << " the GPU's cap: it was " << effective_text(before->effective) << "\n";
    if (!knob_changed) ctx.out << "unchanged: the kernel already held this value\n";
    else
        ctx.out << "Running MLX, Ollama or llama.cpp processes keep the old cap until restarted.\n";
    if (persist_removed) ctx.out << "also forgot the value stored for boot\n";
    return ExitCode::ok;
}

// A dry run's answer: the helper made every check of the real command under its lock and
// stopped before its first write (--check). Refused, it is the real run's refusal, with its exit
// code; permitted, exit 0 and what the run would change, from the helper's reading of the knob
// (and, for reset, whether a value is stored for boot). Nothing was changed either way.
ExitCode report_check(CliContext& ctx, const HelperReply& reply, std::string_view verb,
                      const std::optional<Before>& before, bool forgets_stored) {
    const json::Value* j = reply.json ? &*reply.json : nullptr;
    const auto previous = j ? reading_mib(*j, "previous_mib") : std::nullopt;
    const json::Value* req = j ? json::get(*j, "requested_mib") : nullptr;
    // A count and a flag, not an optional: GCC's -O3 flow analysis called the optional's value
    // maybe-uninitialized (the release build's warnings are errors).
    const bool has_requested = req != nullptr && json::as_u64(*req).has_value();
    const std::uint64_t requested = has_requested ? *json::as_u64(*req) : 0;
    const json::Value* backend = j ? json::get(*j, "backend") : nullptr;
    const bool simulated =
        backend && json::as_string(*backend) && *json::as_string(*backend) == "simulated";
    const ExitCode code = reply.ok()                     ? ExitCode::ok
                          : reply.code() == ExitCode::ok ? ExitCode::internal_error
                                                         : reply.code();
    const std::string error = reply.error.empty() ? "the helper gave no answer" : reply.error;
    const bool would_change =
        previous && has_requested && (*previous != requested || forgets_stored);
    if (ctx.json) {
        JsonObject o = contract::head("wiredcap.change/2");
        o.str("command", verb)
            .boolean("ok", code == ExitCode::ok)
            .boolean("simulated", simulated)
            .boolean("dry_run", true);
        const JsonObject now =
            contract::size_of_count(previous, "kernel", "the helper reported no reading");
        o.object("previous", now).object("wired_limit", now).boolean("changed", false);
        if (has_requested) o.num("requested_mib", requested);
        if (code == ExitCode::ok) o.boolean("would_change", would_change);
        if (before) {
            o.str("direction", direction_name(before->direction));
            o.object("effective_before",
                     contract::size(before->effective.value, before->effective.source, ""));
        }
        if (code != ExitCode::ok)
            o.num("exit", static_cast<std::uint64_t>(to_int(code))).str("error", error);
        ctx.out << o.text() << "\n";
    }
    if (code != ExitCode::ok) {
        return fail(ctx.err, verb, code, error);
    }
    if (ctx.json) return ExitCode::ok;
    const std::string to =
        requested != 0 ? units::describe(*MiB::from_count(requested)) : "0 (the OS default)";
    ctx.out << (simulated ? "SIMULATED " : "") << "dry run: wiredcap " << verb << " would "
            << (!would_change ? "change nothing" : "set iogpu.wired_limit_mb to " + to);
    if (before && would_change)
        ctx.out << " ("
                << (before->direction == Direction::raise   ? "a raise"
                    : before->direction == Direction::lower ? "a lowering"
                                                            : "the same cap")
                << " of the GPU's cap from " << effective_text(before->effective) << ")";
    if (forgets_stored) ctx.out << ", and forget the value stored for boot";
    ctx.out
        << "\npermitted: every check passed, the helper's under its lock; nothing was changed\n";
    return ExitCode::ok;
}

// A raise, or any change away from the OS default, asks first. No terminal to ask on is a usage
// error (pass --yes); a person saying no is not (exit 13, declined).
std::string from_text(const Before& b, MiB current) {
    return (current.count() == 0 ? "the OS default's " : "") + units::describe(b.effective.value);
}

ExitCode no_terminal(CliContext& ctx, const Before& b, MiB current, MiB to) {
    return fail(ctx.err, "set", ExitCode::usage,
                (b.direction == Direction::raise ? "raising" : "changing"), " the GPU's cap from ",
                from_text(b, current), " [", b.effective.source, "] to ", units::describe(to),
                " needs confirmation; no terminal to ask on, so pass --yes");
}

bool confirmed_change(CliContext& ctx, const Before& b, MiB current, MiB to) {
    const std::string verb = b.direction == Direction::raise   ? "Raise"
                             : b.direction == Direction::lower ? "Lower"
                                                               : "Set";
    const std::string text = verb + " the GPU's cap from " + from_text(b, current) + " [" +
                             b.effective.source + "] to " + units::describe(to) +
                             " (iogpu.wired_limit_mb)? Type yes to continue: ";
    // Only a raise needs yes in full; lowering the cap cannot hang the machine.
    std::optional<std::string> full;
    if (b.direction == Direction::raise) full = "this raises the GPU's cap";
    const auto answer =
        ask_word(std::cin, ctx.err, ::isatty(STDERR_FILENO) != 0, yes_or_no(text, full));
    if (answer != "yes") {
        ctx.err << "not changed\n";
        return false;
    }
    return true;
}

// A value at or above the journal's hang ceiling needs --ignore-hang-ceiling.
std::optional<std::string> hang_refusal(const recovery::Report& report, MiB value, bool ignore) {
    const auto& c = report.hang_ceiling;
    if (!c || value < c->value || ignore) return std::nullopt;
    return units::describe(value) +
           " is at or above the hang ceiling: " + units::describe(c->value) + " " +
           recovery::hang_origin(*c) + "; choose a lower value, or pass --ignore-hang-ceiling";
}

// What the journal says before a set: a step open in this boot refuses it (engine/open_step.hpp:
// exit 10), a value at or above the hang ceiling needs --ignore-hang-ceiling. An unreadable
// journal leaves both unknown, which refuses (fail closed).
std::optional<Refusal> journal_refusal(CliContext& ctx, const MachineReadings& m, MiB value,
                                       bool ignore) {
    auto report =
        recovery::analyse_file(journal_path(ctx.helper.dev()), m.boot_id.value.value_or(""));
    if (!report)
        return Refusal{ExitCode::refused_by_policy,
                       report.error().message +
                           "; the hang ceiling, and whether a ramp step awaits confirmation, "
                           "are unknown, so nothing was changed"};
    if (const auto* open = open_step_refusing(*report))
        return Refusal{ExitCode::unresolved_journal, open_step_refusal(*open)};
    auto why = hang_refusal(*report, value, ignore);
    if (why) return Refusal{ExitCode::refused_by_policy, *why};
    return std::nullopt;
}

// Idempotence (docs/design.md §7): the knob already reads what was asked for. Nothing is written or
// journaled, and the answer says so: exit 0, changed false.
ExitCode already(CliContext& ctx, const MachineReadings& m, MiB value, std::string_view verb,
                 bool reset, bool dry_run) {
    if (ctx.json) {
        JsonObject o = contract::head("wiredcap.change/2");
        o.str("command", verb).boolean("ok", true).boolean("simulated", m.simulated());
        if (dry_run) o.boolean("dry_run", true).boolean("would_change", false);
        o.object("previous", contract::size(value, m.knob.source, ""))
            .object("wired_limit", contract::size(value, m.knob.source, ""));
        o.boolean("changed", false).num("requested_mib", value.count());
        if (reset)
            o.boolean("persist_removed",
                      false);  // not a journal word: a key of the helper's answer
        ctx.out << o.text() << "\n";
        return ExitCode::ok;
    }
    ctx.out << (m.simulated() ? "SIMULATED " : "") << (dry_run ? "dry run: " : "") << "already at "
            << (value.count() == 0 ? "the OS default" : units::describe(value))
            << ": iogpu.wired_limit_mb reads "
            << (value.count() == 0 ? "0 (the OS default)" : units::to_string(value)) << "   ["
            << m.knob.source << "]; nothing was changed\n";
    return ExitCode::ok;
}

std::vector<std::string> with_check(std::vector<std::string> args) {
    args.emplace_back("--check");
    return args;
}

policy::Policy as_policy(const PolicyView& v, MiB max_step) {
    return policy::Policy{
        v.min, v.max,     v.reserve,      max_step, v.group, {}, policy::Source::file,
        {},    v.vouched, v.vouched_note, v.sha256};
}

// Everything the helper would refuse that wiredcap can know without writing (docs/design.md §7): the
// policy, permission, band, memory minus reserve and max_step, checked before any question, by
// the helper's own rule (policy::refusal). A raise refused only for max_step names the ramp
// that reaches it, with --ignore-hang-ceiling when the caller gave it (at or above the hang
// ceiling the ramp refuses without it).
std::optional<Refusal> refusal_before_asking(const CliContext& ctx, const MachineReadings& m,
                                             MiB value, const EffectiveCap& effective,
                                             bool ignore_hang_ceiling) {
    if (!m.policy)
        return Refusal{no_band_code(installed_policy_path(ctx.helper.dev())), m.policy_error};
    if (!m.may_change) return Refusal{ExitCode::not_permitted, m.may_change_why};
    if (!m.memsize.value)
        return std::nullopt;  // the helper reads it itself, and refuses without it
    const MiB knob = *m.knob.value;
    const auto why = policy::refusal(as_policy(*m.policy, m.policy->max_step), *m.memsize.value,
                                     knob, value, effective.value);
    if (!why) return std::nullopt;
    const auto without_step = policy::refusal(as_policy(*m.policy, MiB::max()), *m.memsize.value,
                                              knob, value, effective.value);
    if (!without_step && value > effective.value)
        return Refusal{ExitCode::refused_by_policy,
                       *why + "; to get there step by step: wiredcap ramp --to " +
                           fit::size_argument(value) +
                           (ignore_hang_ceiling ? " --ignore-hang-ceiling" : "")};
    return Refusal{ExitCode::refused_by_policy, *why};
}

}  // namespace

Direction direction_of(MiB effective, MiB value) {
    return value > effective   ? Direction::raise
           : value < effective ? Direction::lower
                               : Direction::same;
}

std::string_view direction_name(Direction d) {
    switch (d) {
        case Direction::raise: return "raise";
        case Direction::lower: return "lower";
        case Direction::same: return "same";
    }
    return "unknown";
}

ExitCode run_set(CliContext& ctx, const SetRequest& req, int tty_in_fd) {
    if (req.size == "default") return run_reset(ctx, req.dry_run);
    auto value = units::parse_size_as<MiB>(req.size);
    if (!value) {
        return fail(ctx.err, "set", ExitCode::usage, value.error().message);
    }
    if (value->count() == 0) {
        return fail(ctx.err, "set", ExitCode::usage,
                    "0 means the OS default to the kernel; write 'default' (or use reset)");
    }
    auto from = parse_from(req.from);
    if (!from) {
        return fail(ctx.err, "set", ExitCode::usage, from.error().message);
    }
    auto machine = read_machine(ctx.helper);
    if (!machine) {
        return fail(ctx.err, "set", ExitCode::internal_error, machine.error().message);
    }
    // Without a knob to read the helper refuses with the platform's own answer.
    if (!machine->knob.value && req.dry_run)
        return report_check(ctx, ctx.helper.run({"apply", units::to_string(*value), "--check"}),
                            "set", std::nullopt, false);
    if (!machine->knob.value)
        return report(ctx, ctx.helper.run({"apply", units::to_string(*value)}), "set");
    if (auto no = journal_refusal(ctx, *machine, *value, req.ignore_hang_ceiling)) {
        return fail(ctx.err, "set", no->code, no->why);
    }
    if (*machine->knob.value == *value && nothing_at_risk(ctx, *machine))
        return already(ctx, *machine, *value, "set", false, req.dry_run);
    auto effective = effective_cap(*machine, read_metal(*machine, ctx.helper.dev()), *from);
    if (!effective) {
        return fail(ctx.err, "set", ExitCode::usage, effective.error().message);
    }
    if (auto no =
            refusal_before_asking(ctx, *machine, *value, *effective, req.ignore_hang_ceiling)) {
        return fail(ctx.err, "set", no->code, no->why);
    }
    const Before before{direction_of(effective->value, *value), *effective};
    const MiB current = *machine->knob.value;
    const bool ask =
        before.direction == Direction::raise || (current.count() == 0 && *value != current);
    if (ask && !req.yes && !req.dry_run) {
        if (::isatty(tty_in_fd) == 0) return no_terminal(ctx, before, current, *value);
        if (!confirmed_change(ctx, before, current, *value)) return ExitCode::declined;
    }
    std::vector<std::string> args{"apply", units::to_string(*value), "--by",
                                  "set"};  // names the writer
    const auto extra = effective_args(*effective);
    args.insert(args.end(), extra.begin(), extra.end());
    if (req.ignore_hang_ceiling) args.emplace_back("--ignore-hang-ceiling");
    if (req.dry_run)
        return report_check(ctx, ctx.helper.run(with_check(args)), "set", before, false);
    return report(ctx, ctx.helper.run(args), "set", before);
}

// A reset with nothing to do (the knob reads 0 and nothing is stored for boot) writes nothing.
// Anything less certain goes to the helper, which always lets root reset.
ExitCode run_reset(CliContext& ctx, bool dry_run) {
    auto m = read_machine(ctx.helper);
    if (m && m->knob.value && m->knob.value->count() == 0 && m->boot_guard &&
        !m->boot_guard->persisted && m->boot_guard->error.empty() && nothing_at_risk(ctx, *m))
        return already(ctx, *m, MiB::zero(), "reset", true, dry_run);
    // Whether a value is stored for boot: the helper's `read` of the boot state file.
    const bool stored = m && m->boot_guard && m->boot_guard->persisted;
    if (dry_run)
        return report_check(ctx, ctx.helper.run({"reset", "--check"}), "reset", std::nullopt,
                            stored);
    return report(ctx, ctx.helper.run({"reset"}), "reset");
}

}  // namespace wiredcap::cli
