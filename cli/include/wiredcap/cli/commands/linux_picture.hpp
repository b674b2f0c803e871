// The picture of memory (output/memory_bar.hpp) for a Linux AMD APU: MemTotal split by TTM's
// pages_limit in force (the GPU's cap there), the headroom left to the OS, the band's reserve
// and top and any hang ceiling marked, and the driver's own figures (GTT, KFD's bank) in the
// legend. Linux has no system-wide wired figure: wired now is unknown, and said so.
#pragma once

#include <optional>

#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/kernel/ttm.hpp"
#include "wiredcap/linux/band.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

[[nodiscard]] MemoryPicture linux_memory_picture(
    const kernel::TtmReadings& r, const Expected<linux_amd::TtmBand>& band,
    const Expected<std::optional<units::MiB>>& hang_ceiling);

}  // namespace wiredcap::cli
