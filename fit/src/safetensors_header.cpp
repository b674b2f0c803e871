#include "wiredcap/fit/safetensors_header.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "wiredcap/fit/printable.hpp"
#include <optional>
#include <string_view>
#include <vector>

namespace wiredcap::fit {
namespace {

using nlohmann::json;

Error bad(const std::string& what) { return Error{"not a valid safetensors file: " + what}; }

// Bytes per element of each safetensors dtype; nullopt for a dtype the format does not define.
std::optional<std::uint64_t> dtype_bytes(std::string_view d) {
    struct Entry {
        std::string_view name;
        std::uint64_t bytes;
    };
    constexpr std::array<Entry, 17> table{{
        {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"F8_E8M0", 1},
        {"I16", 2}, {"U16", 2}, {"F16", 2}, {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},
        {"I64", 8}, {"U64", 8}, {"F64", 8}, {"C64", 8},
    }};
    for (const auto& e : table)
        if (e.name == d) return e.bytes;
    return std::nullopt;
}

struct Extent {
    std::uint64_t begin;
    std::uint64_t end;
};

// One tensor's entry: its byte range, after checking that the shape says the same size.
Expected<Extent> tensor_extent(const std::string& name, const json& t) {
    if (!t.is_object()) return bad("tensor '" + printable(name) + "' is not an object");
    const auto dtype = t.find("dtype");
    const auto shape = t.find("shape");
    const auto offsets = t.find("data_offsets");
    if (dtype == t.end() || !dtype->is_string() || shape == t.end() || !shape->is_array() || offsets == t.end() ||
        !offsets->is_array() || offsets->size() != 2)
        return bad("tensor '" + printable(name) + "' lacks dtype, shape or data_offsets");
    const auto bytes = dtype_bytes(dtype->get_ref<const std::string&>());
    if (!bytes) return bad("tensor '" + printable(name) + "' has unknown dtype " + printable(dtype->get_ref<const std::string&>()));
    std::uint64_t size = *bytes;
    for (const auto& d : *shape) {
        if (!d.is_number_unsigned()) return bad("tensor '" + printable(name) + "' has a shape that is not whole numbers");
        const auto n = d.get<std::uint64_t>();
        if (n != 0 && size > UINT64_MAX / n) return bad("tensor '" + printable(name) + "' is too large");
        size *= n;
    }
    const auto& b = (*offsets)[0];
    const auto& e = (*offsets)[1];
    if (!b.is_number_unsigned() || !e.is_number_unsigned()) return bad("tensor '" + printable(name) + "' has invalid data_offsets");
    const Extent x{b.get<std::uint64_t>(), e.get<std::uint64_t>()};
    if (x.end < x.begin) return bad("tensor '" + printable(name) + "' ends before it begins");
    if (x.end - x.begin != size) return bad("tensor '" + printable(name) + "' data_offsets disagree with its dtype and shape");
    return x;
}

// The deepest nesting of objects and arrays outside strings. A tensor entry is three levels
// deep; a header nested far deeper is refused before a JSON tree is built for it.
std::size_t nesting(std::string_view text) {
    std::size_t depth = 0;
    std::size_t deepest = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

constexpr std::size_t kMaxNesting = 8;

Expected<std::string> read_header_text(ByteReader& in) {
    std::array<unsigned char, 8> len{};
    if (!in.read(len.data(), len.size())) return bad("shorter than its 8-byte header length");
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < len.size(); ++i) n |= static_cast<std::uint64_t>(len[i]) << (8 * i);
    if (n > kMaxSafetensorsHeader) return bad("header length " + std::to_string(n) + " is over the 100 MB limit");
    if (n > in.remaining()) return bad("the header runs past the end of the file");
    std::string text(n, '\0');
    if (!in.read(text.data(), n)) return bad("truncated in the header");
    return text;
}

}  // namespace

Expected<SafetensorsHeader> parse_safetensors(ByteReader& in) {
    auto text = read_header_text(in);
    if (!text) return text.error();
    if (nesting(*text) > kMaxNesting) return bad("the header nests deeper than a tensor table does");
    // No exceptions from the parser: a hostile header is an answer, not a crash.
    const json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) return bad("the header is not a JSON object");
    const std::uint64_t data_size = in.remaining();
    SafetensorsHeader h;
    std::vector<Extent> extents;
    for (const auto& [name, value] : doc.items()) {
        if (name == "__metadata__") {
            if (!value.is_object()) return bad("__metadata__ is not an object");
            for (const auto& [k, v] : value.items())
                if (v.is_string()) h.metadata[k] = v.get<std::string>();
            continue;
        }
        auto x = tensor_extent(name, value);
        if (!x) return x.error();
        if (x->end > data_size) return bad("tensor '" + printable(name) + "' lies past the end of the file (truncated download?)");
        extents.push_back(*x);
    }
    std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
    std::uint64_t previous_end = 0;
    for (const Extent& x : extents) {
        if (x.begin < previous_end) return bad("two tensors' data_offsets overlap");
        previous_end = x.end;
        const auto sum = checked_add(h.tensor_bytes, units::Bytes::from_count_or_throw(x.end - x.begin));
        if (!sum) return bad("the tensor sizes overflow");
        h.tensor_bytes = *sum;
    }
    h.tensor_count = extents.size();
    return h;
}

}  // namespace wiredcap::fit
