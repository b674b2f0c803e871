#include "wiredcap/cli/commands/status_readings.hpp"

#include "wiredcap/cli/commands/journal_metrics.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"

namespace wiredcap::cli {

Expected<StatusReadings> read_status(const CliContext& ctx) {
    auto machine = read_machine(ctx.helper);
    if (!machine) return machine.error();
    StatusReadings s{*machine,
                     read_metal(*machine, ctx.helper.dev()),
                     std::nullopt,
                     "journal " + journal_path(ctx.helper.dev()),
                     {},
                     read_daemon_state(machine->simulated(), ctx.helper.dev().sim_state),
                     read_helper_file(ctx.helper.path()),
                     std::nullopt};
    s.journal_bytes = journal_bytes(journal_path(ctx.helper.dev()));
    if (auto report = recovery::analyse_file(journal_path(ctx.helper.dev()),
                                             s.machine.boot_id.value.value_or("")))
        s.journal = std::move(*report);
    else s.journal_error = report.error().message;
    return s;
}

}  // namespace wiredcap::cli
