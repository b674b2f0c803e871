#include "wiredcap/fit/hf_config.hpp"

#include <nlohmann/json.hpp>

#include "wiredcap/fit/gguf_architecture.hpp"
#include "wiredcap/fit/printable.hpp"
#include "wiredcap/fit/swa_patterns.hpp"

namespace wiredcap::fit {
namespace {

using nlohmann::json;

std::optional<std::uint64_t> uint_at(const json& o, const char* key) {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<std::uint64_t>();
}

// Which layers slide, in the order the config can say it.
std::vector<bool> sliding_layers(const json& c, const std::string& model_type, std::uint64_t layers,
                                 std::vector<std::string>& notes) {
    if (const auto it = c.find("layer_types"); it != c.end() && it->is_array() && it->size() == layers) {
        std::vector<bool> out;
        for (const auto& t : *it) out.push_back(t.is_string() && t.get<std::string>() == "sliding_attention");
        return out;
    }
    if (const auto p = uint_at(c, "sliding_window_pattern")) return swa_layers_of_period(layers, *p);
    if (const auto p = builtin_swa_period(model_type)) {
        notes.push_back("sliding-window layers: every " + std::to_string(*p) + "th layer is full, as llama.cpp " +
                        "builds in for " + printable(model_type));
        return swa_layers_of_period(layers, *p);
    }
    notes.push_back("config.json gives a sliding window but not which layers use it: every layer is counted "
                    "at the full context (an overestimate)");
    return std::vector<bool>(layers, false);
}

}  // namespace

Expected<Architecture> hf_architecture(const std::string& text) {
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) return Error{"config.json is not a JSON object"};
    // Vision-language models keep the language model's settings in text_config.
    const json* c = &doc;
    if (!doc.contains("num_hidden_layers"))
        if (const auto it = doc.find("text_config"); it != doc.end() && it->is_object()) c = &*it;
    Architecture a;
    const auto type = c->find("model_type");
    a.name = type != c->end() && type->is_string() ? printable(type->get<std::string>()) : "unknown";
    a.source = "config.json";
    const auto layers = uint_at(*c, "num_hidden_layers");
    const auto heads = uint_at(*c, "num_attention_heads");
    if (!layers || *layers == 0 || !heads || *heads == 0)
        return Error{"config.json has no num_hidden_layers or num_attention_heads"};
    if (*layers > kMaxLayers || *heads > (1u << 16)) return Error{"config.json's layer or head count is not a real model's"};
    const std::uint64_t kv_heads = uint_at(*c, "num_key_value_heads").value_or(*heads);
    std::optional<std::uint64_t> head_dim = uint_at(*c, "head_dim");
    if (!head_dim) {
        const auto hidden = uint_at(*c, "hidden_size");
        if (!hidden) return Error{"config.json has neither head_dim nor hidden_size"};
        head_dim = *hidden / *heads;
    }
    if (kv_heads > (1u << 16) || *head_dim > (1u << 20)) return Error{"config.json's head sizes are not a real model's"};
    std::vector<bool> sliding(*layers, false);
    const auto window = uint_at(*c, "sliding_window");
    const auto use = c->find("use_sliding_window");
    const bool disabled = use != c->end() && use->is_boolean() && !use->get<bool>();
    if (window && *window != 0 && !disabled) {
        a.sliding_window = *window;
        sliding = sliding_layers(*c, a.name, *layers, a.notes);
    }
    for (std::uint64_t i = 0; i < *layers; ++i)
        a.layers.push_back(AttentionLayer{kv_heads * *head_dim, kv_heads * *head_dim, sliding[i]});
    a.trained_context = uint_at(*c, "max_position_embeddings");
    return a;
}

}  // namespace wiredcap::fit
