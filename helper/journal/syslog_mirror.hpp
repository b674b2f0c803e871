// Mirrors each journal record to syslog (facility auth), through spdlog, so the audit trail
// also reaches the system log. Best effort: the journal file is the record that counts.
#pragma once

#include <string_view>

namespace wiredcap::journal {

void mirror_to_syslog(std::string_view json_line) noexcept;

}  // namespace wiredcap::journal
