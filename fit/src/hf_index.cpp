#include "wiredcap/fit/hf_index.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <span>

#include "json_nesting.hpp"
#include "json_stream.hpp"
#include "wiredcap/fit/printable.hpp"

namespace wiredcap::fit {
namespace {

using nlohmann::json;

// Reads the index as a stream of JSON events (nlohmann's SAX interface), never building a tree
// of it: DeepSeek-V3's names 91,991 tensors in 163 shards, and a tree of maps for it cost as
// much as every shard's header together (bench/fit_speed.sh). Only weight_map's values (each a
// shard's file name, kept once) and metadata.total_size are taken; the first problem is kept
// and the rest still parsed, so malformed JSON is said as such.
class IndexEvents : public json::json_sax_t {
public:
    bool null() override { return value(nullptr, {}); }
    bool boolean(bool) override { return value(nullptr, {}); }
    bool number_integer(number_integer_t) override { return value(nullptr, {}); }
    bool number_unsigned(number_unsigned_t v) override { return value(nullptr, v); }
    bool number_float(number_float_t, const string_t&) override { return value(nullptr, {}); }
    bool string(string_t& v) override { return value(&v, {}); }
    bool binary(binary_t&) override { return value(nullptr, {}); }
    bool start_object(std::size_t) override { return open(true); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (skip_ == 0 && depth_ == 1)
            section_ = k == "weight_map" ? Section::map
                       : k == "metadata" ? Section::meta
                                         : Section::other;
        else if (skip_ == 0 && depth_ == 2) key2_ = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        malformed_ = true;
        return false;
    }

    [[nodiscard]] Expected<SafetensorsIndex> result() {
        if (malformed_ || !root_object_)
            return Error{std::string(kSafetensorsIndex) + " is not a JSON object"};
        if (problem_) return *problem_;
        if (!map_object_ || shards_.empty())
            return Error{std::string(kSafetensorsIndex) + " has no weight_map"};
        index_.shards.assign(shards_.begin(), shards_.end());  // sorted, each once
        return index_;
    }

private:
    enum class Section { other, map, meta };

    void fail(const std::string& what) {
        if (!problem_) problem_ = Error{std::string(kSafetensorsIndex) + what};
    }

    // A scalar at the depth it appears: a shard's file name, or total_size.
    bool value(const std::string* text, std::optional<std::uint64_t> whole) {
        if (skip_ != 0 || depth_ != 2) return true;
        if (section_ == Section::map) shard(text);
        else if (section_ == Section::meta && key2_ == "total_size") index_.total_size = whole;
        return true;
    }

    void shard(const std::string* name) {
        if (name == nullptr) return fail(": tensor '" + printable(key2_) + "' names no file");
        // A shard is a file beside the index, never a path elsewhere.
        if (name->empty() || name->size() > kMaxShardName || name->find('/') != std::string::npos ||
            *name == "." || *name == "..")
            return fail(" names a shard outside its folder: " + printable(*name));
        if (shards_.size() < kMaxIndexShards || shards_.contains(*name)) shards_.insert(*name);
        else fail(" names more shards than a model has");
    }

    bool open(bool object) {
        if (skip_ != 0 || depth_ >= 2) {
            if (skip_ == 0 && section_ == Section::map)
                fail(": tensor '" + printable(key2_) + "' names no file");
            if (skip_ == 0 && section_ == Section::meta && key2_ == "total_size")
                index_.total_size.reset();
            ++skip_;
            return true;
        }
        if (depth_ == 0) root_object_ = object;
        if (depth_ == 1 && section_ == Section::map) map_object_ = object;
        if (depth_ == 1 && section_ != Section::other && !object) {
            ++skip_;  // an array where an object belongs: nothing in it is read
            return true;
        }
        ++depth_;
        return true;
    }

    bool close() {
        if (skip_ != 0) --skip_;
        else --depth_;
        return true;
    }

    std::size_t depth_ = 0;
    std::size_t skip_ = 0;
    Section section_ = Section::other;
    std::string key2_;
    std::set<std::string> shards_;
    SafetensorsIndex index_;
    bool root_object_ = false;
    bool map_object_ = false;
    bool malformed_ = false;
    std::optional<Error> problem_;
};

}  // namespace

Expected<SafetensorsIndex> parse_safetensors_index(ByteReader& in) {
    // Three levels deep, and streamed within limits (json_stream.hpp): a crafted index costs
    // a bounded time and memory whatever it holds.
    JsonStream text(in, in.remaining(),
                    JsonLimits{kMaxJsonNesting, kMaxIndexValues, kMaxJsonNumber, kMaxJsonString,
                               kMaxIndexJson});
    IndexEvents events;
    // No exceptions from the parser: a hostile index is an answer, not a crash.
    json::sax_parse(text.begin(), JsonStream::end(), &events, json::input_format_t::json,
                    /*strict=*/true);
    if (text.refusal())
        return Error{std::string(kSafetensorsIndex) + " is refused: " + *text.refusal()};
    return events.result();
}

Expected<SafetensorsIndex> parse_safetensors_index(const std::string& text) {
    ByteReader in = ByteReader::of_memory(std::as_bytes(std::span(text.data(), text.size())));
    return parse_safetensors_index(in);
}

}  // namespace wiredcap::fit
