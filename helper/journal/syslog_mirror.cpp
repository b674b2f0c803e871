#include "journal/syslog_mirror.hpp"

#include <spdlog/details/null_mutex.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <syslog.h>

#include <climits>
#include <memory>

namespace wiredcap::journal {
namespace {

// Info and above are at least LOG_NOTICE, so nothing the helper records is kept in memory only.
int syslog_priority(spdlog::level::level_enum level) noexcept {
    switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug: return LOG_DEBUG;
    case spdlog::level::info: return LOG_NOTICE;
    case spdlog::level::warn: return LOG_WARNING;
    case spdlog::level::err: return LOG_ERR;
    case spdlog::level::critical: return LOG_CRIT;
    case spdlog::level::off:
    case spdlog::level::n_levels: break;
    }
    return LOG_NOTICE;
}

// spdlog's own syslog sink maps info to LOG_INFO and cannot be told otherwise (its table is
// private), so this sink is the same few lines with the priority from syslog_priority.
class NoticeSyslogSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
public:
    NoticeSyslogSink() { ::openlog("wiredcap-helper", LOG_PID, LOG_AUTH); }
    ~NoticeSyslogSink() override { ::closelog(); }
    NoticeSyslogSink(const NoticeSyslogSink&) = delete;
    NoticeSyslogSink& operator=(const NoticeSyslogSink&) = delete;

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        const auto length = msg.payload.size() > static_cast<std::size_t>(INT_MAX) ? INT_MAX
                                                                                    : static_cast<int>(msg.payload.size());
        ::syslog(syslog_priority(msg.level), "%.*s", length, msg.payload.data());
    }
    void flush_() override {}
};

}  // namespace

void mirror_to_syslog(std::string_view json_line) noexcept {
    try {
        static const auto logger =
            std::make_shared<spdlog::logger>("wiredcap-journal", std::make_shared<NoticeSyslogSink>());
        // The line is already escaped ASCII JSON; strip the newline the file needs.
        if (!json_line.empty() && json_line.back() == '\n') json_line.remove_suffix(1);
        logger->info("{}", json_line);
    } catch (...) {
        // syslog unavailable: the journal file already holds the record.
    }
}

}  // namespace wiredcap::journal
