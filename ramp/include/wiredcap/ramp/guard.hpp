// The ramp's guard: a separate process that reverts a step nobody confirmed, even when the
// prompting process is killed outright (SIGKILL), stopped, or its own revert fails; it stands
// down only on evidence. Its requests, answers and reverts: docs/design.md, "The guard process
// and its pipe protocol".
#pragma once

#include <sys/types.h>
#include <termios.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/readings/helper_client.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// How long after the prompt's own deadline the guard steps in, so the two never race; also how
// long the guard keeps retrying a revert that does not read back its target.
inline constexpr std::chrono::seconds kGuardGrace{3};

// Room the guard leaves for one helper call in flight (the helper itself takes milliseconds).
inline constexpr std::chrono::seconds kHelperCallBudget{30};

// How long wiredcap waits for the guard's answer: its longest task (a verification read, then a
// revert retried for the grace, then the end record) with room for slow helper calls.
inline constexpr std::chrono::seconds kGuardAnswerWait = kGuardGrace + 3 * kHelperCallBudget;

class Guard {
public:
    // What the guard answered. `gone`: no answer within kGuardAnswerWait or the guard is not
    // there at all; the caller then acts alone.
    enum class Answer { yours, mine, released, gone };

    // Forks the guard. `tty_fd` and `saved` (optional) let it restore the terminal. Refuses once
    // read_metal() has run in this process: forking without exec is unsafe after Metal,
    // CoreGraphics or the Objective-C runtime are loaded (their threads), so a ramp starts its
    // guard first (docs/design.md §6, the guard process; enforced on every platform so Linux tests hold the order).
    [[nodiscard]] static Expected<Guard> start(const HelperClient& helper, std::string run_id,
                                               int tty_fd, const struct termios* saved);
    Guard(Guard&& other) noexcept;
    Guard& operator=(Guard&&) = delete;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard();  // sends done (if not sent) and reaps the guard

    // `revert_to`: the last confirmed value, nullopt for the OS default (reset).
    // `in_force`: the step's read-back, once it awaits its answer.
    void arm(std::uint64_t step, std::optional<units::MiB> revert_to,
             std::chrono::system_clock::time_point deadline,
             std::optional<units::MiB> in_force = std::nullopt);
    [[nodiscard]] Answer claim(std::uint64_t step);
    void settled_confirmed(std::uint64_t step);
    [[nodiscard]] Answer settled_restored(std::uint64_t step);
    [[nodiscard]] Answer settled_superseded(std::uint64_t step);
    void done();

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }

private:
    Guard(pid_t pid, int fd, int answer_fd) : pid_(pid), fd_(fd), answer_fd_(answer_fd) {}
    [[nodiscard]] bool send(const std::string& line);
    Answer await(std::uint64_t seq);
    pid_t pid_ = -1;
    int fd_ = -1;
    int answer_fd_ = -1;
    std::uint64_t seq_ = 0;
    std::string answers_;  // read from the guard, not yet a whole line
    bool done_ = false;
};

}  // namespace wiredcap::cli
