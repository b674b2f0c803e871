#include "wiredcap/linux/band.hpp"

#include <algorithm>

#include "wiredcap/units/literals.hpp"

namespace wiredcap::linux_amd {

using namespace units::literals;

std::optional<TtmBand> ttm_band(units::Bytes mem_total, units::PageSize page_size) {
    const units::Pages all = units::floor_pages(mem_total, page_size);
    const units::Pages low = *units::Pages::from_count(all.count() / 2, page_size);
    // 3/16 rounded up (more reserve, never less); mem_total < 2^64 so / 16 first cannot overflow.
    const std::uint64_t b = mem_total.count();
    const std::uint64_t share = b / 16 * 3 + (b % 16 * 3 + 15) / 16;
    const units::Bytes reserve = std::max(units::Bytes(4_GiB), *units::Bytes::from_count(share));
    const auto room = checked_sub(mem_total, reserve);
    if (!room) return std::nullopt;
    const units::Pages high = units::floor_pages(*room, page_size);
    if (high <= low) return std::nullopt;
    return TtmBand{low, high, reserve};
}

}  // namespace wiredcap::linux_amd
