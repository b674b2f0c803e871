// How wiredcap talks to wiredcap-helper: by absolute path, with an empty environment, no
// shell, and one JSON line back. wiredcap never changes the kernel itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/readings/json_value.hpp"
#include "wiredcap/exit_codes.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// The helper's development options, passed through for tests and unprivileged runs. The
// installed setuid helper refuses them.
struct DevPaths {
    std::optional<std::string> policy;
    std::optional<std::string> journal;
    std::optional<std::string> sim_state;
};

struct HelperReply {
    int exit_code = -1;               // the helper's exit code (ExitCode values); -1: did not run
    std::optional<json::Value> json;  // its one line, parsed (nullopt: none or unparsable)
    std::string error;                // its stderr, or why it could not be run
    [[nodiscard]] bool ok() const { return exit_code == 0 && json.has_value(); }
    [[nodiscard]] ExitCode code() const;  // exit_code as an ExitCode (internal_error if unknown)
};

class HelperClient {
public:
    HelperClient(std::string helper_path, DevPaths dev)
        : path_(std::move(helper_path)), dev_(std::move(dev)) {}

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    [[nodiscard]] const DevPaths& dev() const noexcept { return dev_; }

    // Runs `wiredcap-helper [dev options] ARGS...` and waits for it: in its own process group,
    // stdin /dev/null, SIGHUP/SIGINT/SIGTERM and job control blocked, so that the end of the
    // terminal session cannot stop a call halfway (a revert above all).
    [[nodiscard]] HelperReply run(const std::vector<std::string>& args) const;

private:
    std::string path_;
    DevPaths dev_;
};

// The helper this wiredcap uses: `--helper PATH` if given; else `wiredcap-helper` beside this
// executable (a build tree); else the compiled-in install path. Always absolute.
[[nodiscard]] std::string locate_helper(const std::optional<std::string>& explicit_path);

// Root's wiredcap-system (Linux's ttm-* verbs): beside this executable (a build tree), else the
// compiled-in install path. Always absolute.
[[nodiscard]] std::string locate_system();

// The journal this wiredcap reads: the --journal dev path if given, else the compiled-in one.
[[nodiscard]] std::string journal_path(const DevPaths& dev);

}  // namespace wiredcap::cli
