// `wiredcap recover` (also run before every ramp): reads the journal, records each ramp that
// hung in an earlier boot as hung (so it becomes the hang ceiling), reports the last confirmed
// value and what to do next. It never re-applies anything. Running it twice is harmless.
#pragma once

#include <iosfwd>
#include <optional>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/commands/hang_answers.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

struct RecoverResult {
    recovery::Report report;
    std::optional<recovery::JournalReplay> replay;  // the reading of the journal, to catch up on
    bool ramp_in_progress = false;                  // a step awaits confirmation in this boot
    bool could_not_record = false;  // an outcome could not be journaled (not permitted?)
};

// Analyses and records; writes its account to `say`. Errors only when the journal is unreadable.
[[nodiscard]] Expected<RecoverResult> recover(const CliContext& ctx, const MachineReadings& machine,
                                              std::ostream& say);

// recover, then a person's word: answers on suspects (asked on a terminal, or --hung/--not-hung),
// and --forget-hang. Exit 10 (unresolved journal) while a suspect is unanswered.
[[nodiscard]] ExitCode run_recover(CliContext& ctx, const RecoverRequest& req, int tty_in_fd);

}  // namespace wiredcap::cli
