// Everything `wiredcap status` reads, gathered once: the helper's readings, Metal, the journal's
// analysis, the LaunchDaemon and the helper's file. `status` renders it for people or as
// wiredcap.status/2; `metrics` renders the same readings for Prometheus, so both say the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/cli/readings/helper_file.hpp"
#include "wiredcap/cli/readings/launchd_state.hpp"
#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::cli {

struct StatusReadings {
    MachineReadings machine;
    MetalReading metal;
    std::optional<recovery::Report> journal;  // nullopt: unreadable, see journal_error
    std::string journal_source;
    std::string journal_error;
    DaemonState daemon;
    HelperFile helper;
    std::optional<std::uint64_t> journal_bytes;  // the file's size (0: none yet); nullopt: unknown
};

// Fails only when the helper gave no usable answer at all; every other reading that cannot be
// made stays unknown, with its reason.
[[nodiscard]] Expected<StatusReadings> read_status(const CliContext& ctx);

}  // namespace wiredcap::cli
