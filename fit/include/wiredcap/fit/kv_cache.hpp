// The KV cache a model needs, from its attention layout: per layer, the key and value values
// one token adds (KV heads x head dimension), whether the layer attends within a sliding
// window, and none for a layer without attention. The arithmetic is llama.cpp's: a full
// layer holds every token of every sequence, a sliding-window layer holds the window of each
// sequence plus one micro-batch, rounded up to 256 cells.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/units/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

// The cache's element types wiredcap sizes (llama.cpp's --cache-type-k/-v names). MLX's 8- and
// 4-bit caches (group 64, a 16-bit scale and bias per group) take the same 8.5 and 4.5 bits per
// value as q8_0 and q4_0.
enum class KvType { f16, q8_0, q4_0 };
[[nodiscard]] std::optional<KvType> kv_type_of(std::string_view name);
[[nodiscard]] std::string_view kv_type_name(KvType t);

struct AttentionLayer {
    std::uint64_t k_values = 0;  // per token: KV heads x key length (0: the layer has no cache)
    std::uint64_t v_values = 0;  // per token: KV heads x value length
    bool sliding = false;        // attends within the sliding window only
};

struct Architecture {
    std::string name;  // e.g. "llama", "gemma3"
    std::vector<AttentionLayer> layers;
    std::optional<std::uint64_t> sliding_window;   // tokens
    std::optional<std::uint64_t> trained_context;  // the model's own context length
    std::string source;                            // where the layout was read
    std::vector<std::string> notes;                // assumptions, each stated
};

struct KvRequest {
    std::uint64_t context = 4096;  // tokens per sequence
    std::uint64_t parallel = 1;    // sequences
    KvType type = KvType::f16;
};

struct KvEstimate {
    units::Bytes total = units::Bytes::zero();
    units::Bytes per_token = units::Bytes::zero();  // what one more token of context costs (full layers)
    std::uint64_t full_cells = 0;                   // tokens a full layer holds
    std::uint64_t window_cells = 0;                 // tokens a sliding-window layer holds
    std::uint64_t full_layers = 0;
    std::uint64_t window_layers = 0;
};

// llama.cpp's micro-batch (n_ubatch) and cell padding, which its sliding-window cache adds.
inline constexpr std::uint64_t kUbatch = 512;
inline constexpr std::uint64_t kCellPad = 256;

[[nodiscard]] Expected<KvEstimate> estimate_kv(const Architecture& arch, const KvRequest& req);

}  // namespace wiredcap::fit
