// fit's request under each runtime's defaults, and the KV cache it gives, against the figure
// derived here from that runtime's own source (the lines cited in runtime_defaults.cpp):
//   llama.cpp    common/common.h (commit 001d906a): n_ctx = 0 (the trained context), n_parallel 1,
//                flash_attn_type AUTO (on on Metal), n_batch 2048, n_ubatch 512, f16 caches
//   llama-server the same, and without -np: n_parallel = 4, kv_unified = true; a unified cache of
//                n_ctx cells; src/llama-kv-cache-iswa.cpp:73: size_swa =
//                GGML_PAD(min(size_base, n_swa x (unified ? n_seq_max : 1) + n_ubatch), 256)
//   Ollama       v0.33.0-rc2: server/routes.go:2050-2056 context by GPU memory (4096 / 32768 /
//                262144 at 23 and 47 GiB), model options (the params layer) over
//                OLLAMA_CONTEXT_LENGTH, llm/server.go:113 capped at the trained context;
//                llm/llama_server.go:375-376 -c num_ctx x np -np np (so no unified cache),
//                :591 -b and -ub num_batch (512), :394 OLLAMA_KV_CACHE_TYPE, :597 flash auto
//   LM Studio    4096 tokens, flash attention off (assumed: closed source)
//   mlx-lm 0.32  4096 tokens assumed; generate.py:307 prefill_step_size 2048 as the micro-batch
#include <gtest/gtest.h>

#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/fit/runtime_defaults.hpp"
#include "wiredcap/fit/runtime_request.hpp"
#include "model_writer.hpp"
#include "parsed_architecture.hpp"

namespace wiredcap::fit {
namespace {

using testing::GgufWriter;
using units::Bytes;
Bytes B(std::uint64_t n) { return Bytes::from_count_or_throw(n); }

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

// gpt-oss-20b's attention: 24 layers alternating a 128-token window and full attention,
// 8 KV heads x 64, trained on 131072 tokens.
ModelInfo gpt_oss(FoundIn where = FoundIn::file) {
    GgufWriter w;
    w.str("general.architecture", "gpt-oss")
        .u32("gpt-oss.block_count", 24)
        .u32("gpt-oss.context_length", 131072)
        .u32("gpt-oss.embedding_length", 2880)
        .u32("gpt-oss.attention.head_count", 64)
        .u32("gpt-oss.attention.head_count_kv", 8)
        .u32("gpt-oss.attention.key_length", 64)
        .u32("gpt-oss.attention.value_length", 64)
        .u32("gpt-oss.attention.sliding_window", 128);
    ModelInfo m;
    m.arch = testing::parsed_architecture(w);
    m.found_in = where;
    return m;
}

// K + V of one layer and one token, f16: 2 x 8 heads x 64 x 2 bytes.
constexpr std::uint64_t kRow = 2 * 8 * 64 * 2;
std::uint64_t pad(std::uint64_t n) { return (n + 255) / 256 * 256; }
// 12 full layers of `full` cells and 12 windowed of `window`.
std::uint64_t gpt_oss_kv(std::uint64_t full, std::uint64_t window) {
    return 12 * kRow * full + 12 * kRow * window;
}

RuntimeRequest request(std::optional<Runtime> rt, const ModelInfo& m, const RequestFlags& f = {},
                       std::optional<Bytes> gpu = B(64 * kGiB), const OllamaEnvironment& env = {}) {
    auto r = runtime_request(rt, f, m, gpu, B(96 * kGiB), env);
    if (!r) throw std::runtime_error(r.error().message);
    return *r;
}

std::uint64_t kv_total(const ModelInfo& m, const RuntimeRequest& r) {
    const auto e = estimate_kv(m.arch, r.request);
    if (!e) throw std::runtime_error(e.error().message);
    return e->total.count();
}

TEST(FitRuntime, EveryRowSaysItsVersionAndItsSources) {
    for (const Runtime r : {Runtime::llama_cpp, Runtime::llama_server, Runtime::ollama,
                            Runtime::lm_studio, Runtime::mlx}) {
        const auto& d = runtime_defaults(r);
        EXPECT_EQ(d.runtime, r);
        for (const auto s : {d.version, d.context_source, d.slots_source, d.flash_source,
                             d.batch_source, d.cache_source, d.projector_source, d.compute_source})
            EXPECT_FALSE(s.empty()) << d.name;
        EXPECT_EQ(runtime_of(d.name), r) << d.name;
    }
    EXPECT_EQ(runtime_of("lmstudio"), Runtime::lm_studio);
    EXPECT_EQ(runtime_of("vllm"), std::nullopt);
}

TEST(FitRuntime, TheRuntimeIsInferredFromWhereTheModelWasFound) {
    EXPECT_EQ(inferred_runtime(gpt_oss(FoundIn::ollama)), Runtime::ollama);
    EXPECT_EQ(inferred_runtime(gpt_oss(FoundIn::lm_studio)), Runtime::lm_studio);
    EXPECT_EQ(inferred_runtime(gpt_oss(FoundIn::folder)), Runtime::llama_cpp);
    ModelInfo st = gpt_oss(FoundIn::folder);
    st.format = ModelFormat::safetensors;
    EXPECT_EQ(inferred_runtime(st), Runtime::mlx);
    EXPECT_EQ(request(std::nullopt, gpt_oss(FoundIn::ollama)).runtime, Runtime::ollama);
    EXPECT_EQ(request(Runtime::mlx, gpt_oss(FoundIn::ollama)).chosen_because, "--runtime");
}

// llama.cpp: the trained context, one sequence, flash attention on, -ub 512: the server log's
// 3072 MiB + 18 MiB for gpt-oss-20b at 131072 (kv_cache_published_test.cpp).
TEST(FitRuntime, LlamaCppDefaults) {
    const ModelInfo m = gpt_oss();
    const auto r = request(std::nullopt, m);
    EXPECT_EQ(r.runtime, Runtime::llama_cpp);
    EXPECT_EQ(r.request.context, 131072u);
    EXPECT_EQ(r.request.parallel, 1u);
    EXPECT_TRUE(r.request.flash_attn);
    EXPECT_FALSE(r.request.unified);
    EXPECT_EQ(kv_total(m, r), gpt_oss_kv(131072, pad(128 + 512)));
    EXPECT_EQ(kv_total(m, r), (3072u + 18u) * kMiB);
    EXPECT_FALSE(r.assumptions.empty());
}

// llama-server: 4 slots sharing one unified cache of the trained context; the window cache holds
// every slot's window plus a micro-batch: pad(128 x 4 + 512) = 1024 cells.
TEST(FitRuntime, LlamaServerSharesOneUnifiedCacheBetweenFourSlots) {
    const ModelInfo m = gpt_oss();
    const auto r = request(Runtime::llama_server, m);
    EXPECT_EQ(r.request.parallel, 4u);
    EXPECT_TRUE(r.request.unified);
    EXPECT_EQ(r.request.context, 131072u);
    EXPECT_EQ(kv_total(m, r), gpt_oss_kv(131072, pad(128 * 4 + 512)));
    // -np 4 given: no unified cache; -c (the trained context) is split between the slots.
    RequestFlags np;
    np.parallel = 4;
    const auto split = request(Runtime::llama_server, m, np);
    EXPECT_FALSE(split.request.unified);
    EXPECT_EQ(split.request.context, 131072u / 4);
    EXPECT_EQ(kv_total(m, split), gpt_oss_kv(131072, 4 * pad(128 + 512)));
    // --kv-unified with -np 4: the shared cache again.
    np.unified = true;
    EXPECT_EQ(kv_total(m, request(Runtime::llama_server, m, np)),
              gpt_oss_kv(131072, pad(128 * 4 + 512)));
}

// Ollama: the context by GPU memory, capped at the trained context; one sequence; -b/-ub 512.
TEST(FitRuntime, OllamaContextByGpuMemory) {
    const ModelInfo m = gpt_oss(FoundIn::ollama);
    for (const auto& [gpu, ctx] : {std::pair{B(16 * kGiB), 4096u},
                                   {B(23 * kGiB), 32768u},
                                   {B(36 * kGiB), 32768u},
                                   {B(47 * kGiB), 131072u},
                                   {B(128 * kGiB), 131072u}}) {
        const auto r = request(std::nullopt, m, {}, gpu);
        EXPECT_EQ(r.request.context, ctx) << gpu.count();
        EXPECT_EQ(r.request.ubatch, 512u);
        EXPECT_EQ(kv_total(m, r), gpt_oss_kv(ctx, std::min<std::uint64_t>(ctx, pad(128 + 512))))
            << gpu.count();
    }
    // GPU memory unknown: the machine's memory in its place (the larger context, never the smaller).
    const auto unknown = runtime_request(std::nullopt, {}, m, std::nullopt, B(32 * kGiB), {});
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->request.context, 32768u);
}

// The params layer's num_ctx over OLLAMA_CONTEXT_LENGTH over the memory tier; the variables'
// effect on sequences, cache type and flash attention; a flag over all of them.
TEST(FitRuntime, OllamaParamsLayerAndEnvironment) {
    ModelInfo m = gpt_oss(FoundIn::ollama);
    OllamaEnvironment env;
    env.context_length = "16384";
    EXPECT_EQ(request(std::nullopt, m, {}, B(64 * kGiB), env).request.context, 16384u);
    m.ollama.num_ctx = 8192;
    EXPECT_EQ(request(std::nullopt, m, {}, B(64 * kGiB), env).request.context, 8192u);
    m.ollama.num_ctx = 1u << 20;  // past the trained context: capped
    EXPECT_EQ(request(std::nullopt, m, {}, B(64 * kGiB), env).request.context, 131072u);
    m.ollama.num_ctx = 8192;
    m.ollama.num_batch = 1024;
    env.num_parallel = "2";
    env.kv_cache_type = "q8_0";
    env.flash_attention = "false";
    const auto r = request(std::nullopt, m, {}, B(64 * kGiB), env);
    EXPECT_EQ(r.request.parallel, 2u);
    EXPECT_EQ(r.request.ubatch, 1024u);
    EXPECT_EQ(r.request.k_type, KvType::q8_0);
    EXPECT_FALSE(r.request.flash_attn);  // asked off; a quantized V turns it on in llama.cpp
    // q8_0: 34 bytes per 32 values; two sequences, each its own stream: 2 x pad(128 + 1024).
    const std::uint64_t q8_row = 2 * (8 * 64 / 32 * 34);
    const auto e = estimate_kv(m.arch, r.request);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->total.count(), 12 * q8_row * 8192 * 2 + 12 * q8_row * 2 * pad(128 + 1024));
    RequestFlags f;
    f.context = 4096;
    f.parallel = 1;
    EXPECT_EQ(request(std::nullopt, m, f, B(64 * kGiB), env).request.context, 4096u);
    env.kv_cache_type = "q3_k";
    EXPECT_FALSE(runtime_request(std::nullopt, {}, m, B(64 * kGiB), std::nullopt, env));
}

TEST(FitRuntime, LmStudioAndMlxDefaults) {
    const ModelInfo m = gpt_oss(FoundIn::lm_studio);
    const auto lms = request(std::nullopt, m);
    EXPECT_EQ(lms.runtime, Runtime::lm_studio);
    EXPECT_EQ(lms.request.context, 4096u);
    EXPECT_FALSE(lms.request.flash_attn);
    EXPECT_EQ(kv_total(m, lms), gpt_oss_kv(4096, pad(128 + 512)));
    // mlx-lm prefills 2048 tokens a step: its rotating cache peaks at window + 2048 - 1 (cache.py
    // RotatingKVCache._update_concat), 2175 cells here; fit's 256-cell padding gives 2304, above.
    const auto mlx = request(Runtime::mlx, m);
    EXPECT_EQ(mlx.request.ubatch, 2048u);
    EXPECT_EQ(kv_total(m, mlx), gpt_oss_kv(4096, pad(128 + 2048)));
    EXPECT_GE(pad(128 + 2048), 128u + 2048 - 1);
}

// A projector is counted where the runtime loads it, and said where it does not.
TEST(FitRuntime, TheProjectorCountsWhereTheRuntimeLoadsIt) {
    ModelInfo m = gpt_oss();
    m.projector = B(800 * kMiB);
    m.projector_files = {"/models/mmproj-F16.gguf"};
    EXPECT_TRUE(request(Runtime::llama_server, m).projector_counted);
    EXPECT_TRUE(request(Runtime::lm_studio, m).projector_counted);
    EXPECT_TRUE(request(Runtime::ollama, m).projector_counted);
    const auto cli = request(Runtime::llama_cpp, m);
    EXPECT_FALSE(cli.projector_counted);
    ASSERT_EQ(cli.notes.size(), 1u);
    EXPECT_NE(cli.notes[0].find("not counted"), std::string::npos);
}

// Every flag overrides the runtime's default.
TEST(FitRuntime, FlagsOverrideEveryDefault) {
    const ModelInfo m = gpt_oss();
    RequestFlags f;
    f.context = 8192;
    f.parallel = 2;
    f.batch = 1024;
    f.ubatch = 256;
    f.k_type = KvType::q8_0;
    f.v_type = KvType::q4_0;
    f.flash_attn = false;
    for (const Runtime rt : {Runtime::llama_cpp, Runtime::llama_server, Runtime::ollama,
                             Runtime::lm_studio, Runtime::mlx}) {
        const auto r = request(rt, m, f);
        EXPECT_EQ(r.request.context, 8192u);
        EXPECT_EQ(r.request.parallel, 2u);
        EXPECT_EQ(r.request.batch, 1024u);
        EXPECT_EQ(r.request.ubatch, 256u);
        EXPECT_EQ(r.request.k_type, KvType::q8_0);
        EXPECT_EQ(r.request.v_type, KvType::q4_0);
        EXPECT_FALSE(r.request.flash_attn);
        EXPECT_FALSE(r.request.unified);
    }
}

}  // namespace
}  // namespace wiredcap::fit
