#include "wiredcap/units/duration.hpp"

#include <string>

#include "wiredcap/units/parse.hpp"

namespace wiredcap::units {

Expected<std::chrono::seconds> parse_duration(std::string_view text) {
    const std::string q = quote_input(text);
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0) return Error{q + ": a duration is digits and a unit, e.g. 60s or 2m"};
    if (digits > 6 || (digits > 1 && text[0] == '0'))
        return Error{q + ": write the number plainly, e.g. 90s"};
    const std::string_view unit = text.substr(digits);
    std::uint64_t n = std::stoull(std::string(text.substr(0, digits)));
    if (unit == "m") n *= 60;
    else if (unit != "s") return Error{q + ": the unit must be s or m (a unit is never guessed)"};
    const std::chrono::seconds d{static_cast<std::chrono::seconds::rep>(n)};
    if (d.count() == 0) return Error{q + ": must be at least 1s"};
    if (d > kMaxDuration) return Error{q + ": at most 24 hours"};
    return d;
}

}  // namespace wiredcap::units
