// `wiredcap set SIZE|default` and `wiredcap reset`: one change through the helper, reported as
// the kernel's read-back. Setting the value the kernel already holds changes nothing and says
// so. An interactive raise, or any change away from the OS default, asks first (saying whether it
// raises or lowers the GPU's cap); `--yes` is the scripted answer. A value at or above the
// journal's hang ceiling is refused unless --ignore-hang-ceiling.
//
// --dry-run (set and reset): every check of the real run -- wiredcap's own, then the helper's
// under its lock (wiredcap-helper ... --check, which decides by root's policy, the value in
// force and the journal, and stops before its first write) -- and nothing is written: no knob
// write, no boot state, no journal record, a refusal's neither. It asks nothing (it answers for
// the run whose question is answered yes) and exits with the code the real run would.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

struct SetRequest {
    std::string size;  // "237568MiB", "232GiB", or "default"
    bool yes = false;
    bool ignore_hang_ceiling = false;  // allow a value at or above one that hung (journaled)
    std::optional<std::string> from;   // the effective cap, when it cannot be read (journaled)
    bool dry_run = false;              // every check, the helper's too; nothing written
};

// Which way a change moves the GPU's cap, judged against the effective cap now (not the knob).
enum class Direction { raise, lower, same };
[[nodiscard]] Direction direction_of(units::MiB effective, units::MiB value);
[[nodiscard]] std::string_view direction_name(Direction d);

[[nodiscard]] ExitCode run_set(CliContext& ctx, const SetRequest& req, int tty_in_fd);
[[nodiscard]] ExitCode run_reset(CliContext& ctx, bool dry_run = false);

}  // namespace wiredcap::cli
