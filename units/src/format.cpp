#include "wiredcap/units/format.hpp"

#include <stdexcept>
#include <string>

#include "u128.hpp"

namespace wiredcap::units {
namespace {

using detail::u128;

std::string u128_to_string(u128 v) {
    if (v == 0) return "0";
    std::string s;
    while (v != 0) {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    }
    return s;
}

enum class Rounding { down, up };

// `bytes` in `unit` with `decimals` places, rounded as asked: the two public forms differ only
// in this. b * 10^18 < 2^124, so b + u cannot overflow.
std::string fixed_decimal(Bytes bytes, SizeUnit unit, unsigned decimals, Rounding how,
                          const char* name) {
    if (decimals > 18) throw std::invalid_argument(std::string(name) + ": at most 18 decimals");
    u128 scale = 1;
    for (unsigned i = 0; i < decimals; ++i) scale *= 10;
    const u128 u = info(unit).bytes;
    const u128 b = static_cast<u128>(bytes.count()) * scale;
    const u128 scaled = how == Rounding::down ? b / u : (b + u - 1) / u;
    std::string out = u128_to_string(scaled / scale);
    if (decimals == 0) return out;
    std::string frac = u128_to_string(scaled % scale);
    frac.insert(frac.begin(), decimals - frac.size(), '0');
    return out + "." + frac;
}

}  // namespace

std::string exact_decimal(Bytes bytes, SizeUnit unit) {
    const std::uint64_t u = info(unit).bytes;
    std::string out = std::to_string(bytes.count() / u);
    std::uint64_t r = bytes.count() % u;
    if (r == 0) return out;
    out += '.';
    // u is 2^a * 5^b with a, b <= 40, so the expansion ends within 40 digits; r * 10 < 2^44.
    while (r != 0) {
        r *= 10;
        out += static_cast<char>('0' + r / u);
        r %= u;
    }
    return out;
}

std::string rounded_up_decimal(Bytes bytes, SizeUnit unit, unsigned decimals) {
    return fixed_decimal(bytes, unit, decimals, Rounding::up, "rounded_up_decimal");
}

std::string truncated_decimal(Bytes bytes, SizeUnit unit, unsigned decimals) {
    return fixed_decimal(bytes, unit, decimals, Rounding::down, "truncated_decimal");
}

// Two decimals, cut; a nonzero size too small for them gets as many more as show its first
// digit (1 MiB is 0.0009 GiB), never "0.00": that reads as nothing where something is. Still
// cut, so the figure is never above the size, and it parses back.
static std::string two_decimals(Bytes b, SizeUnit unit) {
    unsigned decimals = 2;
    std::string cut = truncated_decimal(b, unit, decimals);
    while (b.count() != 0 && cut.find_first_not_of("0.") == std::string::npos && decimals < 9)
        cut = truncated_decimal(b, unit, ++decimals);
    return cut;
}

std::string describe(MiB mib) {
    const Bytes b = mib;
    return to_string(mib) + " (" + two_decimals(b, SizeUnit::gibibytes) + " GiB, " +
           two_decimals(b, SizeUnit::gigabytes) + " GB)";
}

}  // namespace wiredcap::units
