#include "wiredcap/fit/gguf_architecture.hpp"

#include <algorithm>
#include <array>

#include "wiredcap/fit/printable.hpp"
#include "wiredcap/fit/swa_patterns.hpp"

namespace wiredcap::fit {
namespace {

constexpr std::uint64_t kMaxHeads = 1u << 16;
constexpr std::uint64_t kMaxWidth = 1u << 20;

// The value of a key that must be a whole number when present: nullopt when absent, an error
// naming the key when it is there but negative or not a number (never a silent default).
Expected<std::optional<std::uint64_t>> whole(const GgufHeader& h, const std::string& key) {
    if (!h.metadata.contains(key)) return std::optional<std::uint64_t>();
    if (const auto v = meta_uint(h, key)) return std::optional<std::uint64_t>(*v);
    return Error{key + " is negative or not a whole number"};
}

// A per-layer value: one number for all layers, or an array with one per layer. nullopt when the
// key is absent; an error naming the key when it is negative or has the wrong length.
Expected<std::optional<std::vector<std::uint64_t>>> per_layer(const GgufHeader& h,
                                                              const std::string& key,
                                                              std::uint64_t layers) {
    using Out = std::optional<std::vector<std::uint64_t>>;
    if (const auto* a = meta_array(h, key)) {
        if (a->size() != layers)
            return Error{key + " has " + std::to_string(a->size()) + " entries for " +
                         std::to_string(layers) + " layers"};
        std::vector<std::uint64_t> out;
        for (const auto v : *a) {
            if (v < 0) return Error{key + " has a negative entry"};
            out.push_back(static_cast<std::uint64_t>(v));
        }
        return Out(std::move(out));
    }
    auto v = whole(h, key);
    if (!v) return v.error();
    if (!*v) return Out();
    return Out(std::vector<std::uint64_t>(layers, **v));
}

std::string plural(std::uint64_t n, const std::string& one) {
    return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

// Which layers slide: the file's own pattern (per-layer flags or a period), else the built-in
// period of the architecture, else none (every layer counted full, with a note).
std::vector<bool> sliding_layers(const GgufHeader& h, const std::string& arch, std::uint64_t layers,
                                 std::vector<std::string>& notes) {
    const std::string key = arch + ".attention.sliding_window_pattern";
    if (const auto* a = meta_array(h, key); a && a->size() == layers) {
        std::vector<bool> out;
        for (const auto v : *a) out.push_back(v != 0);
        return out;
    }
    if (const auto p = meta_uint(h, key)) return swa_layers_of_period(layers, *p);
    if (const auto p = builtin_swa_period(arch)) {
        notes.push_back("sliding-window layers: one layer in " + std::to_string(*p) +
                        " is full, as llama.cpp " + "builds in for " + printable(arch));
        return swa_layers_of_period(layers, *p);
    }
    notes.push_back(
        "the file gives a sliding window but not which layers use it: every layer is counted "
        "at the full context (an overestimate)");
    return std::vector<bool>(layers, false);
}

// Hybrids whose recurrent layers llama.cpp places by a fixed interval (src/llama-model.cpp,
// LLM_ARCH_QWEN3NEXT and LLM_ARCH_QWEN35*: recurrent unless (i + 1) % interval == 0).
bool interval_hybrid(const std::string& arch) {
    constexpr std::array<std::string_view, 3> names{"qwen3next", "qwen35", "qwen35moe"};
    return std::find(names.begin(), names.end(), arch) != names.end();
}

struct Parts {
    std::string p;  // "<arch>."
    std::uint64_t layers = 0;
};

// The recurrent state of one layer per sequence (llama_hparams::n_embd_r / n_embd_s): Mamba's
// convolution and SSM states from <arch>.ssm.*, RWKV's token shift and wkv state.
Expected<RecurrentState> recurrent_state(const GgufHeader& h, const Parts& x) {
    const auto embd = meta_uint(h, x.p + "embedding_length").value_or(0);
    if (const auto wkv = meta_uint(h, x.p + "wkv.head_size")) {
        const auto shift = meta_uint(h, x.p + "token_shift_count").value_or(2);
        if (embd > kMaxWidth || *wkv > kMaxWidth || shift > 16)
            return Error{x.p + "wkv.head_size is not a real model's"};
        return RecurrentState{shift * embd, embd * *wkv};
    }
    if (const auto l_cache = meta_uint(h, x.p + "shortconv.l_cache")) {
        // LFM2's short convolution (llama-hparams.cpp n_embd_r: n_embd x (l_cache - 1); no SSM state).
        if (embd > kMaxWidth || *l_cache > 64)
            return Error{x.p + "shortconv.l_cache is not a real model's"};
        return RecurrentState{(*l_cache > 0 ? *l_cache - 1 : 0) * embd, 0};
    }
    const auto conv = meta_uint(h, x.p + "ssm.conv_kernel");
    const auto inner = meta_uint(h, x.p + "ssm.inner_size");
    const auto state = meta_uint(h, x.p + "ssm.state_size");
    const auto groups = meta_uint(h, x.p + "ssm.group_count").value_or(0);
    if (!conv || !inner || !state)
        return Error{"the model has recurrent layers but no " + x.p +
                     "ssm.conv_kernel, inner_size and state_size "
                     "to size their state"};
    if (*conv > 64 || *inner > kMaxWidth || *state > kMaxWidth || groups > kMaxHeads)
        return Error{"the model's " + x.p + "ssm.* sizes are not a real model's"};
    return RecurrentState{(*conv > 0 ? *conv - 1 : 0) * (*inner + 2 * groups * *state),
                          *state * *inner};
}

// Per layer: full, recurrent or no cache; before any window is applied.
Expected<std::vector<LayerCache>> layer_kinds(const GgufHeader& h, const std::string& arch,
                                              const Parts& x,
                                              const std::vector<std::uint64_t>& kv_heads,
                                              Architecture& a) {
    std::vector<LayerCache> kinds(x.layers, LayerCache::full);
    const bool ssm = h.metadata.contains(x.p + "ssm.state_size") ||
                     h.metadata.contains(x.p + "wkv.head_size") ||
                     h.metadata.contains(x.p + "shortconv.l_cache");
    if (interval_hybrid(arch)) {
        auto interval = whole(h, x.p + "full_attention_interval");
        if (!interval) return interval.error();
        const std::uint64_t n = interval->value_or(4);
        if (n == 0) return Error{x.p + "full_attention_interval is 0"};
        for (std::uint64_t i = 0; i < x.layers; ++i)
            if ((i + 1) % n != 0) kinds[i] = LayerCache::recurrent;
        a.rule =
            "llama.cpp src/llama-memory-hybrid.cpp: KV cache for the attention layers only "
            "(one in " +
            std::to_string(n) + "), a recurrent state per sequence for the others";
    } else {
        // Without a recurrent state, a layer without KV heads (Nemotron-51B's attention-free
        // layers) still gets its K and V tensors in llama.cpp: zero wide, but V padded to the
        // widest layer's without flash attention (kv_cache.cpp). It stays a cached layer.
        if (ssm)
            for (std::uint64_t i = 0; i < x.layers; ++i)
                if (kv_heads[i] == 0) kinds[i] = LayerCache::recurrent;
        if (ssm)
            a.rule =
                "llama.cpp src/llama-memory-recurrent.cpp: a recurrent state per sequence, "
                "KV cache only for layers with KV heads";
        // Falcon-H1 runs attention and Mamba-2 side by side in every layer: llama.cpp's hybrid
        // memory gives every layer both a KV cache and a recurrent state (src/llama-model.cpp,
        // create_memory: filter_attn and filter_recr both true for LLM_ARCH_FALCON_H1).
        if (arch == "falcon-h1") {
            a.recurrent_beside_attention = x.layers;
            a.rule =
                "llama.cpp src/llama-memory-hybrid.cpp: every layer keeps a KV cache and a recurrent "
                "state per sequence (Falcon-H1)";
        }
    }
    // Next-token prediction layers (GLM-4.5 and its kind) are the last nextn_predict_layers;
    // llama.cpp gives them no cache (n_layer_kv_from_start in src/llama-model.cpp).
    auto nextn = whole(h, x.p + "nextn_predict_layers");
    if (!nextn) return nextn.error();
    if (*nextn && **nextn != 0) {
        if (**nextn >= x.layers)
            return Error{x.p + "nextn_predict_layers is not below " + x.p + "block_count"};
        for (std::uint64_t i = x.layers - **nextn; i < x.layers; ++i) kinds[i] = LayerCache::none;
        a.notes.push_back((**nextn == 1 ? std::string("the last layer (next-token prediction) gets")
                                        : "the last " + plural(**nextn, "layer") +
                                              " (next-token prediction) get") +
                          " no KV cache, as in llama.cpp (n_layer_kv_from_start)");
    }
    return kinds;
}

// Chunked attention (Llama 4, src/llama-model.cpp LLM_ARCH_LLAMA4): 8192-token chunks on three
// layers in four, built into llama.cpp, unless the file sets a sliding window of 0.
bool chunked(const GgufHeader& h, const std::string& arch, const Parts& x,
             std::vector<LayerCache>& kinds, Architecture& a) {
    if (arch != "llama4") return false;
    if (const auto w = meta_uint(h, x.p + "attention.sliding_window"); w && *w == 0) return true;
    a.sliding_window = 8192;
    const auto pattern = swa_layers_of_period(x.layers, 4);
    for (std::uint64_t i = 0; i < x.layers; ++i)
        if (pattern[i] && kinds[i] == LayerCache::full) kinds[i] = LayerCache::chunked;
    a.rule =
        "llama.cpp src/llama-model.cpp (LLM_ARCH_LLAMA4): 8192-token attention chunks on three "
        "layers in four, sized as src/llama-kv-cache-iswa.cpp sizes a window";
    return true;
}

// The feed-forward outputs one token holds at once, for the compute buffer (compute_buffer.hpp):
// a dense layer's gate and up (llama.cpp's ffn_gate; n_ff alone without one); a mixture of
// experts' gate and up for each expert used (expert_feed_forward_length, else feed_forward_length
// as Mixtral's GGUF gives it). A mixture's feed_forward_length counts as a dense layer only where
// it has leading dense layers (DeepSeek, GLM-4.5): Qwen3-MoE's names a width no layer has.
Expected<std::optional<std::uint64_t>> feed_forward_values(const GgufHeader& h, const Parts& x) {
    using Out = std::optional<std::uint64_t>;
    auto ffn = per_layer(h, x.p + "feed_forward_length", x.layers);
    if (!ffn) return ffn.error();
    auto expert = whole(h, x.p + "expert_feed_forward_length");
    if (!expert) return expert.error();
    auto used = whole(h, x.p + "expert_used_count");
    if (!used) return used.error();
    const std::uint64_t dense_width = *ffn ? *std::max_element((*ffn)->begin(), (*ffn)->end()) : 0;
    const std::uint64_t expert_width = expert->value_or(dense_width);
    if (dense_width > kMaxWidth || expert_width > kMaxWidth || used->value_or(0) > kMaxHeads)
        return Error{
            x.p +
            "feed_forward_length, expert_feed_forward_length or expert_used_count is not a real model's"};
    const bool moe = h.metadata.contains(x.p + "expert_count") && used->value_or(0) != 0;
    const bool gated =
        std::binary_search(h.tensor_names.begin(), h.tensor_names.end(), "blk.0.ffn_gate.weight");
    const bool dense_layers =
        !moe || meta_uint(h, x.p + "leading_dense_block_count").value_or(0) != 0;
    const std::uint64_t dense = dense_layers ? (gated ? 2 : 1) * dense_width : 0;
    const std::uint64_t experts = moe ? 2 * expert_width * **used : 0;
    const std::uint64_t widest = std::max(dense, experts);
    return widest == 0 ? Out() : Out(widest);
}

}  // namespace

Expected<Architecture> gguf_architecture(const GgufHeader& h) {
    const auto arch = meta_string(h, "general.architecture");
    if (!arch || arch->empty()) return Error{"the model's metadata has no general.architecture"};
    // The name prefixes every key below and appears in messages: only a plain name is taken.
    const bool plain = arch->size() <= 64 && std::all_of(arch->begin(), arch->end(), [](char c) {
                           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                  (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
                       });
    if (!plain) return Error{"general.architecture '" + printable(*arch) + "' is not a name"};
    Architecture a;
    a.name = printable(*arch);
    a.source = "GGUF metadata " + a.name + ".*";
    a.rule = "llama.cpp src/llama-kv-cache.cpp: K and V rows of KV heads x head length per layer";
    Parts x;
    x.p = *arch + ".";
    auto layers = whole(h, x.p + "block_count");
    if (!layers) return layers.error();
    if (!*layers || **layers == 0)
        return Error{"the model's metadata has no " + x.p + "block_count"};
    x.layers = **layers;
    if (x.layers > kMaxLayers)
        return Error{x.p + "block_count " + std::to_string(x.layers) + " is not a real model's"};
    // KV heads: GGUF's documented default is as many as query heads, but only when the key is
    // absent: a negative or mis-sized head_count_kv is refused with its name.
    auto kv_heads = per_layer(h, x.p + "attention.head_count_kv", x.layers);
    if (!kv_heads) return kv_heads.error();
    if (!*kv_heads) {
        kv_heads = per_layer(h, x.p + "attention.head_count", x.layers);
        if (!kv_heads) return kv_heads.error();
        if (!*kv_heads) return Error{"the model's metadata has no " + x.p + "attention.head_count"};
    }
    // key_length and value_length default to embedding_length / head_count (GGUF's definition).
    auto k_len = whole(h, x.p + "attention.key_length");
    auto v_len = whole(h, x.p + "attention.value_length");
    if (!k_len) return k_len.error();
    if (!v_len) return v_len.error();
    if (!*k_len || !*v_len) {
        const auto embd = meta_uint(h, x.p + "embedding_length");
        const auto heads = meta_uint(h, x.p + "attention.head_count");
        if (!embd || !heads || *heads == 0)
            return Error{"the model's metadata has neither " + x.p + "attention.key_length nor " +
                         x.p + "embedding_length and " + x.p + "attention.head_count"};
        if (!*k_len) *k_len = *embd / *heads;
        if (!*v_len) *v_len = *embd / *heads;
    }
    if (**k_len > kMaxWidth || **v_len > kMaxWidth)
        return Error{"the model's head dimension is not a real model's"};
    // MLA (hparams.is_mla(): key_length_mla and value_length_mla set): the K row is the
    // compressed latent and the rope key (key_length, one KV head); llama.cpp allocates no V.
    const auto k_mla = meta_uint(h, x.p + "attention.key_length_mla").value_or(0);
    const auto v_mla = meta_uint(h, x.p + "attention.value_length_mla").value_or(0);
    const bool mla = k_mla != 0 && v_mla != 0;
    if (mla) {
        a.rule =
            "llama.cpp src/llama-kv-cache.cpp: MLA keeps the latent and rope key as K, no V cache";
        a.notes.push_back("MLA: " + std::to_string(**k_len) +
                          " values of latent and rope key per token and layer, "
                          "no V cache");
    } else if (h.metadata.contains(x.p + "attention.kv_lora_rank")) {
        a.notes.push_back("an MLA model converted without " + x.p +
                          "attention.key_length_mla: llama.cpp caches "
                          "full K and V for every head (reconvert for the small MLA cache)");
    }
    // The heads attention runs with (mlx_compute.hpp): an MLA model's per-head lengths are the
    // *_mla keys, not its cache rows'.
    a.query_head_length = mla ? k_mla : **k_len;
    a.value_head_length = mla ? v_mla : **v_len;
    for (const auto heads : **kv_heads)
        if (heads > kMaxHeads) return Error{"the model's KV head count is not a real model's"};
    auto kinds = layer_kinds(h, *arch, x, **kv_heads, a);
    if (!kinds) return kinds.error();
    if (std::count(kinds->begin(), kinds->end(), LayerCache::recurrent) != 0 ||
        a.recurrent_beside_attention != 0) {
        auto state = recurrent_state(h, x);
        if (!state) return state.error();
        a.recurrent = *state;
    }
    if (!chunked(h, *arch, x, *kinds, a)) {
        const auto window = meta_uint(h, x.p + "attention.sliding_window");
        if (window && *window != 0) {
            a.sliding_window = *window;
            const auto sliding = sliding_layers(h, *arch, x.layers, a.notes);
            for (std::uint64_t i = 0; i < x.layers; ++i)
                if (sliding[i] && (*kinds)[i] == LayerCache::full)
                    (*kinds)[i] = LayerCache::sliding;
        }
    }
    for (std::uint64_t i = 0; i < x.layers; ++i) {
        const std::uint64_t heads = (**kv_heads)[i];
        a.layers.push_back(
            AttentionLayer{heads * **k_len, mla ? 0 : heads * **v_len, (*kinds)[i], !mla});
    }
    a.trained_context = meta_uint(h, x.p + "context_length");
    auto q_heads = per_layer(h, x.p + "attention.head_count", x.layers);
    if (!q_heads) return q_heads.error();
    if (*q_heads) a.query_heads = *std::max_element((*q_heads)->begin(), (*q_heads)->end());
    a.embedding = meta_uint(h, x.p + "embedding_length");
    auto ffn = feed_forward_values(h, x);
    if (!ffn) return ffn.error();
    a.feed_forward_values = *ffn;
    if (const auto used = meta_uint(h, x.p + "expert_used_count");
        used && *used != 0 && *used <= kMaxHeads && h.metadata.contains(x.p + "expert_count"))
        a.experts_used = *used;
    a.vocabulary = meta_uint(h, x.p + "vocab_size");
    if (!a.vocabulary) a.vocabulary = h.token_count;
    if ((a.query_heads && *a.query_heads > kMaxHeads) ||
        (a.embedding && *a.embedding > kMaxWidth) ||
        (a.vocabulary && *a.vocabulary > kMaxWidth * 16))
        return Error{
            "the model's head count, embedding length or vocabulary is not a real model's"};
    return a;
}

}  // namespace wiredcap::fit
