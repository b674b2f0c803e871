// The helper's command line: small, fixed, and parsed by hand so every byte is accounted for.
//
//   wiredcap-helper [DEV-OPTIONS] read
//   wiredcap-helper [DEV-OPTIONS] apply SIZE  [--run ID --step N] [--revert REASON]
//                                             [--effective SIZE --effective-source WORD]
//                                             [--ignore-hang-ceiling] [--by WRITER] [--check]
//   wiredcap-helper [DEV-OPTIONS] reset       [--run ID --step N] [--revert REASON] [--check]
//   wiredcap-helper [DEV-OPTIONS] confirm --run ID --step N
//   wiredcap-helper [DEV-OPTIONS] end --run ID --outcome OUTCOME
//   wiredcap-helper [DEV-OPTIONS] persist SIZE [--unconfirmed [--lower]]
//                                  [--effective SIZE --effective-source WORD]
//                                  [--ignore-hang-ceiling] [--check] | persist --off [--check]
//   wiredcap-helper [DEV-OPTIONS] boot
//   wiredcap-helper [DEV-OPTIONS] verdict SIZE --boot ID --answer hung|not-hung
//   wiredcap-helper [DEV-OPTIONS] forget-hang SIZE --why WHY
//
// DEV-OPTIONS (--policy PATH, --journal PATH, --sim-state PATH) exist for tests and
// unprivileged development only; main() refuses them in a secure-exec (setuid) process.
// SIZE is a size with its unit (a unit is never guessed); `apply` refuses 0 — use `reset`.
// --effective: the effective cap wiredcap read (the helper cannot read Metal) or the person gave,
// with its source from a fixed list; from the OS default, max_step is measured from it. Both are
// journaled. persist --unconfirmed --effective E: the boot action's one step counts from E (stored
// as start_mib), and a value below E needs --lower (it lowers the cap below the OS default at
// every boot). --ignore-hang-ceiling: the person overrode wiredcap's hang ceiling; journaled only.
// --by: which wiredcap command asked (journaled, to name the writer of a write that hung).
// verdict: a person's answer on a suspect (a raised write in force in boot ID when it went down);
// forget-hang: a person clears the hang ceiling SIZE. Both only journal (recovery.hpp reads them).
// --check (apply, reset, persist): every check of the real command, under the lock, then it stops
// before its first write; nothing is written, not even a refusal to the journal (wiredcap's
// --dry-run asks this, so that a dry run's verdict is the helper's own).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::helper {

enum class Command { read, apply, reset, confirm, end, persist, boot, verdict, forget_hang };

struct DevOptions {
    std::optional<std::string> policy;
    std::optional<std::string> journal;
    std::optional<std::string> sim_state;
    [[nodiscard]] bool any() const { return policy || journal || sim_state; }
};

struct Invocation {
    Command command = Command::read;
    std::optional<units::MiB> value;      // apply, persist
    bool off = false;                     // persist --off
    bool unconfirmed = false;             // persist SIZE --unconfirmed
    bool lower = false;                   // persist SIZE --unconfirmed --lower
    std::optional<std::string> run;       // ramp run id: [A-Za-z0-9-]{1,64}
    std::optional<std::uint64_t> step;    // 1..100000
    std::optional<std::string> revert;    // why a ramp step is being undone
    std::optional<std::string> outcome;   // end: completed | stopped | reverted | aborted | hung
    std::optional<units::MiB> effective;  // apply (knob 0), persist --unconfirmed: the OS default's effective cap
    std::optional<std::string> effective_source;  // one of kEffectiveSources
    bool ignore_hang_ceiling = false;     // apply, persist
    bool check = false;                   // apply, reset, persist: decide, then write nothing
    std::optional<std::string> by;        // apply: one of kWriters
    std::optional<std::string> boot;      // verdict: the boot id the suspect write was in force in
    std::optional<std::string> answer;    // verdict: one of kAnswers
    std::optional<std::string> why;       // forget-hang: one of kForgetReasons
    DevOptions dev;
};

// The reasons a ramp reverts, and the ways it ends: fixed words, never free text, so nothing
// a caller types reaches root's journal except through these lists.
inline constexpr std::string_view kRevertReasons[] = {
    journal::revert_reason::no, journal::revert_reason::eof, journal::revert_reason::interrupt, journal::revert_reason::terminate,
    journal::revert_reason::hangup, journal::revert_reason::timeout, journal::revert_reason::guard,
    journal::revert_reason::mismatch, journal::revert_reason::probe, journal::revert_reason::unconfirmed};
inline constexpr std::string_view kOutcomes[] = {journal::outcome::completed, journal::outcome::stopped, journal::outcome::reverted,
                                                 journal::outcome::revert_failed, journal::outcome::aborted, journal::outcome::hung};
// Where an --effective value came from: Metal, the simulator's model of it, or the person (--from).
inline constexpr std::string_view kEffectiveSources[] = {"metal", "simulated-metal", "given"};

// Who asked for an apply; what a person answered about a suspect; why a hang ceiling was cleared.
inline constexpr std::string_view kWriters[] = {journal::writer::set};
inline constexpr std::string_view kAnswers[] = {journal::event::hung, journal::event::not_hung};
inline constexpr std::string_view kForgetReasons[] = {journal::forget_reason::macos_update, journal::forget_reason::hardware_change,
                                                      journal::forget_reason::other_cause};

[[nodiscard]] Expected<Invocation> parse_args(const std::vector<std::string_view>& args);

[[nodiscard]] std::string_view command_name(Command c);

}  // namespace wiredcap::helper
