#include "wiredcap/system/boot_action.hpp"

#include <cstdint>
#include <string>

#include "wiredcap/helper/boot/boot_state.hpp"
#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/helper/boot_files.hpp"
#include "wiredcap/system/upkeep_command.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::system {
namespace {

using boot::Guard;
using helper::Action;
using helper::Context;
using helper::Failure;
using units::MiB;

// The boot action's answer: {"action":...,"why":...}; nothing in it is a failure.
std::optional<Failure> act(Action& a, std::string_view action, const std::string& why) {
    a.out().str("action", action);
    if (!why.empty()) a.out().str("why", why);
    return std::nullopt;
}

// Moves the guard on: journaled first (the event is the guard's new name: trying, healthy,
// tripped, failed), then saved, before anything else happens.
std::optional<Failure> save_guard(Action& a, const boot::Store& store, boot::State& s, Guard g,
                                  const std::string& boot_id, const std::string& reason,
                                  const std::string& why) {
    // A reset that went on without the lock removed the boot state: no move of the guard
    // (not even to failed) writes it again (docs/design.md §8).
    if (a.reset_went_on() || !store.present())
        return a.refuse(ExitCode::not_permitted, std::string(helper::kResetWentOn) +
                                                     "; the boot state it removed stays removed");
    s.guard = g;
    s.guard_boot = boot_id;
    s.guard_time = helper::unix_now();
    s.reason = reason;
    if (auto f = a.record(std::string(boot::guard_name(g)), why)) return f;
    if (auto ok = store.save(s); !ok) return Failure{ExitCode::journal_failed, ok.error().message};
    return std::nullopt;
}

// The previous boot applied the value and never became healthy: it most likely hung.
std::optional<Failure> trip(Action& a, const boot::Store& store, boot::State s,
                            const std::string& boot_id) {
    const std::string why =
        "boot " + s.guard_boot + " applied " + units::to_string(s.value) + " at " +
        journal::utc_iso8601(s.guard_time) +
        " and it was never recorded healthy; not applied at this boot or any later one";
    if (auto f = save_guard(a, store, s, Guard::tripped, boot_id, why, why)) return f;
    return act(a, journal::event::tripped, why);
}

// This boot applied the value: healthy once the machine has stayed up healthy_after since then.
// What the cap reads now is recorded, not required: the guard is about a boot that does not
// survive its own apply, and a value set by hand since then is that change's own business.
std::optional<Failure> check_health(Action& a, Context& ctx, const boot::Store& store,
                                    boot::State s) {
    auto mem = ctx.kernel.read_memsize();
    auto p = mem ? helper::load_policy(ctx, *mem)
                 : Expected<policy::Policy>(Error{"cannot read hw.memsize"});
    auto up = ctx.kernel.read_uptime();
    if (!p || !up || !s.applied_uptime_s)
        return act(a, journal::event::waiting,
                   "cannot tell yet: the policy or the uptime could not be read");
    const auto stayed = up->count() - *s.applied_uptime_s;
    if (stayed < p->healthy_after.count())
        return act(a, journal::event::waiting,
                   "healthy after " + std::to_string(p->healthy_after.count() - stayed) +
                       " s more uptime");
    std::string why = "up " + std::to_string(stayed) + " s since this boot applied it";
    if (auto knob = ctx.kernel.read_wired_limit()) {
        a.readback_ = *knob;
        if (*knob != s.value)
            why += "; iogpu.wired_limit_mb was changed since and reads " + units::to_string(*knob);
    }
    helper::note_vouched(a, ctx, *p, s.value);  // the healthy record names the vouch too
    if (auto f = save_guard(a, store, s, Guard::healthy, s.guard_boot, "", why)) return f;
    return act(a, journal::event::healthy, "");
}

// At early boot launchd may run the action before the GPU driver has registered
// iogpu.wired_limit_mb, or while a read of it still fails. That is not a failure: the action
// says "waiting" and launchd runs it again at the next StartInterval. Only once the machine has
// been up kBootReadyWithin does a missing or unreadable key become final (`failed`).
constexpr std::int64_t kBootReadyWithin = 300;  // seconds of uptime

std::optional<std::string> not_ready_yet(Context& ctx, std::int64_t uptime_s) {
    auto knob = ctx.kernel.read_wired_limit();
    if (knob || uptime_s >= kBootReadyWithin) return std::nullopt;
    const auto kind = knob.error().kind;
    if (kind != kernel::KernelError::Kind::key_missing &&
        kind != kernel::KernelError::Kind::read_failed)
        return std::nullopt;
    return "iogpu.wired_limit_mb cannot be read yet at " + std::to_string(uptime_s) +
           " s of uptime (" + knob.error().message + "); tried again at the next run, until " +
           std::to_string(kBootReadyWithin) + " s of uptime";
}

// The one apply of this boot: the guard says `trying` on disk before the journal's intent.
std::optional<Failure> apply_once(Action& a, Context& ctx, const boot::Store& store, boot::State s,
                                  const std::string& boot_id) {
    bool tried = false;
    // After the write, a kernel that no longer answers leaves the guard `trying`: the outcome is
    // unknown, as after a hang, and the next boot trips the guard.
    auto fail = [&](Failure f) {
        // After a reset that went on, its refusal or revert is already on record.
        if ((!tried || ctx.kernel.read_wired_limit()) && !a.reset_went_on())
            (void)save_guard(a, store, s, Guard::failed, boot_id, f.message, f.message);
        return f;
    };
    auto up = ctx.kernel.read_uptime();
    if (!up)
        return fail(a.refuse(helper::exit_for(up.error().kind),
                             "cannot read the uptime: " + up.error().message));
    if (auto why = not_ready_yet(ctx, up->count())) return act(a, journal::event::waiting, *why);
    auto mem = ctx.kernel.read_memsize();
    if (!mem)
        return fail(a.refuse(helper::exit_for(mem.error().kind),
                             "cannot read hw.memsize: " + mem.error().message));
    auto p = helper::load_policy(ctx, *mem);
    if (!p) return fail(a.refuse(ExitCode::policy_invalid, p.error().message));
    // Band and reserve; max_step only for a value no ramp confirmed (a confirmed one was reached
    // step by step): from the OS default, as after every boot, at most one step, counted from the
    // effective cap recorded when it was stored (older files: from the band's min).
    const MiB from = s.confirmed ? s.value : MiB::zero();
    if (auto why = policy::refusal(*p, *mem, from, s.value, s.start))
        return fail(a.refuse(ExitCode::refused_by_policy, *why));
    // A ramp step that hung binds it too, unless it was known and overridden when the value was
    // stored (persist --ignore-hang-ceiling, which the journal records).
    auto text = a.journal_text();
    if (!text)
        return fail(a.refuse(ExitCode::journal_failed,
                             "cannot check the journal for hangs: " + text.error().message));
    const auto hang = journal::find_hang_ceiling(*text, boot_id, true);
    if (!hang.known)
        return fail(a.refuse(ExitCode::journal_failed,
                             "cannot classify the journal for hangs (out of memory)"));
    if (hang.value && s.value >= *hang.value)
        return fail(a.refuse(ExitCode::refused_by_policy,
                             units::to_string(s.value) + " is at or above " +
                                 units::to_string(*hang.value) +
                                 ", where the machine hung (wiredcap recover names the write)"));
    if (auto f = helper::read_previous(a, ctx)) return fail(*f);
    helper::note_vouched(a, ctx, *p, s.value);
    s.applied_uptime_s = up->count();
    if (auto f = save_guard(a, store, s, Guard::trying, boot_id, "", "")) return f;
    tried = true;
    if (auto f = helper::write_and_verify(a, ctx, s.value, std::nullopt)) {
        if (f->code == ExitCode::readback_differs)
            (void)helper::write_and_verify(a, ctx, MiB::zero(), journal::revert_reason::mismatch);
        return fail(*f);
    }
    return act(a, journal::event::applied, "");
}

// The boot guard's next move for this run: tripped, healthy, applied, or nothing.
std::optional<Failure> boot_steps(Action& a, Context& ctx) {
    if (ctx.caller.uid != 0)
        return a.refuse(ExitCode::not_permitted, "boot is the LaunchDaemon's action: root only");
    if (auto f = a.open_journal()) return f;
    if (auto why = helper::boot_switch_on(ctx))
        return act(a, journal::event::disabled,
                   *why + ": the boot action is disabled; nothing applied");
    auto store = helper::open_boot_store(ctx);
    if (!store) return store.error();
    auto loaded = store->load();
    if (!loaded)
        return Failure{ExitCode::internal_error, loaded.error().message + "; nothing applied"};
    if (!*loaded) return act(a, journal::event::none, "nothing is stored for boot");
    boot::State s = **loaded;
    a.to_ = s.value;
    a.out().object("persisted_mib",
                   JsonObject().num("value", s.value.count()).str("source", "boot state file"));
    auto boot_id = ctx.kernel.read_boot_id();
    if (!boot_id)
        return Failure{ExitCode::internal_error,
                       "cannot read the boot id: " + boot_id.error().message + "; nothing applied"};
    const bool this_boot = s.guard_boot == *boot_id;
    switch (s.guard) {
        case Guard::tripped:
        case Guard::failed:
            return act(a, journal::event::none,
                       "the boot guard stopped at " + journal::utc_iso8601(s.guard_time) + ": " +
                           s.reason);
        case Guard::trying:
            return this_boot ? check_health(a, ctx, *store, s) : trip(a, *store, s, *boot_id);
        case Guard::healthy:
            if (this_boot) return act(a, journal::event::none, "applied and healthy in this boot");
            return apply_once(a, ctx, *store, s, *boot_id);
        case Guard::armed:
            // Stored for boot means from the next boot on: never a surprise change in this one.
            if (this_boot)
                return act(a, journal::event::none,
                           "stored in this boot; applied from the next boot on");
            return apply_once(a, ctx, *store, s, *boot_id);
    }
    return Failure{ExitCode::internal_error, "unreachable guard state"};
}

}  // namespace

helper::Result boot_action(helper::Context& ctx, const Args& args) {
    if (!args.empty()) return usage_error("boot-action takes no arguments");
    helper::Invocation inv;
    inv.command = helper::Command::boot;  // its records are the journal's `boot` command
    // The journal's upkeep first (a compaction once it passes 1 MiB, the long part without the
    // helper's lock: journal/upkeep.hpp), then the decision, at every run, on whatever the journal
    // holds: one from before compaction (tens of MiB) costs its compaction's seconds once, and
    // one that compaction cannot shrink (many uids' records that still decide something) is read
    // as it is, never waited on.
    upkeep_if_due(ctx);
    Action a(inv, ctx);
    return a.finish(boot_steps(a, ctx));
}

}  // namespace wiredcap::system
