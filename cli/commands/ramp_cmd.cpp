#include "wiredcap/cli/commands/ramp_cmd.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>
#include <fmt/format.h>
#include <ostream>

#include "wiredcap/units/duration.hpp"
#include "wiredcap/cli/commands/ramp_for.hpp"
#include "wiredcap/ramp/at_rest.hpp"
#include "wiredcap/ramp/effective_cap.hpp"
#include "wiredcap/ramp/guard.hpp"
#include "wiredcap/ramp/open_step.hpp"
#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/ramp/plan.hpp"
#include "wiredcap/ramp/probe.hpp"
#include "wiredcap/ramp/superseded.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/cli/commands/policy_cause.hpp"
#include "wiredcap/cli/commands/policy_check.hpp"
#include "wiredcap/cli/commands/memory_picture.hpp"
#include "wiredcap/cli/commands/recover_cmd.hpp"
#include "wiredcap/ramp/terminal_prompt.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/unique_fd.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;
using Clock = std::chrono::system_clock;

struct Settings {
    MiB target = MiB::zero();
    std::optional<MiB> step;
    std::optional<MiB> from;
    std::chrono::seconds timeout{60};
    std::chrono::seconds probe_timeout{60};
};

// The target is parsed here unless it comes from --for MODEL, which is sized later (after the
// guard has started: sizing reads Metal): see parse_target.
Expected<MiB> parse_target(const std::string& to) {
    auto t = units::parse_size_as<MiB>(to);
    if (!t) return Error{"--to " + t.error().message};
    return *t;
}

Expected<Settings> parse_settings(const RampRequest& req) {
    Settings s;
    if (!req.for_model) {
        auto to = parse_target(req.to);
        if (!to) return to.error();
        s.target = *to;
    }
    if (req.step) {
        auto step = units::parse_size_as<MiB>(*req.step);
        if (!step) return Error{"--step " + step.error().message};
        s.step = *step;
    }
    auto t = units::parse_duration(req.timeout);
    if (!t) return Error{"--timeout " + t.error().message};
    s.timeout = *t;
    auto pt = units::parse_duration(req.probe_timeout);
    if (!pt) return Error{"--probe-timeout " + pt.error().message};
    s.probe_timeout = *pt;
    auto from = parse_from(req.from);
    if (!from) return from.error();
    s.from = *from;
    if (req.unattended && !req.check)
        return Error{"--unattended needs --check CMD: the command that decides each step"};
    if (req.check && !req.unattended)
        return Error{"--check decides steps only with --unattended; use --probe to show a result"};
    return s;
}

// A run id the helper accepts: r-YYYYMMDD-HHMMSS-xxxx (UTC, random suffix).
std::string new_run_id() {
    const std::time_t now = std::time(nullptr);
    struct tm tm {};
    ::gmtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    unsigned char rnd[2] = {0, 0};
    if (const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC); fd >= 0) {
        (void)::read(fd, rnd, sizeof rnd);
        ::close(fd);
    }
    return fmt::format("r-{}-{:02x}{:02x}", stamp, rnd[0], rnd[1]);
}

std::string cap_text(MiB v) {
    return v.count() == 0 ? "0 (OS default policy)" : units::describe(v);
}

void print_plan(std::ostream& say, const std::string& run, const MachineReadings& m,
                const EffectiveCap& effective, const Plan& plan, const Settings& s,
                bool unattended) {
    const std::string sim = m.simulated() ? "SIMULATED " : "";
    const auto& p = *m.policy;
    const auto ram = *m.memsize.value;
    say << sim << "Ramp plan, run " << run << "\n";
    say << fmt::format("  {:<18}{}   [{}]\n", "now", cap_text(*m.knob.value), m.knob.source);
    say << fmt::format("  {:<18}{}\n", "effective cap", effective_text(effective));
    say << fmt::format("  {:<18}{}   [kernel hw.memsize]\n", "physical memory",
                       units::describe(units::floor_cast<MiB>(ram)));
    say << fmt::format("  {:<18}{} to {}, steps of at most {}, reserve {}   [{}]\n", "band",
                       units::to_string(p.min), units::to_string(p.max),
                       units::to_string(p.max_step), units::to_string(p.reserve), p.source);
    say << fmt::format("  {:>4}  {:<38}{:>9}  {}\n", "step", "value", "of RAM", "left to the OS");
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const MiB v = plan.steps[i];
        const auto left = checked_sub(units::floor_cast<MiB>(ram), v);
        say << fmt::format(
            "  {:>4}  {:<38}{:>9}  {}\n", i + 1, units::describe(v), percent_of(v, ram),
            left ? units::truncated_decimal(*left, units::SizeUnit::gibibytes, 2) + " GiB"
                 : "none");
    }
    if (unattended)
        say << "  each step is kept only if the --check command exits 0 within "
            << s.probe_timeout.count() << " s\n";
    else
        say << "  after each step, type yes within " << s.timeout.count()
            << " s to continue, stop to keep it and end, no to revert; silence reverts\n";
    say << "  if the machine hangs: hold the power button; the reboot restores the OS default; then run: wiredcap recover\n"
        << "  to undo at any time: wiredcap reset\n";
}

// The plan as one JSON object (schema wiredcap.ramp-plan/2), for --dry-run --json: every figure
// a number; the note is the same sentence a person reads.
std::string plan_json(const std::string& run, const Plan& plan, MiB now,
                      const EffectiveCap& effective) {
    std::string steps = "[";
    for (const MiB v : plan.steps)
        steps += (steps.size() > 1 ? "," : "") + std::to_string(v.count());
    JsonObject o = contract::head("wiredcap.ramp-plan/2");
    o.str("run", run);
    o.object("now", contract::size(now, "kernel", ""));
    o.object("effective_cap", contract::size(effective.value, effective.source, ""));
    o.num("base_mib", plan.base.count())
        .num("step_mib", plan.step.count())
        .num("target_mib", plan.target.count());
    o.raw_array("steps_mib", steps + "]");
    // Kept for ramp-plan/2's readers: a plan the hang ceiling would cut is refused, never cut.
    o.boolean("stopped_below_ceiling", false).null("hang_ceiling_mib").null("note");
    return o.text();
}

// Why a ramp that ended did not reach its target, for people and logs; scripts branch on
// `reached` and `outcome`.
std::string why_short(std::string_view outcome, const std::optional<MiB>& final) {
    if (!final) return "the cap could not be read back after the ramp";
    if (outcome == journal::outcome::stopped) return "a person typed stop before the last step";
    if (outcome == journal::outcome::reverted)
        return "a step was not kept and was reverted (see its answer)";
    if (outcome == journal::outcome::revert_failed)
        return "a step's revert did not read back its target; run: wiredcap reset";
    if (outcome == journal::outcome::aborted) return "the ramp ended before its last step was kept";
    return "the final read-back differs from the target";
}

// The rule every ramp answer follows (docs/scripting.md): `reached` is the final read-back
// equal to the target in a ramp that exits 0 (a step answered no whose revert failed reads
// back the target too, unkept); `changed` that read-back different from the one before (or
// unknown).
void add_target(JsonObject& o, MiB target, MiB before, const std::optional<MiB>& final,
                std::string_view outcome, ExitCode code) {
    const bool reached = final && *final == target && code == ExitCode::ok;
    o.num("target_mib", target.count()).boolean("reached", reached);
    o.boolean("changed", !final || *final != before);
    if (!reached) o.str("why_not_reached", why_short(outcome, final));
}

// One ramp in progress: the run's state and the ways to change it. Every step the guard watches
// is resolved the same way: claim it from the guard (which may have reverted it already, while
// wiredcap was stopped), act through the helper, then settle it with the evidence (the confirm
// reply, or the knob back at the revert target, which the guard checks itself).
class Session {
public:
    Session(const CliContext& ctx, std::ostream& say, std::string run, MiB before, MiB target)
        : ctx_(ctx),
          say_(say),
          run_(std::move(run)),
          before_(before),
          target_(target),
          last_confirmed_(before) {}

    void attach(Guard* guard) { guard_ = guard; }
    // Arguments for the helper's journal: the first step's (the effective cap the plan starts
    // from, which the helper measures max_step from) and every step's (--ignore-hang-ceiling).
    void apply_args(std::vector<std::string> first, std::vector<std::string> every) {
        first_args_ = std::move(first);
        every_args_ = std::move(every);
    }

    // intent -> write -> read back (in the helper). Returns the helper's exit code. The guard
    // is armed first with a generous deadline: it reverts at once if wiredcap dies meanwhile
    // (its pipe closes); the deadline only matters if wiredcap is stopped.
    ExitCode apply(std::size_t step, MiB value, std::chrono::seconds extra) {
        if (guard_) guard_->arm(step, revert_target(), Clock::now() + kHelperCallBudget + extra);
        std::vector<std::string> args{"apply",  units::to_string(value), "--run", run_,
                                      "--step", std::to_string(step)};
        if (step == 1) args.insert(args.end(), first_args_.begin(), first_args_.end());
        args.insert(args.end(), every_args_.begin(), every_args_.end());
        const HelperReply r = ctx_.helper.run(args);
        const auto rb = readback(r);
        record_.push_back(StepRecord{step, value, rb, {}, {}});
        in_force_ = r.ok() ? rb : std::nullopt;
        if (r.ok() && rb) {
            say_ << fmt::format("step {}: iogpu.wired_limit_mb = {}   [kernel read-back]\n", step,
                                cap_text(*rb));
            return ExitCode::ok;
        }
        say_ << "step " << step << ": " << r.error << "\n";
        // Refused or failed before the write: nothing to revert, which the guard checks before it
        // stands down. A read-back that differs (or failed) keeps it armed: the caller reverts.
        if (r.code() != ExitCode::readback_differs && claim(step)) {
            const Guard::Answer a = guard_ ? guard_->settled_restored(step) : Guard::Answer::gone;
            if (a == Guard::Answer::mine) guard_acted(step);
        }
        return r.code() == ExitCode::ok ? ExitCode::internal_error : r.code();
    }

    // The step now waits for a person until `deadline`; the guard steps in after its grace.
    void await_answer(std::size_t step, Clock::time_point deadline) {
        if (guard_) guard_->arm(step, revert_target(), deadline, in_force_);
    }

    // The person said yes (or stop). The claim gives the confirm call its own short deadline; the
    // guard stands down only after the helper's reply, with its read-back. False: not confirmed
    // (the caller reverts, unless the guard already did).
    bool confirm(std::size_t step) {
        if (!claim(step)) return false;
        const HelperReply r =
            ctx_.helper.run({"confirm", "--run", run_, "--step", std::to_string(step)});
        const auto rb = readback(r);
        if (!r.ok() || !rb) {
            // Another command replaced the step's value: revert() says so, and undoes nothing.
            if (!(in_force_ && rb && *rb != *in_force_))
                say_ << "could not record the confirmation: " << (r.ok() ? "no read-back" : r.error)
                     << "\n";
            return false;
        }
        in_force_.reset();
        last_confirmed_ = *rb;
        if (guard_) guard_->settled_confirmed(step);
        return true;
    }

    // Back to the last confirmed value (the OS default when that was 0). The claim leaves room
    // for this call; the guard stands down only if it reads the target itself, and otherwise
    // reverts on its own (and records the run's end).
    void revert(std::size_t step, std::string_view reason) {
        if (superseded(step)) return;
        if (!claim(step)) return;
        std::vector<std::string> args;
        if (last_confirmed_.count() == 0) args = {"reset"};
        else args = {"apply", units::to_string(last_confirmed_)};
        args.insert(args.end(), {"--run", run_, "--step", std::to_string(step), "--revert",
                                 std::string(reason)});
        const HelperReply r = ctx_.helper.run(args);
        const auto rb = readback(r);
        reverted_ = r.ok() && rb == std::optional<MiB>(last_confirmed_);
        if (reverted_)
            say_ << "reverted (" << reason << "): iogpu.wired_limit_mb = " << cap_text(*rb)
                 << "   [kernel read-back]\n";
        else
            say_ << "REVERT FAILED (" << reason
                 << "): " << (r.error.empty() ? "the read-back differs" : r.error)
                 << "\nrun: wiredcap reset\n";
        const Guard::Answer a = guard_ ? guard_->settled_restored(step) : Guard::Answer::gone;
        if (a == Guard::Answer::mine) return guard_acted(step);
        if (a == Guard::Answer::released) reverted_ = true;  // the guard read the target itself
    }

    // `what` is a word (yes, stop, no, ..., check_passed, check_failed); `detail` what a person
    // reads about it (the check's exit and time).
    void answered(std::string_view what, std::string_view detail = {}) {
        if (!record_.empty()) {
            record_.back().answer = std::string(what);
            record_.back().detail = std::string(detail);
        }
    }

    // Records how the run ended, as the read-backs say: "reverted" stands only for a revert that
    // read back its target (else revert_failed). Nothing at all once the guard has acted: it
    // recorded the end itself. The guard is released before the (possibly slow) journal call.
    void end(std::string_view outcome) {
        if (guard_) guard_->done();
        if (guard_acted_) return;
        // A step another command replaced ends the run `aborted` unless that left the knob at
        // the revert target or the OS default (root's reset: the step stands reverted).
        const std::string unproven =
            superseded_ ? journal::outcome::aborted : journal::outcome::revert_failed;
        outcome_ =
            outcome == journal::outcome::reverted && !reverted_ ? unproven : std::string(outcome);
        const HelperReply r = ctx_.helper.run({"end", "--run", run_, "--outcome", outcome_});
        if (!r.ok()) say_ << "could not record the end of the run: " << r.error << "\n";
    }

    [[nodiscard]] MiB last_confirmed() const { return last_confirmed_; }
    // What the kernel read back after the latest apply (the step's requested value is a plan,
    // not a reading).
    [[nodiscard]] std::optional<MiB> last_readback() const {
        return record_.empty() ? std::nullopt : record_.back().readback;
    }
    // True once the guard has reverted a step itself: the ramp is over.
    [[nodiscard]] bool guard_has_acted() const { return guard_acted_; }

    // The run as one JSON object (schema wiredcap.ramp/2): every value a read-back.
    [[nodiscard]] std::string summary(ExitCode code) const {
        JsonObject o = contract::head("wiredcap.ramp/2");
        o.str("run", run_).str("outcome", outcome_.empty() ? journal::outcome::aborted : outcome_);
        o.num("exit", static_cast<std::uint64_t>(to_int(code)));
        o.object("before", contract::size(before_, "kernel read-back", ""));
        std::string steps = "[";
        for (const auto& r : record_) {
            JsonObject st;
            st.num("step", r.step).num("requested_mib", r.requested.count());
            st.object("readback", contract::size(r.readback, "kernel read-back",
                                                 "the helper reported no read-back"));
            st.str("answer", r.answer);
            if (!r.detail.empty()) st.str("detail", r.detail);
            steps += (steps.size() > 1 ? "," : "") + st.text();
        }
        o.raw_array("steps", steps + "]");
        const auto final = read_knob();
        o.object("final", contract::size(final, "kernel", "the knob could not be read"));
        add_target(o, target_, before_, final,
                   outcome_.empty() ? journal::outcome::aborted : outcome_, code);
        return o.text();
    }

private:
    // Whether another command replaced the step's value while it awaited its answer (root's
    // reset, a write outside wiredcap): the knob, read now, no longer holds what the step read
    // back. Then the step is not kept and nothing is written: the value now is that writer's,
    // never undone here; the guard stands down only once its own read agrees.
    bool superseded(std::size_t step) {
        if (!in_force_) return false;
        const auto now = read_knob();
        if (!now || *now == *in_force_) return false;
        const MiB applied = *in_force_;
        in_force_.reset();
        if (!claim(step)) return true;
        const Guard::Answer a = guard_ ? guard_->settled_superseded(step) : Guard::Answer::gone;
        if (a == Guard::Answer::mine) {
            guard_acted(step);
            return true;
        }
        say_ << superseded_sentence(ctx_, run_, step, applied, *now) << "\n";
        superseded_ = true;
        reverted_ = *now == last_confirmed_ || now->count() == 0;
        return true;
    }

    // False when the guard has already reverted the step (wiredcap was stopped past the
    // deadline): then wiredcap writes nothing more and says what the kernel reads.
    bool claim(std::size_t step) {
        if (guard_acted_) return false;
        if (guard_ && guard_->claim(step) == Guard::Answer::mine) guard_acted(step);
        return !guard_acted_;
    }

    void guard_acted(std::size_t step) {
        guard_acted_ = true;
        const auto now = read_knob();
        reverted_ = now == std::optional<MiB>(last_confirmed_);
        outcome_ = reverted_ ? journal::outcome::reverted : journal::outcome::revert_failed;
        say_ << "the guard " << (reverted_ ? "reverted" : "could not revert") << " step "
             << step  // not a journal word: prose
             << " itself: iogpu.wired_limit_mb = "
             << (now ? cap_text(*now) : std::string("unknown")) << "   [kernel read-back]\n";
        if (!reverted_) say_ << "run: wiredcap reset\n";
    }

    [[nodiscard]] std::optional<MiB> read_knob() const {
        const HelperReply now = ctx_.helper.run({"read"});
        const json::Value* wl = now.json ? json::get(*now.json, "wired_limit_mib") : nullptr;
        const json::Value* v = wl ? json::get(*wl, "value") : nullptr;
        const auto n = v ? json::as_u64(*v) : std::nullopt;
        return n ? MiB::from_count(*n) : std::nullopt;
    }

    std::optional<MiB> revert_target() const {
        return last_confirmed_.count() == 0 ? std::nullopt : std::optional<MiB>(last_confirmed_);
    }
    static std::optional<MiB> readback(const HelperReply& r) {
        if (!r.json) return std::nullopt;
        const json::Value* rb = json::get(*r.json, "readback_mib");
        const json::Value* v = rb ? json::get(*rb, "value") : nullptr;
        const auto n = v ? json::as_u64(*v) : std::nullopt;
        return n ? MiB::from_count(*n) : std::nullopt;
    }

    struct StepRecord {
        std::size_t step;
        MiB requested;
        std::optional<MiB> readback;
        std::string answer;
        std::string detail;
    };

    const CliContext& ctx_;
    std::ostream& say_;
    std::string run_;
    MiB before_;
    MiB target_;
    MiB last_confirmed_;
    Guard* guard_ = nullptr;
    std::vector<StepRecord> record_;
    std::string outcome_;
    bool reverted_ = false;        // the latest revert read back its target
    bool superseded_ = false;      // another command replaced the step's value (see superseded())
    std::optional<MiB> in_force_;  // the step's read-back while it awaits its answer
    bool guard_acted_ = false;     // the guard reverted a step (and recorded the end) itself
    std::vector<std::string> first_args_;
    std::vector<std::string> every_args_;
};

struct Prepared {
    MachineReadings machine;
    EffectiveCap effective;
    Plan plan;
};

// Recover first, read the machine, make the plan. Any doubt ends the ramp before it starts.
Expected<Prepared, PlanError> prepare(const CliContext& ctx, const Settings& s,
                                      const RampRequest& req, std::ostream& say) {
    auto machine = read_machine(ctx.helper);
    if (!machine) return PlanError{ExitCode::internal_error, machine.error().message};
    auto& m = *machine;
    if (!m.knob.value)
        return PlanError{ExitCode::unsupported_platform,
                         "cannot read iogpu.wired_limit_mb: " + m.knob.error};
    if (!m.memsize.value)
        return PlanError{ExitCode::internal_error, "cannot read hw.memsize: " + m.memsize.error};
    if (!m.policy)
        return PlanError{no_band_code(installed_policy_path(ctx.helper.dev())), m.policy_error};
    // A plan changes nothing: anyone may look at one (docs/design.md §7).
    if (!m.may_change && !req.dry_run) return PlanError{ExitCode::not_permitted, m.may_change_why};
    auto rec = recover(ctx, m, say);
    if (!rec) return PlanError{ExitCode::internal_error, rec.error().message};
    if (const auto* open = open_step_refusing(rec->report))
        return PlanError{ExitCode::unresolved_journal, open_step_refusal(*open)};
    // Every step starts from the cap the GPU has now, not from the knob's 0 (docs/design.md §5).
    auto effective = effective_cap(m, read_metal(m, ctx.helper.dev()), s.from);
    if (!effective) return PlanError{ExitCode::usage, effective.error().message};
    auto plan = make_plan(PlanInput{*m.knob.value, effective->value, effective->source,
                                    *m.memsize.value, *m.policy, s.target, s.step,
                                    rec->report.hang_ceiling, req.ignore_hang_ceiling});
    if (!plan) return plan.error();
    return Prepared{m, *effective, *plan};
}

// Runs the probe or check for a step and says how it went. A signal (Ctrl-C, SIGTERM, SIGHUP)
// ends it at once: its process group is killed and the caller reverts the step.
ProbeResult run_step_command(const std::string& cmd, std::chrono::seconds timeout,
                             const SignalWatch& signals, std::ostream& say) {
    say << "running: " << cmd << "\n" << std::flush;
    ProbeResult r = run_probe(cmd, timeout, [&signals] { return signals.pending().has_value(); });
    say << "  " << r.describe() << "\n";
    return r;
}

// A signal arrived while the step's value was in force: revert it at once, with the signal's
// name as the reason.
ExitCode revert_on_signal(Session& session, std::size_t step, Answer sig) {
    session.revert(step, answer_name(sig));
    session.end(journal::outcome::reverted);
    return ExitCode::ramp_reverted;
}

// Before a step: a signal means no more steps (nothing is at risk, nothing to revert).
ExitCode stop_before(Session& session, std::size_t step, Answer sig, std::ostream& say) {
    session.end(journal::outcome::aborted);
    say << "stopped before step " << step << " (" << answer_name(sig)
        << "); nothing more was changed\n";
    return ExitCode::ramp_reverted;
}

ExitCode ramp_unattended(Session& session, const SignalWatch& signals, const Plan& plan,
                         const Settings& s, const RampRequest& req, std::ostream& say) {
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const std::size_t step = i + 1;
        if (auto sig = signals.pending()) return stop_before(session, step, *sig, say);
        // The guard's backstop covers the check's own time limit too.
        if (auto rc = session.apply(step, plan.steps[i], s.probe_timeout); rc != ExitCode::ok) {
            if (rc == ExitCode::readback_differs)
                session.revert(step, journal::revert_reason::mismatch);
            session.end(rc == ExitCode::readback_differs ? journal::outcome::reverted
                                                         : journal::outcome::aborted);
            return rc;
        }
        const ProbeResult r = run_step_command(*req.check, s.probe_timeout, signals, say);
        session.answered(r.passed() ? "check_passed" : "check_failed", r.describe());
        if (auto sig = signals.pending()) return revert_on_signal(session, step, *sig);
        if (!r.passed() || !session.confirm(step)) {
            session.revert(step, "probe");
            session.end(journal::outcome::reverted);
            return ExitCode::ramp_reverted;
        }
    }
    session.end(journal::outcome::completed);
    say << "ramp complete: " << units::describe(session.last_confirmed())
        << " confirmed by the check   [kernel read-back]\n";
    return ExitCode::ok;
}

ExitCode ramp_interactive(Session& session, Terminal& term, const SignalWatch& signals,
                          const Plan& plan, const Settings& s, const RampRequest& req,
                          std::ostream& say, const Terminal::Sampler& gauge) {
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const std::size_t step = i + 1;
        if (auto sig = signals.pending()) return stop_before(session, step, *sig, say);
        const auto backstop = (req.probe ? s.probe_timeout : std::chrono::seconds(0)) + s.timeout;
        if (auto rc = session.apply(step, plan.steps[i], backstop); rc != ExitCode::ok) {
            if (rc == ExitCode::readback_differs)
                session.revert(step, journal::revert_reason::mismatch);
            session.end(rc == ExitCode::readback_differs ? journal::outcome::reverted
                                                         : journal::outcome::aborted);
            return rc;
        }
        if (req.probe) {
            const ProbeResult r = run_step_command(*req.probe, s.probe_timeout, signals, say);
            if (r.interrupted) session.answered(answer_name(*signals.pending()));
            if (auto sig = signals.pending()) return revert_on_signal(session, step, *sig);
        }
        say << std::flush;
        // The deadline starts when the question is shown; the guard gets the same one.
        const auto deadline = std::chrono::steady_clock::now() + s.timeout;
        session.await_answer(step, Clock::now() + s.timeout);
        // apply() succeeded only with a read-back, so this names the value the kernel holds.
        const std::string question =
            fmt::format("Step {}/{} at {}. Keep it? yes / stop / no", step, plan.steps.size(),
                        units::to_string(session.last_readback().value_or(plan.steps[i])));
        const Answer a = term.ask(question, deadline, signals, gauge);
        session.answered(answer_name(a));
        if (a == Answer::yes && session.confirm(step)) continue;
        if (a == Answer::stop && session.confirm(step)) {
            session.end(journal::outcome::stopped);
            // `stop` at the last step keeps the target itself: the cap holds what was asked for.
            const bool at_target = session.last_confirmed() == plan.target;
            say << "stopped: keeping " << units::describe(session.last_confirmed())
                << "   [kernel read-back]" << (at_target ? ", the target" : "") << "\n";
            return at_target ? ExitCode::ok : ExitCode::ramp_stopped;
        }
        session.revert(step, revert_word(a));
        session.end(journal::outcome::reverted);
        return ExitCode::ramp_reverted;
    }
    session.end(journal::outcome::completed);
    say << "ramp complete: " << units::describe(session.last_confirmed())
        << " confirmed   [kernel read-back]\n";
    return ExitCode::ok;
}

// The countdown's gauge: wired memory against the cap the knob holds, read through the helper
// each time (a step's value is never 0, so the OS default's figure is not needed).
Terminal::Sampler countdown_gauge(const HelperClient& helper) {
    return [&helper] {
        const auto m = read_machine(helper);
        return m ? wired_against_cap(*m, std::nullopt) : WatchSample{};
    };
}

// Where a ramp's questions go: standard error when it is a terminal, else the controlling
// terminal (/dev/tty, opened into `opened`); -1 when there is neither.
int question_fd(UniqueFd& opened) {
    if (::isatty(STDERR_FILENO) != 0) return STDERR_FILENO;
    opened = UniqueFd(::open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC));
    return opened.valid() ? opened.get() : -1;
}

// Idempotence (docs/design.md §7): when the knob already reads the target and nothing in the journal is
// at risk, the ramp has nothing to do and says so, exit 0, with nothing journaled or written. "Already at" is the knob's read-back,
// never Metal's figure: with the knob at 0 the OS default's cap may be at or above the target,
// and then the plan refuses (a ramp only raises; `wiredcap set` pins the knob).
std::optional<ExitCode> already_at(CliContext& ctx, MiB target, bool dry_run, std::ostream& say) {
    auto m = read_machine(ctx.helper);
    if (!m || !m->knob.value || *m->knob.value != target || !nothing_at_risk(ctx, *m))
        return std::nullopt;
    const std::string sim = m->simulated() ? "SIMULATED " : "";
    say << sim << "already at " << units::describe(target) << ": iogpu.wired_limit_mb reads "
        << units::to_string(target) << "   [" << m->knob.source << "]; nothing was changed\n";
    if (!ctx.json) return ExitCode::ok;
    const std::string run = new_run_id();
    if (dry_run) {
        ctx.out << contract::head("wiredcap.ramp-plan/2")
                       .str("run", run)
                       .raw_array("steps_mib", "[]")
                       .str("note", "already at the target: nothing to ramp")
                       .text()
                << "\n";
        return ExitCode::ok;
    }
    JsonObject o = contract::head("wiredcap.ramp/2");
    o.str("run", run).str("outcome", "already_at_target").num("exit", 0);
    o.object("before", contract::size(target, m->knob.source, "")).raw_array("steps", "[]");
    o.object("final", contract::size(target, m->knob.source, ""));
    add_target(o, target, target, target, "already_at_target", ExitCode::ok);
    ctx.out << o.text() << "\n";
    return ExitCode::ok;
}

}  // namespace

ExitCode run_ramp(CliContext& ctx, const RampRequest& given) {
    // With --json the one JSON object is the data on stdout; the narration moves to stderr.
    std::ostream& say = ctx.json ? ctx.err : ctx.out;
    RampRequest req = given;
    if (!req.for_model && !req.model_options.empty()) {
        std::string names;
        for (const auto& n : req.model_options) names += (names.empty() ? "" : ", ") + n;
        return fail(ctx.err, "ramp", ExitCode::usage, names, " go",
                    (req.model_options.size() == 1 ? "es" : ""), " with --for MODEL");
    }
    if (!req.for_model && req.to.empty()) {
        return fail(ctx.err, "ramp", ExitCode::usage, "give the target: --to SIZE, or --for MODEL");
    }
    auto settings = parse_settings(req);
    if (!settings) {
        return fail(ctx.err, "ramp", ExitCode::usage, settings.error().message);
    }
    // A step open in this boot refuses another ramp before the terminal is taken or a guard
    // started (prepare asks again, on the journal as it is then).
    if (auto m = read_machine(ctx.helper))
        if (auto open = open_step_now(ctx, *m)) {
            return fail(ctx.err, "ramp", ExitCode::unresolved_journal, open_step_refusal(*open));
        }
    if (!req.for_model)
        if (auto done = already_at(ctx, settings->target, req.dry_run, say)) return *done;
    // Signals are only recorded from here on, so none can kill wiredcap with the terminal in
    // prompt mode; they are acted on before the first step.
    SignalWatch signals;
    // A person must be there before anything is planned or touched (piped input is not one).
    // The questions go to their terminal, never to stdout as such: stdout may be `| tee`'d, or
    // carry the JSON to a file.
    UniqueFd tty_out;
    std::optional<Terminal> term;
    if (!req.unattended && !req.dry_run) {
        // Piped input is refused first, for what it is (Terminal::open says so).
        const int question_to = ::isatty(STDIN_FILENO) != 0 ? question_fd(tty_out) : STDERR_FILENO;
        if (question_to < 0) {
            return fail(
                ctx.err, "ramp", ExitCode::usage,
                "no terminal to show the questions on (standard error is not one, and "
                "there is no /dev/tty). To run without a person, name the check that decides: "
                "--unattended --check CMD");
        }
        auto t = Terminal::open(STDIN_FILENO, question_to);
        if (!t) {
            return fail(ctx.err, "ramp", ExitCode::usage, t.error().message);
        }
        term.emplace(std::move(*t));
    }
    const std::string run = new_run_id();
    // The guard is forked before anything reads Metal (sizing a model for --for does, and so
    // does the plan): on a Mac, Metal, CoreGraphics and the Objective-C runtime start threads,
    // after which a fork without exec is unsafe (Guard::start refuses then). Until a step is
    // armed it only waits; a ramp refused below ends it untouched. A dry run needs no guard.
    std::optional<Guard> guard;
    if (!req.dry_run) {
        auto g = Guard::start(ctx.helper, run, term ? term->in_fd() : -1,
                              term ? &term->saved() : nullptr);
        if (!g) {
            return fail(
                ctx.err, "ramp", ExitCode::internal_error,
                "cannot start the guard process, so nothing was changed: ", g.error().message);
        }
        guard.emplace(std::move(*g));
    }
    if (req.for_model) {
        fit::FitRequest model = req.model;
        model.path = *req.for_model;
        auto target = fit::ramp_target_for(ctx, model, say);
        if (!target) {
            return fail(ctx.err, "ramp", target.error().code, target.error().message);
        }
        if (target->empty()) {
            // Nothing to ramp (the model fits now): under --json, a plan with no steps says so.
            if (ctx.json)
                ctx.out << contract::head("wiredcap.ramp-plan/2")
                               .str("run", run)
                               .raw_array("steps_mib", "[]")
                               .str("note",
                                    "the model fits under the cap the GPU has now: nothing to ramp")
                               .text()
                        << "\n";
            return ExitCode::ok;
        }
        auto parsed = parse_target(*target);
        if (!parsed) {
            return fail(ctx.err, "ramp", ExitCode::internal_error, parsed.error().message);
        }
        settings->target = *parsed;
        if (auto done = already_at(ctx, settings->target, req.dry_run, say)) return *done;
    }
    auto prepared = prepare(ctx, *settings, req, say);
    if (!prepared) {
        return fail(ctx.err, "ramp", prepared.error().code, prepared.error().message);
    }
    print_plan(say, run, prepared->machine, prepared->effective, prepared->plan, *settings,
               req.unattended);
    if (req.dry_run) {
        say << "dry run: nothing was changed\n";
        if (ctx.json)
            ctx.out << plan_json(run, prepared->plan, *prepared->machine.knob.value,
                                 prepared->effective)
                    << "\n";
        return ExitCode::ok;
    }
    Session session(ctx, say, run, *prepared->machine.knob.value, prepared->plan.target);
    session.attach(&*guard);
    std::vector<std::string> every;
    if (req.ignore_hang_ceiling) every.emplace_back("--ignore-hang-ceiling");
    session.apply_args(effective_args(prepared->effective), std::move(every));
    const ExitCode code =
        req.unattended ? ramp_unattended(session, signals, prepared->plan, *settings, req, say)
                       : ramp_interactive(session, *term, signals, prepared->plan, *settings, req,
                                          say, countdown_gauge(ctx.helper));
    if (ctx.json) ctx.out << session.summary(code) << "\n";
    return code;
}

}  // namespace wiredcap::cli
