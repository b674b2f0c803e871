#include "wiredcap/fit/runtime_defaults.hpp"

#include <array>

namespace wiredcap::fit {
namespace {

// llama.cpp's sources at commit 001d906a (common/common.h) and the server's fix-up of its slots;
// Ollama v0.33.0-rc2 (commit fb307609); mlx-lm 0.32.0 (commit d78bf58e) on mlx 0.32.2 (commit
// 846d1762). LM Studio is closed source: its row says what was observed and assumes the larger
// need where nothing is public.
constexpr std::array<RuntimeDefaults, 5> kDefaults{{
    {Runtime::llama_cpp, "llama.cpp", "llama.cpp commit 001d906a", std::nullopt,
     "common/common.h: int32_t n_ctx = 0; // 0 == context the model was trained with (its -fit, on by default, lowers it to what free memory holds, not below 4096)",
     1, false, "common/common.h: int32_t n_parallel = 1; bool kv_unified = false", true,
     "common/common.h: flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO; src/llama-context.cpp turns auto on where the device runs it (Metal)",
     2048, 512, "common/common.h: n_batch = 2048, n_ubatch = 512", KvType::f16,
     "common/common.h: cache_type_k = cache_type_v = GGML_TYPE_F16", false,
     "common/common.h: mmproj is loaded only when named (--mmproj)",
     "src/llama-context.cpp graph_reserve: one micro-batch's worst-case graph, laid out by ggml-alloc (estimate)"},
    {Runtime::llama_server, "llama-server", "llama.cpp commit 001d906a", std::nullopt,
     "common/common.h: int32_t n_ctx = 0; // 0 == context the model was trained with", 4, true,
     "tools/server: -np not given: \"setting n_parallel = 4 and kv_unified = true\"", true,
     "common/common.h: flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO; src/llama-context.cpp turns auto on where the device runs it (Metal)",
     2048, 512, "common/common.h: n_batch = 2048, n_ubatch = 512", KvType::f16,
     "common/common.h: cache_type_k = cache_type_v = GGML_TYPE_F16", true,
     "the mmproj beside the model is what --mmproj (or -hf, which fetches it) loads",
     "src/llama-context.cpp graph_reserve: one micro-batch's worst-case graph, laid out by ggml-alloc (estimate)"},
    {Runtime::ollama, "ollama", "Ollama v0.33.0-rc2 (commit fb307609)", std::nullopt,
     "server/routes.go:2050-2057: by GPU memory, 4096 / 32768 / 262144; params layer num_ctx and OLLAMA_CONTEXT_LENGTH first; llm/server.go:113 caps it at the trained context",
     1, false,
     "envconfig/config.go:275: OLLAMA_NUM_PARALLEL default 1; llm/llama_server.go:375-376 passes -c num_ctx x np and -np",
     true, "llm/llama_server.go:597-620: --flash-attn auto unless OLLAMA_FLASH_ATTENTION is set",
     512, 512, "api/types.go:1116: NumBatch 512; llm/llama_server.go:591: -b and -ub num_batch",
     KvType::f16,
     "llm/llama_server.go:394: --cache-type-k/-v only when OLLAMA_KV_CACHE_TYPE is set (else llama.cpp's f16)",
     true,
     "llm/llama_server.go:654: --mmproj the manifest's projector layer; :388 --lora each adapter",
     "llama.cpp's, which Ollama runs: src/llama-context.cpp graph_reserve (estimate)"},
    {Runtime::lm_studio, "lm-studio", "LM Studio 0.3 (closed source)", 4096,
     "the loader's default context, 4096 (loaded_context_length, zed-industries/zed#33938)", 1,
     false, "one sequence assumed (not public)", false,
     "flash attention off assumed (not public; off is the larger need)", 2048, 512,
     "its llama.cpp engine's n_batch 2048, n_ubatch 512 assumed", KvType::f16,
     "f16 cache (the loader's default)", true,
     "a vision model's folder holds its mmproj, loaded with it",
     "its llama.cpp engine's: src/llama-context.cpp graph_reserve (estimate)"},
    {Runtime::mlx, "mlx", "mlx-lm 0.32.0 (commit d78bf58e), mlx 0.32.2 (commit 846d1762)", 4096,
     "no context is reserved: the cache grows with the text (mlx_lm/models/cache.py KVCache, step = 256); 4096 tokens assumed",
     1, false, "mlx_lm.generate: one sequence", true,
     "mlx_lm/models/cache.py:353-354: V kept as computed, not transposed (as llama.cpp with flash attention); "
     "whether the scores are kept is the compute term's",
     2048, 2048, "mlx_lm/generate.py:307: prefill_step_size = 2048", KvType::f16,
     "the model's dtype, 2 bytes (mlx_lm/generate.py:308: kv_bits = None)", false,
     "mlx-lm loads no projector (mlx-vlm does)",
     "mlx_lm/generate.py:421-433: prefill chunks of 2048, only the cache evaluated (no logits); mlx fast.cpp:734 "
     "keeps heads x chunk x keys of scores unless scaled_dot_product_attention.cpp:661-672,761-766 runs the fused "
     "kernel (head length 64-128); models/cache.py:347 copies a layer's cache as it grows (estimate)"},
}};

struct Alias {
    std::string_view name;
    Runtime runtime;
};
constexpr std::array<Alias, 9> kAliases{{
    {"llama.cpp", Runtime::llama_cpp},
    {"llama-cli", Runtime::llama_cpp},
    {"llamacpp", Runtime::llama_cpp},
    {"llama-server", Runtime::llama_server},
    {"ollama", Runtime::ollama},
    {"lm-studio", Runtime::lm_studio},
    {"lmstudio", Runtime::lm_studio},
    {"mlx", Runtime::mlx},
    {"mlx-lm", Runtime::mlx},
}};

}  // namespace

const RuntimeDefaults& runtime_defaults(Runtime r) {
    return kDefaults[static_cast<std::size_t>(r)];
}

std::optional<Runtime> runtime_of(std::string_view name) {
    for (const auto& a : kAliases)
        if (a.name == name) return a.runtime;
    return std::nullopt;
}

std::string runtime_names() {
    std::string out;
    for (const auto& d : kDefaults) out += (out.empty() ? "" : ", ") + std::string(d.name);
    return out;
}

}  // namespace wiredcap::fit
