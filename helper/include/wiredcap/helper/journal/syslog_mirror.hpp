// Mirrors each journal record to syslog (facility auth), through syslog(3), so the audit trail
// also reaches the system log. Best effort: the journal file is the record that counts.
//
// Each record goes out as LOG_NOTICE, not LOG_INFO: on macOS syslog(3) feeds the unified log,
// which keeps info (and debug) messages in memory only, so after a hang and a reboot, exactly
// when the record matters, they would be gone; notice and above are written to disk.
// tests/integration/syslog_priority_test.sh reads the priority off a real /dev/log.
#pragma once

#include <string_view>

namespace wiredcap::journal {

void mirror_to_syslog(std::string_view json_line) noexcept;

}  // namespace wiredcap::journal
