// Runs the person's own check command at each ramp step (`--probe CMD`, or `--check CMD` in
// unattended mode): through /bin/sh -c, never as root (when wiredcap itself runs as root the
// command runs as SUDO_UID/SUDO_GID if set, else as nobody), with its own timeout after which
// its whole process group is killed.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace wiredcap::cli {

struct ProbeResult {
    std::optional<int> exit_code;  // set when it exited
    std::optional<int> signal;     // set when a signal ended it
    bool timed_out = false;
    bool interrupted = false;  // `stop` said so: killed at once (the step is reverted)
    std::chrono::milliseconds elapsed{0};
    std::string error;  // could not be started at all (then nothing else is set)
    [[nodiscard]] bool passed() const {
        return exit_code && *exit_code == 0 && !timed_out && !interrupted;
    }
    [[nodiscard]] std::string describe() const;  // "exit 0 in 1.24 s", "killed after 30 s timeout"
};

// `stop` is asked while the command runs (every few milliseconds); when it says true the
// command's whole process group is killed at once (Ctrl-C during a ramp step reverts it now,
// not when the probe is done).
[[nodiscard]] ProbeResult run_probe(const std::string& command, std::chrono::seconds timeout,
                                    const std::function<bool()>& stop = {});

}  // namespace wiredcap::cli
