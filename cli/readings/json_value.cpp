#include "wiredcap/cli/readings/json_value.hpp"

#include <limits>
#include <set>
#include <vector>

namespace wiredcap::json {
namespace {

// Thrown from the parser callback to stop at the first structure wiredcap refuses.
struct Refused {
    std::string why;
};

// The library's message quotes what it read; escape every byte outside printable ASCII, so that
// the message is safe on a terminal whatever the line held.
std::string printable(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (const char ch : text) {
        const auto u = static_cast<unsigned char>(ch);
        if (u >= 0x20 && u < 0x7f) {
            out += ch;
        } else {
            out += "\\x";
            out += kHex[u >> 4];
            out += kHex[u & 0xf];
        }
    }
    return out;
}

}  // namespace

Expected<Value> parse(std::string_view text) {
    if (text.size() > kMaxText)
        return Error{"JSON text of " + std::to_string(text.size()) +
                     " bytes is over the limit of " + std::to_string(kMaxText)};
    // Two things nlohmann accepts and RFC 8259 does not: a NUL ends its input (so "1\0junk" would
    // read as 1), and a leading byte-order mark is skipped. Neither is ever in what the helper
    // writes.
    if (const auto nul = text.find('\0'); nul != std::string_view::npos)
        return Error{"invalid JSON: a NUL byte at byte " + std::to_string(nul)};
    if (text.starts_with("\xef\xbb\xbf")) return Error{"invalid JSON: a byte-order mark"};
    // One set of keys per open object: nlohmann would keep the last of a repeated key silently,
    // and two readers of one line must never see different values.
    std::vector<std::set<std::string>> keys;
    const auto check = [&keys](int depth, nlohmann::json::parse_event_t event, Value& parsed) {
        using E = nlohmann::json::parse_event_t;
        if ((event == E::object_start || event == E::array_start) &&
            static_cast<std::size_t>(depth) >= kMaxDepth)
            throw Refused{"JSON nested deeper than " + std::to_string(kMaxDepth) + " levels"};
        if (event == E::object_start) keys.emplace_back();
        if (event == E::object_end && !keys.empty()) keys.pop_back();
        if (event == E::key && !keys.empty() &&
            !keys.back().insert(parsed.get<std::string>()).second)
            throw Refused{"JSON object repeats the key \"" + printable(parsed.get<std::string>()) +
                          "\""};
        return true;
    };
    try {
        return Value::parse(text.begin(), text.end(), check);
    } catch (const Refused& r) {
        return Error{r.why};
    } catch (const nlohmann::json::exception& e) {
        return Error{"invalid JSON: " + printable(e.what())};
    }
}

const Value* get(const Value& object, std::string_view key) {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

std::optional<bool> as_bool(const Value& v) {
    if (!v.is_boolean()) return std::nullopt;
    return v.get<bool>();
}

std::optional<std::uint64_t> as_u64(const Value& v) {
    if (!v.is_number_unsigned()) return std::nullopt;
    return v.get<std::uint64_t>();
}

std::optional<std::int64_t> as_i64(const Value& v) {
    if (v.is_number_unsigned()) {
        const auto n = v.get<std::uint64_t>();
        if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::nullopt;
        return static_cast<std::int64_t>(n);
    }
    if (!v.is_number_integer()) return std::nullopt;
    return v.get<std::int64_t>();
}

const std::string* as_string(const Value& v) { return v.get_ptr<const std::string*>(); }

}  // namespace wiredcap::json
