#include "src/boot_commands.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "boot/boot_state.hpp"
#include "journal/confirmation.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::helper {
namespace {

using boot::Guard;
using units::MiB;

std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

// Anything at the switch path disables the boot action; a path that cannot be checked counts as
// present (fail closed). nullopt: absent.
std::optional<std::string> switch_on(const Context& ctx) {
    struct stat st {};
    if (::lstat(ctx.boot_switch_path.c_str(), &st) == 0) return ctx.boot_switch_path + " exists";
    if (errno == ENOENT) return std::nullopt;
    return "cannot check " + ctx.boot_switch_path + " (" + std::strerror(errno) + ")";
}

JsonObject persisted_read_back(const Context& ctx) {
    JsonObject o;
    auto s = boot::read(ctx.boot_state_path, ctx.trusted_owner);
    if (s && *s) o.num("value", (*s)->value.count()); else o.null("value");
    o.str("source", "boot state file read-back");
    if (!s) o.str("error", s.error().message);
    return o;
}

Expected<boot::Store, Failure> open_store(const Context& ctx) {
    auto store = boot::Store::open(ctx.boot_state_path, ctx.trusted_owner);
    if (!store) return Failure{ExitCode::journal_failed, store.error().message};
    return std::move(*store);
}

// The boot action's answer: {"action":...,"why":...}; nothing in it is a failure.
std::optional<Failure> act(Action& a, std::string_view action, const std::string& why) {
    a.out().str("action", action);
    if (!why.empty()) a.out().str("why", why);
    return std::nullopt;
}

// Moves the guard on: journaled first (the event is the guard's new name: trying, healthy,
// tripped, failed), then saved, before anything else happens.
std::optional<Failure> save_guard(Action& a, const boot::Store& store, boot::State& s, Guard g,
                                  const std::string& boot_id, const std::string& reason, const std::string& why) {
    s.guard = g;
    s.guard_boot = boot_id;
    s.guard_time = now();
    s.reason = reason;
    if (auto f = a.record(std::string(boot::guard_name(g)), why)) return f;
    if (auto ok = store.save(s); !ok) return Failure{ExitCode::journal_failed, ok.error().message};
    return std::nullopt;
}

// The previous boot applied the value and never became healthy: it most likely hung.
std::optional<Failure> trip(Action& a, const boot::Store& store, boot::State s, const std::string& boot_id) {
    const std::string why = "boot " + s.guard_boot + " applied " + units::to_string(s.value) + " at " +
                            journal::utc_iso8601(s.guard_time) +
                            " and it was never recorded healthy; not applied at this boot or any later one";
    if (auto f = save_guard(a, store, s, Guard::tripped, boot_id, why, why)) return f;
    return act(a, "tripped", why);
}

// This boot applied the value: healthy once the machine has stayed up healthy_after since then.
// What the cap reads now is recorded, not required: the guard is about a boot that does not
// survive its own apply, and a value set by hand since then is that change's own business.
std::optional<Failure> check_health(Action& a, Context& ctx, const boot::Store& store, boot::State s) {
    auto mem = ctx.kernel.read_memsize();
    auto p = mem ? load_policy(ctx, *mem) : Expected<policy::Policy>(Error{"cannot read hw.memsize"});
    auto up = ctx.kernel.read_uptime();
    if (!p || !up || !s.applied_uptime_s)
        return act(a, "waiting", "cannot tell yet: the policy or the uptime could not be read");
    const auto stayed = up->count() - *s.applied_uptime_s;
    if (stayed < p->healthy_after.count())
        return act(a, "waiting", "healthy after " + std::to_string(p->healthy_after.count() - stayed) + " s more uptime");
    std::string why = "up " + std::to_string(stayed) + " s since this boot applied it";
    if (auto knob = ctx.kernel.read_wired_limit()) {
        a.readback_ = *knob;
        if (*knob != s.value) why += "; iogpu.wired_limit_mb was changed since and reads " + units::to_string(*knob);
    }
    if (auto f = save_guard(a, store, s, Guard::healthy, s.guard_boot, "", why)) return f;
    return act(a, "healthy", "");
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
    if (kind != kernel::KernelError::Kind::key_missing && kind != kernel::KernelError::Kind::read_failed)
        return std::nullopt;
    return "iogpu.wired_limit_mb cannot be read yet at " + std::to_string(uptime_s) + " s of uptime (" +
           knob.error().message + "); tried again at the next run, until " + std::to_string(kBootReadyWithin) +
           " s of uptime";
}

// The one apply of this boot: the guard says `trying` on disk before the journal's intent.
std::optional<Failure> apply_once(Action& a, Context& ctx, const boot::Store& store, boot::State s,
                                  const std::string& boot_id) {
    bool tried = false;
    // After the write, a kernel that no longer answers leaves the guard `trying`: the outcome is
    // unknown, as after a hang, and the next boot trips the guard.
    auto fail = [&](Failure f) {
        if (!tried || ctx.kernel.read_wired_limit())
            (void)save_guard(a, store, s, Guard::failed, boot_id, f.message, f.message);
        return f;
    };
    auto up = ctx.kernel.read_uptime();
    if (!up) return fail(a.refuse(exit_for(up.error().kind), "cannot read the uptime: " + up.error().message));
    if (auto why = not_ready_yet(ctx, up->count())) return act(a, "waiting", *why);
    auto mem = ctx.kernel.read_memsize();
    if (!mem) return fail(a.refuse(exit_for(mem.error().kind), "cannot read hw.memsize: " + mem.error().message));
    auto p = load_policy(ctx, *mem);
    if (!p) return fail(a.refuse(ExitCode::policy_invalid, p.error().message));
    // Band and reserve; max_step only for a value no ramp confirmed (a confirmed one was reached
    // step by step): from the OS default, as after every boot, at most one step, counted from the
    // effective cap recorded when it was stored (older files: from the band's min).
    const MiB from = s.confirmed ? s.value : MiB::zero();
    if (auto why = policy::refusal(*p, *mem, from, s.value, s.start)) return fail(a.refuse(ExitCode::refused_by_policy, *why));
    // A ramp step that hung binds it too, unless it was known and overridden when the value was
    // stored (persist --ignore-hang-ceiling, which the journal records).
    auto hang = journal::find_hang_ceiling_in(ctx.journal_path, ctx.trusted_owner, boot_id);
    if (!hang) return fail(a.refuse(ExitCode::journal_failed, hang.error().message));
    if (*hang && s.value >= **hang)
        return fail(a.refuse(ExitCode::refused_by_policy, units::to_string(s.value) + " is at or above " +
                                                              units::to_string(**hang) + ", where the machine hung (wiredcap recover names the write)"));
    if (auto f = read_previous(a, ctx)) return fail(*f);
    note_vouched(a, ctx, *p, s.value);
    s.applied_uptime_s = up->count();
    if (auto f = save_guard(a, store, s, Guard::trying, boot_id, "", "")) return f;
    tried = true;
    if (auto f = write_and_verify(a, ctx, s.value, std::nullopt)) {
        if (f->code == ExitCode::readback_differs) (void)write_and_verify(a, ctx, MiB::zero(), "mismatch");
        return fail(*f);
    }
    return act(a, "applied", "");
}

// A value below the effective cap, stored for boot, lowers the GPU's cap below the OS default at
// every boot: never without --lower, which says so.
std::optional<std::string> silent_lowering(const Invocation& inv) {
    if (!inv.unconfirmed || !inv.effective || *inv.value >= *inv.effective || inv.lower) return std::nullopt;
    return units::describe(*inv.value) + " is below the effective cap " + units::describe(*inv.effective) + " [" +
           inv.effective_source.value_or("given") + "]: stored, it would lower the GPU's cap below the OS default "
           "at every boot; to store it anyway, add --lower after --unconfirmed";
}

// What the stored value does at every boot, against the effective cap at persist time.
JsonObject at_boot_json(const Invocation& inv) {
    const MiB v = *inv.value;
    const MiB e = *inv.effective;
    JsonObject o;
    o.str("direction", v > e ? "raised" : v < e ? "lowered" : "unchanged").num("from_mib", e.count());
    o.str("from_source", "--effective, the caller's claim (" + inv.effective_source.value_or("given") + ")");
    return o.num("by_mib", (v > e ? v - e : e - v).count());
}

}  // namespace

JsonObject boot_guard_json(Context& ctx, const std::optional<policy::Policy>& p) {
    JsonObject o;
    o.str("source", "boot state file " + ctx.boot_state_path).str("switch", ctx.boot_switch_path);
    o.boolean("disabled", switch_on(ctx).has_value());
    auto s = boot::read(ctx.boot_state_path, ctx.trusted_owner);
    if (!s || !*s) {
        o.null("persisted_mib");
        if (!s) o.str("error", s.error().message);
        return o;
    }
    const boot::State& st = **s;
    o.num("persisted_mib", st.value.count()).str("basis", st.confirmed ? "confirmed" : "unconfirmed");
    o.str("persisted_time", journal::utc_iso8601(st.persisted_time)).str("guard", boot::guard_name(st.guard));
    if (!st.guard_boot.empty()) o.str("guard_boot", st.guard_boot);
    o.str("guard_time", journal::utc_iso8601(st.guard_time));
    if (st.applied_uptime_s) o.num("applied_uptime_s", static_cast<std::uint64_t>(*st.applied_uptime_s));
    if (p) o.num("healthy_after_s", static_cast<std::uint64_t>(p->healthy_after.count()));
    if (!st.reason.empty()) o.str("reason", st.reason);
    return o;
}

Expected<bool, Failure> remove_persisted(Action& a, const Context& ctx, const std::string& done) {
    auto store = open_store(ctx);
    if (!store) return store.error();
    if (!store->present()) return false;
    if (auto f = a.record(done + "_intent")) return *f;
    auto removed = store->remove();
    if (!removed) return Failure{ExitCode::journal_failed, removed.error().message};
    if (*removed)
        if (auto f = a.record(done)) return *f;
    return *removed;
}

std::optional<Failure> persist_steps(Action& a, const Invocation& inv, Context& ctx) {
    const MiB value = *inv.value;
    a.out().num("requested_mib", value.count());
    auto auth = authorize(a, ctx);
    if (!auth) return auth.error();
    // --unconfirmed: the boot action will move the knob from the OS default in one write, so the
    // value must be one step from there, as an apply from the default must: from the effective
    // cap the caller read (--effective), else from the band's min.
    const MiB from = inv.unconfirmed ? MiB::zero() : value;
    if (auto why = policy::refusal(auth->policy, auth->memsize, from, value, inv.effective))
        return a.refuse(ExitCode::refused_by_policy, *why);
    if (auto why = silent_lowering(inv)) return a.refuse(ExitCode::refused_by_policy, *why);
    if (inv.unconfirmed && inv.effective) a.out().object("at_boot", at_boot_json(inv));
    std::string basis = "unconfirmed: stored with --unconfirmed";
    std::string basis_word = inv.unconfirmed ? "unconfirmed" : "confirmed";
    // A vouched value needs no ramp here; it is stored unconfirmed, so that every boot checks
    // the policy again and applies it only while the policy still vouches for it.
    const bool vouched = note_vouched(a, ctx, auth->policy, value);
    bool confirmed = !inv.unconfirmed;
    if (!inv.unconfirmed) {
        auto c = journal::find_confirmation_in(ctx.journal_path, ctx.trusted_owner, value);
        if (!c) return a.refuse(ExitCode::journal_failed, c.error().message);
        if (*c) {
            basis = "confirmed in run " + (*c)->run + " step " + std::to_string((*c)->step);
        } else if (vouched) {
            basis = a.vouched_;
            basis_word = "vouched";
            confirmed = false;
        } else {
            return a.refuse(ExitCode::refused_by_policy,
                            units::to_string(value) + " was never confirmed in a ramp on this machine, or a boot with it "
                            "tripped the boot guard since; confirm it in a ramp, or store it with --unconfirmed");
        }
    }
    if (inv.lower && inv.effective && value < *inv.effective)
        basis += "; --lower: below the effective cap " + std::to_string(inv.effective->count()) +
                 " MiB, it lowers the GPU's cap below the OS default at every boot";
    a.out().str("basis", basis_word);
    auto store = open_store(ctx);
    if (!store) return store.error();
    auto old = store->load();
    const std::optional<MiB> start = inv.unconfirmed ? inv.effective : std::nullopt;
    const bool same = old && *old && (*old)->value == value && (*old)->confirmed == confirmed &&
                      (*old)->start == start &&
                      ((*old)->guard == Guard::armed || (*old)->guard == Guard::healthy);
    a.to_ = value;
    if (!same) {
        auto boot_id = ctx.kernel.read_boot_id();
        const boot::State s{value, confirmed, now(), Guard::armed, boot_id ? *boot_id : "", now(),
                            std::nullopt, "", start, start ? inv.effective_source.value_or("given") : ""};
        if (auto f = a.record("persist_intent", basis)) return Failure{f->code, f->message + "; nothing was stored"};
        if (auto ok = store->save(s); !ok) return a.refuse(ExitCode::journal_failed, ok.error().message);
    }
    a.out().boolean("changed", !same).object("persisted_mib", persisted_read_back(ctx));
    return a.record(same ? "unchanged" : "persisted", basis);
}

std::optional<Failure> persist_off_steps(Action& a, Context& ctx) {
    a.out().boolean("off", true);
    if (auto f = authorize_safe_direction(a, ctx, false)) return f;
    auto removed = remove_persisted(a, ctx, "removed");
    if (!removed) return a.refuse(removed.error().code, removed.error().message);
    a.out().boolean("changed", *removed).object("persisted_mib", persisted_read_back(ctx));
    return *removed ? std::nullopt : a.record("unchanged");
}

std::optional<Failure> boot_steps(Action& a, Context& ctx) {
    if (ctx.caller.uid != 0) return a.refuse(ExitCode::not_permitted, "boot is the LaunchDaemon's action: root only");
    if (auto f = a.open_journal()) return f;
    if (auto why = switch_on(ctx)) return act(a, "disabled", *why + ": the boot action is disabled; nothing applied");
    auto store = open_store(ctx);
    if (!store) return store.error();
    auto loaded = store->load();
    if (!loaded) return Failure{ExitCode::internal_error, loaded.error().message + "; nothing applied"};
    if (!*loaded) return act(a, "none", "nothing is stored for boot");
    boot::State s = **loaded;
    a.to_ = s.value;
    a.out().object("persisted_mib", JsonObject().num("value", s.value.count()).str("source", "boot state file"));
    auto boot_id = ctx.kernel.read_boot_id();
    if (!boot_id) return Failure{ExitCode::internal_error, "cannot read the boot id: " + boot_id.error().message + "; nothing applied"};
    const bool this_boot = s.guard_boot == *boot_id;
    switch (s.guard) {
        case Guard::tripped:
        case Guard::failed:
            return act(a, "none", "the boot guard stopped at " + journal::utc_iso8601(s.guard_time) + ": " + s.reason);
        case Guard::trying:
            return this_boot ? check_health(a, ctx, *store, s) : trip(a, *store, s, *boot_id);
        case Guard::healthy:
            if (this_boot) return act(a, "none", "applied and healthy in this boot");
            return apply_once(a, ctx, *store, s, *boot_id);
        case Guard::armed:
            // Stored for boot means from the next boot on: never a surprise change in this one.
            if (this_boot) return act(a, "none", "stored in this boot; applied from the next boot on");
            return apply_once(a, ctx, *store, s, *boot_id);
    }
    return Failure{ExitCode::internal_error, "unreachable guard state"};
}

}  // namespace wiredcap::helper
