#include "wiredcap/units/parse.hpp"

#include <limits>
#include <utility>
#include <vector>

#include "u128.hpp"

#include "wiredcap/units/format.hpp"

namespace wiredcap::units {
namespace {

using detail::u128;

constexpr std::size_t kMaxQuotedInput = 48;
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Ends every refusal of a size: what is accepted, with an example, so that no message leaves
// the writer guessing.
std::string accepted_forms() {
    return "write digits and a unit (" + std::string(kAcceptedUnitList) +
           ", case-sensitive), e.g. 96GiB";
}

// `tail` (a "did you mean") goes last, after the accepted forms.
Error fail(std::string_view text, const std::string& why, const std::string& tail = {}) {
    return Error{quote_input(text) + ": " + why + "; " + accepted_forms() + tail};
}

// For a misspelt unit, the accepted units that start with the same letter, in any case:
// "KB" -> "kB or KiB", "mb" -> "MB or MiB".
std::string unit_suggestion(std::string_view bad) {
    if (bad.empty()) return {};
    const char first = static_cast<char>(bad[0] | 0x20);  // ASCII lower case
    std::vector<std::string_view> near;
    for (const auto& i : kSizeUnits)
        if (i.unit != SizeUnit::bytes && static_cast<char>(i.symbol[0] | 0x20) == first)
            near.push_back(i.symbol);
    if (near.empty()) return {};
    std::string s = "; did you mean ";
    for (std::size_t k = 0; k < near.size(); ++k)
        s += (k == 0 ? "" : " or ") + std::string(near[k]);
    return s + "?";
}

// The first problem with the characters of `text`, before any number is read.
std::optional<std::string> character_problem(std::string_view text) {
    if (text.empty()) return "empty size";
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x80)
            return "only ASCII digits 0-9 and a unit are accepted (found a non-ASCII byte)";
        if (u < 0x20 || u == 0x7f)
            return "control characters (tabs and newlines too) are not accepted";
    }
    if (is_space(text.front()) || is_space(text.back()))
        return "leading or trailing whitespace is not accepted";
    if (text[0] == '-' || text[0] == '+') return "a size has no sign";
    if (text[0] == '.') return "a decimal point needs a digit before it, e.g. 0.5GiB";
    if (!is_digit(text[0])) return "a size is digits then a unit";
    if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        return "hexadecimal is not accepted; write decimal digits";
    if (text.size() > 1 && text[0] == '0' && is_digit(text[1]))
        return "leading zeros are not accepted (a leading 0 reads as octal elsewhere)";
    return std::nullopt;
}

// The problem with what follows the digits, when it is a number-format mistake rather than a
// unit: separators, exponents, a dangling point.
std::optional<std::string> after_digits_problem(std::string_view rest) {
    if (rest.size() >= 2 && (rest[0] == ',' || rest[0] == '_' || rest[0] == '\'') &&
        is_digit(rest[1]))
        return "digit separators are not accepted; write the digits together, e.g. 1000MiB";
    if (rest.size() >= 2 && (rest[0] == 'e' || rest[0] == 'E') &&
        (is_digit(rest[1]) || rest[1] == '+' || rest[1] == '-'))
        return "exponent notation is not accepted; write all the digits";
    if (!rest.empty() && rest[0] == '.')
        return "a decimal point needs digits on both sides, e.g. 1.5GiB";
    return std::nullopt;
}

// The writer's own number with MiB appended, for the "no unit" hint; a short stand-in when
// the number is too long to repeat.
std::string example_mib(std::string_view number) {
    return (number.size() <= 24 ? std::string(number) : std::string("237568")) + "MiB";
}

u128 gcd(u128 a, u128 b) {
    while (b != 0) a = std::exchange(b, a % b);
    return a;
}

std::size_t count_digits(std::string_view s, std::size_t from) {
    std::size_t i = from;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i - from;
}

// The text of a decimal number num / 10^scale, exact.
std::string decimal_text(u128 num, std::size_t scale) {
    std::string digits;
    do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(num % 10)));
        num /= 10;
    } while (num != 0);
    if (scale == 0) return digits;
    if (digits.size() <= scale) digits.insert(digits.begin(), scale + 1 - digits.size(), '0');
    digits.insert(digits.end() - static_cast<std::ptrdiff_t>(scale), '.');
    return digits;
}

// The exact value, "221252.44140625": every unit is 2^a * 5^b bytes, so the decimal ends. Only
// an expansion longer than 20 digits (possible in GiB and TiB, never in MiB) is cut, not rounded,
// and marked "..." (ASCII: the message may travel through JSON and logs).
std::string exact_or_cut_decimal(Bytes b, SizeUnit unit) {
    constexpr std::size_t kMaxDecimals = 20;
    std::string s = exact_decimal(b, unit);
    const auto dot = s.find('.');
    if (dot == std::string::npos || s.size() <= dot + 1 + kMaxDecimals) return s;
    return s.substr(0, dot + 1 + kMaxDecimals) + "...";
}

std::optional<SizeUnit> binary_twin(SizeUnit u) {
    switch (u) {
        case SizeUnit::kilobytes: return SizeUnit::kibibytes;
        case SizeUnit::megabytes: return SizeUnit::mebibytes;
        case SizeUnit::gigabytes: return SizeUnit::gibibytes;
        case SizeUnit::terabytes: return SizeUnit::tebibytes;
        default: return std::nullopt;
    }
}

// For a decimal unit asked for in a binary one, what the two units are. No value is suggested:
// the same digits in the binary unit (232000MB -> 232000MiB, 232GB -> 232GiB) is the GB x 1000
// slip itself, and the nearest whole values already say exactly what the size is.
std::string unit_note(const ParsedSize& p, SizeUnit target) {
    const auto twin = binary_twin(p.unit);
    if (!twin || info(target).family != Family::binary) return {};
    return "; a " + std::string(info(p.unit).symbol) + " is " + std::to_string(info(p.unit).bytes) +
           " B, a " + std::string(info(*twin).symbol) + " " + std::to_string(info(*twin).bytes) +
           " B";
}

}  // namespace

std::string quote_input(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "'";
    const std::size_t shown = text.size() > kMaxQuotedInput ? kMaxQuotedInput : text.size();
    for (std::size_t i = 0; i < shown; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\\' || c == '\'') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 0xf];
        }
    }
    out += "'";
    if (shown < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
    return out;
}

Expected<ParsedSize> parse_size(std::string_view text) {
    if (auto why = character_problem(text)) return fail(text, *why);

    const std::size_t int_digits = count_digits(text, 0);
    std::size_t pos = int_digits;
    std::size_t frac_digits = 0;
    if (pos < text.size() && text[pos] == '.' && pos + 1 < text.size() && is_digit(text[pos + 1])) {
        frac_digits = count_digits(text, pos + 1);
        pos += 1 + frac_digits;
    }
    std::string_view rest = text.substr(pos);
    if (auto why = after_digits_problem(rest)) return fail(text, *why);

    if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    if (!rest.empty() && is_space(rest[0]))
        return fail(text, "at most one space between the number and the unit");
    if (rest.empty())
        return fail(text,
                    "no unit; a unit is never guessed (iogpu.wired_limit_mb counts MiB, e.g. " +
                        example_mib(text.substr(0, pos)) + ")");
    const auto unit = unit_from_symbol(rest);
    if (!unit) return fail(text, "unknown unit " + quote_input(rest), unit_suggestion(rest));

    // The value is mantissa / 10^frac_digits units, with trailing fraction zeros dropped.
    std::string_view frac = text.substr(int_digits + 1, frac_digits);
    while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
    if (int_digits > 20 || int_digits + frac.size() > 38)
        return fail(text, "too large or too precise: a size must be at most " +
                              std::to_string(kU64Max) + " B (16 EiB) and a whole number of bytes");
    u128 mantissa = 0;
    for (char c : text.substr(0, int_digits))
        mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
    for (char c : frac) mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
    if (mantissa > kU64Max && frac.empty())
        return fail(text,
                    "too large: a size must be at most " + std::to_string(kU64Max) + " B (16 EiB)");

    // bytes = mantissa * unit / 10^f. Cancel the common factor of unit and 10^f first, so the
    // product is only formed when the quotient is whole, and check it against 64 bits.
    u128 pow10 = 1;
    for (std::size_t i = 0; i < frac.size(); ++i) pow10 *= 10;
    const u128 unit_bytes = info(*unit).bytes;
    const u128 common = gcd(unit_bytes, pow10);
    const u128 denominator = pow10 / common;
    const u128 factor = unit_bytes / common;
    if (mantissa % denominator != 0) {
        std::string why = "not a whole number of bytes";
        if (mantissa <= kU64Max)
            why += " (it is " + decimal_text(mantissa * unit_bytes, frac.size()) + " B)";
        return fail(text, why);
    }
    const u128 whole = mantissa / denominator;
    if (whole > kU64Max / factor)
        return fail(text,
                    "too large: a size must be at most " + std::to_string(kU64Max) + " B (16 EiB)");
    const u128 bytes = whole * factor;
    return ParsedSize{*Bytes::from_count(static_cast<std::uint64_t>(bytes)), *unit,
                      frac_digits != 0};
}

Expected<std::uint64_t> parse_count_in(std::string_view text, SizeUnit target) {
    auto parsed = parse_size(text);
    if (!parsed) return parsed.error();
    const Bytes b = parsed->bytes;
    const std::uint64_t ub = info(target).bytes;
    if (b.count() % ub == 0) return b.count() / ub;

    const std::string sym(info(target).symbol);
    const std::uint64_t below = b.count() / ub;
    std::string msg = quote_input(text) + " = " + exact_or_cut_decimal(b, target) + " " + sym +
                      ", not a whole number of " + sym + "; the nearest whole values are " +
                      std::to_string(below) + sym;
    if (below < kU64Max / ub) msg += " and " + std::to_string(below + 1) + sym;
    return Error{msg + unit_note(*parsed, target)};
}

}  // namespace wiredcap::units
