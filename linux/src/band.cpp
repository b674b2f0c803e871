#include "wiredcap/linux/band.hpp"

#include "wiredcap/policy/policy.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::linux_amd {
namespace {

using units::Bytes;
using units::Pages;
using units::PageSize;

// MemTotal minus the reserve, in whole pages, rounded down (never toward danger).
std::optional<Pages> room_below(Bytes mem_total, Bytes reserve, PageSize size) {
    const auto room = checked_sub(mem_total, reserve);
    if (!room) return std::nullopt;
    return units::floor_pages(*room, size);
}

// The reserve as whole pages, rounded up (more reserve, never less).
Pages reserve_pages(Bytes reserve, PageSize size) {
    const Pages whole = units::floor_pages(reserve, size);
    if (whole.to_bytes() == reserve) return whole;
    return *Pages::from_count(whole.count() + 1, size);
}

}  // namespace

Expected<Pages> whole_pages(std::string_view what, Bytes b, PageSize size) {
    if (auto exact = units::exact_pages(b, size)) return *exact;
    const Pages below = units::floor_pages(b, size);
    const auto above = Pages::from_count(below.count() + 1, size);
    return Error{std::string(what) + " " + std::to_string(b.count()) +
                 " bytes is not a whole number of " + std::to_string(size.bytes() / 1024) +
                 " KiB pages; the whole pages on either side are " + units::describe(below) +
                 (above ? " and " + units::describe(*above) : std::string())};
}

Expected<TtmBand> builtin_ttm_band(Bytes mem_total, PageSize size) {
    const auto high = room_below(mem_total, Bytes(kReserveFloor), size);
    const auto low = whole_pages("the built-in bottom", Bytes(kBuiltinLow), size);
    if (!low) return low.error();
    if (!high || *high <= *low)
        return Error{"MemTotal " + units::describe(mem_total, size) + " leaves no room above " +
                     units::describe(*low) + " once " + units::describe(kReserveFloor) +
                     " is kept for the OS"};
    return TtmBand{*low,
                   *high,
                   reserve_pages(Bytes(kReserveFloor), size),
                   std::nullopt,
                   std::nullopt,
                   "built-in band (docs/bands.md)",
                   {}};
}

Expected<TtmBand> policy_ttm_band(std::string_view text, std::string_view path, Bytes mem_total,
                                  PageSize size) {
    const std::string where = "policy file " + std::string(path);
    auto p = policy::parse(text, mem_total, kReserveFloor);
    if (!p) return Error{where + ": " + p.error().message};
    auto low = whole_pages("min", Bytes(p->min), size);
    auto high = whole_pages("max", Bytes(p->max), size);
    auto step = whole_pages("max_step", Bytes(p->max_step), size);
    if (!low || !high || !step)
        return Error{where + ": " +
                     (!low    ? low.error()
                      : !high ? high.error()
                              : step.error())
                         .message};
    std::optional<Pages> vouched;
    if (p->vouched) {
        auto v = whole_pages("vouched", Bytes(*p->vouched), size);
        if (!v) return Error{where + ": " + v.error().message};
        vouched = *v;
    }
    // The policy's own reserve, and Linux's floor whatever it says (policy::parse checked both
    // in whole MiB; MemTotal is not, so once more in pages).
    const auto room = room_below(mem_total, Bytes(p->reserve), size);
    if (!room || *high > *room)
        return Error{where + ": max " + units::describe(*high) + " is above MemTotal " +
                     units::describe(mem_total, size) + " minus the reserve " +
                     units::describe(p->reserve)};
    return TtmBand{*low,  *high,      reserve_pages(Bytes(p->reserve), size), *step, vouched,
                   where, p->warnings};
}

Expected<TtmBand> ttm_band(const PolicyText& policy, Bytes mem_total, PageSize size) {
    if (!policy.text)
        return Error{"policy file " + policy.path + ": " + policy.text.error().message};
    if (!*policy.text) return builtin_ttm_band(mem_total, size);
    return policy_ttm_band(**policy.text, policy.path, mem_total, size);
}

std::optional<std::string> band_refusal(const TtmBand& band, const Pages& want,
                                        std::optional<Pages> current) {
    if (want.page_size() != band.low.page_size())
        return "the band and the value are in different page sizes";
    if (want < band.low || want > band.high)
        return units::describe(want) + " is outside the band " + units::describe(band.low) +
               " to " + units::describe(band.high) + " (" + band.source + ", a reserve of " +
               units::describe(band.reserve) + " kept for the OS)";
    if (!band.max_step || (band.vouched && want == *band.vouched)) return std::nullopt;
    // From the value in force, never from below the band's bottom (everything up to it is
    // permitted anyway); unknown, from the bottom.
    Pages base = current && current->page_size() == want.page_size() && *current > band.low
                     ? *current
                     : band.low;
    if (want <= base || want.count() - base.count() <= band.max_step->count()) return std::nullopt;
    return "raising from " + units::describe(base) + " to " + units::describe(want) +
           " is more than max_step " + units::describe(*band.max_step) + " (" + band.source + ")";
}

}  // namespace wiredcap::linux_amd
