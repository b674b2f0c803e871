#include "commands/linux_status.hpp"

#include "engine/recovery.hpp"
#include "readings/journal_reader.hpp"
#include "wiredcap/linux/status_json.hpp"
#include "wiredcap/linux/status_text.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::cli {
namespace {

// The hang ceiling by the journal's shared reader (engine/recovery.hpp), as a Mac's status finds
// it: the lowest hang not forgotten, Linux's trials recorded hung among them.
Expected<std::optional<units::MiB>> hang_ceiling(const std::string& journal, const linux_amd::SystemRoot& root) {
    auto contents = journal_view::read_journal(journal);
    if (!contents) return contents.error();
    const std::string boot = root.read_value("/proc/sys/kernel/random/boot_id").value_or("unknown");
    const auto report = recovery::analyse(contents->entries, boot);
    if (!report.hang_ceiling) return std::optional<units::MiB>{};
    return std::optional<units::MiB>{report.hang_ceiling->value};
}

}  // namespace

ExitCode run_linux_status(const std::string& root, const std::string& journal, bool json, std::ostream& out,
                          std::ostream& err) {
    (void)err;
    const linux_amd::SystemRoot system_root(root);
    const auto ceiling = hang_ceiling(journal, system_root);
    if (json) out << linux_amd::status_json(system_root, ceiling, journal, kVersion) << "\n";
    else out << linux_amd::status_text(system_root, ceiling, journal);
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
