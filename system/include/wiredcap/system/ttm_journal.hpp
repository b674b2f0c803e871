// The ttm-* verbs' journal: the project's one journal (helper/include/wiredcap/helper/journal/journal.hpp), through the
// same writer every privileged command uses -- appended, flushed, closed after a torn line,
// followed across a compaction -- and the same hang-ceiling reader (hang_ceiling.hpp), so that
// `wiredcap-system compact`, `wiredcap status` and `wiredcap recover` see Linux's trials as
// they see the Mac's writes. linux/ states what it needs (wiredcap/linux/trial_journal.hpp);
// this is the only place the two meet.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/linux/trial_journal.hpp"

namespace wiredcap::system {

class SharedTrialJournal final : public linux_amd::TrialJournal {
public:
    // `command` names the verb on every record (ttm-trial, ...); the journal is `path`, owned by
    // `owner`; the boot id is the running system's (under `root`), read once.
    SharedTrialJournal(std::string command, std::string path, uid_t owner, uid_t caller,
                       const linux_amd::SystemRoot& root);
    [[nodiscard]] bool record(const linux_amd::TrialEvent& e,
                              const linux_amd::TrialState& s) override;
    [[nodiscard]] Expected<std::optional<units::MiB>> hang_ceiling() override;

private:
    std::string command_;
    std::string path_;
    uid_t owner_;
    journal::Stamp stamp_;
    std::optional<journal::Writer> writer_;  // opened at the first record
};

}  // namespace wiredcap::system
