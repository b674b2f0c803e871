#include "wiredcap/cli/output/terminal_width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace wiredcap::cli {

std::size_t choose_width(std::optional<std::string_view> columns_env,
                         std::optional<std::size_t> tty_columns) {
    if (columns_env) {
        std::size_t n = 0;
        const auto* end = columns_env->data() + columns_env->size();
        const auto [p, ec] = std::from_chars(columns_env->data(), end, n);
        if (ec == std::errc() && p == end && n >= kMinWidth) return n;
    }
    if (tty_columns && *tty_columns >= kMinWidth) return *tty_columns;
    return kDefaultWidth;
}

std::size_t output_width(int fd) {
    std::optional<std::string_view> env;
    if (const char* c = std::getenv("COLUMNS")) env = c;
    std::optional<std::size_t> tty;
    struct winsize ws {};
    if (::isatty(fd) != 0 && ::ioctl(fd, TIOCGWINSZ, &ws) == 0) tty = ws.ws_col;
    return choose_width(env, tty);
}

}  // namespace wiredcap::cli
