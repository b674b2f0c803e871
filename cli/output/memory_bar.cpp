#include "wiredcap/cli/output/memory_bar.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "wiredcap/cli/output/text_wrap.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

struct GlyphSet {
    const char* wired;
    const char* cap;
    const char* headroom;
    const char* unknown;
};

GlyphSet glyph_set(Glyphs g) {
    if (g == Glyphs::blocks) return {"\u2588", "\u2592", "\u2591", "?"};
    return {"#", "=", ".", "?"};
}

// Cells [0, n) of `cells` that hold any of [0, value): value * cells / total, rounded up.
std::size_t cells_holding(MiB total, MiB value, std::size_t cells) {
    if (value >= total) return cells;
    const std::uint64_t scaled = value.count() * cells;
    return static_cast<std::size_t>((scaled + total.count() - 1) / total.count());
}

std::string figure_text(const Figure& f) {
    std::string text =
        f.value
            ? units::describe(*f.value) + " " + f.kind
            : "unknown (" + (f.why_unknown.empty() ? std::string("not read") : f.why_unknown) + ")";
    return f.mark.empty() ? text : text + " " + f.mark;
}

// "  # wired now" padded to the table's value column (31), then the figure.
std::string legend_line(std::string_view glyph, const std::string& label, const Figure& f) {
    std::string head = "  " + std::string(glyph) + " " + label;
    const std::size_t w = display_width(head);
    head += std::string(w < 31 ? 31 - w : 1, ' ');
    return head + figure_text(f);
}

// The row under the bar: each limit's letter in its column; a second limit in a column already
// marked moves left (toward the safe side), never right.
std::string mark_row(const MemoryPicture& p, std::size_t cells) {
    std::string row(cells, ' ');
    const MiB total = *p.total.value;
    const auto place = [&](const std::optional<Figure>& f, char letter, bool from_top) {
        if (!f || !f->value) return;
        MiB at = *f->value;
        if (from_top)
            at = *f->value < total ? MiB::from_count_or_throw(total.count() - f->value->count())
                                   : MiB::zero();
        for (std::size_t col = limit_column(total, at, cells) + 1; col-- > 0;)
            if (row[col] == ' ') {
                row[col] = letter;
                return;
            }
    };
    place(p.hang_ceiling, '!', false);
    place(p.band_top, '^', false);
    place(p.reserve, 'R', true);
    const auto end = row.find_last_not_of(' ');
    return end == std::string::npos ? std::string() : row.substr(0, end + 1);
}

}  // namespace

Glyphs choose_glyphs(bool is_terminal, const char* term, const char* locale) {
    if (!is_terminal || term == nullptr || std::string_view(term).empty() ||
        std::string_view(term) == "dumb")
        return Glyphs::ascii;
    const std::string_view loc = locale == nullptr ? "" : locale;
    const bool utf8 = loc.find("UTF-8") != std::string_view::npos ||
                      loc.find("utf-8") != std::string_view::npos ||
                      loc.find("UTF8") != std::string_view::npos ||
                      loc.find("utf8") != std::string_view::npos;
    return utf8 ? Glyphs::blocks : Glyphs::ascii;
}

Glyphs glyphs_for(int fd) {
    // The locale that decides the character set: LC_ALL, else LC_CTYPE, else LANG (POSIX order).
    const char* locale = nullptr;
    for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"})
        if (const char* v = std::getenv(name); v != nullptr && *v != '\0') {
            locale = v;
            break;
        }
    return choose_glyphs(::isatty(fd) != 0, std::getenv("TERM"), locale);
}

std::size_t limit_column(MiB total, MiB limit, std::size_t cells) {
    if (cells == 0) return 0;
    if (limit >= total) return cells - 1;
    return static_cast<std::size_t>(limit.count() * cells / total.count());
}

std::string bar_cells(MiB total, std::optional<MiB> wired, std::optional<MiB> cap,
                      std::size_t cells, Glyphs g) {
    const GlyphSet gs = glyph_set(g);
    if (total.count() == 0) return std::string(cells, '?');
    const std::size_t w = wired ? cells_holding(total, *wired, cells) : 0;
    const std::size_t c = cap ? cells_holding(total, *cap, cells) : cells;
    std::string out;
    for (std::size_t i = 0; i < cells; ++i) {
        if (!wired && i == 0) out += gs.unknown;  // wired unknown: a '?' where it would start
        else if (i < w) out += gs.wired;
        else if (!cap) out += gs.unknown;
        else out += i < c ? gs.cap : gs.headroom;
    }
    return out;
}

std::vector<std::string> render_picture(const MemoryPicture& p, std::size_t width, Glyphs g) {
    if (!p.total.value || p.total.value->count() == 0)
        return {"memory picture: none, physical memory is " + figure_text(p.total)};
    const GlyphSet gs = glyph_set(g);
    const std::size_t cells = (width < 20 ? 20 : width) - 4;
    std::vector<std::string> lines;
    lines.push_back("memory picture (physical memory in " + std::to_string(cells) +
                    " columns; in use rounded up, limits down):");
    lines.push_back("  [" + bar_cells(*p.total.value, p.wired.value, p.cap.value, cells, g) + "]");
    if (const std::string marks = mark_row(p, cells); !marks.empty())
        lines.push_back("   " + marks);
    lines.push_back(legend_line(" ", "physical memory", p.total));
    lines.push_back(legend_line(gs.wired, "wired now", p.wired));
    lines.push_back(legend_line(gs.cap, "GPU cap (" + p.cap_by + ")", p.cap));
    for (const auto& [label, figure] : p.also) lines.push_back(legend_line(" ", label, figure));
    lines.push_back(legend_line(gs.headroom, "headroom left to the OS", p.headroom));
    if (p.reserve) lines.push_back(legend_line("R", "reserve for the OS", *p.reserve));
    if (p.band_top) lines.push_back(legend_line("^", "band top", *p.band_top));
    if (p.hang_ceiling) lines.push_back(legend_line("!", "hang ceiling", *p.hang_ceiling));
    return lines;
}

}  // namespace wiredcap::cli
