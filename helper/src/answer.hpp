// How both privileged programs (wiredcap-helper and wiredcap-system) answer: one JSON line on
// standard output and, for a failure, the message on standard error after the program's name.
// Written with write(2) alone (wiredcap::write_all: short writes and EINTR continued); an error
// ends the answer.
#pragma once

#include <string>
#include <string_view>

#include "src/commands.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::helper {

// Writes r's JSON line and error; returns r's exit code.
int answer(const Result& r, std::string_view program);
// The answer of a call that failed before any command ran: {"v":1,"ok":false,...}.
int answer_failure(ExitCode code, const std::string& message, std::string_view program);

}  // namespace wiredcap::helper
