#include "wiredcap/cli/commands/recover_cmd.hpp"

#include <unistd.h>

#include <ostream>

#include "wiredcap/cli/commands/hang_answers.hpp"

#include "wiredcap/ramp/effective_cap.hpp"
#include "wiredcap/ramp/open_step.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/policy/policy.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

// Records with a word this version does not know (a newer helper's, say): kept in the journal,
// read as nothing, and said so, never silently read as something else.
JsonObject unknown_json(const recovery::Report& rep) {
    std::string first;
    for (const auto& u : rep.unknown)
        first += (first.empty() ? "" : ",") + JsonObject()
                                                  .num("record", u.order)
                                                  .str("time", u.time)
                                                  .str("boot", u.boot)
                                                  .num("uid", u.uid)
                                                  .str("command", u.command)
                                                  .str("event", u.event)
                                                  .text();
    JsonObject o;
    o.num("count", rep.unknown_count).raw_array("first", "[" + first + "]");
    return o;
}

std::string unknown_text(const recovery::Report& rep) {
    std::string t =
        "Unknown: " + std::to_string(rep.unknown_count) +
        " journal record(s) with a word this wiredcap does not know; kept, and read as nothing:\n";
    for (const auto& u : rep.unknown)
        t += "  record " + std::to_string(u.order) + " (" + u.time + ", uid " +
             std::to_string(u.uid) + "): command '" + u.command + "', event '" + u.event + "'\n";
    if (rep.unknown_count > rep.unknown.size())
        t += "  and " + std::to_string(rep.unknown_count - rep.unknown.size()) + " more\n";
    return t;
}

std::string where(const recovery::StepRef& r) {
    return "run " + r.run + " step " + std::to_string(r.step) + " (" + units::describe(r.value) +
           ", " + r.time + ")";
}

// Records the outcome the journal lacks for one run; false when the helper refused. A run
// whose last step is from this boot may still be live (between a confirmation and its next
// step): closing it would hide a later hang, so it is left for a later boot to settle.
bool record_outcome(const CliContext& ctx, const recovery::UnresolvedRun& u, std::string_view boot,
                    std::ostream& say) {
    const auto outcome = recovery::outcome_to_record(u.state);
    if (!outcome) return true;
    if (u.state == recovery::RunState::ended_without_record && u.at.boot == boot) return true;
    // Another user's run is ended only as aborted (the helper refuses more): its hang binds
    // without the record, and root's recover records it.
    const auto uid = static_cast<std::uint64_t>(::getuid());
    if (uid != 0 && u.at.uid != uid && *outcome != journal::outcome::aborted) return true;
    const HelperReply r =
        ctx.helper.run({"end", "--run", u.at.run, "--outcome", std::string(*outcome)});
    if (r.ok()) return true;
    say << "  could not record run " << u.at.run << " as " << *outcome << ": " << r.error << "\n";
    return false;
}

// One paragraph per run, written as one line: the output stream wraps it to the terminal.
void explain(const recovery::UnresolvedRun& u, std::ostream& say) {
    switch (u.state) {
        case recovery::RunState::hung_in_earlier_boot:
            say << "The machine hung at " << where(u.at)
                << ": the step was applied, never confirmed, "
                << "and the machine has rebooted since (the reboot reset the cap to the OS default).\n";
            break;
        case recovery::RunState::interrupted_in_earlier_boot:
            say << "The machine went down at " << where(u.at)
                << " before the step was verified and "
                << "confirmed, and has rebooted since. It is treated as a hang.\n";
            break;
        case recovery::RunState::awaiting_in_this_boot:
            say << where(u.at)
                << " awaits confirmation in this boot: a ramp is running now, or it was "
                << "killed and its guard is reverting it. If no 'wiredcap ramp' is running: wiredcap reset\n";
            break;
        case recovery::RunState::revert_unproven_in_this_boot:
            say << where(u.at) << " was not shown reverted: the run's end record says the revert "
                << "failed or reads back another value than its revert target. Run: wiredcap reset\n";
            break;
        case recovery::RunState::ended_without_record:
            say << "Run " << u.at.run << " stopped after " << where(u.at)
                << " without recording its end; nothing was at risk.\n";
            break;
    }
}

policy::Policy as_policy(const PolicyView& v, units::MiB max_step) {
    return policy::Policy{
        v.min, v.max,     v.reserve,      max_step, v.group, {}, policy::Source::file,
        {},    v.vouched, v.vouched_note, v.sha256};
}

// The command that would put `value` back now, checked by the helper's own rule (band, memory
// minus reserve, max_step from the effective cap): `set` when one change is allowed, `ramp`
// when only the step is too large, otherwise no command and why.
std::string use_again(const CliContext& ctx, const MachineReadings& m, units::MiB value) {
    const std::string v = std::to_string(value.count()) + "MiB";
    if (!m.policy || !m.memsize.value)
        return "No command is suggested: the policy or the memory size is unknown.\n";
    // The knob is where a change starts: unread, it is unknown, never taken for the OS default.
    if (!m.knob.value) return "No command is suggested: iogpu.wired_limit_mb could not be read.\n";
    auto eff = effective_cap(m, read_metal(m, ctx.helper.dev()), std::nullopt);
    if (!eff)
        return "To use it again, give the GPU's cap now (Metal cannot be read): wiredcap set " + v +
               " --from SIZE\n";
    const auto mem = *m.memsize.value;
    const auto knob = *m.knob.value;
    if (!policy::refusal(as_policy(*m.policy, m.policy->max_step), mem, knob, value, eff->value))
        return "To use it again: wiredcap set " + v + "\n";
    const auto why =
        policy::refusal(as_policy(*m.policy, units::MiB::max()), mem, knob, value, eff->value);
    if (!why && value > eff->value)
        return "To use it again, step by step: wiredcap ramp --to " + v + "\n";
    return "It is not suggested again: " + why.value_or("it is not above the effective cap") +
           ".\n";
}

// Each write outside a ramp that the machine never read back before it went down.
void explain_unread(const recovery::Report& rep, std::ostream& say) {
    for (const auto& h : rep.hangs)
        if (h.kind == recovery::RefKind::unread_write && !h.forgotten)
            say << "The machine went down: " << units::describe(h.value) << " "
                << recovery::hang_origin(h) << ". It is a hang.\n";
}

// The journal analysed again, after recover recorded what a person said: only what was appended
// since is read (recovery::JournalReplay).
Expected<recovery::Report> reanalyse(RecoverResult& result) { return result.replay->catch_up(); }

JsonObject suspect_json(const recovery::StepRef& r) {
    auto o = JsonObject()
                 .num("value", r.value.count())
                 .null("run")
                 .null("step")
                 .str("time", r.time)
                 .str("kind", recovery::kind_name(r.kind))
                 .str("boot", r.boot)
                 .str("writer", r.writer);
    if (r.claimed_from)
        o.object("from_claim",
                 contract::size(r.claimed_from, "given by uid " + std::to_string(r.uid), ""));
    return o;
}

JsonObject forgotten_json(const recovery::Forgotten& f) {
    return JsonObject()
        .num("value", f.value.count())
        .str("time", f.time)
        .num("uid", f.uid)
        .str("why", f.why);
}

std::string forgotten_text(const recovery::Forgotten& f) {
    return "The hang ceiling " + units::describe(f.value) + " was forgotten at " + f.time +
           " by uid " + std::to_string(f.uid) + " (" + f.why +
           "); the hangs before it are history only.";
}

}  // namespace

Expected<RecoverResult> recover(const CliContext& ctx, const MachineReadings& machine,
                                std::ostream& say) {
    journal_view::Notes notes;
    auto replay = recovery::JournalReplay::read(journal_path(ctx.helper.dev()),
                                                machine.boot_id.value.value_or(""), &notes);
    if (!replay) return replay.error();
    RecoverResult result;
    result.report = replay->report();
    result.replay = std::move(*replay);
    for (const auto& w : notes.warnings) say << "journal: " << w << "\n";
    for (const auto& u : result.report.unresolved) {
        explain(u, say);
        if (journal::holds_a_step_open(u.state)) result.ramp_in_progress = true;
        else if (!record_outcome(ctx, u, machine.boot_id.value.value_or(""), say))
            result.could_not_record = true;
    }
    return result;
}

ExitCode run_recover(CliContext& ctx, const RecoverRequest& req, int tty_in_fd) {
    if (auto why = check_recover_request(req)) {
        return fail(ctx.err, "recover", ExitCode::usage, *why);
    }
    auto machine = read_machine(ctx.helper);
    if (!machine) {
        return fail(ctx.err, "recover", ExitCode::internal_error, machine.error().message);
    }
    std::ostream& say = ctx.json ? ctx.err : ctx.out;
    auto result = recover(ctx, *machine, say);
    if (!result) {
        return fail(ctx.err, "recover", ExitCode::internal_error, result.error().message);
    }
    explain_unread(result->report, say);
    const auto open = answer_suspects(ctx, result->report, req, tty_in_fd, say);
    if (!open) result->could_not_record = true;
    ExitCode forgot = ExitCode::ok;
    if (req.forget_hang) {
        if (auto again = reanalyse(*result)) result->report = std::move(*again);
        forgot = forget_hang(ctx, result->report, req, tty_in_fd, say);
    }
    if (auto again = reanalyse(*result)) result->report = std::move(*again);
    const auto& rep = result->report;
    const std::string sim = machine->simulated() ? " [SIMULATED]" : "";
    if (ctx.json) {
        JsonObject o = contract::head("wiredcap.recover/2");
        o.boolean("simulated", machine->simulated());
        // A ramp step is {value, run, step, time}; a boot that never became healthy has no run
        // or step (null), and `kind` says what it is.
        auto step = [](const recovery::StepRef& r) {
            JsonObject s;
            s.num("value", r.value.count());
            if (r.kind == recovery::RefKind::ramp_step)
                return s.str("run", r.run).num("step", r.step).str("time", r.time);
            s.null("run").null("step").str("time", r.time).str("kind", recovery::kind_name(r.kind));
            if (!r.writer.empty()) s.str("boot", r.boot).str("writer", r.writer);
            return s;
        };
        if (rep.hang_ceiling) o.object("hang_ceiling", step(*rep.hang_ceiling));
        else o.null("hang_ceiling");
        if (rep.last_confirmed) o.object("last_confirmed", step(*rep.last_confirmed));
        else o.null("last_confirmed");
        o.object("wired_limit",
                 contract::size(machine->knob.value, "kernel read-back", machine->knob.error));
        std::string suspects;
        for (const auto& r : rep.suspects)
            suspects += (suspects.empty() ? "" : ",") + suspect_json(r).text();
        o.raw_array("suspects", "[" + suspects + "]");
        if (rep.forgotten)
            o.object("forgotten", forgotten_json(*rep.forgotten));  // not a journal word
        else o.null("forgotten");  // not a journal word: a key of the answer
        if (rep.unknown_count != 0) o.object("unknown_records", unknown_json(rep));
        o.boolean("ramp_in_progress", result->ramp_in_progress)
            .boolean("recorded", !result->could_not_record);
        o.str("source", "journal " + journal_path(ctx.helper.dev()));
        ctx.out << o.text() << "\n";
    } else {
        if (rep.hang_ceiling && rep.hang_ceiling->kind == recovery::RefKind::ramp_step)
            say << "Hang ceiling: " << where(*rep.hang_ceiling)
                << " hung. Later ramps stop below it"
                << " (override: --ignore-hang-ceiling)." << sim << "\n";
        else if (rep.hang_ceiling)
            say << "Hang ceiling: " << units::describe(rep.hang_ceiling->value) << " "
                << recovery::hang_origin(*rep.hang_ceiling) << ". Later ramps stop below it"
                << " (override: --ignore-hang-ceiling)." << sim << "\n";
        else if (rep.hangs.empty()) say << "No step has ever hung." << sim << "\n";
        else say << "No hang ceiling binds." << sim << "\n";
        if (rep.forgotten) say << forgotten_text(*rep.forgotten) << "\n";
        if (rep.unknown_count != 0) say << unknown_text(rep);
        if (rep.last_confirmed) {
            say << "Last confirmed value: " << where(*rep.last_confirmed) << ".\n";
            // Suggest re-applying it only when the kernel does not hold it now (or cannot say), and
            // never when it is at or above the hang ceiling (a boot trip can be at the very value a
            // ramp confirmed earlier).
            const bool hung_since =
                rep.hang_ceiling && rep.hang_ceiling->value <= rep.last_confirmed->value;
            if (hung_since)
                say << "Nothing was re-applied. That value is at or above the hang ceiling: it is not suggested again.\n";
            else if (machine->knob.value != std::optional<units::MiB>(rep.last_confirmed->value))
                say << "Nothing was re-applied. "
                    << use_again(ctx, *machine, rep.last_confirmed->value);
        } else say << "No ramp step was ever confirmed.\n";
        const std::string source = std::string("   [kernel read-back") +
                                   (machine->simulated() ? ", SIMULATED" : "") + "]\n";
        if (machine->knob.value)
            say << "iogpu.wired_limit_mb now reads "
                << (machine->knob.value->count() == 0 ? std::string("0 (OS default policy)")
                                                      : units::describe(*machine->knob.value))
                << source;
        else  // unknown is an answer too, with why
            say << "iogpu.wired_limit_mb now reads: unknown (" << machine->knob.error << ")"
                << source;
    }
    if (forgot != ExitCode::ok) return forgot;
    if (result->ramp_in_progress || result->could_not_record || open.value_or(0) != 0)
        return ExitCode::unresolved_journal;
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
