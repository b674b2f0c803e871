// The ramp's guard: a separate process that reverts a step nobody confirmed, even when the
// prompting process is killed outright (SIGKILL) or stopped. DESIGN.md section 6: "the timer
// does not live only in the prompting process".
//
// The prompting process keeps the write end of a pipe; the guard reads it. Messages:
//   arm <step> <revert-to-MiB|default> <deadline-ms-since-epoch>\n   a step awaits confirmation
//   disarm\n                                                           it was confirmed/reverted
//   done\n                                                             the ramp ended cleanly
// If the pipe closes (the prompter died) while armed, or the armed deadline (plus a grace)
// passes, the guard runs the helper: apply/reset --run R --step N --revert guard, then
// end --run R --outcome reverted, and restores the terminal settings it was given. The guard
// runs in its own session so closing the terminal does not kill it.
#pragma once

#include <sys/types.h>
#include <termios.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "helper_client.hpp"
#include "wiredcap/units/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// How long after the prompt's own deadline the guard steps in, so the two never race.
inline constexpr std::chrono::seconds kGuardGrace{3};

class Guard {
public:
    // Forks the guard. `tty_fd` and `saved` (optional) let it restore the terminal.
    [[nodiscard]] static Expected<Guard> start(const HelperClient& helper, std::string run_id, int tty_fd,
                                               const struct termios* saved);
    Guard(Guard&& other) noexcept;
    Guard& operator=(Guard&&) = delete;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard();  // sends done (if not sent) and reaps the guard

    // `revert_to`: the last confirmed value, nullopt for the OS default (reset).
    void arm(std::uint64_t step, std::optional<units::MiB> revert_to, std::chrono::system_clock::time_point deadline);
    void disarm();
    void done();

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }

private:
    Guard(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
    void send(const std::string& line);
    pid_t pid_ = -1;
    int fd_ = -1;
    bool done_ = false;
};

}  // namespace wiredcap::cli
