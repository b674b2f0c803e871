#include "wiredcap/fit/gguf_header.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#include "wiredcap/fit/ggml_types.hpp"
#include "wiredcap/fit/printable.hpp"

namespace wiredcap::fit {
namespace {

// GGUF's value types (the numbering of the format).
enum GgufType : std::uint32_t {
    u8 = 0,
    i8 = 1,
    u16 = 2,
    i16 = 3,
    u32 = 4,
    i32 = 5,
    f32 = 6,
    boolean = 7,
    string = 8,
    array = 9,
    u64 = 10,
    i64 = 11,
    f64 = 12,
};

// Bytes of one value of a fixed-size type; 0 for string, array and unknown types.
std::uint64_t fixed_size(std::uint32_t t) {
    constexpr std::array<std::uint64_t, 13> sizes{1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t < sizes.size() ? sizes[t] : 0;
}

constexpr std::uint32_t kMaxDims = 4;        // ggml's GGML_MAX_DIMS
constexpr std::uint64_t kDefaultAlign = 32;  // GGUF's default general.alignment

Error bad(const std::string& what, std::uint64_t at) {
    return Error{"not a valid GGUF file: " + what + " (at byte " + std::to_string(at) + ")"};
}

// Little-endian integers (GGUF v3 also allows big-endian files; those are refused by the
// version check, since a swapped version reads as a huge number).
template <class T>
bool get(ByteReader& in, T& v) {
    std::array<unsigned char, sizeof(T)> b{};
    if (!in.read(b.data(), b.size())) return false;
    std::uint64_t u = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) u |= static_cast<std::uint64_t>(b[i]) << (8 * i);
    if constexpr (std::is_same_v<T, double>) v = std::bit_cast<double>(u);
    else if constexpr (std::is_same_v<T, float>)
        v = std::bit_cast<float>(static_cast<std::uint32_t>(u));
    else v = static_cast<T>(u);
    return true;
}

class Parser {
public:
    Parser(ByteReader& in, const GgufLimits& limits) : in_(in), lim_(limits) {}

    Expected<GgufHeader> run() {
        std::array<char, 4> magic{};
        if (!in_.read(magic.data(), magic.size()) || std::memcmp(magic.data(), "GGUF", 4) != 0)
            return Error{"not a GGUF file (no GGUF magic at the start)"};
        if (!get(in_, h_.version)) return bad("truncated before the version", in_.offset());
        if (h_.version != 2 && h_.version != 3) {
            // A big-endian file (GGUF v3 allows them, for s390x) reads its version byte-swapped.
            const std::uint32_t v = h_.version;
            const std::uint32_t swapped =
                (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
            if (swapped >= 1 && swapped <= 3)
                return Error{"a big-endian GGUF file (version " + std::to_string(swapped) +
                             "): wiredcap reads little-endian GGUF, as llama.cpp on a Mac does"};
            return Error{"GGUF version " + std::to_string(h_.version) +
                         " is not supported (2 and 3 are)"};
        }
        std::uint64_t n_meta = 0;
        if (!get(in_, h_.tensor_count) || !get(in_, n_meta))
            return bad("truncated in the counts", in_.offset());
        if (h_.tensor_count > lim_.max_tensors)
            return bad(std::to_string(h_.tensor_count) + " tensors is over the limit",
                       in_.offset());
        if (n_meta > lim_.max_metadata)
            return bad(std::to_string(n_meta) + " metadata entries is over the limit",
                       in_.offset());
        for (std::uint64_t i = 0; i < n_meta; ++i)
            if (auto e = metadata_entry()) return *e;
        if (auto e = tensor_table()) return *e;
        return std::move(h_);
    }

private:
    // The metadata budget: `more` bytes from here still inside it (checked before reading or
    // skipping them, so a hostile length costs nothing).
    std::optional<Error> within_budget(std::uint64_t more) const {
        if (in_.offset() > lim_.max_metadata_bytes || more > lim_.max_metadata_bytes - in_.offset())
            return bad("the metadata is larger than " +
                           std::to_string(lim_.max_metadata_bytes >> 20) +
                           " MiB, far beyond a real model's",
                       in_.offset());
        return std::nullopt;
    }

    std::optional<Error> keep_bytes(std::uint64_t n) {
        if (n > kept_left_) return bad("the metadata keeps more than a real model's", in_.offset());
        kept_left_ -= n;
        return std::nullopt;
    }

    // A GGUF string: u64 length, then bytes. Kept when at most `keep` bytes, skipped otherwise.
    std::optional<Error> read_string(std::uint64_t keep, std::string* out) {
        std::uint64_t n = 0;
        if (!get(in_, n)) return bad("truncated in a string's length", in_.offset());
        if (n > in_.remaining()) return bad("a string runs past the end of the file", in_.offset());
        if (in_metadata_)
            if (auto e = within_budget(n)) return e;
        if (out != nullptr && n <= keep) {
            if (auto e = keep_bytes(n)) return e;
            out->resize(n);
            if (!in_.read(out->data(), n)) return bad("truncated in a string", in_.offset());
        } else if (!in_.skip(n)) {
            return bad("truncated in a string", in_.offset());
        }
        return std::nullopt;
    }

    std::optional<Error> metadata_entry() {
        if (auto e = within_budget(0)) return e;
        std::string key;
        if (auto e = read_string(lim_.max_key, &key)) return e;
        if (key.empty()) return bad("a metadata key is empty or too long", in_.offset());
        std::uint32_t type = 0;
        if (!get(in_, type)) return bad("truncated in a value type", in_.offset());
        if (h_.metadata.contains(key))
            return bad("metadata key '" + printable(key) + "' appears twice", in_.offset());
        if (type == array) return array_value(key);
        return scalar_value(key, type);
    }

    std::optional<Error> scalar_value(const std::string& key, std::uint32_t type) {
        bool ok = true;
        switch (type) {
            case u8: {
                std::uint8_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = std::uint64_t{v};
                break;
            }
            case u16: {
                std::uint16_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = std::uint64_t{v};
                break;
            }
            case u32: {
                std::uint32_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = std::uint64_t{v};
                break;
            }
            case u64: {
                std::uint64_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = v;
                break;
            }
            case i8: {
                std::int8_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = std::int64_t{v};
                break;
            }
            case i16: {
                std::int16_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = std::int64_t{v};
                break;
            }
            case i32: {
                std::int32_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = std::int64_t{v};
                break;
            }
            case i64: {
                std::int64_t v = 0;
                ok = get(in_, v);
                h_.metadata[key] = v;
                break;
            }
            case f32: {
                float v = 0;
                ok = get(in_, v);
                h_.metadata[key] = double{v};
                break;
            }
            case f64: {
                double v = 0;
                ok = get(in_, v);
                h_.metadata[key] = v;
                break;
            }
            case boolean: {
                std::uint8_t v = 0;
                ok = get(in_, v);
                if (ok && v > 1)
                    return bad("boolean '" + printable(key) + "' is neither 0 nor 1", in_.offset());
                h_.metadata[key] = v == 1;
                break;
            }
            case string: {
                std::string s;
                if (auto e = read_string(lim_.max_kept_string, &s)) return e;
                h_.metadata[key] = std::move(s);
                break;
            }
            default:
                return bad(
                    "metadata '" + printable(key) + "' has unknown type " + std::to_string(type),
                    in_.offset());
        }
        if (!ok) return bad("truncated in metadata '" + printable(key) + "'", in_.offset());
        return std::nullopt;
    }

    // Arrays of integers or booleans up to the limit are kept (per-layer values); others are
    // skipped. Arrays of arrays are refused, as llama.cpp refuses them.
    std::optional<Error> array_value(const std::string& key) {
        std::uint32_t type = 0;
        std::uint64_t n = 0;
        if (!get(in_, type) || !get(in_, n))
            return bad("truncated in array '" + printable(key) + "'", in_.offset());
        if (type == array) return bad("array '" + printable(key) + "' holds arrays", in_.offset());
        if (n > elements_left_)
            return bad("array '" + printable(key) + "' has more elements than a real model's",
                       in_.offset());
        elements_left_ -= n;
        if (key == "tokenizer.ggml.tokens") h_.token_count = n;
        if (type == string) {
            // Each element is at least its 8-byte length: a count beyond that cannot be real.
            if (n > in_.remaining() / 8)
                return bad("array '" + printable(key) + "' runs past the end of the file",
                           in_.offset());
            if (auto e = within_budget(n * 8)) return e;
            for (std::uint64_t i = 0; i < n; ++i)
                if (auto e = read_string(0, nullptr)) return e;
            return std::nullopt;
        }
        const std::uint64_t size = fixed_size(type);
        if (size == 0)
            return bad("array '" + printable(key) + "' has unknown type " + std::to_string(type),
                       in_.offset());
        if (n > in_.remaining() / size)
            return bad("array '" + printable(key) + "' runs past the end of the file",
                       in_.offset());
        if (auto e = within_budget(n * size)) return e;
        const bool integral = type != f32 && type != f64;
        if (!integral || n > lim_.max_kept_array) {
            if (!in_.skip(n * size))
                return bad("truncated in array '" + printable(key) + "'", in_.offset());
            return std::nullopt;
        }
        if (auto e = keep_bytes(n * 8)) return e;
        std::vector<std::int64_t> values;
        values.reserve(n);  // bounded by max_kept_array, the kept budget and the bytes present
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint64_t raw = 0;
            std::array<unsigned char, 8> b{};
            if (!in_.read(b.data(), size))
                return bad("truncated in array '" + printable(key) + "'", in_.offset());
            for (std::uint64_t j = 0; j < size; ++j)
                raw |= static_cast<std::uint64_t>(b[j]) << (8 * j);
            values.push_back(signed_value(type, raw));
        }
        h_.metadata[key] = std::move(values);
        return std::nullopt;
    }

    static std::int64_t signed_value(std::uint32_t type, std::uint64_t raw) {
        switch (type) {
            case i8: return static_cast<std::int8_t>(raw);
            case i16: return static_cast<std::int16_t>(raw);
            case i32: return static_cast<std::int32_t>(raw);
            case i64: return static_cast<std::int64_t>(raw);
            case u64:
                return raw > static_cast<std::uint64_t>(INT64_MAX) ? -1
                                                                   : static_cast<std::int64_t>(raw);
            default: return static_cast<std::int64_t>(raw);
        }
    }

    struct Extent {
        std::uint64_t begin;
        std::uint64_t bytes;
    };

    std::optional<Error> tensor_info(std::vector<Extent>& extents) {
        std::string name;
        if (auto e = read_string(kMaxTensorName, &name)) return e;
        if (name.empty())
            return bad("a tensor's name is empty or longer than 63 bytes", in_.offset());
        h_.tensor_names.push_back(std::move(name));
        std::uint32_t n_dims = 0;
        if (!get(in_, n_dims)) return bad("truncated in a tensor's dimensions", in_.offset());
        if (n_dims == 0 || n_dims > kMaxDims)
            return bad("a tensor has " + std::to_string(n_dims) + " dimensions", in_.offset());
        std::array<std::uint64_t, kMaxDims> ne{1, 1, 1, 1};
        for (std::uint32_t d = 0; d < n_dims; ++d)
            if (!get(in_, ne[d])) return bad("truncated in a tensor's shape", in_.offset());
        std::uint32_t type_id = 0;
        std::uint64_t offset = 0;
        if (!get(in_, type_id) || !get(in_, offset))
            return bad("truncated in a tensor's type or offset", in_.offset());
        const auto type = ggml_type(type_id);
        if (!type)
            return bad("a tensor has unknown ggml type " + std::to_string(type_id), in_.offset());
        auto bytes = ggml_row_bytes(*type, ne[0]);
        if (!bytes)
            return bad("a tensor's row is not whole " + std::string(type->name) + " blocks",
                       in_.offset());
        for (std::uint32_t d = 1; d < kMaxDims; ++d) {
            if (ne[d] != 0 && *bytes > UINT64_MAX / ne[d])
                return bad("a tensor's size overflows", in_.offset());
            *bytes *= ne[d];
        }
        extents.push_back(Extent{offset, *bytes});
        return std::nullopt;
    }

    // The tensor table, then where the data starts; every tensor must lie inside the file, on
    // the alignment, and apart from every other.
    std::optional<Error> tensor_table() {
        std::vector<Extent> extents;
        for (std::uint64_t i = 0; i < h_.tensor_count; ++i) {
            // Each entry takes at least 8 + 4 + 8 + 4 + 8 bytes: a count beyond that is not real.
            if (in_.remaining() < 32)
                return bad("the tensor table runs past the end of the file", in_.offset());
            if (auto e = tensor_info(extents)) return e;
        }
        const std::uint64_t align = meta_uint(h_, "general.alignment").value_or(kDefaultAlign);
        if (align == 0 || !std::has_single_bit(align) || align > (1u << 30))
            return bad("general.alignment " + std::to_string(align) + " is not a power of two",
                       in_.offset());
        const std::uint64_t end = in_.offset();
        h_.data_offset = end + (align - end % align) % align;
        if (h_.data_offset > in_.size() && h_.tensor_count != 0)
            return bad("the tensor data would start past the end of the file", in_.offset());
        const std::uint64_t data_size =
            in_.size() >= h_.data_offset ? in_.size() - h_.data_offset : 0;
        std::sort(extents.begin(), extents.end(),
                  [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
        units::Bytes total = units::Bytes::zero();
        std::uint64_t previous_end = 0;
        for (const Extent& x : extents) {
            if (x.begin % align != 0) return bad("a tensor's offset is not aligned", in_.offset());
            if (x.begin > data_size || x.bytes > data_size - x.begin)
                return bad("a tensor lies past the end of the file (truncated download?)",
                           in_.offset());
            if (x.begin < previous_end) return bad("two tensors overlap", in_.offset());
            previous_end = x.begin + x.bytes;
            const auto sum = checked_add(total, units::Bytes::from_count_or_throw(x.bytes));
            if (!sum) return bad("the tensor sizes overflow", in_.offset());
            total = *sum;
        }
        h_.tensor_bytes = total;
        // llama.cpp refuses a file that names a tensor twice (which of the two would it load?).
        std::sort(h_.tensor_names.begin(), h_.tensor_names.end());
        const auto twice = std::adjacent_find(h_.tensor_names.begin(), h_.tensor_names.end());
        if (twice != h_.tensor_names.end())
            return bad("tensor '" + printable(*twice) + "' appears twice", in_.offset());
        return std::nullopt;
    }

    ByteReader& in_;
    const GgufLimits& lim_;
    GgufHeader h_;
    bool in_metadata_ = true;
    std::uint64_t elements_left_ = lim_.max_array_elements;
    std::uint64_t kept_left_ = lim_.max_kept_bytes;
};

}  // namespace

Expected<GgufHeader> parse_gguf(ByteReader& in, const GgufLimits& limits) {
    return Parser(in, limits).run();
}

std::optional<std::uint64_t> meta_uint(const GgufHeader& h, const std::string& key) {
    const auto it = h.metadata.find(key);
    if (it == h.metadata.end()) return std::nullopt;
    if (const auto* u = std::get_if<std::uint64_t>(&it->second)) return *u;
    if (const auto* i = std::get_if<std::int64_t>(&it->second); i && *i >= 0)
        return static_cast<std::uint64_t>(*i);
    return std::nullopt;
}

std::optional<std::string> meta_string(const GgufHeader& h, const std::string& key) {
    const auto it = h.metadata.find(key);
    if (it == h.metadata.end()) return std::nullopt;
    if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
    return std::nullopt;
}

const std::vector<std::int64_t>* meta_array(const GgufHeader& h, const std::string& key) {
    const auto it = h.metadata.find(key);
    return it == h.metadata.end() ? nullptr : std::get_if<std::vector<std::int64_t>>(&it->second);
}

}  // namespace wiredcap::fit
