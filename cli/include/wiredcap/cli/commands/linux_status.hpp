// `wiredcap status` on a Linux AMD APU: the readings of wiredcap/linux/status_text.hpp (or
// status_json.hpp with --json), the hang ceiling from the project's journal and the band from
// root's policy file, as the verbs read them.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// The journal's report (recovery.hpp) for this host's boot, as a Mac's status makes it.
[[nodiscard]] Expected<recovery::Report> linux_journal_report(const std::string& journal,
                                                              const linux_amd::SystemRoot& root);
// The hang ceiling by the journal's shared reader, as a Mac's status finds it.
[[nodiscard]] Expected<std::optional<units::MiB>> linux_hang_ceiling(
    const std::string& journal, const linux_amd::SystemRoot& root);
// Root's policy file at `path`, read as wiredcap-system reads it (owned by root along its path).
[[nodiscard]] linux_amd::PolicyText linux_policy(const std::string& path);

// `journal`: the project's journal (wiredcap-system's ttm-* verbs write there), read for the
// hang ceiling; `policy`: the policy file's path.
[[nodiscard]] ExitCode run_linux_status(const std::string& root, const std::string& journal,
                                        const std::string& policy, bool json, std::ostream& out,
                                        std::ostream& err);

}  // namespace wiredcap::cli
