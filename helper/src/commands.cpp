#include "src/commands.hpp"

#include <utility>

#include "journal/journal.hpp"
#include "policy/policy.hpp"
#include "policy/trusted_path.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::helper {
namespace {

using kernel::KernelError;
using units::MiB;

constexpr std::string_view kReadBack = "kernel read-back";

// A value read from the kernel, with its source: {"value":N,"source":"kernel read-back"}.
JsonObject read_back(MiB v) { return JsonObject().num("value", v.count()).str("source", kReadBack); }

// A failure on its way out: the exit code and the sentence for stderr.
struct Failure {
    ExitCode code;
    std::string message;
};

ExitCode exit_for(KernelError::Kind k) {
    switch (k) {
        case KernelError::Kind::key_missing: return ExitCode::unsupported_platform;
        case KernelError::Kind::not_permitted: return ExitCode::not_permitted;
        case KernelError::Kind::write_refused: return ExitCode::kernel_write_failed;
        case KernelError::Kind::machine_hung: return ExitCode::kernel_write_failed;
        case KernelError::Kind::read_failed: return ExitCode::internal_error;
    }
    return ExitCode::internal_error;
}

// Builds the result line and journals as it goes.
class Action {
public:
    Action(const Invocation& inv, Context& ctx) : inv_(inv), ctx_(ctx) {
        out_.num("v", journal::kSchemaVersion).str("command", command_name(inv.command));
        out_.str("backend", ctx.kernel.backend_name());
        auto boot = ctx.kernel.read_boot_id();
        stamp_ = journal::Stamp{boot ? *boot : std::string("unknown"), ctx.caller.uid};
    }

    JsonObject& out() { return out_; }

    // Opens the journal; without it nothing may change.
    std::optional<Failure> open_journal() {
        auto w = journal::Writer::open(ctx_.journal_path, ctx_.trusted_owner);
        if (!w) return Failure{ExitCode::journal_failed, w.error().message + "; nothing was changed"};
        writer_.emplace(std::move(*w));
        return std::nullopt;
    }

    // Records an event; a failure to record is itself a failure of the action.
    std::optional<Failure> record(std::string event, std::string reason = {}) {
        journal::Record r{std::string(command_name(inv_.command)), std::move(event), inv_.run, inv_.step,
                          previous_, inv_.command == Command::reset ? std::optional<MiB>(MiB::zero()) : inv_.value,
                          readback_, std::move(reason)};
        auto ok = writer_->append(r, stamp_);
        if (!ok) return Failure{ExitCode::journal_failed, ok.error().message};
        return std::nullopt;
    }

    // Records a refusal (best effort: the refusal stands even if it cannot be recorded).
    Failure refuse(ExitCode code, std::string why) {
        if (writer_) (void)record("refused", why);
        return Failure{code, std::move(why)};
    }

    Result finish(const std::optional<Failure>& f) {
        out_.boolean("ok", !f);
        if (!f) return Result{ExitCode::ok, out_.text(), {}};
        out_.num("exit", static_cast<std::uint64_t>(to_int(f->code))).str("error", f->message);
        return Result{f->code, out_.text(), f->message};
    }

    std::optional<MiB> previous_;
    std::optional<MiB> readback_;

private:
    const Invocation& inv_;
    Context& ctx_;
    JsonObject out_;
    journal::Stamp stamp_{};
    std::optional<journal::Writer> writer_;
};

Expected<policy::Policy> load_policy(const Context& ctx, units::Bytes memsize) {
    auto text = trusted::read_file(ctx.policy_path, ctx.trusted_owner, policy::kMaxPolicyBytes);
    if (!text) return Error{"policy file " + text.error().message};
    if (!text->has_value()) return policy::builtin(memsize);
    auto p = policy::parse(**text, memsize);
    if (!p) return Error{"policy file " + ctx.policy_path + ": " + p.error().message};
    return p;
}

JsonObject policy_json(const policy::Policy& p, const std::string& path) {
    JsonObject o;
    o.str("source", p.source == policy::Source::file ? "policy file" : "built-in default");
    if (p.source == policy::Source::file) o.str("path", path);
    o.num("min_mib", p.min.count()).num("max_mib", p.max.count()).num("reserve_mib", p.reserve.count());
    o.num("max_step_mib", p.max_step.count());
    if (p.group) o.str("group", *p.group); else o.null("group");
    o.strings("warnings", p.warnings);
    return o;
}

// A reading with its source, or why there is none: {"value":N,"source":"..."} or
// {"value":null,"source":"...","error":"..."}.
template <class T, class F>
JsonObject reading(const kernel::KernelResult<T>& r, std::string_view source, F&& put) {
    JsonObject o;
    if (r) put(o, *r); else o.null("value");
    o.str("source", source);
    if (!r) o.str("error", r.error().message);
    return o;
}

Result do_read(const Invocation& inv, Context& ctx) {
    Action a(inv, ctx);
    auto limit = ctx.kernel.read_wired_limit();
    auto mem = ctx.kernel.read_memsize();
    auto boot = ctx.kernel.read_boot_id();
    a.out().object("wired_limit_mib", reading(limit, "kernel", [](JsonObject& o, MiB v) { o.num("value", v.count()); }));
    a.out().object("memsize_bytes", reading(mem, "kernel", [](JsonObject& o, units::Bytes v) { o.num("value", v.count()); }));
    a.out().object("boot_id", reading(boot, "kernel", [](JsonObject& o, const std::string& v) { o.str("value", v); }));
    JsonObject related;
    for (const auto& k : ctx.kernel.read_related()) {
        JsonObject r;
        if (k.value) r.str("value", *k.value); else r.null("value");
        related.object(k.name, r.str("source", "kernel"));
    }
    a.out().object("related", related);
    if (mem) {
        auto p = load_policy(ctx, *mem);
        a.out().object("policy", p ? policy_json(*p, ctx.policy_path) : JsonObject().str("error", p.error().message));
        auto may = identity::may_change(ctx.caller, p ? p->group : std::nullopt);
        JsonObject caller;
        caller.num("uid", ctx.caller.uid).boolean("may_change", p && may);
        if (!p) caller.str("why", "the policy cannot be loaded");
        else if (!may) caller.str("why", may.error().message);
        a.out().object("caller", caller);
    }
    if (!limit && limit.error().kind == KernelError::Kind::key_missing)
        return a.finish(Failure{ExitCode::unsupported_platform, limit.error().message});
    return a.finish(std::nullopt);
}

// Reads the cap before a change; a failure here stops everything.
std::optional<Failure> read_previous(Action& a, Context& ctx) {
    auto cur = ctx.kernel.read_wired_limit();
    if (!cur) return a.refuse(exit_for(cur.error().kind), "cannot read iogpu.wired_limit_mb: " + cur.error().message);
    a.previous_ = *cur;
    a.out().object("previous_mib", read_back(*cur));
    return std::nullopt;
}

// intent -> write -> read back -> applied | mismatch | write_failed.
// A revert's records carry why it happened (the --revert word, e.g. "timeout"); failures add what failed.
std::optional<Failure> write_and_verify(Action& a, Context& ctx, MiB value, const std::optional<std::string>& revert) {
    const std::string prefix = revert ? "revert_" : "";
    const std::string why = revert ? *revert : "";
    auto with_why = [&](const std::string& detail) { return why.empty() ? detail : why + "; " + detail; };
    if (auto f = a.record(prefix + "intent", why)) return Failure{f->code, f->message + "; nothing was changed"};
    auto w = ctx.kernel.write_wired_limit(value);
    if (!w) {
        (void)a.record(prefix + "write_failed", with_why(w.error().message));
        return Failure{exit_for(w.error().kind), "the kernel refused to set iogpu.wired_limit_mb to " +
                                                     units::to_string(value) + ": " + w.error().message};
    }
    auto back = ctx.kernel.read_wired_limit();
    if (!back) {
        (void)a.record(prefix + "mismatch", with_why("read-back failed: " + back.error().message));
        a.out().object("readback_mib", JsonObject().null("value").str("source", kReadBack).str("error", back.error().message));
        return Failure{ExitCode::readback_differs, "wrote " + units::to_string(value) +
                                                       " but could not read it back: " + back.error().message};
    }
    a.readback_ = *back;
    a.out().object("readback_mib", read_back(*back));
    if (*back != value) {
        (void)a.record(prefix + "mismatch", with_why("read back " + units::to_string(*back)));
        return Failure{ExitCode::readback_differs, "requested " + units::to_string(value) + " but the kernel reads back " +
                                                       units::to_string(*back)};
    }
    if (auto f = a.record(prefix + "applied", why)) return Failure{f->code, f->message + " (the value was applied)"};
    return std::nullopt;
}

// What every journaled action checks first, in this order: the journal can be written, the
// machine's memory is known, the policy loads, and the caller may act under it.
struct Authorized {
    units::Bytes memsize;
    policy::Policy policy;
};

Expected<Authorized, Failure> authorize(Action& a, Context& ctx) {
    if (auto f = a.open_journal()) return *f;
    auto mem = ctx.kernel.read_memsize();
    if (!mem) return a.refuse(exit_for(mem.error().kind), "cannot read hw.memsize: " + mem.error().message);
    auto p = load_policy(ctx, *mem);
    if (!p) return a.refuse(ExitCode::policy_invalid, p.error().message);
    if (auto may = identity::may_change(ctx.caller, p->group); !may)
        return a.refuse(ExitCode::not_permitted, may.error().message);
    return Authorized{*mem, *p};
}

// The kernel already holds `value`: nothing is written, and the journal says so.
std::optional<Failure> unchanged(Action& a, MiB value) {
    a.readback_ = value;
    a.out().boolean("changed", false).object("readback_mib", read_back(value));
    return a.record("unchanged");
}

std::optional<Failure> apply_steps(Action& a, const Invocation& inv, Context& ctx) {
    const MiB value = *inv.value;
    a.out().num("requested_mib", value.count());
    auto auth = authorize(a, ctx);
    if (!auth) return auth.error();
    if (auto f = read_previous(a, ctx)) return f;
    if (auto why = policy::refusal(auth->policy, auth->memsize, *a.previous_, value))
        return a.refuse(ExitCode::refused_by_policy, *why);
    if (*a.previous_ == value) return unchanged(a, value);
    a.out().boolean("changed", true);
    return write_and_verify(a, ctx, value, inv.revert);
}

// Reset is the safe direction: no band, no step, and it works when the policy is broken.
std::optional<Failure> reset_steps(Action& a, const Invocation& inv, Context& ctx) {
    if (auto f = a.open_journal()) return f;
    auto mem = ctx.kernel.read_memsize();
    std::optional<std::string> group = ctx.fallback_group;
    if (mem)
        if (auto p = load_policy(ctx, *mem)) group = p->group;
    if (auto may = identity::may_change(ctx.caller, group); !may)
        return a.refuse(ExitCode::not_permitted, may.error().message);
    if (auto f = read_previous(a, ctx)) return f;
    a.out().num("requested_mib", 0);
    if (a.previous_->count() == 0) return unchanged(a, MiB::zero());
    a.out().boolean("changed", true);
    return write_and_verify(a, ctx, MiB::zero(), inv.revert);
}

// confirm and end only write the journal, after the same caller check as a change.
std::optional<Failure> journal_only_steps(Action& a, const Invocation& inv, Context& ctx) {
    if (auto auth = authorize(a, ctx); !auth) return auth.error();
    auto cur = ctx.kernel.read_wired_limit();
    if (cur) {
        a.readback_ = *cur;
        a.out().object("readback_mib", read_back(*cur));
    }
    if (inv.command == Command::confirm) return a.record("confirmed");
    return a.record("end", *inv.outcome);
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
        case Command::end: return a.finish(journal_only_steps(a, inv, ctx));
        case Command::read: break;
    }
    return a.finish(Failure{ExitCode::internal_error, "unreachable command"});
}

}  // namespace wiredcap::helper
