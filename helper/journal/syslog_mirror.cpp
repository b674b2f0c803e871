#include "journal/syslog_mirror.hpp"

#include <spdlog/sinks/syslog_sink.h>
#include <spdlog/spdlog.h>
#include <syslog.h>

namespace wiredcap::journal {

void mirror_to_syslog(std::string_view json_line) noexcept {
    try {
        static const auto logger = spdlog::syslog_logger_st("wiredcap-journal", "wiredcap-helper", LOG_PID, LOG_AUTH);
        // The line is already escaped ASCII JSON; strip the newline the file needs.
        if (!json_line.empty() && json_line.back() == '\n') json_line.remove_suffix(1);
        logger->info("{}", json_line);
    } catch (...) {
        // syslog unavailable: the journal file already holds the record.
    }
}

}  // namespace wiredcap::journal
