// The request a runtime will run a model at: its defaults (runtime_defaults.hpp), what the
// model's files set (an Ollama model's params layer), what the environment sets (OLLAMA_*), and
// the flags, each over the one before. Every value not given by a flag is said with its source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/fit/model_files.hpp"
#include "wiredcap/fit/runtime_defaults.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

// What the person's flags said; nullopt where they said nothing.
struct RequestFlags {
    std::optional<std::uint64_t> context;
    std::optional<std::uint64_t> parallel;
    std::optional<std::uint64_t> batch;
    std::optional<std::uint64_t> ubatch;
    std::optional<KvType> k_type;
    std::optional<KvType> v_type;
    std::optional<bool> flash_attn;
    std::optional<bool> unified;
};

// Ollama's variables as the environment fit runs in has them (nullopt: unset or empty).
struct OllamaEnvironment {
    std::optional<std::string> context_length;   // OLLAMA_CONTEXT_LENGTH
    std::optional<std::string> num_parallel;     // OLLAMA_NUM_PARALLEL
    std::optional<std::string> flash_attention;  // OLLAMA_FLASH_ATTENTION
    std::optional<std::string> kv_cache_type;    // OLLAMA_KV_CACHE_TYPE
    [[nodiscard]] static OllamaEnvironment from_process();
};

// One value the answer assumed, and where it came from.
struct Assumption {
    std::string setting;  // "context", "flash attention", ...
    std::string value;
    std::string source;
};

struct RuntimeRequest {
    Runtime runtime = Runtime::llama_cpp;
    std::string chosen_because;  // "--runtime", "an Ollama model name", ...
    KvRequest request;
    bool projector_counted = false;
    std::vector<Assumption> assumptions;  // every value no flag gave
    std::vector<std::string> notes;       // what was not counted, and why
};

// The runtime a model found there is most likely run with: an Ollama name, Ollama; an LM Studio
// folder, LM Studio; safetensors, mlx-lm; otherwise llama.cpp.
[[nodiscard]] Runtime inferred_runtime(const ModelInfo& m);

// `gpu_memory` is the memory the runtime sees for the GPU (Ollama's context tier), nullopt when
// unknown; `memory` the machine's, used in its place then (the larger: never the smaller need).
[[nodiscard]] Expected<RuntimeRequest> runtime_request(std::optional<Runtime> named,
                                                       const RequestFlags& flags,
                                                       const ModelInfo& m,
                                                       std::optional<units::Bytes> gpu_memory,
                                                       std::optional<units::Bytes> memory,
                                                       const OllamaEnvironment& env);

}  // namespace wiredcap::fit
