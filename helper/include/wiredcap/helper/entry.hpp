// The helper's whole life, callable from a test: harden the process, parse, refuse development
// options in a setuid process, run the command, print one JSON line and maybe one error line.
#pragma once

namespace wiredcap::helper {

struct BuildPaths {
    const char* policy;     // the policy file
    const char* journal;    // the journal
    const char* sim_state;  // the simulated Mac's state (not used on macOS)
    const char* fallback_group;  // may reset when the policy is unreadable; nullptr: root only
};

[[nodiscard]] int helper_main(int argc, const char* const* argv, const BuildPaths& paths);

}  // namespace wiredcap::helper
