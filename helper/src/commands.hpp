// What each helper command does, in the order the design fixes: check caller, load policy,
// check band, check memsize minus reserve, check max_step, journal intent, write, read back,
// journal the outcome. Returns the exit code, the one JSON line for stdout, and the human
// error for stderr (empty on success).
#pragma once

#include <sys/types.h>

#include <string>

#include "identity/caller.hpp"
#include "src/args.hpp"
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

[[nodiscard]] Result run(const Invocation& inv, Context& ctx);

}  // namespace wiredcap::helper
