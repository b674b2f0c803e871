// `wiredcap persist [SIZE]` and `wiredcap persist --off`: store a value for the LaunchDaemon's
// boot action, or forget it. The helper does the storing and all the checks that matter for
// safety (the band, the journal's confirmation, the boot guard); wiredcap adds what a person
// needs first: SIZE parsed strictly, the journal's last confirmed value when SIZE is left out,
// and a refusal at or above the hang ceiling. It reports the helper's read-back of the boot
// state file, never the value it asked for.
//
// --dry-run: every check of the real run, the helper's under its lock (persist ... --check),
// then nothing is stored or forgotten and nothing journaled; exit as the real run would.
#pragma once

#include <optional>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

struct PersistRequest {
    std::optional<std::string> size;  // "96GiB"; nullopt: the journal's last confirmed value
    bool off = false;
    bool unconfirmed = false;
    bool lower = false;  // with --unconfirmed: a value below the effective cap, said out loud
    bool ignore_hang_ceiling = false;
    bool dry_run = false;  // every check, the helper's too; nothing stored, forgotten or journaled
};

struct PersistError {
    ExitCode code;
    std::string message;
};

// The command line, checked: either --off alone, or a value to store (nullopt: from the journal).
struct PersistArgs {
    bool off = false;
    std::optional<units::MiB> size;
};

[[nodiscard]] Expected<PersistArgs, PersistError> check_persist_args(const PersistRequest& req);

// The value to store and where it came from ("the command line", or the journal's last
// confirmed step); refused (exit 3) at or above the hang ceiling unless ignore_hang_ceiling.
struct PersistChoice {
    units::MiB value;
    std::string from;
    bool at_or_above_ceiling = false;  // only with ignore_hang_ceiling
};

[[nodiscard]] Expected<PersistChoice, PersistError> choose_persist_value(
    const PersistArgs& args, const recovery::Report& journal, bool ignore_hang_ceiling,
    const std::string& journal_source);

[[nodiscard]] ExitCode run_persist(CliContext& ctx, const PersistRequest& req);

}  // namespace wiredcap::cli
