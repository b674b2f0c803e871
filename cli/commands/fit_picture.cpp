#include "wiredcap/cli/commands/fit_picture.hpp"

#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::fit {
namespace {

using units::MiB;

// What a model needs is held memory: whole MiB rounded up (nullopt only past 2^64 bytes).
MiB need_mib(const NeedVsCap& n) { return units::ceil_cast<MiB>(n.need).value_or(MiB::max()); }

}  // namespace

std::string need_vs_cap_text(const NeedVsCap& n) {
    const MiB need = need_mib(n);
    std::string text = units::to_string(need) + " needed";
    if (!n.cap) return text + "; the cap now is unknown";
    const MiB cap = units::floor_cast<MiB>(*n.cap);
    text += ", " + units::to_string(cap) + " allowed now: ";
    if (need > cap)
        return text + units::to_string(MiB::from_count_or_throw(need.count() - cap.count())) +
               " short";
    return text + units::to_string(MiB::from_count_or_throw(cap.count() - need.count())) +
           " to spare";
}

std::vector<std::string> need_vs_cap_bars(const NeedVsCap& n, std::size_t width, cli::Glyphs g) {
    if (!n.memsize) return {};
    const MiB total = units::floor_cast<MiB>(*n.memsize);
    if (total.count() == 0) return {};
    // "  need        [" and "]": the bars start under fit's value column (16).
    const std::size_t cells = (width < 40 ? 40 : width) - 18;
    const MiB need = need_mib(n);
    std::vector<std::string> rows{"  need          [" +
                                  cli::bar_cells(total, need, need, cells, g) + "]"};
    // The cap is what the need must fit under: only whole cells below it are drawn (rounded
    // down), so a need a little over the cap never looks as if it fits.
    std::optional<MiB> cap_drawn;
    if (n.cap) {
        const std::uint64_t whole = units::floor_cast<MiB>(*n.cap).count() * cells / total.count();
        cap_drawn = MiB::from_count_or_throw(whole * total.count() / cells);
    }
    rows.push_back("  cap now       [" + cli::bar_cells(total, MiB::zero(), cap_drawn, cells, g) +
                   "]");
    return rows;
}

}  // namespace wiredcap::fit
