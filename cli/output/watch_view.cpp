#include "wiredcap/cli/output/watch_view.hpp"

#include <array>
#include <string_view>

#include "wiredcap/units/format.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

std::string mib_text(const std::optional<MiB>& v) { return v ? units::to_string(*v) : "unknown"; }

}  // namespace

std::optional<std::uint64_t> percent_of_cap(const WatchSample& s) {
    if (!s.wired || !s.cap || s.cap->count() == 0) return std::nullopt;
    return (s.wired->count() * 100 + s.cap->count() - 1) / s.cap->count();
}

std::optional<std::string> near_cap_warning(const WatchSample& s) {
    if (!s.wired || !s.cap) return std::nullopt;
    if (*s.wired >= *s.cap)
        return "wired memory is at or above the cap (" + units::to_string(*s.cap) + ")";
    if (s.wired->count() * 10 < s.cap->count() * kNearCapTenths) return std::nullopt;
    const MiB left = MiB::from_count_or_throw(s.cap->count() - s.wired->count());
    return "wired memory is within " + std::to_string(100 - kNearCapTenths * 10) +
           "% of the cap: " + units::describe(left) + " left";
}

std::string sample_line(std::chrono::seconds elapsed, const WatchSample& s,
                        std::optional<MiB> peak) {
    std::string line = "+" + std::to_string(elapsed.count()) + "s wired " + mib_text(s.wired) +
                       " of the cap " + mib_text(s.cap);
    if (const auto pct = percent_of_cap(s)) line += " (" + std::to_string(*pct) + "%)";
    return line + ", peak " + mib_text(peak);
}

std::string cap_gauge(const WatchSample& s, std::size_t width, Glyphs g) {
    const auto pct = percent_of_cap(s);
    const std::string share = (pct ? std::to_string(*pct) : std::string("?")) + "%";
    // "wired |" + cells + "| " + share + " of cap": the bar wants a few cells to say anything.
    constexpr std::size_t kMinCells = 4;
    const std::size_t around = 9 + share.size() + 7;
    if (width >= around + kMinCells) {
        const units::MiB cap = s.cap.value_or(units::MiB::zero());
        return "wired |" + bar_cells(cap, s.wired, s.cap, width - around, g) + "| " + share +
               " of cap";
    }
    for (std::string text : {"wired " + share + " of cap", "wired " + share})
        if (text.size() <= width) return text;
    return {};
}

std::string sparkline(const std::deque<std::optional<MiB>>& wired, std::optional<MiB> cap,
                      std::size_t cells, Glyphs g) {
    static constexpr std::array<std::string_view, 8> kBlocks{
        "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
    static constexpr std::string_view kAscii = "_.-:=+*#";
    std::string out;
    const std::size_t skip = wired.size() > cells ? wired.size() - cells : 0;
    for (std::size_t i = skip; i < wired.size(); ++i) {
        const auto& w = wired[i];
        if (!w || !cap || cap->count() == 0) {
            out += '?';
            continue;
        }
        // Level 1..8 of the cap, rounded up; at or above the cap, the top one.
        std::uint64_t level = (w->count() * 8 + cap->count() - 1) / cap->count();
        level = level == 0 ? 1 : level > 8 ? 8 : level;
        if (g == Glyphs::blocks) out += kBlocks[level - 1];
        else out += kAscii[level - 1];
    }
    return out;
}

}  // namespace wiredcap::cli
