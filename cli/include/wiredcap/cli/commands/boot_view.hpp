// What `wiredcap status` says about the value stored for boot and its boot guard: the words of
// each line, the first-line alert when the guard stopped, and the one computed figure (how much
// more uptime before the boot action may mark the value healthy). Everything else is what the
// helper read, passed on with its source.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/json_writer.hpp"

namespace wiredcap::cli {

// The source label of the one computed figure.
inline constexpr const char* kHealthyInSource =
    "computed: healthy_after minus the uptime since the boot action applied it";

// Where macOS Recovery mounts the Data volume of a disk named "Macintosh HD" (the default name).
inline constexpr const char* kRecoveryDataVolume = "/Volumes/Macintosh HD - Data";

// "BOOT GUARD TRIPPED at ..." / "BOOT ACTION FAILED at ...": the first line of status when the
// guard stopped (tripped or failed); nullopt otherwise.
[[nodiscard]] std::optional<std::string> boot_alert(const BootGuard& g);

// The guard belongs to the boot now running. False when either boot id is unknown.
[[nodiscard]] bool guard_is_this_boot(const BootGuard& g, const Reading<std::string>& boot_id);

// Uptime still needed before the boot action may mark the value healthy (0: due now), for a
// guard `trying` in this boot. Unknown (with why) when a term is unknown or it does not apply.
struct HealthyIn {
    std::optional<std::uint64_t> seconds;
    std::string why_unknown;
};
[[nodiscard]] HealthyIn healthy_in(const BootGuard& g, const Reading<std::string>& boot_id,
                                   const Reading<std::chrono::seconds>& uptime);

// The three lines of status, as "value" texts (the caller adds label and source).
[[nodiscard]] std::string stored_text(const BootGuard& g);
[[nodiscard]] std::string guard_text(const BootGuard& g, const MachineReadings& m);
[[nodiscard]] std::string guard_source(const BootGuard& g, const MachineReadings& m);
[[nodiscard]] std::string switch_text(const BootGuard& g);

// `boot_guard` of wiredcap.status/2 (docs/schema/status-2.json).
[[nodiscard]] JsonObject boot_guard_status_json(const MachineReadings& m);

}  // namespace wiredcap::cli
