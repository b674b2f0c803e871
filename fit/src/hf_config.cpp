#include "wiredcap/fit/hf_config.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "json_nesting.hpp"
#include "wiredcap/fit/gguf_architecture.hpp"
#include "wiredcap/fit/printable.hpp"
#include "wiredcap/fit/swa_patterns.hpp"

namespace wiredcap::fit {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxHeads = 1u << 16;
constexpr std::uint64_t kMaxWidth = 1u << 20;
constexpr std::size_t kMaxConfigNesting = 16;  // well above the six a quantization_config reaches

std::optional<std::uint64_t> uint_at(const json& o, const char* key) {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<std::uint64_t>();
}

// Which layers slide, in the order the config can say it.
std::vector<bool> sliding_layers(const json& c, const std::string& model_type, std::uint64_t layers,
                                 std::vector<std::string>& notes) {
    if (const auto it = c.find("layer_types");
        it != c.end() && it->is_array() && it->size() == layers) {
        std::vector<bool> out;
        for (const auto& t : *it)
            out.push_back(t.is_string() && t.get<std::string>() == "sliding_attention");
        return out;
    }
    if (const auto p = uint_at(c, "sliding_window_pattern"))
        return swa_layers_of_period(layers, *p);
    if (const auto p = builtin_swa_period(model_type)) {
        notes.push_back("sliding-window layers: one layer in " + std::to_string(*p) +
                        " is full, as llama.cpp " + "builds in for " + printable(model_type));
        return swa_layers_of_period(layers, *p);
    }
    notes.push_back(
        "config.json gives a sliding window but not which layers use it: every layer is counted "
        "at the full context (an overestimate)");
    return std::vector<bool>(layers, false);
}

// Linear-attention (recurrent) layers of a hybrid: layer_types "linear_attention" (Qwen3-Next,
// Qwen3.5), else full_attention_interval; empty when the model has none.
std::vector<bool> recurrent_layers(const json& c, std::uint64_t layers) {
    std::vector<bool> out(layers, false);
    if (const auto it = c.find("layer_types");
        it != c.end() && it->is_array() && it->size() == layers) {
        for (std::uint64_t i = 0; i < layers; ++i)
            out[i] = (*it)[i].is_string() && (*it)[i].get<std::string>() == "linear_attention";
        return out;
    }
    if (const auto n = uint_at(c, "full_attention_interval"); n && *n != 0)
        for (std::uint64_t i = 0; i < layers; ++i) out[i] = (i + 1) % *n != 0;
    return out;
}

// The state of one linear-attention layer per sequence, as llama.cpp's converter maps these keys
// to ssm.conv_kernel, ssm.inner_size (value heads x value head size), ssm.state_size (key head
// size) and ssm.group_count (key heads), and llama_hparams::n_embd_r / n_embd_s size them.
Expected<RecurrentState> recurrent_state(const json& c) {
    const auto conv = uint_at(c, "linear_conv_kernel_dim");
    const auto v_heads = uint_at(c, "linear_num_value_heads");
    const auto v_dim = uint_at(c, "linear_value_head_dim");
    const auto k_heads = uint_at(c, "linear_num_key_heads");
    const auto k_dim = uint_at(c, "linear_key_head_dim");
    if (!conv || !v_heads || !v_dim || !k_heads || !k_dim)
        return Error{
            "config.json has linear-attention layers but not the linear_* sizes of their state"};
    if (*conv > 64 || *v_heads > kMaxHeads || *k_heads > kMaxHeads || *v_dim > kMaxWidth ||
        *k_dim > kMaxWidth)
        return Error{"config.json's linear_* sizes are not a real model's"};
    const std::uint64_t inner = *v_heads * *v_dim;
    return RecurrentState{(*conv > 0 ? *conv - 1 : 0) * (inner + 2 * *k_heads * *k_dim),
                          *k_dim * inner};
}

// Llama 4's chunked attention: attention_chunk_size on the layers no_rope_layers marks 1 (the
// others are global), else three layers in four as llama.cpp builds in.
bool chunked_layers(const json& c, std::uint64_t layers, std::vector<LayerCache>& kinds,
                    Architecture& a) {
    const auto chunk = uint_at(c, "attention_chunk_size");
    if (!chunk || *chunk == 0) return false;
    a.sliding_window = *chunk;
    std::vector<bool> pattern = swa_layers_of_period(layers, 4);
    if (const auto it = c.find("no_rope_layers");
        it != c.end() && it->is_array() && it->size() == layers)
        for (std::uint64_t i = 0; i < layers; ++i)
            pattern[i] = (*it)[i].is_number_unsigned() && (*it)[i].get<std::uint64_t>() != 0;
    for (std::uint64_t i = 0; i < layers; ++i)
        if (pattern[i] && kinds[i] == LayerCache::full) kinds[i] = LayerCache::chunked;
    a.rule =
        "llama.cpp src/llama-model.cpp (LLM_ARCH_LLAMA4): attention chunks sized as "
        "src/llama-kv-cache-iswa.cpp sizes a window";
    return true;
}

// The feed-forward outputs one token holds at once, for the compute term (compute_buffer.hpp):
// the gate's and the up's, 2 x intermediate_size (every gated MLP; a plain one holds half, so
// this is never the smaller); for a mixture of experts, 2 x the experts' width
// (moe_intermediate_size, else intermediate_size as Mixtral's config gives it) x the experts
// used per token, when that is the wider. nullopt when the config does not say.
Expected<std::optional<std::uint64_t>> feed_forward_values(const json& c) {
    using Out = std::optional<std::uint64_t>;
    const auto dense = uint_at(c, "intermediate_size");
    const auto expert = uint_at(c, "moe_intermediate_size");
    const auto used = uint_at(c, "num_experts_per_tok");
    const std::uint64_t width = expert.value_or(dense.value_or(0));
    if (dense.value_or(0) > kMaxWidth || width > kMaxWidth || used.value_or(0) > kMaxHeads)
        return Error{
            "config.json's intermediate_size, moe_intermediate_size or num_experts_per_tok is not a real model's"};
    const std::uint64_t out = std::max(2 * dense.value_or(0), 2 * width * used.value_or(0));
    return out == 0 ? Out() : Out(out);
}

}  // namespace

Expected<Architecture> hf_architecture(const std::string& text) {
    // A config nests a few levels (text_config, rope_scaling, a compressed-tensors
    // quantization_config's groups reach six); one nested far deeper is refused before a tree
    // is built of it (two million levels took seconds and 160 MB).
    if (json_nesting(text) > kMaxConfigNesting)
        return Error{"config.json nests deeper than a model's config does"};
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) return Error{"config.json is not a JSON object"};
    // Vision-language models keep the language model's settings in text_config.
    const json* c = &doc;
    if (!doc.contains("num_hidden_layers"))
        if (const auto it = doc.find("text_config"); it != doc.end() && it->is_object()) c = &*it;
    Architecture a;
    const auto type = c->find("model_type");
    a.name =
        type != c->end() && type->is_string() ? printable(type->get<std::string>()) : "unknown";
    a.source = "config.json";
    a.rule =
        "llama.cpp src/llama-kv-cache.cpp (the model as converted to GGUF): K and V rows of KV "
        "heads x head_dim per layer";
    const auto layers = uint_at(*c, "num_hidden_layers");
    const auto heads = uint_at(*c, "num_attention_heads");
    if (!layers || *layers == 0 || !heads || *heads == 0)
        return Error{"config.json has no num_hidden_layers or num_attention_heads"};
    if (*layers > kMaxLayers || *heads > kMaxHeads)
        return Error{"config.json's layer or head count is not a real model's"};
    const std::uint64_t kv_heads = uint_at(*c, "num_key_value_heads").value_or(*heads);
    std::optional<std::uint64_t> head_dim = uint_at(*c, "head_dim");
    if (!head_dim) {
        const auto hidden = uint_at(*c, "hidden_size");
        if (!hidden) return Error{"config.json has neither head_dim nor hidden_size"};
        head_dim = *hidden / *heads;
    }
    if (kv_heads > kMaxHeads || *head_dim > kMaxWidth)
        return Error{"config.json's head sizes are not a real model's"};
    std::uint64_t k_row = kv_heads * *head_dim;
    std::uint64_t v_row = k_row;
    a.query_head_length = *head_dim;
    a.value_head_length = *head_dim;
    // MLA (DeepSeek-V2/V3/R1, Kimi K2): llama.cpp caches the latent (kv_lora_rank) and the rope
    // key (qk_rope_head_dim) once per token and layer, and no V.
    if (const auto rank = uint_at(*c, "kv_lora_rank"); rank && *rank != 0) {
        const auto rope = uint_at(*c, "qk_rope_head_dim");
        if (!rope) return Error{"config.json has kv_lora_rank (MLA) but no qk_rope_head_dim"};
        if (*rank > kMaxWidth || *rope > kMaxWidth)
            return Error{"config.json's MLA sizes are not a real model's"};
        k_row = *rank + *rope;
        v_row = 0;
        // The heads attention runs with: the query's nope and rope parts, the value's own length.
        const auto nope = uint_at(*c, "qk_nope_head_dim");
        const auto v_head = uint_at(*c, "v_head_dim");
        a.query_head_length =
            nope && *nope <= kMaxWidth ? std::optional<std::uint64_t>(*nope + *rope) : std::nullopt;
        a.value_head_length = v_head;
        a.rule =
            "llama.cpp src/llama-kv-cache.cpp: MLA keeps the latent and rope key as K, no V cache";
        a.notes.push_back("MLA: kv_lora_rank " + std::to_string(*rank) + " + qk_rope_head_dim " +
                          std::to_string(*rope) + " per token and layer, no V cache");
    }
    std::vector<LayerCache> kinds(*layers, LayerCache::full);
    const auto linear = recurrent_layers(*c, *layers);
    if (std::find(linear.begin(), linear.end(), true) != linear.end()) {
        auto state = recurrent_state(*c);
        if (!state) return state.error();
        a.recurrent = *state;
        for (std::uint64_t i = 0; i < *layers; ++i)
            if (linear[i]) kinds[i] = LayerCache::recurrent;
        a.rule =
            "llama.cpp src/llama-memory-hybrid.cpp: KV cache for the attention layers only, a "
            "recurrent state per sequence for the others";
    }
    if (!chunked_layers(*c, *layers, kinds, a)) {
        const auto window = uint_at(*c, "sliding_window");
        const auto use = c->find("use_sliding_window");
        const bool disabled = use != c->end() && use->is_boolean() && !use->get<bool>();
        if (window && *window != 0 && !disabled) {
            a.sliding_window = *window;
            const auto sliding = sliding_layers(*c, a.name, *layers, a.notes);
            for (std::uint64_t i = 0; i < *layers; ++i)
                if (sliding[i] && kinds[i] == LayerCache::full) kinds[i] = LayerCache::sliding;
        }
    }
    for (std::uint64_t i = 0; i < *layers; ++i)
        a.layers.push_back(AttentionLayer{k_row, v_row, kinds[i], v_row != 0});
    a.trained_context = uint_at(*c, "max_position_embeddings");
    a.query_heads = *heads;
    a.embedding = uint_at(*c, "hidden_size");
    a.vocabulary = uint_at(*c, "vocab_size");
    auto ffn = feed_forward_values(*c);
    if (!ffn) return ffn.error();
    a.feed_forward_values = *ffn;
    if (const auto used = uint_at(*c, "num_experts_per_tok"); used && *used != 0)
        a.experts_used = *used;  // feed_forward_values refused one past kMaxHeads
    if ((a.embedding && *a.embedding > kMaxWidth) ||
        (a.vocabulary && *a.vocabulary > kMaxWidth * 16))
        return Error{"config.json's hidden_size or vocab_size is not a real model's"};
    a.notes.push_back(
        "safetensors: sized by llama.cpp's rule for this architecture; MLX (mlx-lm) keeps "
        "its own cache, so for MLX this is an estimate");
    return a;
}

}  // namespace wiredcap::fit
