// The Linux backend's records, under the root: the trial's state (phase, value, boot ids), the
// hang ceiling, the journal and the lock that keeps the ttm-* verbs from running at once.
//
//   /var/lib/wiredcap/ttm-state          key=value lines (phase none|scheduled|booted|default)
//   /var/lib/wiredcap/ttm-hang-ceiling   "PAGES PAGE_SIZE"
//   /var/lib/wiredcap/ttm-journal        one JSON object a line
//   /var/lib/wiredcap/ttm.lock           flock
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
    std::string default_param;  // the parameter wiredcap made the default entry's, or empty
    std::uint64_t default_pages = 0;
    bool healthy = false;  // the trial boot stayed up for kHealthyAfterS
};

// How long a trial boot must stay up before after-boot marks it healthy: the Mac's
// healthy_after default (common/policy/policy.hpp), 10 minutes.
inline constexpr std::uint64_t kHealthyAfterS = 600;

// The state; a fresh one when the file is absent. Strict: a line that is not key=value, an
// unknown or repeated key, a value of the wrong kind or a missing phase is an error naming the
// line (every verb but reset then refuses: fail closed).
[[nodiscard]] Expected<TrialState> load_trial_state(const SystemRoot& root);
[[nodiscard]] Expected<Ok> save_trial_state(const SystemRoot& root, const TrialState& s);
// The trial's value as pages of its recorded page size, or nullopt.
[[nodiscard]] std::optional<units::Pages> trial_pages(const TrialState& s);
// The hang ceiling in pages (of the page size recorded with it), nullopt when there is none,
// an error when the file is there but not readable as one (it then binds everything).
[[nodiscard]] Expected<std::optional<units::Pages>> load_hang_ceiling(const SystemRoot& root);

// One JSON object a line appended to the journal: time, event, the state's param, pages and
// page size, and detail. The file is replaced atomically (a crash leaves the old journal or the
// new one). False when it could not be written.
[[nodiscard]] bool journal_event(const SystemRoot& root, std::string_view event, const TrialState& s,
                                 std::string_view detail);

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
