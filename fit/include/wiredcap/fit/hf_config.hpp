// A safetensors model's attention layout, from its config.json (the Hugging Face and MLX
// layout): num_hidden_layers, num_key_value_heads (default num_attention_heads), head_dim
// (default hidden_size / num_attention_heads), sliding_window with layer_types or
// sliding_window_pattern. A vision-language model keeps these under text_config.
#pragma once

#include <string>

#include "wiredcap/fit/kv_cache.hpp"

namespace wiredcap::fit {

// config.json is read whole, as a tree (about 12 bytes of memory for each byte of a crafted
// one): files larger than this are refused. Real ones are a few KiB; an MLX mixed-precision
// one, naming each layer's quantization, some tens of KiB.
inline constexpr std::uint64_t kMaxConfigJson = 1u << 20;

[[nodiscard]] Expected<Architecture> hf_architecture(const std::string& config_json_text);

}  // namespace wiredcap::fit
