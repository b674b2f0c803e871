// Try once, keep only what booted well: the root-only verbs of the Linux backend.
//
//   schedule      refuses what the band, a hang ceiling, a gttsize conflict, a missing amdgpu
//                 or an unknown TTM module rules out; journals the intent; arms the boot
//                 loader's one-shot trial entry (boot_loader.hpp).
//   after_boot    run at every boot and again 11 minutes later (wiredcap-ttm-after-boot.timer):
//                 on the trial boot it reads the driver back (pages_limit, mem_info_gtt_total),
//                 then marks it healthy once up for kHealthyAfterS; on the boot after a trial
//                 that did not end in a confirmation it records the trial's value as a hang
//                 ceiling (never round toward danger); after a value was made default it reads
//                 that back.
//   confirm       only on the trial boot, after a read-back that matched and (when given) a
//                 check command that succeeded: the value becomes the default entry's.
//   forget_hang   clears the hang ceiling, journaled with a reason from a fixed list.
//   reset         removes the parameter from every place wiredcap wrote it; names the places
//                 that carry one wiredcap did not write and leaves them alone.
//
// Their state and lock: trial_state.hpp; their journal and hang ceiling: trial_journal.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/exit_codes.hpp"
#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/linux/trial_journal.hpp"
#include "wiredcap/linux/trial_state.hpp"
#include "wiredcap/linux/verb_command.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/pages.hpp"

namespace wiredcap::linux_amd {

// The exit codes are wiredcap's (common/include/wiredcap/exit_codes.hpp), read for Linux:
//   3 outside the band or at a hang ceiling; 7 no TTM module, a gttsize conflict, no
//   one-shot boot loader (or one that did not keep it), or the GPU driver not up yet
//   (driver_ready.hpp: read-back unknown, nothing changed); 6 the driver's read-back differs; 5 the boot loader's tool failed;
//   9 after-boot: the trial did not end in a confirmation (reverted, remembered); 13 --check
//   failed; 12 the state or the journal could not be written.
// What a verb did, line by line, for the person.
struct VerbResult {
    ExitCode code = ExitCode::internal_error;
    std::vector<std::string> lines;
    [[nodiscard]] bool ok() const { return code == ExitCode::ok; }
};

// Each records what it does in `journal` (trial_journal.hpp): intent before any boot-loader
// write, the read-back, the outcome. `self` is how a person runs the next verb a line names
// (ttm-confirm, ttm-forget-hang): the complete command.
// `policy`: root's policy file as read (band.hpp); the band it sets, or the built-in one.
[[nodiscard]] VerbResult schedule_trial(const SystemRoot& root, TrialJournal& journal,
                                        const PolicyText& policy, units::Bytes size,
                                        const VerbCommand& self);
[[nodiscard]] VerbResult after_boot(const SystemRoot& root, TrialJournal& journal,
                                    const VerbCommand& self);
[[nodiscard]] VerbResult confirm_trial(const SystemRoot& root, TrialJournal& journal,
                                       const std::vector<std::string>& check_cmd);
[[nodiscard]] VerbResult reset_ttm(const SystemRoot& root, TrialJournal& journal);
// Clears the hang ceiling with a `forgotten` record and why (kernel-update, hardware-change,
// other-cause): the way out of a ceiling a person knows was not a hang (a trial left
// unconfirmed). Never implied by reset, as on a Mac.
[[nodiscard]] VerbResult forget_hang(const SystemRoot& root, TrialJournal& journal,
                                     std::string_view why);

}  // namespace wiredcap::linux_amd
