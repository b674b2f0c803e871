// What a model needs against what the cap allows now, side by side: both in whole MiB (the need
// rounded up, the cap down, so the difference never reads smaller than it is), each with its
// source, and as two bars of physical memory drawn like status's picture.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

struct NeedVsCap {
    units::Bytes need;
    std::optional<units::Bytes> cap;  // the cap in force now, when known
    std::string cap_source;           // where it was read, or why it is unknown
    std::optional<units::Bytes> memsize;
};

// "164113 MiB needed, 161792 MiB allowed now: 2321 MiB short"; then, with memory known, the
// two bars ("need", "cap now"), each a row `width` wide at most.
[[nodiscard]] std::string need_vs_cap_text(const NeedVsCap& n);
[[nodiscard]] std::vector<std::string> need_vs_cap_bars(const NeedVsCap& n, std::size_t width,
                                                        cli::Glyphs g);

}  // namespace wiredcap::fit
