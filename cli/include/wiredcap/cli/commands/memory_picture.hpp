// The picture of memory (output/memory_bar.hpp) from what status reads: physical memory, what
// is wired now, the cap in force (the knob, or the OS default's Metal figure when it reads 0),
// the headroom, the policy's reserve and top, the journal's hang ceiling. Each figure carries
// the very source string the status table gives, so both share one footnote.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "wiredcap/cli/commands/status_readings.hpp"
#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/cli/output/watch_view.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// The cap the GPU lives under now, exact: the knob when it is set, else Metal's figure for the
// OS default; nullopt when the knob is unreadable, or 0 and Metal unknown.
[[nodiscard]] std::optional<units::Bytes> binding_cap(const StatusReadings& s);

// Wired memory against the cap in force, rounded as the picture rounds them (wired up, the cap
// down): the knob when it is set, else `os_default` (Metal's figure, when known). What watch
// and a ramp's countdown gauge (cap_gauge) show.
[[nodiscard]] WatchSample wired_against_cap(const MachineReadings& m,
                                            const std::optional<units::Bytes>& os_default);

// Physical memory minus the binding cap; nullopt when either is unknown.
[[nodiscard]] std::optional<units::Bytes> headroom(const StatusReadings& s);

// `mark` turns a source into its footnote ("[2]"); empty marks when it is not given.
[[nodiscard]] MemoryPicture memory_picture(
    const StatusReadings& s, const std::function<std::string(const std::string&)>& mark = {});

}  // namespace wiredcap::cli
