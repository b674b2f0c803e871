// The built-in band for TTM's pages_limit, in pages of the running kernel's page size.
//
//   low   the kernel's own default: half of RAM. ttm_global_init (drivers/gpu/drm/ttm/
//         ttm_device.c) takes si_meminfo's totalram (MemTotal), in pages, and halves it.
//   high  MemTotal minus a reserve of max(4 GiB, 3/16 of MemTotal), rounded down to a page.
//         4 GiB is the floor for the kernel and everything that is not GPU memory (a non-CMA
//         guard: nothing in TTM keeps it, ttm_tt_populate only compares against the limit).
//         3/16: on a 128 GB Strix Halo (MemTotal about 125.6 GiB) it gives 102.1 GiB, below
//         the 108000 MiB owners run stably and the 110 GB at which they report failed loads,
//         and far below the hang reported at 124 of 125 GiB (docs/linux.md cites the reports).
#pragma once

#include <optional>

#include "wiredcap/units/pages.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::linux_amd {

struct TtmBand {
    units::Pages low;
    units::Pages high;
    units::Bytes reserve;
};

// nullopt when MemTotal leaves no room above the default (below about 10 GiB of RAM).
[[nodiscard]] std::optional<TtmBand> ttm_band(units::Bytes mem_total, units::PageSize page_size);

}  // namespace wiredcap::linux_amd
