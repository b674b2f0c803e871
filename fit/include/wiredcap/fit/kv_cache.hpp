// The memory a model's context takes, as llama.cpp allocates it (src/llama-kv-cache.cpp, the
// llama_kv_cache constructor; src/llama-kv-cache-iswa.cpp; src/llama-memory-recurrent.cpp):
//   - the context is padded to 256 cells per sequence first (src/llama-context.cpp);
//   - a full-attention layer holds every token of every sequence: K and V rows of
//     KV heads x key (value) length per token, each in its own cache type (-ctk, -ctv);
//   - without flash attention V is stored transposed, every layer's V row as wide as the
//     widest layer's (a model whose KV heads vary by layer pads its narrower layers);
//   - an MLA layer (DeepSeek-V2/V3/R1, Kimi K2: hparams.is_mla()) holds the compressed latent
//     and the rope key as its K row and no V cache at all;
//   - a sliding-window or chunked-attention layer holds the window plus one micro-batch,
//     padded to 256 cells, never more than the context, for each sequence (with a unified
//     cache, once: the window times the sequences plus one micro-batch);
//   - a recurrent layer (Mamba, the linear-attention layers of a hybrid) holds no KV cache but a
//     fixed recurrent state per sequence (f32), whatever the context;
//   - a layer without a cache (GLM-4.5's next-token prediction layer) holds nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

// The cache types llama.cpp accepts for -ctk/-ctv (common/arg.cpp kv_cache_types). MLX's 8- and
// 4-bit caches (group 64, a 16-bit scale and bias per group) take the same 8.5 and 4.5 bits per
// value as q8_0 and q4_0.
enum class KvType { f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1 };
[[nodiscard]] std::optional<KvType> kv_type_of(std::string_view name);
[[nodiscard]] std::string_view kv_type_name(KvType t);
// Bytes 256 values take in a cache type (every type's block divides 256): which is smaller.
[[nodiscard]] std::uint64_t kv_type_bytes_per_256(KvType t);
// A block-quantized type (q8_0, q4_0, ...), not f32, f16 or bf16.
[[nodiscard]] bool kv_type_quantized(KvType t);
// "f32, f16, bf16, q8_0, ..." for messages.
[[nodiscard]] std::string kv_type_names();

// What a layer keeps per sequence.
enum class LayerCache {
    full,       // every token
    sliding,    // the sliding window (n_swa) plus a micro-batch
    chunked,    // the attention chunk (Llama 4), sized as the window is
    recurrent,  // a fixed recurrent state, no KV cache
    none,       // nothing (a prediction layer llama.cpp gives no cache)
};

struct AttentionLayer {
    std::uint64_t k_values = 0;  // per token: KV heads x key length (MLA: latent + rope key)
    std::uint64_t v_values = 0;  // per token: KV heads x value length (MLA: 0, no V cache)
    LayerCache cache = LayerCache::full;
    // false: no V tensor at all (MLA). A layer without KV heads (Nemotron's attention-free
    // layers) has a V tensor of width 0, padded like any other without flash attention.
    bool has_v = true;
};

// The state one recurrent layer keeps per sequence, in f32 values (llama_hparams::n_embd_r and
// n_embd_s: the convolution state and the SSM state).
struct RecurrentState {
    std::uint64_t r_values = 0;
    std::uint64_t s_values = 0;
};

struct Architecture {
    std::string name;  // e.g. "llama", "gemma3"
    std::vector<AttentionLayer> layers;
    std::optional<std::uint64_t> sliding_window;   // tokens, for sliding and chunked layers
    std::optional<std::uint64_t> trained_context;  // the model's own context length
    // What the compute buffer's estimate needs (compute_buffer.hpp); nullopt when the files do
    // not say. query_heads is the largest count of any layer.
    std::optional<std::uint64_t> query_heads;
    // The length of one query (and key) head and of one value head: which attention kernel mlx
    // runs (mlx_compute.hpp). nullopt when the files do not say.
    std::optional<std::uint64_t> query_head_length;
    std::optional<std::uint64_t> value_head_length;
    std::optional<std::uint64_t> embedding;   // hidden size (n_embd)
    std::optional<std::uint64_t> vocabulary;  // tokens the output layer scores (n_vocab)
    // Per token, the feed-forward projections' outputs held at once in its widest layer: 2 x n_ff
    // when gated (the gate's and the up's), n_ff when not; for a mixture of experts, 2 x the
    // experts' n_ff x the experts used per token. nullopt when the files do not say.
    std::optional<std::uint64_t> feed_forward_values;
    // Experts each token is routed to in a mixture of experts; nullopt for a dense model.
    std::optional<std::uint64_t> experts_used;
    RecurrentState recurrent;  // per recurrent layer and sequence
    // Attention layers that keep a recurrent state beside their KV cache (Falcon-H1: every
    // layer, llama-model.cpp create_memory's filter_attn and filter_recr both true).
    std::uint64_t recurrent_beside_attention = 0;
    std::string source;              // where the layout was read
    std::string rule;                // the runtime's rule it follows, cited
    std::vector<std::string> notes;  // assumptions, each stated
};

struct KvRequest {
    std::uint64_t context = 4096;  // tokens per sequence
    std::uint64_t parallel = 1;    // sequences
    KvType k_type = KvType::f16;
    KvType v_type = KvType::f16;
    // llama.cpp's -b and -ub (defaults 2048 and 512): a micro-batch is the smaller of the two
    // (llama_context clamps n_ubatch to n_batch). It sizes the compute buffer and is added to a
    // sliding window's cells.
    std::uint64_t batch = 2048;
    std::uint64_t ubatch = 512;
    bool flash_attn = false;  // llama.cpp's -fa: the attention scores are never materialised
    // llama.cpp's --kv-unified (llama-server's default without -np): one cache of `context`
    // cells the sequences share, not `context` cells for each; a sliding-window layer then holds
    // the window of every sequence plus a micro-batch (src/llama-kv-cache-iswa.cpp:73).
    bool unified = false;
};

// The tokens of one micro-batch: min(batch, ubatch).
[[nodiscard]] std::uint64_t micro_batch(const KvRequest& r);

// Whether the runtime runs flash attention: asked for, or implied by a quantized V cache
// (llama.cpp refuses one without it: "V cache quantization requires flash_attn").
[[nodiscard]] bool runs_flash_attention(const KvRequest& r);

struct KvEstimate {
    units::Bytes total = units::Bytes::zero();  // K + V
    units::Bytes k_bytes = units::Bytes::zero();
    units::Bytes v_bytes = units::Bytes::zero();
    units::Bytes recurrent = units::Bytes::zero();  // recurrent state, all sequences
    units::Bytes per_token =
        units::Bytes::zero();  // what one more token of context costs (full layers)
    units::Bytes largest_layer = units::Bytes::zero();  // K + V of the layer holding the most
    std::uint64_t full_cells = 0;                       // tokens a full layer holds (padded)
    std::uint64_t window_cells = 0;                     // tokens a sliding or chunked layer holds
    std::uint64_t full_layers = 0;
    std::uint64_t window_layers = 0;  // sliding and chunked
    std::uint64_t recurrent_layers =
        0;  // layers keeping a recurrent state (Falcon-H1: its attention layers too)
    std::uint64_t uncached_layers = 0;
};

// llama.cpp's cell padding of the context and of a sliding-window cache.
inline constexpr std::uint64_t kCellPad = 256;

[[nodiscard]] Expected<KvEstimate> estimate_kv(const Architecture& arch, const KvRequest& req);

}  // namespace wiredcap::fit
