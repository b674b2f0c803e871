// A person's word on the journal, recorded through the helper (recover_cmd.cpp uses these):
// whether a suspect hung (docs/design.md section 6: a raised write outside a ramp, read back,
// in force when the machine went down), and clearing the hang ceiling on purpose.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

struct RecoverRequest {
    std::optional<std::string> answer;  // "hung" | "not-hung": for every suspect, without asking
    bool forget_hang = false;
    std::optional<std::string> why;  // forget-hang: macos-update | hardware-change | other-cause
    bool yes = false;                // forget-hang without asking
};

// Usage errors in the request, before anything is read or recorded.
[[nodiscard]] std::optional<std::string> check_recover_request(const RecoverRequest& req);

// Names each suspect and asks (on a terminal, unless the request answers); records each answer.
// Returns how many are still unanswered, or nullopt when an answer could not be recorded.
[[nodiscard]] std::optional<std::size_t> answer_suspects(const CliContext& ctx,
                                                         const recovery::Report& rep,
                                                         const RecoverRequest& req, int tty_in_fd,
                                                         std::ostream& say);

// Clears the hang ceiling, after asking on a terminal (or --yes). ok, declined, usage (no
// terminal and no --yes), or the helper's refusal.
[[nodiscard]] ExitCode forget_hang(const CliContext& ctx, const recovery::Report& rep,
                                   const RecoverRequest& req, int tty_in_fd, std::ostream& say);

}  // namespace wiredcap::cli
