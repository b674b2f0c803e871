#include "wiredcap/policy/policy.hpp"

#include <array>
#include <map>

#include "wiredcap/policy/sha256.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/duration.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"

namespace wiredcap::policy {
namespace {

using units::MiB;

constexpr std::size_t kMaxLine = 1024;
constexpr std::array<std::string_view, 8> kKeys{
    "min", "max", "reserve", "max_step", "group", "healthy_after", "vouched", "vouched_note"};
constexpr std::array<std::string_view, 4> kRequired{"min", "max", "reserve", "max_step"};

struct Entry {
    std::string value;
    std::size_t line;
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

Error at(std::size_t line, const std::string& why) {
    return Error{"line " + std::to_string(line) + ": " + why};
}

std::optional<std::string> line_character_problem(std::string_view line) {
    if (line.size() > kMaxLine) return "longer than " + std::to_string(kMaxLine) + " characters";
    for (const char ch : line) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\r') return "carriage return (save the file with Unix line endings)";
        if (c == 0) return "NUL byte";
        if (c >= 0x80) return "non-ASCII byte (keys and values are ASCII)";
        if ((c < 0x20 && c != '\t') || c == 0x7f) return "control character";
    }
    return std::nullopt;
}

bool known_key(std::string_view k) {
    for (auto key : kKeys)
        if (key == k) return true;
    return false;
}

// Splits the text into key -> (value, line), refusing anything that is not a clean
// `key = value` line, an unknown key, or a key given twice.
Expected<std::map<std::string, Entry>> read_entries(std::string_view text) {
    std::map<std::string, Entry> entries;
    std::size_t line_no = 0;
    while (!text.empty()) {
        ++line_no;
        const auto nl = text.find('\n');
        const std::string_view raw = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        if (auto why = line_character_problem(raw)) return at(line_no, *why);
        const std::string_view line = trim(raw);
        if (line.empty() || line.front() == '#') continue;
        const auto eq = line.find('=');
        if (eq == std::string_view::npos) return at(line_no, "expected 'key = value'");
        const std::string key(trim(line.substr(0, eq)));
        const std::string value(trim(line.substr(eq + 1)));
        if (!known_key(key))
            return at(
                line_no,
                "unknown key " + units::quote_input(key) +
                    "; keys are min, max, reserve, max_step, group, healthy_after, vouched, vouched_note");
        if (value.empty()) return at(line_no, key + " has no value");
        if (auto [it, fresh] = entries.try_emplace(key, Entry{value, line_no}); !fresh)
            return at(line_no, "duplicate key '" + key + "' (first set on line " +
                                   std::to_string(it->second.line) + ")");
    }
    return entries;
}

Expected<MiB> size_entry(const std::map<std::string, Entry>& entries, const std::string& key) {
    const Entry& e = entries.at(key);
    auto v = units::parse_size_as<MiB>(e.value);
    if (!v) return at(e.line, key + ": " + v.error().message);
    return *v;
}

bool valid_group_name(std::string_view g) {
    if (g.empty() || g.size() > 32) return false;
    for (std::size_t i = 0; i < g.size(); ++i) {
        const char c = g[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                        (i > 0 && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
        if (!ok) return false;
    }
    return true;
}

// A bound that is a round thousand of MiB but not a whole GiB is probably GB x 1000 written
// as MiB: 232000MiB is 226.56 GiB, where 232GiB (237568MiB) was meant.
std::optional<std::string> gb_times_1000_warning(const std::string& key, MiB v) {
    if (v.count() == 0 || v.count() % 1000 != 0 || v.count() % 1024 == 0) return std::nullopt;
    const auto meant = MiB::from_count(v.count() / 1000 * 1024);
    std::string w = key + " = " + units::to_string(v) + " is " +
                    units::truncated_decimal(v, units::SizeUnit::gibibytes, 2) + " GiB";
    if (meant)
        w += "; if you meant " + std::to_string(v.count() / 1000) + " GiB, write " +
             std::to_string(v.count() / 1000) + "GiB (" + units::to_string(*meant) + ")";
    return w;
}

Expected<Policy> validate(Policy p, units::Bytes memsize, MiB reserve_floor = kReserveFloor) {
    const MiB ram = units::floor_cast<MiB>(memsize);
    if (p.min.count() == 0)
        return Error{"min must be above 0 MiB (0 is the OS default, not a bound)"};
    if (!(p.min < p.max))
        return Error{"min (" + units::describe(p.min) + ") must be below max (" +
                     units::describe(p.max) + ")"};
    if (p.reserve < reserve_floor)
        return Error{"reserve (" + units::describe(p.reserve) + ") is below the floor of " +
                     units::describe(reserve_floor)};
    const auto usable = checked_sub(ram, p.reserve);
    if (!usable || p.max > *usable)
        return Error{"max (" + units::describe(p.max) + ") is above physical memory (" +
                     units::describe(ram) + ") minus reserve (" + units::describe(p.reserve) + ")"};
    if (p.max_step.count() == 0) return Error{"max_step must be above 0 MiB"};
    if (p.vouched && (*p.vouched < p.min || *p.vouched > p.max))
        return Error{"vouched (" + units::describe(*p.vouched) + ") is outside the band " +
                     units::describe(p.min) + " to " + units::describe(p.max)};
    return p;
}

}  // namespace

Expected<Policy> parse(std::string_view text, units::Bytes memsize, MiB reserve_floor) {
    auto entries = read_entries(text);
    if (!entries) return entries.error();
    for (auto key : kRequired)
        if (!entries->count(std::string(key)))
            return Error{"missing key '" + std::string(key) + "'"};

    auto min = size_entry(*entries, "min");
    if (!min) return min.error();
    auto max = size_entry(*entries, "max");
    if (!max) return max.error();
    auto reserve = size_entry(*entries, "reserve");
    if (!reserve) return reserve.error();
    auto step = size_entry(*entries, "max_step");
    if (!step) return step.error();

    Policy p{*min,         *max, *reserve,     *step, std::nullopt,    kDefaultHealthyAfter,
             Source::file, {},   std::nullopt, {},    sha256_hex(text)};
    if (auto g = entries->find("group"); g != entries->end()) {
        if (!valid_group_name(g->second.value))
            return at(g->second.line, "group " + units::quote_input(g->second.value) +
                                          " is not a valid group name");
        p.group = g->second.value;
    }
    if (auto h = entries->find("healthy_after"); h != entries->end()) {
        auto d = units::parse_duration(h->second.value);
        if (!d) return at(h->second.line, "healthy_after: " + d.error().message);
        if (*d < kMinHealthyAfter) return at(h->second.line, "healthy_after must be at least 60s");
        p.healthy_after = *d;
    }
    if (entries->count("vouched")) {
        auto size = size_entry(*entries, "vouched");
        if (!size) return size.error();
        p.vouched = *size;
    }
    if (auto n = entries->find("vouched_note"); n != entries->end()) {
        if (!p.vouched) return at(n->second.line, "vouched_note without vouched");
        p.vouched_note = n->second.value;
    }
    for (const auto& [key, v] : {std::pair{"min", *min}, std::pair{"max", *max}})
        if (auto w = gb_times_1000_warning(key, v)) p.warnings.push_back(*w);
    return validate(std::move(p), memsize, reserve_floor);
}

MiB builtin_reserve(MiB ram) {
    const std::uint64_t gib = 1024, sixteenth = (ram.count() / 16 + gib - 1) / gib * gib;
    return sixteenth > kBuiltinReserve.count() ? *MiB::from_count(sixteenth) : kBuiltinReserve;
}

Expected<Policy> builtin(units::Bytes memsize) {
    const MiB ram = units::floor_cast<MiB>(memsize);
    if (ram < kBuiltinMinRam)
        return Error{
            "no built-in band on a Mac with " + units::describe(ram) +
            " of memory: raising the cap is unsafe here. The OS default already gives the GPU about"
            " 2/3 of memory, memory minus the 8 GiB reserve is not above that, and a 16 GB Mac has"
            " frozen at the default itself. Use a smaller model or quantization instead (reset still"
            " works; docs/bands.md)"};
    const MiB reserve = builtin_reserve(ram);
    const auto max = checked_sub(ram, reserve);
    const MiB half = *MiB::from_count(ram.count() / 2);
    if (!max || !(half < *max))
        return Error{"no built-in band for " + units::describe(ram) + "; write a policy file"};
    Policy p{half,
             *max,
             reserve,
             kBuiltinMaxStep,
             std::nullopt,
             kDefaultHealthyAfter,
             Source::builtin,
             {},
             std::nullopt,
             {},
             {}};
    return validate(std::move(p), memsize);
}

std::optional<std::string> refusal(const Policy& p, units::Bytes memsize, MiB current, MiB value,
                                   std::optional<MiB> effective) {
    if (value < p.min || value > p.max)
        return units::describe(value) + " is outside the permitted band " + units::describe(p.min) +
               " to " + units::describe(p.max);
    const MiB ram = units::floor_cast<MiB>(memsize);
    // The effective cap is the caller's claim: the GPU's cap can never exceed memory, so a larger
    // claim is false, and taken at its word it would let any value pass as a lowering.
    if (effective && *effective > ram)
        return "the effective cap given, " + units::describe(*effective) +
               ", is more than the machine's memory, " + units::describe(ram) +
               ": the claim is refused";
    const auto usable = checked_sub(ram, p.reserve);
    if (!usable || value > *usable)
        return units::describe(value) + " would leave the OS less than the reserve of " +
               units::describe(p.reserve);
    // From the OS default (0) the step is measured from the effective cap wiredcap read (or was
    // given), which the helper cannot read itself; without one, from the band's floor. Never from
    // below min: every value up to min is permitted anyway.
    if (p.vouched && value == *p.vouched) return std::nullopt;
    MiB base = current.count() == 0 && effective ? *effective : current;
    if (base < p.min) base = p.min;
    if (value > base) {
        const MiB raise = value - base;
        if (raise > p.max_step)
            return "raising from " + units::describe(base) + " to " + units::describe(value) +
                   " is a step of " + units::describe(raise) + ", more than max_step " +
                   units::describe(p.max_step);
    }
    return std::nullopt;
}

std::string vouched_by(const Policy& p, const std::string& path) {
    std::string by = "vouched by the policy file " + path + " (sha256 " + p.sha256 + ")";
    return p.vouched_note.empty() ? by : by + ": " + p.vouched_note;
}

}  // namespace wiredcap::policy
