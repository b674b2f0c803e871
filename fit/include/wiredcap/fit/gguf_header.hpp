// The header of one GGUF file (versions 2 and 3): its metadata and its tensor table, read with
// bounds checks and fixed limits, and the exact bytes its tensors declare. The tensor data
// itself is never read: only the header's bytes are.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "wiredcap/fit/byte_reader.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

// The metadata values wiredcap keeps: numbers, booleans, short strings and short arrays of
// integers or booleans (per-layer values). Everything else is skipped, never stored.
using MetaValue =
    std::variant<std::uint64_t, std::int64_t, double, bool, std::string, std::vector<std::int64_t>>;

struct GgufHeader {
    std::uint32_t version = 0;
    std::map<std::string, MetaValue> metadata;
    std::uint64_t tensor_count = 0;
    units::Bytes tensor_bytes = units::Bytes::zero();  // the sum of the tensor table's sizes
    std::uint64_t data_offset = 0;                     // where the tensor data starts
    std::vector<std::string> tensor_names;             // sorted (duplicates refused)
    // Entries of tokenizer.ggml.tokens (the vocabulary), an array skipped, not stored.
    std::optional<std::uint64_t> token_count;
};

// Limits that keep a hostile header from driving allocation or time. Real files stay far
// below them: a large model has a few thousand tensors and a few dozen metadata keys, the
// largest being the tokenizer's arrays (skipped, never stored): Gemma 3's 262144 tokens with
// their scores and types are under a million elements and about 10 MB.
struct GgufLimits {
    std::uint64_t max_tensors = 1u << 17;
    std::uint64_t max_metadata = 1u << 16;
    std::uint64_t max_key = 1024;
    std::uint64_t max_kept_string = 4096;
    std::uint64_t max_kept_array = 1u << 16;
    // The whole metadata section, in bytes from the start of the file, read or skipped.
    std::uint64_t max_metadata_bytes = 64u << 20;
    // Elements of all metadata arrays together (each string of a string array is read).
    std::uint64_t max_array_elements = 1u << 22;
    // What is kept in memory: keys, short strings, integer arrays (8 bytes an element).
    std::uint64_t max_kept_bytes = 8u << 20;
};

// ggml's GGML_MAX_NAME: a tensor name is at most 63 bytes (llama.cpp refuses longer ones).
inline constexpr std::size_t kMaxTensorName = 63;

[[nodiscard]] Expected<GgufHeader> parse_gguf(ByteReader& in, const GgufLimits& limits = {});

// Typed look-ups of metadata; nullopt when absent or of another kind.
[[nodiscard]] std::optional<std::uint64_t> meta_uint(const GgufHeader& h, const std::string& key);
[[nodiscard]] std::optional<std::string> meta_string(const GgufHeader& h, const std::string& key);
[[nodiscard]] const std::vector<std::int64_t>* meta_array(const GgufHeader& h,
                                                          const std::string& key);

}  // namespace wiredcap::fit
