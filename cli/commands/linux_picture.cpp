#include "wiredcap/cli/commands/linux_picture.hpp"

#include "wiredcap/units/casts.hpp"

namespace wiredcap::cli {
namespace {

using units::Bytes;
using units::MiB;

// A byte reading as a figure: limits and sizes rounded down (a cap never shown higher).
template <class T, class ToBytes>
Figure reading(const kernel::Sourced<T>& s, ToBytes to_bytes) {
    if (!s.value) return {std::nullopt, "", s.note.empty() ? s.source : s.note, ""};
    return {units::floor_cast<MiB>(to_bytes(*s.value)), "reading", "", ""};
}

Bytes itself(Bytes b) { return b; }
Bytes of_pages(const units::Pages& p) { return p.to_bytes(); }

}  // namespace

MemoryPicture linux_memory_picture(const kernel::TtmReadings& r,
                                   const Expected<linux_amd::TtmBand>& band,
                                   const Expected<std::optional<MiB>>& hang_ceiling) {
    MemoryPicture p;
    p.total = reading(r.mem_total, itself);
    p.wired = {std::nullopt, "", "Linux has no system-wide wired figure for the GPU", ""};
    p.cap = reading(r.pages_limit, of_pages);
    p.cap_by = "pages_limit";
    if (r.mem_total.value && r.pages_limit.value) {
        const auto room = checked_sub(*r.mem_total.value, r.pages_limit.value->to_bytes());
        if (room) p.headroom = {units::floor_cast<MiB>(*room), "computed", "", ""};
        else p.headroom = {std::nullopt, "", "pages_limit is above MemTotal", ""};
    } else {
        p.headroom = {std::nullopt, "", "a term is unknown", ""};
    }
    p.also.push_back({"GTT (amdgpu)", reading(r.gtt_total, itself)});
    p.also.push_back({"KFD memory bank", reading(r.kfd_mem_bank, itself)});
    if (band) {
        // The reserve is marked where it starts, counted from the top: rounded up, so the mark
        // never sits above where the reserve begins.
        const auto reserve = units::ceil_cast<MiB>(band->reserve.to_bytes());
        if (reserve) p.reserve = Figure{*reserve, "claim", "", ""};
        p.band_top = Figure{units::floor_cast<MiB>(band->high.to_bytes()), "claim", "", ""};
    }
    if (!hang_ceiling) p.hang_ceiling = Figure{std::nullopt, "", "the journal is unreadable", ""};
    else if (*hang_ceiling) p.hang_ceiling = Figure{**hang_ceiling, "claim", "", ""};
    return p;
}

}  // namespace wiredcap::cli
