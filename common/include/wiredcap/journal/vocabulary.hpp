// The journal's words, each spelled once: every command, event, outcome and answer a record can
// carry. The helper writes them, wiredcap-system writes its own (ttm-*, boot), and every reader
// (the classifier, compaction, recover, status) compares against these and nothing else.
// Character arrays, not string_views: record.hpp's is_word compares a field with one in place.
#pragma once

#include <string_view>

namespace wiredcap::journal {

// What a record is about: the helper's commands, the boot action's and Linux trials'.
namespace command {
inline constexpr char apply[] = "apply";
inline constexpr char reset[] = "reset";
inline constexpr char confirm[] = "confirm";
inline constexpr char end[] = "end";
inline constexpr char persist[] = "persist";
inline constexpr char boot[] = "boot";
inline constexpr char verdict[] = "verdict";
inline constexpr char forget_hang[] = "forget-hang";
// Linux try-once trials (wiredcap-system): every one of them starts with this.
inline constexpr char ttm_prefix[] = "ttm-";
inline constexpr char ttm_forget_hang[] = "ttm-forget-hang";
}  // namespace command

// What happened.
namespace event {
inline constexpr char intent[] = "intent";
inline constexpr char applied[] = "applied";
inline constexpr char unchanged[] = "unchanged";
inline constexpr char mismatch[] = "mismatch";
inline constexpr char write_failed[] = "write_failed";
inline constexpr char refused[] = "refused";
inline constexpr char confirmed[] = "confirmed";
inline constexpr char end[] = "end";
inline constexpr char persisted[] = "persisted";
inline constexpr char tripped[] = "tripped";
inline constexpr char healthy[] = "healthy";
inline constexpr char hung[] = "hung";          // a verdict's answer; a Linux trial judged
inline constexpr char not_hung[] = "not-hung";  // a verdict's answer
inline constexpr char forgotten[] = "forgotten";
inline constexpr char revert_prefix[] = "revert_";  // revert_intent, revert_applied, revert_mismatch, ...
inline constexpr char revert_applied[] = "revert_applied";
}  // namespace event

// How a run ended (an `end` record's reason).
namespace outcome {
inline constexpr char hung[] = "hung";
inline constexpr char revert_failed[] = "revert_failed";
inline constexpr char aborted[] = "aborted";
}  // namespace outcome

// Who wrote a run-less write: `set` is also the word a caller passes as its `by`; the others
// are the classifier's answers (StepRef::writer), never written in a record.
namespace writer {
inline constexpr char set[] = "set";                // wiredcap's set, run by root
inline constexpr char set_claim[] = "set-claim";    // another caller's --by set: its word
inline constexpr char helper_apply[] = "helper-apply";  // the helper run directly
inline constexpr char boot_action[] = "boot-action";
inline constexpr char linux_trial[] = "linux-trial";
}  // namespace writer

// The boot id the helper stamps when it cannot read one: no reboot is proved by it.
inline constexpr char kUnknownBoot[] = "unknown";

}  // namespace wiredcap::journal
