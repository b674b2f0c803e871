// The hang ceiling every privileged writer checks before it writes: the lowest value that hung,
// read from the journal in the helper's own record format (as journal/confirmation.hpp reads
// confirmations). Shared by wiredcap-helper (apply, persist) and wiredcap-system (the boot
// action): a recorded hang binds whoever writes, not only the CLI (which reads hangs with its
// own reader, ramp/engine/recovery.hpp).
#pragma once

#include <optional>
#include <string_view>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

// Whether `boot` is known to be an earlier boot than `current_boot`: neither unknown (empty or
// "unknown", as the helper stamps an unreadable id) nor the same.
[[nodiscard]] bool earlier_boot(std::string_view boot, std::string_view current_boot);

// Whether the write outside a ramp last read back in an earlier boot `boot` was `value`, raised
// the GPU's cap and was in force when that boot ended (a suspect), and, for a caller other than
// root, root has not answered it: the only thing a `verdict` may answer.
[[nodiscard]] bool is_open_suspect(std::string_view journal_text, std::string_view boot, units::MiB value,
                                   std::string_view current_boot, bool root);

// The lowest value that hung, per the journal text, by recover's rule (ramp/engine/recovery.hpp;
// ramp.ReadersAgree holds the two to one answer): a run's highest step, from a boot other than
// `current_boot`, never confirmed nor reverted (a revert that was read back, or that found its
// target in force, journaled `unchanged`: one cut short, refused or read back wrong left the step
// in force), nor undone by a plain reset later in its boot, nor settled by the run's `end` read
// back at the run's revert target in that boot (root's or the run owner's `end ... hung` binds
// its step at risk in any boot); a value of 0 never binds; a write outside a
// ramp (`apply` without --run) from another boot that no record of its boot ever read back
// (none carries a readback_mib after it); a suspect a person said hung (`verdict` ... `hung`).
// Hangs before the last `forget-hang` record were cleared by a person and do not bind. Records are
// taken in file order, never by their times (one second holds many records, and a clock can be
// set back). Whose records count: only root's forget-hang lifts hangs; a verdict counts only
// for a suspect (is_open_suspect: a write of that value, in force when that boot ended), root's
// answer decides it, a member's `hung` binds until root answers and its `not-hung` counts for
// nothing; another uid's `end ... hung` binds nothing. For the value stored for boot (`stored_value`: the boot action, which applies only
// that one), hangs known when it was stored with persist --ignore-hang-ceiling (steps before that
// record, from other boots) were overridden by a person and are not counted; a later store
// without the override counts every hang again. Any other write overrides with its own
// --ignore-hang-ceiling, journaled on its records, never with a store's. Linux's trials (ttm-*
// records) bind when wiredcap-system recorded them `hung`, in MiB rounded down; a
// `ttm-forget-hang` clears hangs before it as `forget-hang` does. The boot action's write binds
// too (as recovery.hpp reads it): a boot guard's trip, and before the trip is recorded, a boot
// write from another boot that its boot never settled (healthy, reverted, failed with the
// kernel answering, or undone by a plain reset).
// (The text: journal/record_fields.hpp, read_journal.)
[[nodiscard]] std::optional<units::MiB> find_hang_ceiling(std::string_view journal_text, std::string_view current_boot,
                                                          bool stored_value = false);

}  // namespace wiredcap::journal
