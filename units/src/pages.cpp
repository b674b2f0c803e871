#include "wiredcap/units/pages.hpp"

#include "wiredcap/units/format.hpp"
#include "wiredcap/units/size_unit.hpp"

namespace wiredcap::units {
namespace {

// A whole figure as is, anything else cut to two decimals: "108000", "105.46".
std::string figure(Bytes b, SizeUnit unit) {
    const std::uint64_t u = info(unit).bytes;
    if (b.count() % u == 0) return std::to_string(b.count() / u);
    return truncated_decimal(b, unit, 2);
}

}  // namespace

std::string describe(Pages p) {
    const Bytes b = p.to_bytes();
    return std::to_string(p.count()) + " pages of " + std::to_string(p.page_size().bytes() / 1024) +
           " KiB (" + figure(b, SizeUnit::mebibytes) + " MiB, " + figure(b, SizeUnit::gibibytes) +
           " GiB)";
}

std::string describe(Bytes b, PageSize size) {
    const Pages whole = floor_pages(b, size);
    const std::uint64_t rest = b.count() - whole.to_bytes().count();
    return describe(whole) + (rest != 0 ? " + " + std::to_string(rest) + " bytes" : "");
}

}  // namespace wiredcap::units
