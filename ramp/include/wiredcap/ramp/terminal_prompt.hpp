// The confirmation prompt of the supervised ramp (docs/design.md section 6): a fixed deadline shown
// as a live countdown, a line typed by a person, and every way a person can say no.
//
//   yes            -> Answer::yes      (continue)
//   stop           -> Answer::stop     (keep this value, end)
//   no, n          -> Answer::no       (revert; "y" is asked again: yes raises, so in full)
//   end of input   -> Answer::eof      (Ctrl-D on an empty line)
//   Ctrl-C/SIGINT  -> Answer::interrupt, SIGTERM -> terminate
//   SIGHUP, or the terminal gone (a read of 0 or EIO) -> Answer::hangup
//   the deadline   -> Answer::timeout
//   Enter or anything else re-asks; typing never moves the deadline.
//
// The terminal's settings are saved when a Terminal is opened and restored when it is
// destroyed, on every path (and by the guard process if this one is killed).
#pragma once

#include <termios.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "wiredcap/cli/output/watch_view.hpp"

#include "wiredcap/expected.hpp"

namespace wiredcap::cli {

enum class Answer { yes, stop, no, eof, interrupt, terminate, hangup, timeout };

[[nodiscard]] std::string_view answer_name(Answer a);

// The helper's --revert word for a step reverted after answer `a`: the answer's name, except
// yes and stop (they keep the step), whose confirmation could not be recorded: "unconfirmed".
[[nodiscard]] std::string_view revert_word(Answer a);

// Installs handlers for SIGINT, SIGTERM and SIGHUP that only record the signal, for as long
// as it lives, and restores the previous handlers after.
class SignalWatch {
public:
    SignalWatch();
    ~SignalWatch();
    SignalWatch(const SignalWatch&) = delete;
    SignalWatch& operator=(const SignalWatch&) = delete;
    // The first signal seen since construction, if any.
    [[nodiscard]] std::optional<Answer> pending() const;
};

class Terminal {
public:
    // Refuses (with the reason) unless both fds are terminals: piped input is not a person.
    [[nodiscard]] static Expected<Terminal> open(int in_fd, int out_fd);
    Terminal(Terminal&& other) noexcept;
    Terminal& operator=(Terminal&&) = delete;
    Terminal(const Terminal&) = delete;
    Terminal& operator=(const Terminal&) = delete;
    ~Terminal();  // restores the saved settings

    [[nodiscard]] const struct termios& saved() const noexcept { return saved_; }
    [[nodiscard]] int in_fd() const noexcept { return in_; }

    // Shows `question` with a countdown to `deadline` and waits for one of the answers. With
    // `sample`, the countdown line carries watch's gauge (cap_gauge) of wired memory against
    // the cap, sampled once a second; on a dumb terminal, where nothing is redrawn, it is not.
    using Sampler = std::function<WatchSample()>;
    [[nodiscard]] Answer ask(const std::string& question,
                             std::chrono::steady_clock::time_point deadline,
                             const SignalWatch& signals, const Sampler& sample = {});

private:
    Terminal(int in_fd, int out_fd, const struct termios& saved)
        : in_(in_fd), out_(out_fd), saved_(saved) {}
    int in_ = -1;
    int out_ = -1;
    struct termios saved_ {};
    bool owns_ = true;
};

}  // namespace wiredcap::cli
