#include "wiredcap/cli/commands/status.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <charconv>
#include <ostream>

#include "wiredcap/cli/commands/attention.hpp"
#include "wiredcap/cli/commands/boot_view.hpp"
#include "wiredcap/cli/commands/memory_picture.hpp"
#include "wiredcap/cli/commands/status_readings.hpp"
#include "wiredcap/ramp/effective_cap.hpp"
#include "wiredcap/cli/output/footnotes.hpp"
#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/cli/output/terminal_width.hpp"
#include "wiredcap/cli/readings/helper_file.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/cli/readings/daemon_texts.hpp"
#include "wiredcap/cli/readings/launchd_state.hpp"
#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using units::Bytes;
using units::MiB;

using Status = StatusReadings;

std::string size_text(Bytes b) {
    if (auto mib = units::exact_cast<MiB>(b)) return units::describe(*mib);
    return std::to_string(b.count()) + " B (" +
           units::truncated_decimal(b, units::SizeUnit::gibibytes, 2) + " GiB)";
}

// The unit a related key counts in, by Apple's naming: *_mb keys count MiB (as the knob does),
// debug.iogpu.wired_limit counts bytes (macOS 13, unconfirmed); the others are flags.
std::string related_unit(std::string_view name) {
    if (name.size() > 3 && name.substr(name.size() - 3) == "_mb") return " MiB";
    if (name == "debug.iogpu.wired_limit") return " B (reportedly bytes)";
    return "";
}

std::string knob_text(const Reading<MiB>& knob) {
    if (!knob.value) return "unknown (" + knob.error + ")";
    if (knob.value->count() == 0) return "0 (OS default policy)";
    return units::describe(*knob.value);
}

// The cap the GPU lives under right now, and what sets it.
std::string binding_text(const Status& s) {
    const auto& knob = s.machine.knob.value;
    if (!knob) return "unknown: the knob could not be read";
    if (knob->count() != 0) return "the knob, " + units::describe(*knob);
    if (s.metal.working_set)
        return "the OS default policy, " + size_text(*s.metal.working_set) + " per Metal";
    return "the OS default policy (its value is unknown: " + s.metal.why_unknown + ")";
}

// The highest value a ramp could reach: the policy's max, memory minus reserve, and strictly
// below a hang ceiling. Empty with the reason when there is none or it is unknown.
Expected<MiB> highest_ramp_target(const Status& s) {
    if (!s.machine.policy) return Error{"the policy is unknown"};
    if (!s.machine.memsize.value) return Error{"the memory size is unknown"};
    MiB top = s.machine.policy->max;
    const auto usable =
        checked_sub(units::floor_cast<MiB>(*s.machine.memsize.value), s.machine.policy->reserve);
    if (!usable) return Error{"memory is smaller than the reserve"};
    if (*usable < top) top = *usable;
    if (s.journal && s.journal->hang_ceiling && s.journal->hang_ceiling->value <= top) {
        const auto below = checked_sub(s.journal->hang_ceiling->value, MiB::from_count_or_throw(1));
        if (!below || *below < s.machine.policy->min)
            return Error{"none: the hang ceiling is at or below the band"};
        top = *below;
    }
    return top;
}

// The highest value `set` accepts right now, typed as printed: the same, and at most max_step
// above the effective cap (the helper's rule; never from below the band's min).
Expected<MiB> highest_settable(const Status& s) {
    auto top = highest_ramp_target(s);
    if (!top) return top;
    auto effective = effective_cap(s.machine, s.metal, std::nullopt);
    if (!effective) return Error{"unknown: the effective cap is unknown (give --from to set)"};
    const MiB base =
        effective->value < s.machine.policy->min ? s.machine.policy->min : effective->value;
    const auto one_step = checked_add(base, s.machine.policy->max_step);
    if (one_step && *one_step < *top) return *one_step;
    return *top;
}

std::string limit_text(const Expected<MiB>& v) {
    if (v) return units::describe(*v);
    return v.error().message.starts_with("none") ? v.error().message
                                                 : "unknown (" + v.error().message + ")";
}

std::string step_text(const recovery::StepRef& r) {
    return fmt::format("{} (run {} step {}, {})", units::describe(r.value), r.run, r.step, r.time);
}

// A ramp step that hung keeps its established wording; a boot that never became healthy says
// what the journal knows of it (recovery::hang_origin).
std::string hang_text(const recovery::StepRef& r) {
    if (r.kind == recovery::RefKind::ramp_step) return step_text(r) + " hung";
    return units::describe(r.value) + " " + recovery::hang_origin(r);
}

// The value stored for boot, its guard, and the switch that disables the boot action.
template <class Line>
void render_boot(const MachineReadings& m, Line& line) {
    if (!m.boot_guard) {
        line("stored for boot", "unknown (not reported by the helper)", "helper");
        return;
    }
    const BootGuard& g = *m.boot_guard;
    line("stored for boot", stored_text(g), g.source);
    if (g.persisted) line("boot guard", guard_text(g, m), guard_source(g, m));
    line("boot action", switch_text(g), "helper");
}

JsonObject daemon_json(const DaemonState& d) {
    JsonObject o;
    o.str("label", kDaemonLabel).boolean("applicable", d.applicable);
    if (d.loaded) o.boolean("loaded", *d.loaded);
    else o.null("loaded");
    if (d.enabled) o.boolean("enabled", *d.enabled);
    else o.null("enabled");
    o.str("source", d.source.empty() ? "none" : d.source);
    if (!d.loaded || !d.enabled) o.str("why_unknown", d.why_unknown);
    // Where a person switches it on and off, for this release (tools/mac-smoke prints it).
    if (d.applicable)
        o.str("settings", settings_path(d.macos)).str("enable_command", kEnableCommand);
    return o;
}

JsonObject wired_now_json(const Reading<Bytes>& r) {
    std::optional<MiB> mib;
    if (r.value) mib = units::ceil_cast<MiB>(*r.value);  // nullopt only past 2^64 bytes
    return contract::size(mib, r.source.empty() ? "kernel" : r.source,
                          r.error.empty() ? "not reported by the helper" : r.error);
}

// One row per value, its source as a footnote ([n], listed under the table): the rows fit 80
// columns however long the paths are, and a simulated Mac is said once, above and below.
void render_human(const Status& s, std::ostream& out) {
    Footnotes sources;
    auto line = [&](std::string_view label, const std::string& value, const std::string& source) {
        const std::string mark = sources.mark(source);
        out << fmt::format("{:<31}{}{}\n", label, value, mark.empty() ? "" : " " + mark);
    };
    const auto& m = s.machine;
    // What must not scroll by comes first: what needs a person (commands/attention.hpp).
    render_attention(needs_attention(s), out);
    if (m.simulated())
        out << "SIMULATED Mac: these are readings of the simulator, not of a real machine\n";
    // Then the picture: how memory is split, at a glance, before the figures behind it.
    const auto mark = [&](const std::string& source) { return sources.mark(source); };
    for (const auto& row : render_picture(memory_picture(s, mark), output_width(STDOUT_FILENO),
                                          glyphs_for(STDOUT_FILENO)))
        out << row << "\n";
    line("physical memory",
         m.memsize.value ? size_text(*m.memsize.value) : "unknown (" + m.memsize.error + ")",
         "kernel hw.memsize");
    line("iogpu.wired_limit_mb", knob_text(m.knob), m.knob.source);
    line("effective GPU cap",
         s.metal.working_set ? size_text(*s.metal.working_set)
                             : "unknown (" + s.metal.why_unknown + ")",
         s.metal.source);
    line("memory wired now",
         m.wired_now.value ? size_text(*m.wired_now.value) : "unknown (" + m.wired_now.error + ")",
         m.wired_now.source.empty() ? "kernel" : m.wired_now.source);
    for (const auto& [name, r] : m.related)
        line(name, r.value ? *r.value + related_unit(name) : "not present", "kernel, read-only");
    if (m.policy) {
        line("permitted band",
             units::to_string(m.policy->min) + " to " + units::describe(m.policy->max),
             m.policy->source);
        line("largest single raise", units::describe(m.policy->max_step), m.policy->source);
        line("reserve for the OS", units::describe(m.policy->reserve), m.policy->source);
        // Root's word for this kind of Mac: set and persist reach it in one write (docs/fleet.md).
        if (m.policy->vouched)
            line("vouched (no max_step)", units::describe(*m.policy->vouched), m.policy->source);
        for (const auto& w : m.policy->warnings) line("policy warning", w, m.policy->source);
    } else {
        line("permitted band", "unknown (" + m.policy_error + ")", "policy");
    }
    const auto room = headroom(s);
    line("headroom left to the OS", room ? size_text(*room) : "unknown",
         "computed: memory minus the binding cap");
    line("binding now", binding_text(s), "");
    line("highest you may set", limit_text(highest_settable(s)),
         "computed: the ramp's limit, max_step above the effective cap");
    line("highest a ramp may reach", limit_text(highest_ramp_target(s)),
         "computed: band, memory minus reserve, hang ceiling");
    if (s.journal) {
        const auto& j = *s.journal;
        line("last confirmed ramp step", j.last_confirmed ? step_text(*j.last_confirmed) : "none",
             s.journal_source);
        line("hang ceiling", j.hang_ceiling ? hang_text(*j.hang_ceiling) : "none recorded",
             s.journal_source);
        if (!j.unresolved.empty())
            line("unresolved ramps",
                 std::to_string(j.unresolved.size()) + ": run 'wiredcap recover'",
                 s.journal_source);
        // A raised write in force when the machine went down: only a person can say it hung.
        for (const auto& sus : j.suspects)
            line("suspect (unanswered)",
                 units::describe(sus.value) + " " + recovery::hang_origin(sus) +
                     "; did it hang? run 'wiredcap recover'",
                 s.journal_source);
        if (j.forgotten)
            line("forgotten hang ceiling",
                 units::describe(j.forgotten->value) + ", at " + j.forgotten->time + " by uid " +
                     std::to_string(j.forgotten->uid) + " (" + j.forgotten->why + ")",
                 s.journal_source);
    } else {
        line("journal", "unreadable (" + s.journal_error + ")", s.journal_source);
    }
    render_boot(m, line);
    line("LaunchDaemon", daemon_text(s.daemon), s.daemon.source);
    line("you", m.may_change ? "may change the cap" : "may not change the cap: " + m.may_change_why,
         "helper");
    sources.print(out, m.simulated() ? "sources (of the SIMULATED Mac):" : "sources:");
}

// A related key's reading: an integer as the kernel reports it (a flag, or a size). Sizes are
// MiB like everything else; debug.iogpu.wired_limit reportedly counts bytes, so it is given in
// MiB rounded down, and its source says so.
JsonObject related_json(std::string_view name, const Reading<std::string>& r) {
    if (!r.value)
        return contract::size_of_count(std::nullopt, "kernel, read-only",
                                       "not present on this system");
    std::uint64_t n = 0;
    const auto* end = r.value->data() + r.value->size();
    const auto parsed = std::from_chars(r.value->data(), end, n);
    if (parsed.ec != std::errc() || parsed.ptr != end)
        return contract::size_of_count(std::nullopt, "kernel, read-only",
                                       "not an unsigned integer: " + units::quote_input(*r.value));
    if (name == "debug.iogpu.wired_limit")
        return contract::limit_from_bytes(
            Bytes::from_count(n), "kernel, read-only (reportedly bytes: MiB rounded down)", "");
    return contract::size_of_count(n, "kernel, read-only", "");
}

// Which cap binds now: the knob when it is set, else the OS default policy (Metal's figure).
JsonObject binding_json(const Status& s) {
    const auto& knob = s.machine.knob.value;
    JsonObject o;
    if (!knob) {
        o.null("by")
            .null("value")
            .str("source", s.machine.knob.source)
            .str("why_unknown", "the knob could not be read: " + s.machine.knob.error);
        return o;
    }
    if (knob->count() != 0) {
        o.str("by", "knob").num("value", knob->count()).str("source", s.machine.knob.source);
        return o;
    }
    o.str("by", "os_default");
    if (s.metal.working_set)
        return o.num("value", units::floor_cast<MiB>(*s.metal.working_set).count())
            .str("source", s.metal.source);
    return o.null("value").str("source", s.metal.source).str("why_unknown", s.metal.why_unknown);
}

// A ramp step as {value, run, step, time, boot}; a boot that never became healthy has no run or
// step (null) and says what it is in `kind`.
JsonObject step_json(const recovery::StepRef& r) {
    JsonObject o;
    o.num("value", r.value.count());
    if (r.kind == recovery::RefKind::ramp_step)
        return o.str("run", r.run).num("step", r.step).str("time", r.time).str("boot", r.boot);
    o.null("run")
        .null("step")
        .str("time", r.time)
        .str("boot", r.boot)
        .str("kind", recovery::kind_name(r.kind));
    if (!r.writer.empty()) o.str("writer", r.writer);
    if (r.claimed_from)
        o.object("from_claim",
                 contract::size(r.claimed_from, "given by uid " + std::to_string(r.uid), ""));
    return o;
}

JsonObject limit_json(const Expected<MiB>& v, std::string_view source) {
    return contract::size(v ? std::optional<MiB>(*v) : std::nullopt, source,
                          v ? "" : v.error().message);
}

void render_json(const Status& s, std::ostream& out) {
    const auto& m = s.machine;
    JsonObject o = contract::head("wiredcap.status/2");
    o.str("backend", m.backend).boolean("simulated", m.simulated());
    o.raw_array("needs_attention", attention_json(needs_attention(s)));
    o.object("memsize",
             contract::limit_from_bytes(m.memsize.value, "kernel hw.memsize", m.memsize.error));
    JsonObject knob = contract::size(m.knob.value, m.knob.source, m.knob.error);
    if (m.knob.value) knob.boolean("os_default", m.knob.value->count() == 0);
    o.object("wired_limit", knob);
    o.object("effective_cap",
             contract::limit_from_bytes(s.metal.working_set, s.metal.source, s.metal.why_unknown));
    // Wired memory is held, not a limit: rounded up to whole MiB, never below what is held.
    o.object("wired_now", wired_now_json(m.wired_now));
    o.object("binding", binding_json(s));
    JsonObject related;
    for (const auto& [name, r] : m.related) related.object(name, related_json(name, r));
    o.object("related", related);
    if (m.policy) {
        JsonObject p = JsonObject()
                           .num("min_mib", m.policy->min.count())
                           .num("max_mib", m.policy->max.count())
                           .num("reserve_mib", m.policy->reserve.count())
                           .num("max_step_mib", m.policy->max_step.count())
                           .str("source", m.policy->source)
                           .strings("warnings", m.policy->warnings);
        if (m.policy->vouched) p.num("vouched_mib", m.policy->vouched->count());
        else p.null("vouched_mib");
        o.object("policy", p);
    } else {
        o.object("policy", JsonObject().str("source", "policy").str("why_unknown", m.policy_error));
    }
    // Memory minus the binding cap, from the exact figures and then rounded down.
    o.object("headroom",
             contract::limit_from_bytes(headroom(s), "computed: memory minus the binding cap",
                                        "a term is unknown"));
    o.object("highest_settable",
             limit_json(highest_settable(s),
                        "computed: the ramp's limit, max_step above the effective cap"));
    o.object(
        "highest_ramp_target",
        limit_json(highest_ramp_target(s), "computed: band, memory minus reserve, hang ceiling"));
    JsonObject journal;
    journal.str("source", s.journal_source);
    if (s.journal) {
        if (s.journal->last_confirmed)
            journal.object("last_confirmed", step_json(*s.journal->last_confirmed));
        else journal.null("last_confirmed");
        if (s.journal->hang_ceiling)
            journal.object("hang_ceiling", step_json(*s.journal->hang_ceiling));
        else journal.null("hang_ceiling");
        journal.num("unresolved_runs", s.journal->unresolved.size());
        std::string suspects;
        for (const auto& r : s.journal->suspects)
            suspects += (suspects.empty() ? "" : ",") + step_json(r).text();
        journal.raw_array("suspects", "[" + suspects + "]");
        if (const auto& f = s.journal->forgotten)
            journal.object("forgotten",
                           JsonObject()
                               .num("value", f->value.count())
                               .str("time", f->time)  // not a journal word: a key of the answer
                               .num("uid", f->uid)
                               .str("why", f->why));
        else journal.null("forgotten");  // not a journal word: a key of the answer
    } else {
        journal.str("why_unknown", s.journal_error);
    }
    o.object("journal", journal);
    o.object("caller", JsonObject()
                           .boolean("may_change", m.may_change)
                           .str("why", m.may_change_why)
                           .str("source", "helper"));
    JsonObject uptime;
    if (m.uptime.value) uptime.num("value", static_cast<std::uint64_t>(m.uptime.value->count()));
    else uptime.null("value");
    uptime.str("source", m.uptime.source.empty() ? "kernel" : m.uptime.source);
    if (!m.uptime.value)
        uptime.str("why_unknown", m.uptime.error.empty() ? "not reported" : m.uptime.error);
    o.object("uptime", uptime);
    o.object("boot_guard", boot_guard_status_json(m));
    o.object("launch_daemon", daemon_json(s.daemon));
    o.object("helper", helper_file_json(s.helper));
    out << o.text() << "\n";
}

}  // namespace

ExitCode run_status(CliContext& ctx) {
    auto read = read_status(ctx);
    if (!read) {
        return fail(ctx.err, "status", ExitCode::internal_error, read.error().message);
    }
    const Status& s = *read;
    if (ctx.json) render_json(s, ctx.out);
    else render_human(s, ctx.out);
    if (s.machine.helper_exit == to_int(ExitCode::unsupported_platform))
        return ExitCode::unsupported_platform;
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
