#include "wiredcap/helper/commands.hpp"

#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/helper/journal/run_bound.hpp"
#include "wiredcap/helper/process/hardening.hpp"
#include "wiredcap/helper/action.hpp"
#include "wiredcap/helper/persist_commands.hpp"
#include "wiredcap/helper/test_pause.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/classifier.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::helper {
namespace {

using kernel::KernelError;
using units::MiB;

// read changes nothing and everything it reads is readable by anyone (the cap, the policy, the
// boot state; not the journal): it gives up root before it reads anything. The owner the
// trusted files must have (root) was fixed before, in ctx.trusted_owner.
Result do_read(const Invocation& inv, Context& ctx) {
    if (!process::drop_root(ctx.caller.uid, ctx.caller.gid)) return Result{ExitCode::internal_error, "{\"v\":1,\"ok\":false,\"exit\":1,\"error\":\"cannot give up root\"}", "cannot give up root"};
    Action a(inv, ctx);
    auto limit = ctx.kernel.read_wired_limit();
    auto mem = ctx.kernel.read_memsize();
    a.out().object("wired_limit_mib", reading(limit, "kernel")).object("memsize_bytes", reading(mem, "kernel"));
    a.out().object("wired_bytes", reading(ctx.kernel.read_wired_now(), "kernel"));
    a.out().object("boot_id", reading(ctx.kernel.read_boot_id(), "kernel"));
    a.out().object("uptime_s", reading(ctx.kernel.read_uptime(), "kernel"));
    JsonObject related;
    for (const auto& k : ctx.kernel.read_related()) {
        JsonObject r;
        if (k.value) r.str("value", *k.value); else r.null("value");
        related.object(k.name, r.str("source", "kernel"));
    }
    a.out().object("related", related);
    std::optional<policy::Policy> policy;  // for the boot guard's healthy_after, when it loads
    if (mem) {
        auto p = load_policy(ctx, *mem);
        a.out().object("policy", p ? policy_json(*p, ctx.policy_path) : JsonObject().str("error", p.error().message));
        auto may = identity::may_change(ctx.caller, p ? p->group : std::nullopt);
        JsonObject caller;
        caller.num("uid", ctx.caller.uid).boolean("may_change", p && may);
        if (!p) caller.str("why", "the policy cannot be loaded");
        else if (!may) caller.str("why", may.error().message);
        a.out().object("caller", caller);
        if (p) policy = *p;
    }
    a.out().object("boot_guard", boot_guard_json(ctx, policy));
    if (!limit && limit.error().kind == KernelError::Kind::key_missing)
        return a.finish(Failure{ExitCode::unsupported_platform, limit.error().message});
    return a.finish(std::nullopt);
}

// From the OS default the helper cannot read where the GPU's cap is (only Metal knows): a value
// above the band's min may be a raise of any size, so it needs the caller's figure.
std::optional<std::string> needs_effective(const Invocation& inv, const policy::Policy& p, MiB current) {
    if (current.count() != 0 || inv.effective || *inv.value <= p.min) return std::nullopt;
    if (p.vouched == *inv.value) return std::nullopt;  // no step to measure
    const std::string v = std::to_string(inv.value->count()) + "MiB";
    return "iogpu.wired_limit_mb is 0 (the OS default), whose effective cap only Metal knows: whether " + v +
           " raises the GPU's cap, and by how much, is unknown here; run: wiredcap set " + v +
           " (it reads the effective cap), or give the effective cap that 'wiredcap status' shows: "
           "wiredcap-helper apply " + v + " --effective SIZE";
}

// Which way the write moved the GPU's cap, from the read-back: against the knob before it, or,
// from the OS default, against the effective cap the caller gave (labelled as their claim).
void report_direction(Action& a, const Invocation& inv) {
    if (!a.readback_ || !a.previous_) return;
    if (a.previous_->count() != 0)
        a.out().object("gpu_cap", direction_json(*a.readback_, *a.previous_, "kernel read-back before the write"));
    else if (inv.effective)
        a.out().object("gpu_cap", direction_json(*a.readback_, *inv.effective, effective_claim(inv)));
    else
        a.out().object("gpu_cap", JsonObject().str("direction", "unknown").null("from_mib").str(
                                      "why", "from the OS default the effective cap is unknown (no --effective)"));
}

// A caller other than root holds a bounded number of open runs of bounded length
// (journal/run_bound.hpp), each its own in this boot (only `end` names another's); past it the
// command is refused (not_permitted) before it acts. A reset (the safe direction) is refused
// only when the journal shows the bound passed or the run another's.
std::optional<Failure> within_run_bound(Action& a, const Invocation& inv, Context& ctx, bool safe_direction = false) {
    if (!inv.run || ctx.caller.uid == 0) return std::nullopt;
    auto read = ctx.kernel.read_boot_id();
    const std::string boot = read ? *read : std::string("unknown");  // as the journal stamps it
    const journal::CallersRun c{*inv.run, ctx.caller.uid, boot, inv.command == Command::end};
    if (safe_direction && !a.journal_text()) return std::nullopt;
    auto text = a.journal_for("the caller's runs");
    if (!text) return text.error();
    const journal::RunUse use = journal::run_use(*text, c);
    if (auto why = journal::run_bound_refusal(use, c)) return a.refuse(ExitCode::not_permitted, *why);
    // Another uid's run is ended only as recover ends it with nothing at risk: a member's `hung`
    // there would make root's step a hang for every reader (docs/design.md, whose records count).
    if (c.ending && use.other_uid && inv.outcome != journal::outcome::aborted)
        return a.refuse(ExitCode::not_permitted, "run " + *inv.run + " holds another user's records: uid " +
                                                     std::to_string(ctx.caller.uid) + " may end it only as aborted");
    return std::nullopt;
}

std::optional<Failure> apply_steps(Action& a, const Invocation& inv, Context& ctx) {
    const MiB value = *inv.value;
    a.out().num("requested_mib", value.count());
    auto auth = authorize(a, ctx);
    if (!auth) return auth.error();
    if (auto f = within_run_bound(a, inv, ctx)) return f;
    if (auto f = read_previous(a, ctx)) return f;
    // A revert goes back down: every reader takes its records as settling the step, so a raise
    // written as one (or a move away from the OS default) would bind no hang if it hung.
    if (inv.revert && (a.previous_->count() == 0 || value > *a.previous_))
        return a.refuse(ExitCode::refused_by_policy, "--revert lowers iogpu.wired_limit_mb, never raises it");
    if (auto f = refuse_on_the_journal(a, inv, ctx, value)) return f;
    policy::Policy& p = auth->policy;
    if (auto f = withdraw_tripped_vouch(a, p, value)) return f;
    note_vouched(a, ctx, p, value);
    // Band and reserve first (measured from the value itself, no step can be too large), then the
    // starting point, then the step from it.
    if (auto why = policy::refusal(p, auth->memsize, value, value)) return a.refuse(ExitCode::refused_by_policy, *why);
    if (auto why = needs_effective(inv, p, *a.previous_)) return a.refuse(ExitCode::refused_by_policy, *why);
    if (auto why = policy::refusal(p, auth->memsize, *a.previous_, value, inv.effective))
        return a.refuse(ExitCode::refused_by_policy, *why);
    if (inv.check) return std::nullopt;  // every check passed: the write is the next step
    auto f = *a.previous_ == value ? unchanged(a, value) : write_and_verify(a, ctx, value, inv.revert);
    report_direction(a, inv);
    return f;
}

// Reset is the safe direction: no band, no step, and it works when the policy is broken. A plain
// reset (not a ramp's revert) also forgets the value stored for boot: "back to the OS default"
// then holds after the next reboot too.
std::optional<Failure> reset_steps(Action& a, const Invocation& inv, Context& ctx) {
    if (auto f = authorize_safe_direction(a, ctx, true)) return f;
    if (auto f = within_run_bound(a, inv, ctx, true)) return f;  // a plain reset is never bounded
    if (auto f = read_previous(a, ctx)) return f;
    a.out().num("requested_mib", 0);
    if (inv.check) return std::nullopt;
    auto f = *a.previous_ == MiB::zero() ? unchanged(a, MiB::zero()) : write_and_verify(a, ctx, MiB::zero(), inv.revert);
    if (inv.run) return f;
    auto removed = remove_persisted(a, ctx, journal::event::persist_removed);
    if (!removed) return f ? f : removed.error();
    a.out().boolean("persist_removed", *removed);  // not a journal word: a key of the helper's answer
    return f;
}

// A confirmation counts only for a step this caller's helper applied and read back in this
// boot, in this run, and which the kernel still holds (journal/hang_ceiling.hpp); anything else is
// refused (not_permitted) and the refusal journaled.
std::optional<Failure> confirmable(Action& a, const Invocation& inv, Context& ctx) {
    const std::string step = "run " + *inv.run + " step " + std::to_string(*inv.step);
    auto boot = ctx.kernel.read_boot_id();
    if (!boot) return a.refuse(ExitCode::not_permitted, "cannot read the boot id, so " + step + " cannot be confirmed");
    auto text = a.journal_for("the step to confirm");
    if (!text) return text.error();
    const auto applied = journal::find_own_apply(*text, *inv.run, *inv.step, ctx.caller.uid, *boot);
    if (!applied)
        return a.refuse(ExitCode::not_permitted, step + " was not applied and read back by uid " +
                                                     std::to_string(ctx.caller.uid) + " in this boot: only such a "
                                                     "step can be confirmed");
    if (!a.readback_ || *a.readback_ != *applied)
        return a.refuse(ExitCode::not_permitted, step + " applied " + units::to_string(*applied) +
                                                     ", which iogpu.wired_limit_mb no longer holds: not confirmed");
    return std::nullopt;
}

// A person's word on the past binds every writer, so whose word it is matters (docs/design.md,
// whose records count): only root lifts a ceiling or answers not-hung; a verdict answers only a
// suspect the journal holds (hang_ceiling.hpp, is_open_suspect), never a value no one wrote.
std::optional<Failure> may_answer(Action& a, const Invocation& inv, Context& ctx) {
    const bool root = ctx.caller.uid == 0;
    const bool verdict = inv.command == Command::verdict;
    if (!root && journal::is_roots_word_alone(command_name(inv.command), verdict ? *inv.answer : journal::event::forgotten))
        return a.refuse(ExitCode::not_permitted, std::string(verdict ? "only root answers not-hung (it settles a write for every writer)"
                                                                     : "only root lifts a hang ceiling (it binds every writer)") +
                                                     ", not uid " + std::to_string(ctx.caller.uid));
    if (!verdict) return std::nullopt;
    auto boot = ctx.kernel.read_boot_id();
    auto text = a.journal_for("the suspect to answer");
    if (!text) return text.error();
    if (!boot || !journal::is_open_suspect(*text, *inv.boot, *inv.value, *boot, root))
        return a.refuse(ExitCode::not_permitted, "no write of " + units::to_string(*inv.value) + " awaits an answer for boot " +
                                                     *inv.boot + " (wiredcap recover lists those that do)");
    return std::nullopt;
}

// confirm, end, verdict and forget-hang only write the journal, after the same caller check as a change.
std::optional<Failure> journal_only_steps(Action& a, const Invocation& inv, Context& ctx) {
    if (auto auth = authorize(a, ctx); !auth) return auth.error();
    if (auto f = within_run_bound(a, inv, ctx)) return f;
    if (auto f = may_answer(a, inv, ctx)) return f;
    auto cur = ctx.kernel.read_wired_limit();
    if (cur) {
        a.readback_ = *cur;
        a.out().object("readback_mib", read_back(*cur));
    }
    if (inv.command == Command::confirm) {
        if (auto f = confirmable(a, inv, ctx)) return f;
        // A reset that went on without the lock since the knob was read has moved it: the
        // step no longer holds, and a confirmation now would vouch for what is not applied.
        test_pause(ctx, "confirm");
        if (a.reset_went_on()) return a.refuse(ExitCode::not_permitted, kResetWentOn);
        return a.record(journal::event::confirmed);
    }
    // A person's word on the past: the boot a suspect was in force in (its id is the reason),
    // or why a hang ceiling no longer binds. Nothing on the machine changes.
    if (inv.command == Command::verdict) return a.record(*inv.answer, *inv.boot);
    if (inv.command == Command::forget_hang) return a.record(journal::event::forgotten, *inv.why);
    return a.record(journal::event::end, *inv.outcome);
}

}  // namespace

Result run(const Invocation& inv, Context& ctx) {
    if (inv.command == Command::read) return do_read(inv, ctx);
    Action a(inv, ctx);
    if (inv.run) a.out().str("run", *inv.run);
    if (inv.step) a.out().num("step", *inv.step);
    switch (inv.command) {
        case Command::apply: return a.finish(apply_steps(a, inv, ctx));
        case Command::reset: return a.finish(reset_steps(a, inv, ctx));
        case Command::confirm:
        case Command::verdict:
        case Command::forget_hang:
        case Command::end: return a.finish(journal_only_steps(a, inv, ctx));
        case Command::persist: return a.finish(inv.off ? persist_off_steps(a, inv, ctx) : persist_steps(a, inv, ctx));
        case Command::boot:  // wiredcap-system's (root's own program); never parsed here
        case Command::read: break;
    }
    return a.finish(Failure{ExitCode::internal_error, "unreachable command"});
}

}  // namespace wiredcap::helper
