// Try once, keep only what booted well: the root-only verbs of the Linux backend.
//
//   schedule      refuses what the band, a hang ceiling, a gttsize conflict or an unknown TTM
//                 module rules out; writes GRUB's one-shot trial entry; journals the intent.
//   after_boot    run at every boot and again 11 minutes later (wiredcap-ttm-after-boot.timer):
//                 on the trial boot it reads the driver back (pages_limit, mem_info_gtt_total),
//                 then marks it healthy once it has been up for kHealthyAfterS; on the boot after an unconfirmed trial
//                 it records the trial's value as a hang ceiling (a trial that did not end in a confirmation counts as
//                 a hang: never round toward danger).
//   confirm       only on the trial boot, after a read-back that matched and (when given) a
//                 check command that succeeded: the value becomes the default entry's.
//   forget_hang   clears the hang ceiling, journaled with a reason from a fixed list.
//   reset         removes the parameter from every place wiredcap wrote it; names the places
//                 that carry one wiredcap did not write and leaves them alone.
//
// State (/var/lib/wiredcap/ttm-state), hang ceiling (/var/lib/wiredcap/ttm-hang-ceiling) and
// the journal (/var/lib/wiredcap/ttm-journal, one JSON object a line) live under the root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/exit_codes.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/units/expected.hpp"
#include "wiredcap/units/pages.hpp"

namespace wiredcap::linux_amd {

inline constexpr std::string_view kStateFile = "/var/lib/wiredcap/ttm-state";
inline constexpr std::string_view kCeilingFile = "/var/lib/wiredcap/ttm-hang-ceiling";
inline constexpr std::string_view kJournalFile = "/var/lib/wiredcap/ttm-journal";
inline constexpr std::string_view kLockFile = "/var/lib/wiredcap/ttm.lock";

struct TrialState {
    std::string phase = "none";  // none | scheduled | booted | default
    std::string param;           // "ttm.pages_limit" or "amdttm.pages_limit"
    std::uint64_t pages = 0;
    std::uint64_t page_size = 0;
    std::string scheduled_boot_id;
    std::string trial_boot_id;
    std::string default_param;  // what wiredcap put in GRUB_CMDLINE_LINUX_DEFAULT, or empty
    std::uint64_t default_pages = 0;
    bool healthy = false;  // the trial boot stayed up for kHealthyAfter
};

// How long a trial boot must stay up before after-boot marks it healthy: the Mac's
// healthy_after default (common/policy/policy.hpp), 10 minutes.
inline constexpr std::uint64_t kHealthyAfterS = 600;

[[nodiscard]] TrialState load_trial_state(const SystemRoot& root);
// The hang ceiling in pages (of the page size recorded with it), or nullopt.
[[nodiscard]] std::optional<units::Pages> load_hang_ceiling(const SystemRoot& root);

// What a verb did, line by line, for the person; exit 0 only when `ok`.
// The exit codes are wiredcap's (common/include/wiredcap/exit_codes.hpp), read for Linux:
//   3 outside the band or at a hang ceiling; 7 no TTM module, a gttsize conflict, or no
//   one-shot boot loader; 6 the driver's read-back differs; 5 the boot loader's tool failed;
//   9 after-boot: the trial did not end in a confirmation (reverted, remembered); 13 --check
//   failed; 12 the state could not be written.
struct VerbResult {
    ExitCode code = ExitCode::internal_error;
    std::vector<std::string> lines;
    [[nodiscard]] bool ok() const { return code == ExitCode::ok; }
};

[[nodiscard]] VerbResult schedule_trial(const SystemRoot& root, units::Bytes size);
[[nodiscard]] VerbResult after_boot(const SystemRoot& root);
[[nodiscard]] VerbResult confirm_trial(const SystemRoot& root, const std::vector<std::string>& check_cmd);
[[nodiscard]] VerbResult reset_ttm(const SystemRoot& root);
// Clears the hang ceiling, journaled with why (kernel-update, hardware-change, other-cause):
// the way out of a ceiling a person knows was not a hang (a trial left unconfirmed). Never
// implied by reset, as on a Mac.
[[nodiscard]] VerbResult forget_hang(const SystemRoot& root, std::string_view why);

}  // namespace wiredcap::linux_amd
