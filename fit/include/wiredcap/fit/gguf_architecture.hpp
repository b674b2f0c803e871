// A GGUF model's attention layout, from its metadata: general.architecture names the prefix of
// the keys (`<arch>.block_count`, `<arch>.attention.head_count_kv`, `.key_length`,
// `.value_length`, `.sliding_window`, `.sliding_window_pattern`, `<arch>.embedding_length`,
// `<arch>.attention.head_count`). A key that is missing and has no documented default makes
// the layout unknown, with the key named; nothing is guessed.
#pragma once

#include "wiredcap/fit/gguf_header.hpp"
#include "wiredcap/fit/kv_cache.hpp"

namespace wiredcap::fit {

// Layers above this are refused: no model has more, and the per-layer table is sized by it.
inline constexpr std::uint64_t kMaxLayers = 4096;

[[nodiscard]] Expected<Architecture> gguf_architecture(const GgufHeader& h);

}  // namespace wiredcap::fit
