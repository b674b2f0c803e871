// How both privileged programs (wiredcap-helper and wiredcap-system) answer: one JSON line on
// standard output and, for a failure, the message on standard error after the program's name.
// Written with write(2) alone (common's write_fully: short writes and EINTR continued); an error ends
// that stream's answer. Writing allocates nothing and cannot throw: a caller's tiny RLIMIT_AS
// may leave no memory for a message about a failed write, and the exit code must still say how
// the call ended.
// Context and Result are the privileged library's own types: what a command runs with (the
// kernel, root's files, who called) and what it answers; the helper's commands and
// wiredcap-system both use them.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "wiredcap/helper/identity/caller.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/kernel/kernel.hpp"

namespace wiredcap::helper {

struct Context {
    kernel::Kernel& kernel;
    std::string policy_path;
    std::string journal_path;
    std::string boot_state_path;          // next to the journal: the value stored for boot
    std::string boot_switch_path;         // next to the policy: anything there disables `boot`
    identity::Caller caller;
    uid_t trusted_owner;                  // owner required of the policy and journal: the euid
    std::optional<std::string> fallback_group;  // who may reset when the policy is unreadable
};

struct Result {
    ExitCode code;
    std::string json_line;
    std::string error;
};

// Writes r's JSON line and error; returns r's exit code.
int answer(const Result& r, std::string_view program) noexcept;
// The answer of a call that failed before any command ran: {"v":1,"ok":false,...}.
int answer_failure(ExitCode code, const std::string& message, std::string_view program);

}  // namespace wiredcap::helper
