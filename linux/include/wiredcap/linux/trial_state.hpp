// The Linux backend's own files, under the root: the trial's state (phase, value, boot ids) and
// the lock that keeps the ttm-* verbs from running at once. What they did and the hangs they
// found go to the project's journal (trial_journal.hpp), not here.
//
//   /var/lib/wiredcap/ttm-state          key=value lines (phase none|scheduled|booted|default)
//   /var/lib/wiredcap/ttm.lock           flock
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/pages.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::linux_amd {

inline constexpr std::string_view kStateFile = "/var/lib/wiredcap/ttm-state";
inline constexpr std::string_view kLockFile = "/var/lib/wiredcap/ttm.lock";

struct TrialState {
    std::string phase = "none";  // none | scheduled | booted | default
    std::string param;           // "ttm.pages_limit", "amdttm.pages_limit" or "amd_ttm.pages_limit"
    std::uint64_t pages = 0;
    std::uint64_t page_size = 0;
    std::string scheduled_boot_id;
    std::string trial_boot_id;
    std::string default_param;  // the parameter wiredcap made the default entry's, or empty
    std::uint64_t default_pages = 0;
    bool healthy = false;  // the trial boot stayed up for kHealthyAfterS
};

// How long a trial boot must stay up before after-boot marks it healthy: the Mac's
// healthy_after default (common/include/wiredcap/policy/policy.hpp), 10 minutes.
inline constexpr std::uint64_t kHealthyAfterS = 600;

// The state; a fresh one when the file is absent. Strict: a line that is not key=value, an
// unknown or repeated key, a value of the wrong kind or a missing phase is an error naming the
// line (every verb but reset then refuses: fail closed).
[[nodiscard]] Expected<TrialState> load_trial_state(const SystemRoot& root);
[[nodiscard]] Expected<Ok> save_trial_state(const SystemRoot& root, const TrialState& s);
// The trial's value as pages of its recorded page size, or nullopt.
[[nodiscard]] std::optional<units::Pages> trial_pages(const TrialState& s);
// The trial's row for a person (status, recover): the value tried and the default stored, each
// from its own field; after a later trial that was not made default, the default stays the
// default and the trial is named apart, as the hang when `ceiling` (the journal's) is at or
// below it.
[[nodiscard]] std::string trial_summary(const TrialState& s, std::optional<units::MiB> ceiling);
// Serialises the ttm-* verbs: two at once would interleave their reads and writes of the state
// and the boot loader. Waits at most 5 s for the lock (flock on kLockFile, 0600).
class VerbLock {
public:
    explicit VerbLock(const SystemRoot& root);
    VerbLock(const VerbLock&) = delete;
    VerbLock& operator=(const VerbLock&) = delete;
    ~VerbLock();
    [[nodiscard]] bool held() const { return held_; }

private:
    int fd_ = -1;
    bool held_ = false;
};

}  // namespace wiredcap::linux_amd
