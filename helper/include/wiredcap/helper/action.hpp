// The steps every journaled helper command is made of: who may act, what the policy permits,
// the journal record before and after, and the write with its read-back. commands.cpp,
// persist_commands.cpp and wiredcap-system's boot action compose them; nothing here decides on
// its own what a command does.
#pragma once

#include <optional>
#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/policy/policy.hpp"
#include "wiredcap/helper/args.hpp"
#include "wiredcap/helper/answer.hpp"
#include "wiredcap/json_writer.hpp"

namespace wiredcap::helper {

// A failure on its way out: the exit code and the sentence for stderr.
struct Failure {
    ExitCode code;
    std::string message;
};

[[nodiscard]] ExitCode exit_for(kernel::KernelError::Kind k);

// A reading with its source, or why there is none: {"value":V,"source":S} or
// {"value":null,"source":S,"error":E}. V is the count of a quantity, or a string.
template <class T>
[[nodiscard]] JsonObject reading(const kernel::KernelResult<T>& r, std::string_view source) {
    JsonObject o;
    if (!r) o.null("value");
    else if constexpr (std::is_same_v<T, std::string>) o.str("value", *r);
    else o.num("value", static_cast<std::uint64_t>(r->count()));
    o.str("source", source);
    if (!r) o.str("error", r.error().message);
    return o;
}

// A value read from the kernel, with its source: {"value":N,"source":"kernel read-back"}.
[[nodiscard]] JsonObject read_back(units::MiB v);

// Which way `now` moves the GPU's cap from `base`, and by how much, with where base came from:
// {"direction":"raised|lowered|unchanged","from_mib":N,"from_source":S,"by_mib":N}.
[[nodiscard]] JsonObject direction_json(units::MiB now, units::MiB base, const std::string& source);
// The source of a base that is --effective: the caller's claim, labelled as such.
[[nodiscard]] std::string effective_claim(const Invocation& inv);

// Builds the result line and journals as it goes.
// Why a command that held the helper's lock backs off (refused, journaled): a reset went on
// without the lock meanwhile, and nothing that started before it may undo it.
inline constexpr const char* kResetWentOn =
    "a reset went on without the helper's lock while this command held it: the reset stands";

class Action {
public:
    Action(const Invocation& inv, Context& ctx);

    JsonObject& out() { return out_; }

    // Opens the journal and takes the helper's lock; without them nothing may change. In the
    // safe direction (reset) neither may stop it: after a short wait it goes on without the
    // lock, and warns.
    [[nodiscard]] std::optional<Failure> open_journal(bool safe_direction = false);
    // A sentence for stderr and the result's "warnings": what the command could not do or record.
    void warn(std::string w) { warnings_.push_back(std::move(w)); }
    // Under the lock: a reset went on without it since this command took it (its records
    // reached the journal), so what this command decided on no longer holds.
    [[nodiscard]] bool reset_went_on() { return writer_ && writer_->appended_by_another(); }
    // The journal's text, read once: at the first fact the command asks of it (under the lock,
    // when the command holds it), then kept for the command's every decision, so they all rest
    // on the same records. Only a reset that went on without the lock appends meanwhile; a write
    // after it is refused (reset_went_on), and its records never add a hang, a confirmation, a
    // trip or a caller's apply (journal/hang_ceiling.hpp).
    [[nodiscard]] Expected<std::string_view> journal_text();
    // journal_text() for a check the command cannot go on without: unreadable, the command is
    // refused (journal_failed): "cannot check the journal for <what>: <why><then>".
    [[nodiscard]] Expected<std::string_view, Failure> journal_for(std::string_view what, std::string_view then = "");
    // Records an event; a failure to record is itself a failure of the action -- except in the
    // safe direction (reset), which goes on and warns about each record it could not write.
    [[nodiscard]] std::optional<Failure> record(std::string event, std::string reason = {});
    // Records a refusal (best effort: the refusal stands even if it cannot be recorded). Before
    // the journal is open -- the caller not yet known to be root or in the policy's group -- it
    // goes to the system log only: nothing an outsider does makes root's journal grow.
    Failure refuse(ExitCode code, std::string why);
    [[nodiscard]] Result finish(const std::optional<Failure>& f);

    std::optional<units::MiB> previous_;
    std::optional<units::MiB> to_;        // the journal's to_mib: the value asked for
    std::optional<units::MiB> readback_;
    std::string vouched_;  // set when the value is the policy's vouched one: on every record

private:
    [[nodiscard]] journal::Writer::Flush flush_for(std::string_view event) const;
    // The record of `event` for this command, as the journal (or the system log) gets it.
    [[nodiscard]] journal::Record record_of(const std::string& event, std::string reason) const;
    const Invocation& inv_;
    Context& ctx_;
    JsonObject out_;
    journal::Stamp stamp_{};
    std::optional<journal::Writer> writer_;
    std::optional<Expected<std::string>> journal_text_;  // read at the first journal_text()
    std::vector<std::string> warnings_;
    bool best_effort_ = false;  // reset: records are written if they can be, warned about if not
};

// The policy file, or the built-in band when there is none.
[[nodiscard]] Expected<policy::Policy> load_policy(const Context& ctx, units::Bytes memsize);
[[nodiscard]] JsonObject policy_json(const policy::Policy& p, const std::string& path);

// What every journaled action checks first, in this order: the journal can be written, the
// machine's memory is known, the policy loads, and the caller may act under it. The memory, the
// policy and the membership the command acts on are read under the helper's lock; a caller
// other than root is checked once before it too, so that an outsider never opens root's
// journal nor waits for its lock.
struct Authorized {
    units::Bytes memsize;
    policy::Policy policy;
};
[[nodiscard]] Expected<Authorized, Failure> authorize(Action& a, Context& ctx);

// Whether `value` is the policy's vouched value; if so, every record of the action says which
// policy file vouched for it (path and content hash).
bool note_vouched(Action& a, const Context& ctx, const policy::Policy& p, units::MiB value);

// What the journal says about storing `value` for boot (journal/hang_ceiling.hpp), from the
// action's reading; the journal unreadable: refused, never assumed clean.
[[nodiscard]] Expected<journal::Standing, Failure> standing_of(Action& a, units::MiB value);

// The vouch stands in for a local ramp, not for the boot guard: once a boot with the vouched
// value (or a lower one) tripped the guard and no ramp confirmed it since, `p` loses its vouch
// for this action, and the value takes the steps any other value takes.
[[nodiscard]] std::optional<Failure> withdraw_tripped_vouch(Action& a, policy::Policy& p, units::MiB value);

// A recorded hang binds every writer, the helper run directly too: under the lock, a non-zero
// value at or above the journal's hang ceiling is refused (refused_by_policy) unless the person
// gave --ignore-hang-ceiling (journaled with the record). Lowering below it stays allowed. The
// journal or the boot id unreadable: refused, never assumed clean (reset never asks). While
// another run's step is open in this boot (journal::open_step), any other value is refused
// (unresolved_journal) as every front end refuses it, but root's past a member's step
// (journal::open_step_refuses).
[[nodiscard]] std::optional<Failure> refuse_on_the_journal(Action& a, const Invocation& inv, Context& ctx,
                                                            units::MiB value);

// The safe direction (back to the OS default, forgetting a stored boot value): the journal must
// open, and the caller must be root or in the policy's group (the build's fallback group when
// the policy cannot be loaded).
// `best_effort` (reset only): neither the lock nor the journal may stop it (Action::open_journal).
[[nodiscard]] std::optional<Failure> authorize_safe_direction(Action& a, Context& ctx, bool best_effort);

// Reads the cap before a change into a.previous_; a failure here stops everything.
[[nodiscard]] std::optional<Failure> read_previous(Action& a, Context& ctx);

// intent -> write -> read back -> applied | mismatch | write_failed. A revert's records carry
// why it happened (e.g. "timeout"); failures add what failed. A write of a value other than 0
// never undoes a reset that went on without the lock (Action::reset_went_on): seen before the
// intent, the command backs off (refused, not_permitted); seen after its write, the command
// reverts itself to the OS default (revert_intent, revert_applied: "reset") and fails the same way.
[[nodiscard]] std::optional<Failure> write_and_verify(Action& a, Context& ctx, units::MiB value,
                                                      const std::optional<std::string>& revert);

// The kernel already holds `value`: nothing is written, and the journal says so.
[[nodiscard]] std::optional<Failure> unchanged(Action& a, units::MiB value);

}  // namespace wiredcap::helper
