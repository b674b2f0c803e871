#include "wiredcap/helper/persist_commands.hpp"

#include "wiredcap/helper/boot_files.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::helper {
namespace {

using boot::Guard;
using units::MiB;

JsonObject persisted_read_back(const Context& ctx) {
    JsonObject o;
    auto s = boot::read(ctx.boot_state_path, ctx.trusted_owner);
    if (s && *s) o.num("value", (*s)->value.count()); else o.null("value");
    o.str("source", "boot state file read-back");
    if (!s) o.str("error", s.error().message);
    return o;
}

// A value below the effective cap, stored for boot, lowers the GPU's cap below the OS default at
// every boot: never without --lower, which says so.
std::optional<std::string> silent_lowering(const Invocation& inv) {
    if (!inv.unconfirmed || !inv.effective || *inv.value >= *inv.effective || inv.lower) return std::nullopt;
    return units::describe(*inv.value) + " is below the effective cap " + units::describe(*inv.effective) + " [" +
           inv.effective_source.value_or("given") + "]: stored, it would lower the GPU's cap below the OS default "
           "at every boot; to store it anyway, add --lower after --unconfirmed";
}

// Without --effective the helper, which cannot read the OS default, cannot tell whether a value
// stored for boot lowers the GPU's cap at every boot (it counts the step from the band's min).
// Root may store it so (an admin's direct use, docs/helper.md); anyone else says so, with
// --lower, or gives the effective cap, as `wiredcap persist` does.
std::optional<std::string> unmeasured_lowering(const Invocation& inv, uid_t uid) {
    if (!inv.unconfirmed || inv.effective || inv.lower || uid == 0) return std::nullopt;
    const std::string v = std::to_string(inv.value->count()) + "MiB";
    return "the effective cap of the OS default is unknown here (only Metal knows it): whether " + v +
           " lowers the GPU's cap at every boot cannot be told; run: wiredcap persist " + v +
           " --unconfirmed (it reads the effective cap), or give the effective cap that 'wiredcap status' "
           "shows: wiredcap-helper persist " + v + " --unconfirmed --effective SIZE; to store it anyway, "
           "add --lower";
}

}  // namespace

JsonObject boot_guard_json(Context& ctx, const std::optional<policy::Policy>& p) {
    JsonObject o;
    o.str("source", "boot state file " + ctx.boot_state_path).str("switch", ctx.boot_switch_path);
    o.boolean("disabled", boot_switch_on(ctx).has_value());
    auto s = boot::read(ctx.boot_state_path, ctx.trusted_owner);
    if (!s || !*s) {
        o.null("persisted_mib");
        if (!s) o.str("error", s.error().message);
        return o;
    }
    const boot::State& st = **s;
    o.num("persisted_mib", st.value.count()).str("basis", st.confirmed ? journal::basis::confirmed : journal::basis::unconfirmed);
    o.str("persisted_time", journal::utc_iso8601(st.persisted_time)).str("guard", boot::guard_name(st.guard));
    if (!st.guard_boot.empty()) o.str("guard_boot", st.guard_boot);
    o.str("guard_time", journal::utc_iso8601(st.guard_time));
    if (st.applied_uptime_s) o.num("applied_uptime_s", static_cast<std::uint64_t>(*st.applied_uptime_s));
    if (p) o.num("healthy_after_s", static_cast<std::uint64_t>(p->healthy_after.count()));
    if (!st.reason.empty()) o.str("reason", st.reason);
    return o;
}

Expected<bool, Failure> remove_persisted(Action& a, const Context& ctx, const std::string& done) {
    auto store = open_boot_store(ctx);
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
    if (auto f = refuse_on_the_journal(a, inv, ctx, value)) return f;
    policy::Policy& p = auth->policy;
    if (auto f = withdraw_tripped_vouch(a, p, value)) return f;
    // --unconfirmed: the boot action will move the knob from the OS default in one write, so the
    // value must be one step from there, as an apply from the default must: from the effective
    // cap the caller read (--effective), else from the band's min.
    const MiB from = inv.unconfirmed ? MiB::zero() : value;
    if (auto why = policy::refusal(p, auth->memsize, from, value, inv.effective))
        return a.refuse(ExitCode::refused_by_policy, *why);
    if (auto why = silent_lowering(inv)) return a.refuse(ExitCode::refused_by_policy, *why);
    if (auto why = unmeasured_lowering(inv, ctx.caller.uid)) return a.refuse(ExitCode::refused_by_policy, *why);
    if (inv.unconfirmed && inv.effective)
        a.out().object("at_boot", direction_json(value, *inv.effective, effective_claim(inv)));
    // Why it may be stored: --unconfirmed, a confirmation in a ramp, or the policy's vouch. A
    // vouched value needs no ramp here (withdrawn above after a trip); it is stored
    // unconfirmed, so that every boot checks the policy again and applies it only while the
    // policy still vouches for it.
    std::string basis = "unconfirmed: stored with --unconfirmed";
    std::string basis_word = "unconfirmed";
    const bool vouched = note_vouched(a, ctx, p, value);
    if (!inv.unconfirmed) {
        auto c = standing_of(a, value);
        if (!c) return c.error();
        const auto& ramp = c->confirmation;
        if (!ramp && !vouched)
            return a.refuse(ExitCode::refused_by_policy,
                            units::to_string(value) + " was never confirmed in a ramp on this machine, or a boot with it "
                            "tripped the boot guard since; confirm it in a ramp, or store it with --unconfirmed");
        basis_word = ramp ? journal::basis::confirmed : journal::basis::vouched;
        basis = ramp ? "confirmed in run " + ramp->run + " step " + std::to_string(ramp->step) : a.vouched_;
    }
    const bool confirmed = basis_word == journal::basis::confirmed;
    if (inv.lower && inv.effective && value < *inv.effective)
        basis += "; --lower: below the effective cap " + std::to_string(inv.effective->count()) +
                 " MiB, it lowers the GPU's cap below the OS default at every boot";
    if (inv.lower && !inv.effective)
        basis += "; --lower without --effective: it may lower the GPU's cap below the OS default at every boot";
    a.out().str("basis", basis_word);
    auto store = open_boot_store(ctx);
    if (!store) return store.error();
    auto old = store->load();
    const std::optional<MiB> start = inv.unconfirmed ? inv.effective : std::nullopt;
    const bool same = old && *old && (*old)->value == value && (*old)->confirmed == confirmed &&
                      (*old)->start == start &&
                      ((*old)->guard == Guard::armed || (*old)->guard == Guard::healthy);
    if (inv.check) {  // every check passed: the store is the next step
        a.out().boolean("would_change", !same);
        return std::nullopt;
    }
    if (!same) {
        // A reset that went on without the lock since this command decided removed the stored
        // value: it stays removed (docs/design.md §8). Seen before the save, nothing is stored; after it
        // (the reset's removal came first), what this command stored is removed again.
        if (a.reset_went_on()) return a.refuse(ExitCode::not_permitted, kResetWentOn);
        auto boot_id = ctx.kernel.read_boot_id();
        const boot::State s{value, confirmed, unix_now(), Guard::armed, boot_id ? *boot_id : "", unix_now(),
                            std::nullopt, "", start,
                            // --effective is the caller's word: its claim, the source it named apart
                            start ? "given by uid " + std::to_string(ctx.caller.uid) : "",
                            start ? inv.effective_source.value_or("given") : ""};
        if (auto f = a.record(journal::event::persist_intent, basis)) return Failure{f->code, f->message + "; nothing was stored"};
        if (auto ok = store->save(s); !ok) return a.refuse(ExitCode::journal_failed, ok.error().message);
        if (a.reset_went_on()) {
            auto removed = remove_persisted(a, ctx, "removed");
            return a.refuse(ExitCode::not_permitted, std::string(kResetWentOn) +
                                                         (removed ? "; what this command stored was removed again"
                                                                  : "; removing it failed: " + removed.error().message));
        }
    }
    a.out().boolean("changed", !same).object("persisted_mib", persisted_read_back(ctx));
    return a.record(same ? journal::event::unchanged : journal::event::persisted, basis);
}

std::optional<Failure> persist_off_steps(Action& a, const Invocation& inv, Context& ctx) {
    a.out().boolean("off", true);
    if (auto f = authorize_safe_direction(a, ctx, false)) return f;
    if (inv.check) return std::nullopt;
    auto removed = remove_persisted(a, ctx, "removed");
    if (!removed) return a.refuse(removed.error().code, removed.error().message);
    a.out().boolean("changed", *removed).object("persisted_mib", persisted_read_back(ctx));
    return *removed ? std::nullopt : a.record(journal::event::unchanged);
}

}  // namespace wiredcap::helper
