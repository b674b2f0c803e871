// A picture of memory for people: one bar of physical memory split into what is wired now, the
// GPU's cap in force and the headroom left to the OS, the limits of a raise marked under it, and
// a legend giving each figure in the table's units with its kind and its source. Pure: the
// rules are unit-tested, and status and watch draw the same bar.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

// Plain ASCII where a terminal may draw nothing else (piped, TERM unset or dumb, no UTF-8
// locale); block characters on a terminal that can. Never colour or escape codes.
enum class Glyphs { ascii, blocks };

// The glyphs for output on `fd`.
[[nodiscard]] Glyphs glyphs_for(int fd);

// The rule itself, from what was found: testable without a terminal.
[[nodiscard]] Glyphs choose_glyphs(bool is_terminal, const char* term, const char* locale);

// One figure of the picture: whole MiB, its kind ("reading": the kernel or Metal now;
// "claim": what a file says, the policy or the journal; "computed": from the others), why it
// is unknown, and its footnote mark ("[3]", or empty).
struct Figure {
    std::optional<units::MiB> value;
    std::string kind;
    std::string why_unknown;
    std::string mark;
};

struct MemoryPicture {
    Figure total;                        // physical memory, rounded down
    Figure wired;                        // wired now, rounded up
    Figure cap;                          // the GPU's cap in force, rounded down
    std::string cap_by;                  // "the knob", "OS default"
    Figure headroom;                     // memory minus the cap, rounded down
    std::optional<Figure> reserve;       // the policy's reserve, marked where it starts
    std::optional<Figure> band_top;      // the policy's max
    std::optional<Figure> hang_ceiling;  // the lowest value that hung, from the journal
    // Other figures of the cap in the legend, not drawn (Linux: the driver's GTT, KFD's bank).
    std::vector<std::pair<std::string, Figure>> also;
};

// The bar's cells alone, `cells` wide: a cell holding any wired memory shows it, and so does a
// cell holding any of the cap (rounded up: never less in use than there is); beyond a cap that
// is unknown, '?'.
[[nodiscard]] std::string bar_cells(units::MiB total, std::optional<units::MiB> wired,
                                    std::optional<units::MiB> cap, std::size_t cells, Glyphs g);

// The column a limit falls in, of `cells` (rounded down: a mark never shows a limit higher).
[[nodiscard]] std::size_t limit_column(units::MiB total, units::MiB limit, std::size_t cells);

// The picture as lines no wider than `width` (at least 20): a heading, the bar, its marks, the
// legend. Physical memory unknown: one line saying so.
[[nodiscard]] std::vector<std::string> render_picture(const MemoryPicture& p, std::size_t width,
                                                      Glyphs g);

}  // namespace wiredcap::cli
