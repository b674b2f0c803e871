#include "engine/at_rest.hpp"

#include "engine/recovery.hpp"
#include "readings/journal_reader.hpp"

namespace wiredcap::cli {

bool nothing_at_risk(const CliContext& ctx, const MachineReadings& m) {
    auto contents = journal_view::read_journal(journal_path(ctx.helper.dev()));
    if (!contents) return false;
    return recovery::analyse(contents->entries, m.boot_id.value.value_or("")).unresolved.empty();
}

}  // namespace wiredcap::cli
