#include "wiredcap/ramp/terminal_prompt.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <utility>

#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/cli/output/text_wrap.hpp"

namespace wiredcap::cli {
namespace {

// --- signals ---------------------------------------------------------------------------------

// The only state a handler touches. A handler may do nothing but store to a volatile
// sig_atomic_t; everything else happens in ask(), which polls this.
volatile sig_atomic_t g_signal = 0;

constexpr int kWatched[] = {SIGINT, SIGTERM, SIGHUP};
constexpr std::size_t kWatchedCount = sizeof kWatched / sizeof kWatched[0];

// The handlers that were in place before the outermost SignalWatch, restored after it. Nested
// watches share them (wiredcap has one at a time; nesting is only made harmless).
struct sigaction g_previous[kWatchedCount];
int g_watch_depth = 0;

extern "C" void record_signal(int signo) {
    if (g_signal == 0) g_signal = signo;  // the first one decides
}

// --- output ----------------------------------------------------------------------------------

// Best effort: the screen is for the person, and a terminal that went away must not turn a
// prompt into an error. EINTR means a signal arrived, which ends the prompt anyway.
void write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n <= 0) return;
        s.remove_prefix(static_cast<std::size_t>(n));
    }
}

// --- the typed line --------------------------------------------------------------------------

// Long enough for any answer, short enough that the prompt line never wraps (a wrapped line
// cannot be redrawn in place with \r).
constexpr std::size_t kMaxLine = 40;

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

// The words of typed_answer.hpp's rule: "yes" keeps the raise and goes on, so only the exact
// word is yes ("Yes" and "y" are asked again); "n" reverts, which is harmless, so it is no.
std::optional<Answer> parse_answer(std::string_view line) {
    const std::string_view word = trim(line);
    if (word == "yes") return Answer::yes;
    if (word == "stop") return Answer::stop;
    if (word == "no" || word == "n") return Answer::no;
    return std::nullopt;
}

// Removes the last character, including all bytes of a UTF-8 sequence.
void erase_last(std::string& line) {
    while (!line.empty() && (static_cast<unsigned char>(line.back()) & 0xC0U) == 0x80U)
        line.pop_back();
    if (!line.empty()) line.pop_back();
}

// What one input byte means. Escape sequences (arrow keys, function keys) are swallowed whole
// so that "ESC [ A" does not leave "[A" in the line.
enum class Key { none, text, erase, kill, enter, eof };

class LineEditor {
public:
    Key feed(unsigned char c) {
        if (escape_ != Escape::none) return swallow_escape(c);
        switch (c) {
            case 0x1B: escape_ = Escape::start; return Key::none;
            case '\r':
            case '\n': return Key::enter;
            case 0x04:
                return line_.empty() ? Key::eof
                                     : Key::none;  // Ctrl-D ends input only on an empty line
            case 0x7F:
            case 0x08: erase_last(line_); return Key::erase;
            case 0x15: line_.clear(); return Key::kill;  // Ctrl-U
            default: break;
        }
        if (c < 0x20) return Key::none;  // other control characters mean nothing here
        if (line_.size() >= kMaxLine) return Key::none;
        line_.push_back(static_cast<char>(c));
        return Key::text;
    }
    [[nodiscard]] const std::string& line() const noexcept { return line_; }
    void clear() { line_.clear(); }

private:
    enum class Escape { none, start, csi };
    Key swallow_escape(unsigned char c) {
        if (escape_ == Escape::start && (c == '[' || c == 'O')) {
            escape_ = Escape::csi;
        } else if (escape_ == Escape::start || (c >= 0x40 && c <= 0x7E)) {
            escape_ = Escape::none;  // a two-byte escape, or the final byte of a sequence
        }
        return Key::none;
    }
    std::string line_;
    Escape escape_ = Escape::none;
};

// --- time ------------------------------------------------------------------------------------

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Whole seconds left, rounded up: "1 s left" until the very end, never "0 s left".
long long seconds_left(steady_clock::duration left) {
    const auto ms = std::chrono::ceil<milliseconds>(left).count();
    return (ms + 999) / 1000;
}

// How long one poll may sleep: at most a quarter second (so signals are honoured promptly),
// never past the deadline, and no longer than until the countdown's number changes.
int poll_timeout_ms(steady_clock::duration left) {
    const long long ms = std::chrono::ceil<milliseconds>(left).count();
    const long long until_tick = ms - (seconds_left(left) - 1) * 1000;
    return static_cast<int>(std::clamp(std::min(ms, until_tick), 1LL, 250LL));
}

// The terminal's width now (it may have been resized), or 80 when it does not say.
std::size_t columns_of(int fd) {
    struct winsize ws {};
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

// A terminal that says it cannot take "\r\033[K" (erase the line): TERM=dumb (an Emacs shell
// buffer, a serial console). There the countdown is not redrawn.
bool dumb_terminal() {
    const char* term = std::getenv("TERM");
    return term != nullptr && std::string_view(term) == "dumb";
}

// "14:03:27": the wall-clock time `left` from now, for a terminal that shows the deadline once.
std::string clock_in(steady_clock::duration left) {
    const std::time_t at = std::chrono::system_clock::to_time_t(
        std::chrono::system_clock::now() + std::chrono::ceil<std::chrono::seconds>(left));
    struct tm tm {};
    ::localtime_r(&at, &tm);
    char text[16];
    std::strftime(text, sizeof text, "%H:%M:%S", &tm);
    return text;
}

// `text` broken at spaces into rows of at most `width` columns, for a terminal that cannot be
// redrawn: it would wrap a longer row wherever the width falls. A trailing space is kept (the
// cursor waits after it); a word wider than a row stays whole.
std::string in_rows(std::string_view text, std::size_t width) {
    std::string out;
    std::size_t col = 0;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t end = std::min(text.find(' ', i), text.size());
        const std::string_view word = text.substr(i, end - i);
        i = end + 1;
        if (word.empty()) continue;
        if (col > 0 && col + 1 + word.size() > width) {
            out += '\n';
            col = 0;
        } else if (col > 0) {
            out += ' ';
            ++col;
        }
        out += word;
        col += word.size();
    }
    if (text.ends_with(' ')) out += ' ';
    return out;
}

}  // namespace

std::string_view answer_name(Answer a) {
    switch (a) {
        case Answer::yes: return "yes";
        case Answer::stop: return "stop";
        case Answer::no: return "no";
        case Answer::eof: return "eof";
        case Answer::interrupt: return "interrupt";
        case Answer::terminate: return "terminate";
        case Answer::hangup: return "hangup";
        case Answer::timeout: return "timeout";
    }
    return "unknown";
}

std::string_view revert_word(Answer a) {
    return a == Answer::yes || a == Answer::stop ? "unconfirmed" : answer_name(a);
}

// --- SignalWatch -----------------------------------------------------------------------------

SignalWatch::SignalWatch() {
    if (g_watch_depth++ > 0) return;
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = record_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a blocked poll() or read() must return EINTR
    for (std::size_t i = 0; i < kWatchedCount; ++i) ::sigaction(kWatched[i], &sa, &g_previous[i]);
}

SignalWatch::~SignalWatch() {
    if (--g_watch_depth > 0) return;
    for (std::size_t i = 0; i < kWatchedCount; ++i)
        ::sigaction(kWatched[i], &g_previous[i], nullptr);
}

std::optional<Answer> SignalWatch::pending() const {
    switch (g_signal) {
        case SIGINT: return Answer::interrupt;
        case SIGTERM: return Answer::terminate;
        case SIGHUP: return Answer::hangup;
        default: return std::nullopt;
    }
}

// --- Terminal --------------------------------------------------------------------------------

Expected<Terminal> Terminal::open(int in_fd, int out_fd) {
    constexpr const char* way_out =
        " To run without a person, name the check that decides: --unattended --check CMD";
    if (::isatty(in_fd) == 0)
        return Error{std::string("standard input is not a terminal: piped input is not a person.") +
                     way_out};
    if (::isatty(out_fd) == 0)
        return Error{
            std::string("standard output is not a terminal: nobody would see the question.") +
            way_out};
    struct termios saved {};
    if (::tcgetattr(in_fd, &saved) != 0) return Error{"cannot read the terminal's settings"};

    struct termios raw = saved;
    // Our own line editing: no canonical mode, no echo. ISIG stays on so Ctrl-C still raises
    // SIGINT. IEXTEN off so Ctrl-V/Ctrl-O are plain bytes; IXON off so Ctrl-S cannot freeze
    // output and block a redraw past the deadline.
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO | ECHONL | IEXTEN);
    raw.c_iflag &= ~static_cast<tcflag_t>(IXON);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    if (::tcsetattr(in_fd, TCSAFLUSH, &raw) != 0)
        return Error{"cannot change the terminal's settings"};
    return Terminal(in_fd, out_fd, saved);
}

Terminal::Terminal(Terminal&& other) noexcept
    : in_(other.in_),
      out_(other.out_),
      saved_(other.saved_),
      owns_(std::exchange(other.owns_, false)) {}

Terminal::~Terminal() {
    if (owns_) ::tcsetattr(in_, TCSAFLUSH, &saved_);
}

namespace {

// One prompt in progress: what is typed, what is shown, and when it is over.
class Prompt {
public:
    Prompt(int in, int out, const std::string& question, steady_clock::time_point deadline,
           const SignalWatch& signals, const Terminal::Sampler& sample)
        : in_(in),
          out_(out),
          question_(question),
          deadline_(deadline),
          signals_(signals),
          sample_(sample) {}

    Answer run() {
        for (;;) {
            if (auto s = signals_.pending()) return *s;
            const auto left = deadline_ - steady_clock::now();
            if (left <= steady_clock::duration::zero()) return Answer::timeout;
            if (seconds_left(left) != shown_seconds_) {
                if (sample_ && !dumb_) last_sample_ = sample_();
                redraw(left);
            }
            if (auto a = wait_for_input(poll_timeout_ms(left))) return *a;
        }
    }

private:
    // The countdown, redrawn in place with "\r\033[K". That only works on one row: when the
    // whole question does not fit the terminal's width, it is printed once on rows of its own
    // and only "[N s left] > typed" is redrawn (at least 20 columns hold it). On a dumb terminal
    // nothing is redrawn: the question and its deadline are printed once, and typing is echoed.
    void redraw(steady_clock::duration left) {
        shown_seconds_ = seconds_left(left);
        if (dumb_) return show_once(left);
        const std::string tail = "[" + std::to_string(shown_seconds_) + " s left] > ";
        const std::size_t width = columns_of(out_);
        const std::string& typed = editor_.line();
        if (!question_on_own_rows_ && question_.size() + 1 + tail.size() + typed.size() < width) {
            const std::size_t spare = width - (question_.size() + 1 + tail.size() + typed.size());
            write_all(out_, "\r\033[K" + question_ + " " + gauge(spare > 1 ? spare - 1 : 0) + tail +
                                typed);
            return;
        }
        if (!question_on_own_rows_) {
            write_all(out_, "\r\033[K" + question_ + "\n");
            question_on_own_rows_ = true;
        }
        // The gauge leaves room for a word being typed; what is typed is cut from the left to
        // the room there is (the whole line is still read).
        const std::size_t row = width > tail.size() + 1 ? width - tail.size() - 1 : 0;
        const std::string g = gauge(row > kTypingRoom ? row - kTypingRoom : 0);
        const std::size_t room = row - display_width(g);
        const std::string shown = typed.size() > room ? typed.substr(typed.size() - room) : typed;
        write_all(out_, "\r\033[K" + g + tail + shown);
    }

    // The gauge and a space after it in at most `columns` (none without a sampler).
    std::string gauge(std::size_t columns) const {
        if (!last_sample_ || columns < 2) return {};
        const std::string g = cap_gauge(*last_sample_, std::min(columns - 1, kGaugeMost), glyphs_);
        return g.empty() ? g : g + " ";
    }
    void redraw() { redraw(deadline_ - steady_clock::now()); }

    void show_once(steady_clock::duration left) {
        if (shown_once_) return;
        shown_once_ = true;
        write_all(out_, in_rows(question_ + " [answer within " + std::to_string(shown_seconds_) +
                                    " s, by " + clock_in(left) + "] > ",
                                columns_of(out_)) +
                            editor_.line());
    }

    // On a dumb terminal each key is echoed as it is, never by redrawing the line.
    void echo(Key k) {
        if (k == Key::text) write_all(out_, std::string_view(&editor_.line().back(), 1));
        else if (k == Key::erase) write_all(out_, "\b \b");
        else if (k == Key::kill) write_all(out_, "\n> ");
    }

    std::optional<Answer> wait_for_input(int timeout_ms) {
        struct pollfd pfd = {in_, POLLIN, 0};
        const int rc = ::poll(&pfd, 1, timeout_ms);
        if (rc <= 0) return std::nullopt;  // timeout, or EINTR: the loop checks signals and time
        char buf[64];
        const ssize_t n = ::read(in_, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) return std::nullopt;
        if (n <= 0) return terminal_gone();  // 0 or EIO: the terminal went away
        for (ssize_t i = 0; i < n; ++i) {
            if (auto a = on_key(static_cast<unsigned char>(buf[i]))) return a;
        }
        return std::nullopt;
    }

    // Closing a terminal window wakes the reader (read gives 0 or EIO) before the kernel's
    // SIGHUP is delivered, by a moment that a loaded machine stretches past any wait. In raw
    // mode Ctrl-D is our own key (Key::eof), so a read that ends here is the terminal hanging
    // up, whether or not its SIGHUP has arrived yet. A signal already caught names the end.
    std::optional<Answer> terminal_gone() {
        if (auto s = signals_.pending()) return s;
        return Answer::hangup;
    }

    std::optional<Answer> on_key(unsigned char c) {
        const Key k = editor_.feed(c);
        switch (k) {
            case Key::none: return std::nullopt;
            case Key::eof: return Answer::eof;
            case Key::enter: return submit();
            case Key::text:
            case Key::erase:
            case Key::kill:
                if (dumb_) echo(k);
                else redraw();
                return std::nullopt;
        }
        return std::nullopt;
    }

    std::optional<Answer> submit() {
        if (auto a = parse_answer(editor_.line())) return a;
        const bool short_yes = trim(editor_.line()) == "y";
        editor_.clear();
        const std::string again =
            std::string(
                short_yes
                    ? "  \"y\" is not taken as yes: this raises the GPU's cap, so yes is typed in full.\n"
                    : "") +
            "  Please type yes (continue), stop (keep this value and end) or no (revert).\n";
        if (dumb_) {
            write_all(out_, "\n" + again + "> ");
            return std::nullopt;
        }
        write_all(out_, "\r\033[K" + again);
        question_on_own_rows_ = false;  // the question is shown again, as wide as it fits
        redraw();
        return std::nullopt;
    }

    int in_;
    int out_;
    const std::string& question_;
    steady_clock::time_point deadline_;
    const SignalWatch& signals_;
    const Terminal::Sampler& sample_;
    std::optional<WatchSample> last_sample_;  // the gauge's, taken when the countdown ticks
    Glyphs glyphs_ = glyphs_for(out_);
    // The gauge takes at most this much of the line, and leaves this much to what is typed.
    static constexpr std::size_t kGaugeMost = 32;
    static constexpr std::size_t kTypingRoom = 8;
    LineEditor editor_;
    long long shown_seconds_ = -1;
    bool dumb_ = dumb_terminal();
    bool question_on_own_rows_ = false;  // too wide for one row: printed once above the countdown
    bool shown_once_ = false;            // dumb terminal: the question and deadline are printed
};

}  // namespace

Answer Terminal::ask(const std::string& question, steady_clock::time_point deadline,
                     const SignalWatch& signals, const Sampler& sample) {
    // Only what is typed after the question is shown counts: "yes" typed ahead (or a stray
    // burst of "yes\nyes\n") must not confirm a step nobody has seen.
    ::tcflush(in_, TCIFLUSH);
    Prompt prompt(in_, out_, question, deadline, signals, sample);
    const Answer a = prompt.run();
    write_all(out_, "\n");
    return a;
}

}  // namespace wiredcap::cli
