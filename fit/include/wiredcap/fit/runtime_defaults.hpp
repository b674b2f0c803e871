// The runtimes people load models with, and each one's defaults: what `wiredcap fit` assumes
// when a flag does not say. One table (runtime_defaults.cpp), every row with the version and the
// source line it was read from, so a new release of a runtime is one edit there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/fit/kv_cache.hpp"

namespace wiredcap::fit {

enum class Runtime { llama_cpp, llama_server, ollama, lm_studio, mlx };

struct RuntimeDefaults {
    Runtime runtime;
    std::string_view name;     // as users write it: "llama.cpp", "ollama"
    std::string_view version;  // the release or commit the defaults were read from
    // Tokens of context; nullopt: the model's trained context. For a unified cache, the cells
    // all sequences share; otherwise each sequence's.
    std::optional<std::uint64_t> context;
    std::string_view context_source;
    std::uint64_t parallel;  // sequences (slots)
    bool unified;            // one KV cache the sequences share
    std::string_view slots_source;
    bool flash_attn;  // on Apple Silicon (Metal)
    std::string_view flash_source;
    std::uint64_t batch;
    std::uint64_t ubatch;
    std::string_view batch_source;
    KvType cache_type;
    std::string_view cache_source;
    bool loads_projector;  // a vision projector found beside the model is loaded with it
    std::string_view projector_source;
    std::string_view
        compute_source;  // what the compute term follows (compute_buffer.hpp, mlx_compute.hpp)
};

[[nodiscard]] const RuntimeDefaults& runtime_defaults(Runtime r);

// "llama.cpp", "llama-cli", "llama-server", "ollama", "lm-studio", "lmstudio", "mlx", "mlx-lm".
[[nodiscard]] std::optional<Runtime> runtime_of(std::string_view name);

// "llama.cpp, llama-server, ollama, lm-studio, mlx" for messages.
[[nodiscard]] std::string runtime_names();

}  // namespace wiredcap::fit
