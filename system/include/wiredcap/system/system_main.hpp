// wiredcap-system's whole life, callable from a test: refuse unless root and not setuid,
// harden, parse, run one subcommand, print one JSON line and maybe one error line.
#pragma once

namespace wiredcap::system {

struct BuildPaths {
    const char* policy;     // the policy file
    const char* journal;    // the journal
    const char* sim_state;  // the simulated Mac's state (not used on macOS)
};

[[nodiscard]] int system_main(int argc, const char* const* argv, const BuildPaths& paths);

}  // namespace wiredcap::system
