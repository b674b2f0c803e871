// The journal's words, each spelled once: every command, event, outcome, reason and answer a
// record can carry. The helper writes them, wiredcap-system writes its own (ttm-*, boot, journal),
// and every reader (the classifier, compaction, recover, status) compares against these and
// nothing else; tools/record-words fails CI on a record word spelled as a literal elsewhere.
// Character arrays, not string_views: record.hpp's is_word compares a field with one in place.
#pragma once

#include <string_view>

namespace wiredcap::journal {

// What a record is about: the helper's commands, the boot action's, the journal's upkeep and
// Linux trials'.
namespace command {
inline constexpr char apply[] = "apply";
inline constexpr char reset[] = "reset";
inline constexpr char confirm[] = "confirm";
inline constexpr char end[] = "end";
inline constexpr char persist[] = "persist";
inline constexpr char boot[] = "boot";
inline constexpr char verdict[] = "verdict";
inline constexpr char forget_hang[] = "forget-hang";
inline constexpr char journal[] = "journal";  // wiredcap-system's compaction
// Linux try-once trials (wiredcap-system): every one of them starts with the prefix.
inline constexpr char ttm_prefix[] = "ttm-";
inline constexpr char ttm_trial[] = "ttm-trial";
inline constexpr char ttm_after_boot[] = "ttm-after-boot";
inline constexpr char ttm_confirm[] = "ttm-confirm";
inline constexpr char ttm_reset[] = "ttm-reset";
inline constexpr char ttm_forget_hang[] = "ttm-forget-hang";
}  // namespace command

// What happened. A revert's records are these with event::revert_prefix before them
// (revert_intent, revert_applied, ...), persist's removal with persist_ or removed_.
namespace event {
inline constexpr char intent[] = "intent";
inline constexpr char applied[] = "applied";
inline constexpr char unchanged[] = "unchanged";
inline constexpr char mismatch[] = "mismatch";
inline constexpr char write_failed[] = "write_failed";
inline constexpr char refused[] = "refused";
inline constexpr char confirmed[] = "confirmed";
inline constexpr char end[] = "end";
inline constexpr char persist_intent[] = "persist_intent";
inline constexpr char persisted[] = "persisted";
inline constexpr char removed_intent[] = "removed_intent";
inline constexpr char removed[] = "removed";
inline constexpr char persist_removed_intent[] = "persist_removed_intent";
inline constexpr char persist_removed[] = "persist_removed";
inline constexpr char trying[] = "trying";  // the boot action, before its write
inline constexpr char tripped[] =
    "tripped";  // the boot guard: a boot that applied a value never got healthy
inline constexpr char healthy[] = "healthy";
inline constexpr char failed[] = "failed";
inline constexpr char hung[] = "hung";          // a verdict's answer; a Linux trial judged
inline constexpr char not_hung[] = "not-hung";  // a verdict's answer
inline constexpr char forgotten[] = "forgotten";
inline constexpr char made_default[] = "made-default";  // a Linux trial's value kept for every boot
inline constexpr char compacted[] = "compacted";
inline constexpr char revert_prefix[] = "revert_";
inline constexpr char revert_intent[] = "revert_intent";
inline constexpr char revert_applied[] = "revert_applied";
inline constexpr char revert_mismatch[] = "revert_mismatch";
inline constexpr char revert_write_failed[] = "revert_write_failed";
// The boot action's other words: its guard's state (armed, trying, healthy, tripped, failed),
// and a run that applied nothing.
inline constexpr char armed[] = "armed";
inline constexpr char waiting[] = "waiting";
inline constexpr char disabled[] = "disabled";
inline constexpr char none[] = "none";
// Linux try-once trials' steps (wiredcap-system ttm-*).
inline constexpr char trial_scheduled[] = "trial-scheduled";
inline constexpr char trial_booted[] = "trial-booted";
inline constexpr char trial_not_consumed[] = "trial-not-consumed";
inline constexpr char default_mismatch[] = "default-mismatch";
inline constexpr char declined[] = "declined";
inline constexpr char reset[] = "reset";
}  // namespace event

// How a run ended (an `end` record's reason, the helper's --outcome).
namespace outcome {
inline constexpr char completed[] = "completed";
inline constexpr char stopped[] = "stopped";
inline constexpr char reverted[] = "reverted";
inline constexpr char revert_failed[] = "revert_failed";
inline constexpr char aborted[] = "aborted";
inline constexpr char hung[] = "hung";
inline constexpr char abandoned[] = "abandoned";  // written by the compaction for a run it closes
}  // namespace outcome

// Why a step was reverted (the helper's --revert, a revert record's reason).
namespace revert_reason {
inline constexpr char no[] = "no";
inline constexpr char eof[] = "eof";
inline constexpr char interrupt[] = "interrupt";
inline constexpr char terminate[] = "terminate";
inline constexpr char hangup[] = "hangup";
inline constexpr char timeout[] = "timeout";
inline constexpr char guard[] = "guard";
inline constexpr char mismatch[] = "mismatch";
inline constexpr char probe[] = "probe";
inline constexpr char unconfirmed[] = "unconfirmed";
}  // namespace revert_reason

// What a stored value rests on (a persist record's reason, the boot state's basis).
namespace basis {
inline constexpr char confirmed[] = "confirmed";      // a ramp step a person confirmed
inline constexpr char vouched[] = "vouched";          // root's word: persist --vouch
inline constexpr char unconfirmed[] = "unconfirmed";  // persist --unconfirmed
}  // namespace basis

// Who wrote a run-less write: `set` is also the word a caller passes as its `by`; the others
// are the classifier's answers (StepRef::writer), never written in a record.
namespace writer {
inline constexpr char set[] = "set";                    // wiredcap's set, run by root
inline constexpr char set_claim[] = "set-claim";        // another caller's --by set: its word
inline constexpr char helper_apply[] = "helper-apply";  // the helper run directly
inline constexpr char boot_action[] = "boot-action";
inline constexpr char linux_trial[] = "linux-trial";
}  // namespace writer

// Why a person cleared the hang ceiling (a forget-hang record's reason).
namespace forget_reason {
inline constexpr char macos_update[] = "macos-update";
inline constexpr char hardware_change[] = "hardware-change";
inline constexpr char other_cause[] = "other-cause";
}  // namespace forget_reason

// The boot id the helper stamps when it cannot read one: no reboot is proved by it.
inline constexpr char kUnknownBoot[] = "unknown";

// Whether a record's command, or its event, is one this version writes: a record with another
// (a newer version's, say) is kept and shown as unknown, never read as something else.
[[nodiscard]] bool is_known_command(std::string_view word) noexcept;
[[nodiscard]] bool is_known_event(std::string_view word) noexcept;

}  // namespace wiredcap::journal
