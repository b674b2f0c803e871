#include "wiredcap/cli/commands/watch_cmd.hpp"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <ostream>
#include <string_view>

#include "wiredcap/cli/commands/memory_picture.hpp"
#include "wiredcap/cli/commands/status_readings.hpp"
#include "wiredcap/ramp/terminal_prompt.hpp"
#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/cli/output/terminal_width.hpp"
#include "wiredcap/cli/output/text_wrap.hpp"
#include "wiredcap/cli/output/watch_view.hpp"
#include "wiredcap/units/duration.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using Clock = std::chrono::steady_clock;
using units::MiB;

// Samples kept for the sparkline: more than any terminal is wide, so a wider one shows more.
constexpr std::size_t kHistoryMax = 1024;

// While alive, keys reach watch one by one and unechoed (Ctrl-C still signals); the settings
// found are put back on every way out, a hangup included (where the put may fail: no terminal).
class KeysOneByOne {
public:
    explicit KeysOneByOne(int fd) : fd_(fd) {
        if (::isatty(fd_) == 0 || ::tcgetattr(fd_, &saved_) != 0) {
            fd_ = -1;
            return;
        }
        struct termios raw = saved_;
        raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        if (::tcsetattr(fd_, TCSANOW, &raw) != 0) fd_ = -1;
    }
    ~KeysOneByOne() {
        if (fd_ >= 0) ::tcsetattr(fd_, TCSANOW, &saved_);
    }
    KeysOneByOne(const KeysOneByOne&) = delete;
    KeysOneByOne& operator=(const KeysOneByOne&) = delete;
    [[nodiscard]] bool active() const { return fd_ >= 0; }

private:
    int fd_;
    struct termios saved_ {};
};

enum class Wait { tick, quit };

// Waits until `deadline`, reading keys when `keys` is on: `q` quits, as do a signal and a
// terminal that is gone; other keys are ignored.
Wait wait_until(Clock::time_point deadline, int in_fd, bool keys, const SignalWatch& signals) {
    for (;;) {
        if (signals.pending()) return Wait::quit;
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return Wait::tick;
        struct pollfd p {
            in_fd, POLLIN, 0
        };
        const int n = ::poll(keys ? &p : nullptr, keys ? 1 : 0, static_cast<int>(left.count()));
        if (n <= 0) continue;  // the time is up, or a signal: checked above
        char c = 0;
        const ssize_t got = ::read(in_fd, &c, 1);
        if (got <= 0) return Wait::quit;  // the terminal is gone
        if (c == 'q' || c == 'Q') return Wait::quit;
    }
}

std::string picture_heading(const StatusReadings& s, const WatchRequest& req, bool keys) {
    return std::string("wiredcap watch") + (s.machine.simulated() ? " (SIMULATED Mac)" : "") +
           ": every " + req.interval + "; " + (keys ? "q or Ctrl-C ends" : "Ctrl-C ends");
}

// The frame redrawn in place: the picture, then the sample's gauge.
std::vector<std::string> frame(const StatusReadings& s, const WatchSample& sample, MiB peak,
                               const std::deque<std::optional<MiB>>& history, std::size_t width,
                               Glyphs g) {
    auto lines = render_picture(memory_picture(s), width, g);
    lines.push_back("  " + cap_gauge(sample, width - 2, g));
    lines.push_back("  peak since start " + units::describe(peak));
    const std::string spark_head = "  wired, sample by sample: ";
    const std::size_t cells = width > spark_head.size() + 1 ? width - spark_head.size() : 1;
    lines.push_back(spark_head + sparkline(history, sample.cap, cells, g));
    if (const auto warn = near_cap_warning(sample)) lines.push_back("WARNING: " + *warn);
    return lines;
}

// The frame's lines as the rows a terminal `width` columns wide shows: each broken to fit, so
// the count of rows to move over is known.
std::vector<std::string> frame_rows(const std::vector<std::string>& lines, std::size_t width) {
    std::vector<std::string> rows;
    for (const auto& l : lines)
        for (auto& r : wrap_line(l, width)) rows.push_back(std::move(r));
    return rows;
}

}  // namespace

ExitCode run_watch(CliContext& ctx, const WatchRequest& req, int in_fd, int out_fd) {
    const auto interval = units::parse_duration(req.interval);
    if (!interval || interval->count() == 0) {
        return fail(ctx.err, "watch", ExitCode::usage, "--interval ",
                    (interval ? units::quote_input(req.interval) + ": must be at least 1s"
                              : interval.error().message));
    }
    if (req.count && *req.count == 0) {
        return fail(ctx.err, "watch", ExitCode::usage, "--count must be at least 1");
    }
    // In place only on a terminal that can move its cursor; else one line per sample.
    const char* term = std::getenv("TERM");
    const bool in_place = ::isatty(out_fd) != 0 && term != nullptr && *term != '\0' &&
                          std::string_view(term) != "dumb";
    const SignalWatch signals;
    const KeysOneByOne keys(in_fd);
    const Glyphs glyphs = glyphs_for(out_fd);
    const auto start = Clock::now();
    std::deque<std::optional<MiB>> history;
    std::optional<MiB> peak;
    std::size_t drawn = 0;        // rows of the last frame, moved over when redrawing
    std::size_t drawn_width = 0;  // the width it was drawn for
    for (std::uint64_t n = 0;; ++n) {
        const auto read = read_status(ctx);
        if (!read) {
            return fail(ctx.err, "watch", ExitCode::internal_error, read.error().message);
        }
        const MemoryPicture pic = memory_picture(*read);
        const WatchSample sample{pic.wired.value, pic.cap.value};
        if (sample.wired && (!peak || *sample.wired > *peak)) peak = sample.wired;
        history.push_back(sample.wired);
        if (history.size() > kHistoryMax) history.pop_front();
        const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start);
        if (n == 0) ctx.out << picture_heading(*read, req, keys.active()) << "\n";
        if (in_place) {
            // The width is read again each frame: the terminal may have been resized. Then the
            // last frame's rows may have been reflowed; the new one starts below it instead.
            const std::size_t width = output_width(out_fd);
            if (drawn > 0 && width == drawn_width) ctx.out << "\x1b[" << drawn << "A\r\x1b[J";
            const auto rows = frame_rows(
                frame(*read, sample, peak.value_or(MiB::zero()), history, width, glyphs), width);
            for (const auto& r : rows) ctx.out << r << "\n";
            drawn = rows.size();
            drawn_width = width;
        } else {
            ctx.out << sample_line(elapsed, sample, peak) << "\n";
            if (const auto warn = near_cap_warning(sample))
                ctx.out << "+" << elapsed.count() << "s WARNING: " << *warn << "\n";
        }
        ctx.out.flush();
        if (!ctx.out) return ExitCode::output_failed;  // the terminal or the pipe is gone
        if (req.count && n + 1 >= *req.count) return ExitCode::ok;
        if (wait_until(start + *interval * (n + 1), in_fd, keys.active(), signals) == Wait::quit)
            return ExitCode::ok;
    }
}

}  // namespace wiredcap::cli
