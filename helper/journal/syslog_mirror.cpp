#include "wiredcap/helper/journal/syslog_mirror.hpp"

#include <syslog.h>

#include <climits>

namespace wiredcap::journal {

// syslog(3) itself, at LOG_NOTICE: no logging library in the setuid helper (it linked spdlog for
// this one call, through a sink of its own, since spdlog's syslog sink maps info to LOG_INFO).
// Nothing here allocates, so the mirror works where memory ran out too.
void mirror_to_syslog(std::string_view json_line) noexcept {
    // Sets the name and facility; the connection is made at the first syslog() and kept.
    ::openlog("wiredcap-helper", LOG_PID, LOG_AUTH);
    // The line is already escaped ASCII JSON; strip the newline the file needs.
    if (!json_line.empty() && json_line.back() == '\n') json_line.remove_suffix(1);
    const int length = json_line.size() > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(json_line.size());
    ::syslog(LOG_NOTICE, "%.*s", length, json_line.data());
}

}  // namespace wiredcap::journal
