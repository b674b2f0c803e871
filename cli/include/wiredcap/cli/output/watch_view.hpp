// What `wiredcap watch` shows of one sample: wired memory against the cap in force, its peak,
// a sparkline of the samples so far, and a warning when wired memory nears the cap. Pure: the
// rounding and the warning's rule are unit-tested.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// The warning's margin: wired memory within a tenth of the cap (or above it). Wired memory is
// system-wide, the GPU's share and the kernel's: at the margin a loading model is close to
// what the cap lets it wire.
inline constexpr std::uint64_t kNearCapTenths = 9;

struct WatchSample {
    std::optional<units::MiB> wired;  // rounded up
    std::optional<units::MiB> cap;    // rounded down
};

// Wired memory as a percentage of the cap, rounded up (never shown further from the cap).
[[nodiscard]] std::optional<std::uint64_t> percent_of_cap(const WatchSample& s);

// "wired memory is within 10% of the cap: 6144 MiB (6.00 GiB, 6.44 GB) left", or at or
// above it; nullopt when it is not near, or a figure is unknown.
[[nodiscard]] std::optional<std::string> near_cap_warning(const WatchSample& s);

// One line per sample, for a pipe or a dumb terminal:
// "+4s wired 92160 MiB of the cap 98304 MiB (94%), peak 92160 MiB".
[[nodiscard]] std::string sample_line(std::chrono::seconds elapsed, const WatchSample& s,
                                      std::optional<units::MiB> peak);

// The gauge of wired memory against the cap in force, no wider than `width` columns: `watch`
// draws it and so does a ramp's countdown, from this one function. The widest that fits of
// "wired |####======| 94% of cap" (the bar is the cap, filled to wired memory, rounded up),
// "wired 94% of cap" and "wired 94%"; empty when none does. Unknown: "?" for the figure.
[[nodiscard]] std::string cap_gauge(const WatchSample& s, std::size_t width, Glyphs g);

// The last samples' wired memory against the cap, one character each, oldest first, at most
// `cells` of them (each rounded up to its level; '?' for an unknown one).
[[nodiscard]] std::string sparkline(const std::deque<std::optional<units::MiB>>& wired,
                                    std::optional<units::MiB> cap, std::size_t cells, Glyphs g);

}  // namespace wiredcap::cli
