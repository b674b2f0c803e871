#include "wiredcap/helper/action.hpp"

#include <ctime>
#include <utility>

#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/helper/journal/record_fields.hpp"
#include "wiredcap/helper/journal/refusal_budget.hpp"
#include "wiredcap/helper/journal/syslog_mirror.hpp"
#include "wiredcap/helper/process/hardening.hpp"
#include "wiredcap/helper/test_pause.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::helper {

using kernel::KernelError;
using units::MiB;

namespace {
constexpr std::string_view kReadBack = "kernel read-back";
// The helper's lock is held by root's helpers only, for milliseconds: a command that changes
// something gives up after this long; reset (the safe direction) goes on without it sooner, so
// it finishes within a second whatever anyone holds.
constexpr std::chrono::milliseconds kLockWait{3000};
constexpr std::chrono::milliseconds kResetLockWait{300};
}  // namespace

JsonObject read_back(MiB v) { return reading(kernel::KernelResult<MiB>(v), kReadBack); }

JsonObject direction_json(MiB now, MiB base, const std::string& source) {
    JsonObject o;
    o.str("direction", now > base ? "raised" : now < base ? "lowered" : "unchanged").num("from_mib", base.count());  // not a journal word: the answer's direction of the change
    return o.str("from_source", source).num("by_mib", (now > base ? now - base : base - now).count());
}

std::string effective_claim(const Invocation& inv) {
    return "--effective, the caller's claim (" + inv.effective_source.value_or("given") + ")";
}

ExitCode exit_for(KernelError::Kind k) {
    switch (k) {
        case KernelError::Kind::key_missing: return ExitCode::unsupported_platform;
        case KernelError::Kind::not_permitted: return ExitCode::not_permitted;
        case KernelError::Kind::write_refused:
        case KernelError::Kind::machine_hung: return ExitCode::kernel_write_failed;
        case KernelError::Kind::read_failed: return ExitCode::internal_error;
    }
    return ExitCode::internal_error;
}

Action::Action(const Invocation& inv, Context& ctx) : inv_(inv), ctx_(ctx) {
    out_.num("v", journal::kSchemaVersion).str("command", command_name(inv.command));
    out_.str("backend", ctx.kernel.backend_name());
    to_ = inv.command == Command::reset ? std::optional<MiB>(MiB::zero()) : inv.value;
    auto boot = ctx.kernel.read_boot_id();
    stamp_ = journal::Stamp{boot ? *boot : std::string("unknown"), ctx.caller.uid};
}

std::optional<Failure> Action::open_journal(bool safe_direction) {
    best_effort_ = safe_direction;
    auto w = journal::Writer::open(ctx_.journal_path, ctx_.trusted_owner);
    if (!w && safe_direction) {
        warn(w.error().message + "; nothing of this reset is recorded there");
        return std::nullopt;
    }
    if (!w) return Failure{ExitCode::journal_failed, w.error().message + "; nothing was changed"};
    auto locked = w->lock(safe_direction ? kResetLockWait : kLockWait);
    if (!locked && !safe_direction) return Failure{ExitCode::journal_failed, locked.error().message + "; nothing was changed"};
    if (!locked) warn(locked.error().message + "; went on without it (resetting is always permitted)");
    writer_.emplace(std::move(*w));
    return std::nullopt;
}

Expected<std::string_view> Action::journal_text() {
    if (!journal_text_) journal_text_.emplace(journal::read_journal(ctx_.journal_path, ctx_.trusted_owner));
    if (!*journal_text_) return journal_text_->error();
    return std::string_view(**journal_text_);
}

Expected<std::string_view, Failure> Action::journal_for(std::string_view what, std::string_view then) {
    auto text = journal_text();
    if (!text) return refuse(ExitCode::journal_failed, "cannot check the journal for " + std::string(what) + ": " +
                                                            text.error().message + std::string(then));
    return *text;
}

// Reset syncs only what its promise needs: each intent, on disk before the change it
// announces (it carries every record before it to disk too). Its outcomes are not flushed on
// their own: after a crash the knob is the OS default whatever they say, and the boot state's
// removal is made durable by its directory's sync (boot_state.cpp). Every other command flushes
// every record. Counted in docs/design.md ("Reset's syncs").
journal::Writer::Flush Action::flush_for(std::string_view event) const {
    const bool intent = event.size() >= 6 && event.substr(event.size() - 6) == journal::event::intent;
    return best_effort_ && !intent ? journal::Writer::Flush::later : journal::Writer::Flush::now;
}

journal::Record Action::record_of(const std::string& event, std::string reason) const {
    // A refusal of a caller other than root names no run: made-up run ids would otherwise each
    // open a run the journal keeps until `recover` ends it (no unbounded ids, docs/design.md §8).
    const bool runless = event == journal::event::refused && ctx_.caller.uid != 0;
    // --effective is the caller's word, never a measurement: journaled as its claim, with the
    // source it named kept apart (docs/design.md §8).
    const std::string claim = inv_.effective ? "given by uid " + std::to_string(ctx_.caller.uid) : "";
    return journal::Record{std::string(command_name(inv_.command)), event, runless ? std::nullopt : inv_.run,
                           runless ? std::nullopt : inv_.step, previous_, to_, readback_, std::move(reason),
                           inv_.effective, claim, inv_.ignore_hang_ceiling, inv_.by.value_or(""), vouched_,
                           inv_.effective ? inv_.effective_source.value_or("given") : ""};
}

// A check (--check) records nothing, its refusals neither: it asks, and changes nothing to ask.
std::optional<Failure> Action::record(std::string event, std::string reason) {
    if (inv_.check || (!writer_ && best_effort_)) return std::nullopt;  // nothing to record; no journal at all
    const bool safe_change = best_effort_ && event.ends_with(journal::event::intent);  // a reset's
    auto ok = writer_->append_line(journal::to_json_line(record_of(event, std::move(reason)), stamp_, std::time(nullptr)),
                                   stamp_.uid, flush_for(event), safe_change ? journal::Writer::Bound::none : journal::Writer::Bound::member);
    if (ok) return std::nullopt;
    if (!best_effort_) return Failure{ExitCode::journal_failed, ok.error().message};
    warn("could not record '" + event + "': " + ok.error().message);
    return std::nullopt;
}

Failure Action::refuse(ExitCode code, std::string why) {
    if (writer_) {
        (void)record(journal::event::refused, why);
    } else {
        const auto now = static_cast<std::int64_t>(std::time(nullptr));
        const auto dir = trusted::split_path(ctx_.journal_path);
        const auto log = dir ? journal::count_refusal(dir->dir, ctx_.trusted_owner, ctx_.caller.uid, now)
                             : journal::RefusalLog::log;
        journal::Record r = record_of(journal::event::refused, why);  // the journal's record, to the system log
        if (log == journal::RefusalLog::log_and_say_muted)
            r.reason += "; further refusals of uid " + std::to_string(ctx_.caller.uid) + " are not logged for up to " +
                        std::to_string(journal::kRefusalWindow.count()) + " s";
        if (log != journal::RefusalLog::skip) journal::mirror_to_syslog(journal::to_json_line(r, stamp_, now));
    }
    return Failure{code, std::move(why)};
}

// After the last record nothing privileged is left: the journal (and the helper's lock) is
// closed and root given up before the answer is written.
Result Action::finish(const std::optional<Failure>& f) {
    writer_.reset();
    if (!process::drop_root(ctx_.caller.uid, ctx_.caller.gid)) warn("could not give up root after the last write");
    out_.boolean("ok", !f);
    if (!warnings_.empty()) out_.strings("warnings", warnings_);
    if (f) out_.num("exit", static_cast<std::uint64_t>(to_int(f->code))).str("error", f->message);
    std::string said = f ? f->message : "";  // for stderr: the failure, then each warning
    for (const auto& w : warnings_) said += (said.empty() ? "" : "\nwiredcap-helper: ") + w;
    return Result{f ? f->code : ExitCode::ok, out_.text(), said};
}

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
    o.num("healthy_after_s", static_cast<std::uint64_t>(p.healthy_after.count()));
    if (p.group) o.str("group", *p.group); else o.null("group");
    if (p.vouched) o.num("vouched_mib", p.vouched->count()).str("vouched_note", p.vouched_note);
    if (!p.sha256.empty()) o.str("sha256", p.sha256);
    o.strings("warnings", p.warnings);
    return o;
}

// Root's journal (and the helper's lock) only for a caller known to be root or in the group:
// root's opens first, so that even a broken policy's refusal is on record; anyone else's after
// the policy let them act.
namespace {
Expected<Authorized, Failure> decide(Action& a, const Context& ctx) {
    auto mem = ctx.kernel.read_memsize();
    if (!mem) return a.refuse(exit_for(mem.error().kind), "cannot read hw.memsize: " + mem.error().message);
    auto p = load_policy(ctx, *mem);
    if (!p) return a.refuse(ExitCode::policy_invalid, p.error().message);
    if (auto may = identity::may_change(ctx.caller, p->group); !may)
        return a.refuse(ExitCode::not_permitted, may.error().message);
    return Authorized{*mem, *p};
}
}  // namespace

Expected<Authorized, Failure> authorize(Action& a, Context& ctx) {
    if (ctx.caller.uid != 0) {
        if (auto before = decide(a, ctx); !before) return before.error();
        test_pause(ctx, "decision");
    }
    if (auto f = a.open_journal()) return *f;
    // Again under the lock: root may have changed the policy or the group meanwhile.
    auto now = decide(a, ctx);
    test_pause(ctx, "locked");
    return now;
}

bool note_vouched(Action& a, const Context& ctx, const policy::Policy& p, MiB value) {
    if (p.vouched != value) return false;
    a.vouched_ = policy::vouched_by(p, ctx.policy_path);
    a.out().str("vouched", a.vouched_);
    return true;
}

Expected<journal::Standing, Failure> standing_of(Action& a, MiB value) {
    auto text = a.journal_for("confirmations");
    if (!text) return text.error();
    const auto standing = journal::find_standing(*text, value);
    if (!standing) return a.refuse(ExitCode::journal_failed, "cannot classify the journal for confirmations (out of memory)");
    return *standing;
}

std::optional<Failure> withdraw_tripped_vouch(Action& a, policy::Policy& p, MiB value) {
    if (p.vouched != value) return std::nullopt;
    auto standing = standing_of(a, value);
    if (!standing) return standing.error();
    if (standing->tripped && !standing->confirmation) p.vouched.reset();
    return std::nullopt;
}

std::optional<Failure> refuse_on_the_journal(Action& a, const Invocation& inv, Context& ctx, MiB value) {
    auto boot = ctx.kernel.read_boot_id();
    if (!boot) return a.refuse(ExitCode::journal_failed, "cannot read the boot id, so the journal cannot be checked "
                                                         "for hangs; nothing was changed");
    auto text = a.journal_for("hangs", "; nothing was changed");
    if (!text) return text.error();
    const auto hang = journal::find_hang_ceiling(*text, *boot);
    if (!hang.known)
        return a.refuse(ExitCode::journal_failed, "cannot classify the journal for hangs (out of memory); nothing was changed");
    // A change measured from a value nobody confirmed, or one the open step's revert would undo.
    if (const auto& open = hang.open_step; open && journal::open_step_refuses(*open, ctx.caller.uid, inv.run.value_or("")))
        return a.refuse(ExitCode::unresolved_journal, "run " + open->run + " step " + std::to_string(open->step) +
                                                          " is open in this boot: nothing was changed (see: wiredcap recover)");
    if (!hang.value || value < *hang.value || inv.ignore_hang_ceiling) return std::nullopt;
    return a.refuse(ExitCode::refused_by_policy,
                    units::describe(value) + " is at or above " + units::describe(*hang.value) +
                        ", the lowest value that hung this machine (the journal's hang ceiling); "
                        "see: wiredcap recover; choose a value below it, or pass --ignore-hang-ceiling");
}

std::optional<Failure> authorize_safe_direction(Action& a, Context& ctx, bool best_effort) {
    auto mem = ctx.kernel.read_memsize();
    std::optional<std::string> group = ctx.fallback_group;
    if (mem)
        if (auto p = load_policy(ctx, *mem)) group = p->group;
    if (auto may = identity::may_change(ctx.caller, group); !may)
        return a.refuse(ExitCode::not_permitted, may.error().message);
    return a.open_journal(best_effort);
}

std::optional<Failure> read_previous(Action& a, Context& ctx) {
    auto cur = ctx.kernel.read_wired_limit();
    if (!cur) return a.refuse(exit_for(cur.error().kind), "cannot read iogpu.wired_limit_mb: " + cur.error().message);
    a.previous_ = *cur;
    a.out().object("previous_mib", read_back(*cur));
    return std::nullopt;
}

// Whether the knob moved, from the read-back after a write and the read before it: never from
// the request, which a refused or clamped write does not honour.
namespace {
void report_changed(Action& a, MiB after) {
    a.readback_ = after;
    if (a.previous_) a.out().boolean("changed", after != *a.previous_);
    else a.out().null("changed");  // nothing to compare with: unknown, not assumed
    a.out().object("readback_mib", read_back(after));
}
}  // namespace

std::optional<Failure> write_and_verify(Action& a, Context& ctx, MiB value, const std::optional<std::string>& revert) {
    const std::string prefix = revert ? "revert_" : "";
    const std::string why = revert ? *revert : "";
    auto with_why = [&](const std::string& detail) { return why.empty() ? detail : why + "; " + detail; };
    a.to_ = value;
    const bool undoes_a_reset = value.count() != 0;
    if (undoes_a_reset && a.reset_went_on()) return a.refuse(ExitCode::not_permitted, kResetWentOn);
    if (auto f = a.record(prefix + journal::event::intent, why)) return Failure{f->code, f->message + "; nothing was changed"};
    test_pause(ctx, "write");
    auto w = ctx.kernel.write_wired_limit(value);
    if (!w) {
        // A refused write may still have moved the knob: the read-back says, not the request.
        // It is read before the record, which carries it: a failed write whose read-back is on
        // record is settled (the machine answered); one without stays at risk (recovery.hpp).
        if (auto after = ctx.kernel.read_wired_limit()) report_changed(a, *after);
        else a.out().null("changed");
        (void)a.record(prefix + journal::event::write_failed, with_why(w.error().message));
        return Failure{exit_for(w.error().kind), "the kernel refused to set iogpu.wired_limit_mb to " +
                                                     units::to_string(value) + ": " + w.error().message};
    }
    auto back = ctx.kernel.read_wired_limit();
    if (!back) {
        (void)a.record(prefix + journal::event::mismatch, with_why("read-back failed: " + back.error().message));
        a.out().null("changed").object("readback_mib", reading(back, kReadBack));
        return Failure{ExitCode::readback_differs, "wrote " + units::to_string(value) +
                                                       " but could not read it back: " + back.error().message};
    }
    report_changed(a, *back);
    if (*back != value) {
        (void)a.record(prefix + journal::event::mismatch, with_why("read back " + units::to_string(*back)));
        return Failure{ExitCode::readback_differs, "requested " + units::to_string(value) + " but the kernel reads back " +
                                                       units::to_string(*back)};
    }
    if (auto f = a.record(prefix + journal::event::applied, why)) return Failure{f->code, f->message + " (the value was applied)"};
    if (undoes_a_reset && a.reset_went_on()) {
        const auto f = write_and_verify(a, ctx, MiB::zero(), std::string("reset"));
        return Failure{ExitCode::not_permitted, std::string(kResetWentOn) + (f ? "; reverting failed: " + f->message
                                                                              : "; reverted to the OS default")};
    }
    return std::nullopt;
}

std::optional<Failure> unchanged(Action& a, MiB value) {
    a.readback_ = value;
    a.out().boolean("changed", false).object("readback_mib", read_back(value));
    return a.record(journal::event::unchanged);
}

}  // namespace wiredcap::helper
