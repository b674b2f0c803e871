// `wiredcap policy check [FILE]`: every check the helper makes on a policy file, before it is
// installed. For the installed file (the default) that includes ownership and permissions.
#pragma once

#include <optional>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

[[nodiscard]] ExitCode run_policy_check(CliContext& ctx, const std::optional<std::string>& file);

// The policy file the helper reads: the --policy dev path, else the compiled-in one.
[[nodiscard]] std::string installed_policy_path(const DevPaths& dev);

}  // namespace wiredcap::cli
