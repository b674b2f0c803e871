// A sharded safetensors model's index (model.safetensors.index.json, the Hugging Face layout):
// its weight_map names the shard of every tensor. Only the shards it names are the model: a
// snapshot may also carry other .safetensors files (Mistral's consolidated.safetensors, the same
// weights in another layout), and a download may be missing shards. Both are said, never summed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/fit/byte_reader.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::fit {

inline constexpr const char* kSafetensorsIndex = "model.safetensors.index.json";
// The index is streamed (json_stream.hpp), its size bounding the time: one line per tensor, so most are a few hundred KiB and DeepSeek-V3's
// (91,991 tensors) is about 9 MiB. 32 MiB leaves room for larger models while a crafted index
// costs at most a quarter of a second to read and refuse.
inline constexpr std::uint64_t kMaxIndexJson = 32u << 20;
// Distinct shards an index may name (the largest published models have a few hundred); past it
// the index is refused before the set of names grows.
inline constexpr std::size_t kMaxIndexShards = 4096;
// A shard is a file name (NAME_MAX). An index holds two values a tensor (its name, its shard):
// room for half a million tensors, five times DeepSeek-V3's.
inline constexpr std::size_t kMaxShardName = 255;
inline constexpr std::uint64_t kMaxIndexValues = 1u << 20;

struct SafetensorsIndex {
    std::vector<std::string> shards;          // file names, sorted, each once
    std::optional<std::uint64_t> total_size;  // metadata.total_size: the tensors' bytes
};

// The index from `in`'s current offset to its end.
[[nodiscard]] Expected<SafetensorsIndex> parse_safetensors_index(ByteReader& in);
[[nodiscard]] Expected<SafetensorsIndex> parse_safetensors_index(const std::string& text);

}  // namespace wiredcap::fit
