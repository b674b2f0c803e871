// `wiredcap status --field NAME` (repeatable): one bare value per line, named and measured as in
// `status --json` (sizes in MiB), for a script that would otherwise parse the JSON or call
// `sysctl -n`. The figures are status --json's own, so the two can never disagree.
#pragma once

#include <string>
#include <vector>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

// NAME is a member of status --json, a dotted path for a nested one (policy.max_mib,
// journal.hang_ceiling, related.iogpu.wired_lwm_mb). A member that is an object with a value
// prints that value; null prints "null" (unknown); another object or array prints as JSON.
// A name status --json does not have is a usage error, naming the top-level members.
[[nodiscard]] ExitCode run_status_fields(CliContext& ctx, const std::vector<std::string>& names);

}  // namespace wiredcap::cli
