// How both privileged programs (wiredcap-helper and wiredcap-system) answer: one JSON line on
// standard output and, for a failure, the message on standard error after the program's name.
// Written with write(2) alone (common's write_fully: short writes and EINTR continued); an error ends
// that stream's answer. Writing allocates nothing and cannot throw: a caller's tiny RLIMIT_AS
// may leave no memory for a message about a failed write, and the exit code must still say how
// the call ended.
#pragma once

#include <string>
#include <string_view>

#include "src/commands.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::helper {

// Writes r's JSON line and error; returns r's exit code.
int answer(const Result& r, std::string_view program) noexcept;
// The answer of a call that failed before any command ran: {"v":1,"ok":false,...}.
int answer_failure(ExitCode code, const std::string& message, std::string_view program);

}  // namespace wiredcap::helper
