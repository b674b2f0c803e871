#include "wiredcap/ramp/at_rest.hpp"

#include <algorithm>

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"

namespace wiredcap::cli {

bool nothing_at_risk(const CliContext& ctx, const MachineReadings& m) {
    auto contents = journal_view::read_journal(journal_path(ctx.helper.dev()));
    if (!contents) return false;
    // A run that ended without its record, its last step confirmed or reverted (or settled by
    // a plain reset, as recover advises for a step left at risk), has nothing at risk: counting
    // it made every later `ramp --to` the knob's value exit 2 until a reboot.
    const auto report = recovery::analyse(contents->entries, m.boot_id.value.value_or(""));
    return std::ranges::all_of(report.unresolved, [](const recovery::UnresolvedRun& u) {
        return u.state == recovery::RunState::ended_without_record;
    });
}

}  // namespace wiredcap::cli
