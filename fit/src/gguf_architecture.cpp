#include "wiredcap/fit/gguf_architecture.hpp"

#include <algorithm>

#include "wiredcap/fit/printable.hpp"
#include "wiredcap/fit/swa_patterns.hpp"

namespace wiredcap::fit {
namespace {

// A per-layer value that is either one number for all layers or an array with one per layer.
Expected<std::vector<std::uint64_t>> per_layer(const GgufHeader& h, const std::string& key, std::uint64_t layers) {
    if (const auto* a = meta_array(h, key)) {
        if (a->size() != layers) return Error{key + " has " + std::to_string(a->size()) + " entries for " +
                                              std::to_string(layers) + " layers"};
        std::vector<std::uint64_t> out;
        for (const auto v : *a) {
            if (v < 0) return Error{key + " has a negative entry"};
            out.push_back(static_cast<std::uint64_t>(v));
        }
        return out;
    }
    if (const auto v = meta_uint(h, key)) return std::vector<std::uint64_t>(layers, *v);
    return Error{"the model's metadata has no " + key};
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
        notes.push_back("sliding-window layers: every " + std::to_string(*p) + "th layer is full, as llama.cpp " +
                        "builds in for " + printable(arch));
        return swa_layers_of_period(layers, *p);
    }
    notes.push_back("the file gives a sliding window but not which layers use it: every layer is counted "
                    "at the full context (an overestimate)");
    return std::vector<bool>(layers, false);
}

}  // namespace

Expected<Architecture> gguf_architecture(const GgufHeader& h) {
    const auto arch = meta_string(h, "general.architecture");
    if (!arch || arch->empty()) return Error{"the model's metadata has no general.architecture"};
    // The name prefixes every key below and appears in messages: only a plain name is taken.
    const bool plain = arch->size() <= 64 && std::all_of(arch->begin(), arch->end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    });
    if (!plain) return Error{"general.architecture '" + printable(*arch) + "' is not a name"};
    Architecture a;
    a.name = printable(*arch);
    a.source = "GGUF metadata " + a.name + ".*";
    const std::string p = *arch + ".";
    const auto layers = meta_uint(h, p + "block_count");
    if (!layers || *layers == 0) return Error{"the model's metadata has no " + p + "block_count"};
    if (*layers > kMaxLayers) return Error{p + "block_count " + std::to_string(*layers) + " is not a real model's"};
    auto kv_heads = per_layer(h, p + "attention.head_count_kv", *layers);
    if (!kv_heads) {
        // GGUF's documented default: as many KV heads as query heads.
        kv_heads = per_layer(h, p + "attention.head_count", *layers);
        if (!kv_heads) return kv_heads.error();
    }
    // key_length and value_length default to embedding_length / head_count (GGUF's definition).
    std::optional<std::uint64_t> k_len = meta_uint(h, p + "attention.key_length");
    std::optional<std::uint64_t> v_len = meta_uint(h, p + "attention.value_length");
    if (!k_len || !v_len) {
        const auto embd = meta_uint(h, p + "embedding_length");
        const auto heads = meta_uint(h, p + "attention.head_count");
        if (!embd || !heads || *heads == 0)
            return Error{"the model's metadata has neither " + p + "attention.key_length nor " + p +
                         "embedding_length and " + p + "attention.head_count"};
        if (!k_len) k_len = *embd / *heads;
        if (!v_len) v_len = *embd / *heads;
    }
    if (*k_len > (1u << 20) || *v_len > (1u << 20)) return Error{"the model's head dimension is not a real model's"};
    const auto window = meta_uint(h, p + "attention.sliding_window");
    std::vector<bool> sliding(*layers, false);
    if (window && *window != 0) {
        a.sliding_window = *window;
        sliding = sliding_layers(h, *arch, *layers, a.notes);
    }
    for (std::uint64_t i = 0; i < *layers; ++i) {
        const std::uint64_t heads = (*kv_heads)[i];
        if (heads > (1u << 16)) return Error{"the model's KV head count is not a real model's"};
        a.layers.push_back(AttentionLayer{heads * *k_len, heads * *v_len, sliding[i]});
    }
    a.trained_context = meta_uint(h, p + "context_length");
    return a;
}

}  // namespace wiredcap::fit
