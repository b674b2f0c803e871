#include "wiredcap/fit/safetensors_header.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "json_nesting.hpp"
#include "json_stream.hpp"
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
        {"BOOL", 1},
        {"U8", 1},
        {"I8", 1},
        {"F8_E5M2", 1},
        {"F8_E4M3", 1},
        {"F8_E8M0", 1},
        {"I16", 2},
        {"U16", 2},
        {"F16", 2},
        {"BF16", 2},
        {"I32", 4},
        {"U32", 4},
        {"F32", 4},
        {"I64", 8},
        {"U64", 8},
        {"F64", 8},
        {"C64", 8},
    }};
    for (const auto& e : table)
        if (e.name == d) return e.bytes;
    return std::nullopt;
}

struct Extent {
    std::uint64_t begin;
    std::uint64_t end;
};

// One tensor's fields as the header gives them, gathered while its object is read.
struct TensorFields {
    std::string name;
    std::optional<std::string> dtype;  // set when "dtype" is a string
    bool shape_is_array = false;
    bool shape_whole = true;  // every dimension a whole number
    bool shape_overflow = false;
    std::uint64_t elements = 1;
    bool offsets_are_array = false;
    std::vector<std::optional<std::uint64_t>> offsets;  // nullopt: not a whole number
};

// The tensor's byte range, after checking that its shape says the same size; the messages
// name the tensor and what is wrong with it.
Expected<Extent> tensor_extent(const TensorFields& t) {
    // Made only for a message: every tensor of every shard passes through here.
    const auto name = [&t] { return "tensor '" + printable(t.name) + "'"; };
    if (!t.dtype || !t.shape_is_array || !t.offsets_are_array || t.offsets.size() != 2)
        return bad(name() + " lacks dtype, shape or data_offsets");
    const auto bytes = dtype_bytes(*t.dtype);
    if (!bytes) return bad(name() + " has unknown dtype " + printable(*t.dtype));
    if (!t.shape_whole) return bad(name() + " has a shape that is not whole numbers");
    if (t.shape_overflow || (t.elements != 0 && *bytes > UINT64_MAX / t.elements))
        return bad(name() + " is too large");
    const std::uint64_t size = *bytes * t.elements;
    if (!t.offsets[0] || !t.offsets[1]) return bad(name() + " has invalid data_offsets");
    const Extent x{*t.offsets[0], *t.offsets[1]};
    if (x.end < x.begin) return bad(name() + " ends before it begins");
    if (x.end - x.begin != size)
        return bad(name() + " data_offsets disagree with its dtype and shape");
    return x;
}

// Reads the header as a stream of JSON events (nlohmann's SAX interface), never building a tree
// of it: a shard of a large MoE model names hundreds of tensors, and a tree of maps cost more
// than the rest of `wiredcap fit` together (bench/fit_speed.sh). The first problem is kept and
// the rest of the text still parsed, so malformed JSON is said as such, as a tree parse would.
class HeaderEvents : public nlohmann::json_sax<json> {
public:
    HeaderEvents(SafetensorsHeader& h, std::vector<Extent>& extents, std::uint64_t data_size,
                 const SafetensorsLimits& limits)
        : h_(h), extents_(extents), data_size_(data_size), lim_(limits) {}

    bool null() override { return scalar(Scalar{}); }
    bool boolean(bool) override { return scalar(Scalar{}); }
    bool number_integer(number_integer_t) override { return scalar(Scalar{}); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(Scalar{v, {}}); }
    bool number_float(number_float_t, const string_t&) override { return scalar(Scalar{}); }
    bool string(string_t& v) override { return scalar(Scalar{{}, &v}); }
    bool binary(binary_t&) override { return scalar(Scalar{}); }
    bool start_object(std::size_t) override { return open(true); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (skip_ == 0 && depth_ == 1) key1_ = k;
        else if (skip_ == 0 && depth_ == 2) key2_ = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        malformed_ = true;
        return false;
    }

    [[nodiscard]] bool malformed() const { return malformed_ || !root_seen_; }
    [[nodiscard]] const std::optional<Error>& problem() const { return problem_; }
    [[nodiscard]] bool over_budget() const { return over_budget_; }

private:
    struct Scalar {
        std::optional<std::uint64_t> whole;
        const std::string* text = nullptr;
    };

    void fail(Error e) {
        if (!problem_) problem_ = std::move(e);
    }

    bool in_metadata() const { return key1_ == "__metadata__"; }

    // A value that is not an object or array, at the depth it appears.
    bool scalar(const Scalar& v) {
        if (skip_ != 0) return true;
        if (depth_ == 0) return fail_root();
        if (depth_ == 1) {
            fail(in_metadata() ? bad("__metadata__ is not an object")
                               : bad("tensor '" + printable(key1_) + "' is not an object"));
        } else if (depth_ == 2 && in_metadata()) {
            // Only strings are kept; a later value of another type replaces an earlier one, as
            // the last of duplicate keys does in a JSON object.
            if (v.text != nullptr && v.text->size() <= lim_.max_metadata_string &&
                (h_.metadata.size() < lim_.max_metadata_entries || h_.metadata.contains(key2_)))
                h_.metadata[key2_] = *v.text;
            else h_.metadata.erase(key2_);
        } else if (depth_ == 2) {
            if (key2_ == "dtype")
                t_.dtype = v.text != nullptr ? std::optional<std::string>(*v.text) : std::nullopt;
            else if (key2_ == "shape") t_.shape_is_array = false;
            else if (key2_ == "data_offsets") t_.offsets_are_array = false;
        } else if (depth_ == 3 && field_ == Field::shape) {
            if (!v.whole) t_.shape_whole = false;
            else if (*v.whole != 0 && t_.elements > UINT64_MAX / *v.whole) t_.shape_overflow = true;
            else t_.elements *= *v.whole;
        } else if (depth_ == 3 && field_ == Field::offsets) {
            t_.offsets.push_back(v.whole);
        }
        return true;
    }

    bool fail_root() {
        fail(bad("the header is not a JSON object"));
        return true;
    }

    bool open(bool object) {
        if (skip_ != 0) {
            ++skip_;
            return true;
        }
        if (depth_ == 0) {
            root_seen_ = true;
            if (!object) fail_root();
        } else if (depth_ == 1 && !in_metadata()) {
            if (!object) fail(bad("tensor '" + printable(key1_) + "' is not an object"));
            t_ = TensorFields{key1_, {}, false, true, false, 1, false, {}};
        } else if (depth_ == 1 && !object) {
            fail(bad("__metadata__ is not an object"));
        } else if (depth_ == 2 && !in_metadata() && !object &&
                   (key2_ == "shape" || key2_ == "data_offsets")) {
            field_ = key2_ == "shape" ? Field::shape : Field::offsets;
            if (field_ == Field::shape) {
                t_.shape_is_array = true;
                t_.shape_whole = true;
                t_.shape_overflow = false;
                t_.elements = 1;
            } else {
                t_.offsets_are_array = true;
                t_.offsets.clear();
            }
        } else if (depth_ >= 2) {
            // A value wiredcap does not read (a nested metadata value, another field, an array
            // inside a shape): passed over whole. A dtype or shape given as one is no dtype.
            if (depth_ == 2 && !in_metadata()) forget_field();
            if (depth_ == 2 && in_metadata()) h_.metadata.erase(key2_);
            if (depth_ == 3) mark_bad_element();
            skip_ = 1;
            return true;
        }
        ++depth_;
        return true;
    }

    void forget_field() {
        if (key2_ == "dtype") t_.dtype.reset();
        else if (key2_ == "shape") t_.shape_is_array = false;
        else if (key2_ == "data_offsets") t_.offsets_are_array = false;
    }

    void mark_bad_element() {
        if (field_ == Field::shape) t_.shape_whole = false;
        else if (field_ == Field::offsets) t_.offsets.emplace_back();
    }

    bool close() {
        if (skip_ != 0) {
            --skip_;
            return true;
        }
        --depth_;
        if (depth_ == 2) field_ = Field::none;
        if (depth_ == 1 && !in_metadata() && !problem_) finish_tensor();
        return !over_budget_;
    }

    void finish_tensor() {
        auto x = tensor_extent(t_);
        if (!x) return fail(x.error());
        if (x->end > data_size_)
            return fail(bad("tensor '" + printable(t_.name) +
                            "' lies past the end of the file (truncated download?)"));
        if (extents_.size() == lim_.max_tensors) {
            // Said at once, the rest unread: past this many, reading on only costs time.
            over_budget_ = true;
            return fail(bad("it names more than " + std::to_string(lim_.max_tensors) +
                            " tensors, more than a model's file holds"));
        }
        extents_.push_back(*x);
    }

    enum class Field { none, shape, offsets };
    SafetensorsHeader& h_;
    std::vector<Extent>& extents_;
    std::uint64_t data_size_;
    const SafetensorsLimits& lim_;
    std::size_t depth_ = 0;  // objects and arrays open, outside skipped values
    std::size_t skip_ = 0;   // inside a skipped value: how deep
    std::string key1_;       // the tensor's name (or __metadata__)
    std::string key2_;       // the field inside it
    Field field_ = Field::none;
    TensorFields t_;
    bool root_seen_ = false;
    bool malformed_ = false;
    bool over_budget_ = false;  // the parse was stopped there
    std::optional<Error> problem_;
};

// The header's length, checked against the format's limit and the file before anything is read.
Expected<std::uint64_t> header_length(ByteReader& in) {
    std::array<unsigned char, 8> len{};
    if (!in.read(len.data(), len.size())) return bad("shorter than its 8-byte header length");
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < len.size(); ++i) n |= static_cast<std::uint64_t>(len[i]) << (8 * i);
    if (n > kMaxSafetensorsHeader)
        return bad("header length " + std::to_string(n) + " is over the 100 MB limit");
    if (n > in.remaining()) return bad("the header runs past the end of the file");
    return n;
}

}  // namespace

Expected<SafetensorsHeader> parse_safetensors(ByteReader& in, const SafetensorsLimits& limits) {
    auto length = header_length(in);
    if (!length) return length.error();
    const std::uint64_t data_size = in.remaining() - *length;
    SafetensorsHeader h;
    std::vector<Extent> extents;
    HeaderEvents events(h, extents, data_size, limits);
    // Streamed, never read whole: a header at the format's 100 MB limit costs a chunk of memory,
    // not 100 MB, and a bounded time (json_stream.hpp); a tensor entry is three levels deep.
    JsonStream text(in, *length,
                    JsonLimits{kMaxJsonNesting, limits.max_values, kMaxJsonNumber, kMaxJsonString,
                               limits.max_parsed});
    // No exceptions from the parser: a hostile header is an answer, not a crash.
    const bool parsed = json::sax_parse(text.begin(), JsonStream::end(), &events,
                                        json::input_format_t::json, /*strict=*/true);
    if (text.refusal()) return bad("the header is refused: " + *text.refusal());
    if (events.over_budget()) return *events.problem();
    if (!parsed || events.malformed()) return bad("the header is not a JSON object");
    if (events.problem()) return *events.problem();
    std::sort(extents.begin(), extents.end(),
              [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
    std::uint64_t previous_end = 0;
    for (const Extent& x : extents) {
        if (x.begin < previous_end) return bad("two tensors' data_offsets overlap");
        previous_end = x.end;
        const auto sum =
            checked_add(h.tensor_bytes, units::Bytes::from_count_or_throw(x.end - x.begin));
        if (!sum) return bad("the tensor sizes overflow");
        h.tensor_bytes = *sum;
    }
    h.tensor_count = extents.size();
    return h;
}

}  // namespace wiredcap::fit
