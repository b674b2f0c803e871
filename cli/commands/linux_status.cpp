#include "wiredcap/cli/commands/linux_status.hpp"

#include <unistd.h>

#include <ostream>

#include "wiredcap/cli/commands/linux_picture.hpp"
#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/cli/output/terminal_width.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/policy/policy.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/linux/status_json.hpp"
#include "wiredcap/linux/status_text.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::cli {

Expected<recovery::Report> linux_journal_report(const std::string& journal,
                                                const linux_amd::SystemRoot& root) {
    return recovery::analyse_file(
        journal, root.read_value("/proc/sys/kernel/random/boot_id").value_or("unknown"));
}

Expected<std::optional<units::MiB>> linux_hang_ceiling(const std::string& journal,
                                                       const linux_amd::SystemRoot& root) {
    auto report = linux_journal_report(journal, root);
    if (!report) return report.error();
    if (!report->hang_ceiling) return std::optional<units::MiB>{};
    return std::optional<units::MiB>{report->hang_ceiling->value};
}

linux_amd::PolicyText linux_policy(const std::string& path) {
    return {path, trusted::read_file(path, 0, policy::kMaxPolicyBytes)};
}

ExitCode run_linux_status(const std::string& root, const std::string& journal,
                          const std::string& policy, bool json, std::ostream& out,
                          std::ostream& err) {
    (void)err;
    const linux_amd::SystemRoot system_root(root);
    const auto ceiling = linux_hang_ceiling(journal, system_root);
    const auto band_policy = linux_policy(policy);
    if (json) {
        out << linux_amd::status_json(system_root, ceiling, band_policy, journal, kVersion) << "\n";
        return ExitCode::ok;
    }
    // The picture first, as on a Mac: how memory is split, before the figures behind it.
    linux_amd::SysfsTtmKernel kernel(system_root);
    const auto r = kernel.read();
    Expected<linux_amd::TtmBand> band = Error{"MemTotal or the page size is unknown"};
    if (r.mem_total.value && r.page_size.value)
        band = linux_amd::ttm_band(band_policy, *r.mem_total.value, *r.page_size.value);
    for (const auto& row : render_picture(linux_memory_picture(r, band, ceiling),
                                          output_width(STDOUT_FILENO), glyphs_for(STDOUT_FILENO)))
        out << row << "\n";
    out << linux_amd::status_text(system_root, ceiling, band_policy, journal);
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
