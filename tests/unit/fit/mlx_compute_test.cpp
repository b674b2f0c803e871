// mlx-lm's compute term and rotating cache (fit/include/wiredcap/fit/mlx_compute.hpp): fit's
// MLX total for a model without a sliding window and one with, against the figure derived here
// from mlx-lm 0.32.0 (commit d78bf58e) and mlx 0.32.2 (commit 846d1762):
//   generate.py:307        prefill_step_size = 2048: T = min(2048, context) tokens a chunk
//   generate.py:421-433    of a chunk only the cache is evaluated; :398 logits of the last token
//   models/cache.py:347    KVCache grows by concatenating: one layer's old cache beside the new
//   models/cache.py:460    RotatingKVCache holds the window plus the chunk minus one
//   scaled_dot_product_attention.cpp:661-672, 761-766  fused for >8 queries at head lengths
//                          64, 72, 80, 96, 128 (query = value); 192 and 256 unfused
//   fast.cpp:734, :742-746 the unfused path's scores (heads x T x keys, the dtype) and its
//                          causal mask (T x keys, bool)
// and the defaults: 4096 tokens assumed, f16 (2 bytes), one sequence.
#include <gtest/gtest.h>

#include <algorithm>

#include "wiredcap/fit/compute_buffer.hpp"
#include "wiredcap/fit/hf_config.hpp"
#include "wiredcap/fit/mlx_compute.hpp"
#include "wiredcap/fit/runtime_request.hpp"

namespace wiredcap::fit {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kWeights = 5 * kGiB;  // any figure: the total adds it unchanged
std::uint64_t pad(std::uint64_t n) { return (n + 255) / 256 * 256; }

ModelInfo safetensors_model(const std::string& config) {
    auto a = hf_architecture(config);
    if (!a) throw std::runtime_error(a.error().message);
    ModelInfo m;
    m.format = ModelFormat::safetensors;
    m.arch = *a;
    m.weights = units::Bytes::from_count_or_throw(kWeights);
    return m;
}

// What `wiredcap fit` totals (weights + KV cache + recurrent state + compute) under the
// runtime's defaults, the flags over them.
struct Answer {
    KvRequest request;
    KvEstimate kv;
    ComputeEstimate compute;
    std::uint64_t total = 0;
};
Answer fit(const ModelInfo& m, const RequestFlags& f = {}) {
    auto r = runtime_request(std::nullopt, f, m, std::nullopt,
                             units::Bytes::from_count_or_throw(64 * kGiB), {});
    if (!r) throw std::runtime_error(r.error().message);
    EXPECT_EQ(r->runtime, Runtime::mlx);  // a safetensors model: mlx-lm
    auto kv = estimate_kv(m.arch, r->request);
    if (!kv) throw std::runtime_error(kv.error().message);
    auto c = estimate_compute_for(r->runtime, m.arch, r->request, *kv);
    if (!c) throw std::runtime_error(c.error().message);
    return {r->request, *kv, *c,
            static_cast<std::uint64_t>(m.weights.count() + kv->total.count() +
                                       kv->recurrent.count() + c->bytes.count())};
}

// Llama 3.1 8B: 32 layers, 32 heads of 128 (8 KV heads), n_embd 4096, n_ff 14336 gated.
const char* kLlama8B = R"({"model_type":"llama","num_hidden_layers":32,"num_attention_heads":32,
    "num_key_value_heads":8,"hidden_size":4096,"intermediate_size":14336,"vocab_size":128256,
    "max_position_embeddings":131072})";

// Gemma 3 12B: 48 layers, one in six full, a 1024-token window, 16 heads of 256 (8 KV heads),
// n_embd 3840, n_ff 15360 gated.
const char* kGemma12B =
    R"({"model_type":"gemma3_text","num_hidden_layers":48,"num_attention_heads":16,
    "num_key_value_heads":8,"head_dim":256,"hidden_size":3840,"intermediate_size":15360,"vocab_size":262208,
    "sliding_window":1024,"sliding_window_pattern":6,"max_position_embeddings":131072})";

TEST(FitMlxCompute, TheFusedKernelRunsForTheHeadLengthsMlxNames) {
    for (const std::uint64_t d : {64u, 72u, 80u, 96u, 128u})
        EXPECT_TRUE(mlx_fused_attention(d, d)) << d;
    for (const std::uint64_t d : {32u, 112u, 192u, 256u})
        EXPECT_FALSE(mlx_fused_attention(d, d)) << d;
    EXPECT_FALSE(mlx_fused_attention(192, 128));  // MLA's query and value lengths differ
    EXPECT_FALSE(mlx_fused_attention(std::nullopt, std::nullopt));  // unknown: the larger need
}

// No window, head length 128: the fused kernel, so no scores; the feed-forward is the peak.
TEST(FitMlxCompute, WithoutAWindowTheTotalIsTheRulesFigure) {
    const ModelInfo m = safetensors_model(kLlama8B);
    const Answer a = fit(m);
    const std::uint64_t T = 2048, ctx = 4096, d = 2;
    const std::uint64_t layer_kv = 2 * 8 * 128 * d * ctx;  // K and V of one layer, 4096 cells
    const std::uint64_t kv = 32 * layer_kv;
    const std::uint64_t attention = T * (4 * 4096 * d);
    const std::uint64_t ffn = T * (2 * 14336 + 2 * 4096) * d;
    const std::uint64_t output = 2 * 128256 * 4;
    const std::uint64_t compute = std::max({attention, ffn, output}) + layer_kv;
    EXPECT_EQ(a.request.context, ctx);
    EXPECT_EQ(a.kv.total.count(), kv);
    EXPECT_EQ(a.compute.bytes.count(), compute);
    EXPECT_EQ(a.total, kWeights + kv + compute);
    EXPECT_EQ(a.compute.rule, runtime_defaults(Runtime::mlx).compute_source);
    EXPECT_NE(a.compute.basis.find("feed-forward"), std::string::npos) << a.compute.basis;
    // llama.cpp's rule at the same request counts 2048 tokens of output logits mlx-lm never
    // evaluates: over a GiB, where mlx-lm's term is 160 MiB.
    const auto llama = estimate_compute(m.arch, a.request, a.kv);
    ASSERT_TRUE(llama);
    EXPECT_GT(llama->bytes.count(), std::int64_t{1} << 30);
}

// A window, head length 256: mlx's fallback keeps the scores, heads x T x the keys a layer
// attends to; a full layer's (the whole cache) is the peak. The windowed layers hold the window
// plus the chunk minus one, padded to 256 as fit pads every cache.
TEST(FitMlxCompute, WithAWindowTheTotalIsTheRulesFigure) {
    const ModelInfo m = safetensors_model(kGemma12B);
    const std::uint64_t T = 2048, d = 2, row = 2 * 8 * 256 * d;
    for (const std::uint64_t ctx : {4096u, 32768u}) {
        RequestFlags f;
        f.context = ctx;
        const Answer a = fit(m, f);
        const std::uint64_t window = pad(1024 + T - 1);
        ASSERT_GE(window, 1024 + T - 1);  // never below mlx-lm's peak (cache.py:460-462)
        const std::uint64_t kv = 8 * row * ctx + 40 * row * window;
        const std::uint64_t keys = ctx;  // a full layer's
        const std::uint64_t attention = T * (16 * keys * d + keys + 4 * 3840 * d);
        const std::uint64_t ffn = T * (2 * 15360 + 2 * 3840) * d;
        const std::uint64_t compute =
            std::max({attention, ffn, std::uint64_t{2 * 262208 * 4}}) + row * ctx;
        EXPECT_EQ(a.kv.window_cells, window) << ctx;
        EXPECT_EQ(a.kv.total.count(), kv) << ctx;
        EXPECT_EQ(a.compute.bytes.count(), compute) << ctx;
        EXPECT_EQ(a.total, kWeights + kv + compute) << ctx;
        EXPECT_NE(a.compute.basis.find("scores kept"), std::string::npos) << a.compute.basis;
    }
}

// A mixture of experts (Qwen3-30B-A3B: 8 of 128 experts of 768, hidden 2048, heads of 128):
// the feed-forward is the peak, the experts' gate and up and the input sorted by expert once
// for each expert used (switch_layers.py:181-185).
TEST(FitMlxCompute, AMixtureCopiesItsInputForEachExpertUsed) {
    const ModelInfo m = safetensors_model(R"({"model_type":"qwen3_moe","num_hidden_layers":48,
      "num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,"hidden_size":2048,
      "intermediate_size":6144,"moe_intermediate_size":768,"num_experts":128,"num_experts_per_tok":8,
      "vocab_size":151936,"max_position_embeddings":40960})");
    const Answer a = fit(m);
    const std::uint64_t T = 2048, ctx = 4096, d = 2, layer_kv = 2 * 4 * 128 * d * ctx;
    const std::uint64_t ffn = T * (2 * 8 * 768 + 2 * 2048 + 8 * 2048) * d;
    ASSERT_GT(ffn, T * 4 * 2048 * d);  // above the attention's hidden states (fused kernel)
    EXPECT_EQ(a.compute.bytes.count(), ffn + layer_kv);
    EXPECT_EQ(a.total, kWeights + 48 * layer_kv + ffn + layer_kv);
}

// MLA (DeepSeek-V3): the cache is the latent and the rope key (576 values a layer); a prefill
// chunk expands the latent into every head's K and V over all the keys (deepseek_v3.py:158-160),
// and a query head of 192 against a value head of 128 runs unfused: the scores are kept.
TEST(FitMlxCompute, MlaExpandsItsLatentIntoEveryHead) {
    const ModelInfo m = safetensors_model(R"({"model_type":"deepseek_v3","num_hidden_layers":61,
      "num_attention_heads":128,"num_key_value_heads":128,"hidden_size":7168,"kv_lora_rank":512,
      "q_lora_rank":1536,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,
      "intermediate_size":18432,"moe_intermediate_size":2048,"num_experts_per_tok":8,
      "vocab_size":129280,"max_position_embeddings":163840})");
    const Answer a = fit(m);
    const std::uint64_t T = 2048, ctx = 4096, d = 2, layer_kv = 576 * d * ctx;
    const std::uint64_t attention =
        T * (128 * ctx * d + ctx + 4 * 7168 * d) + 128 * ctx * d * (192 + 128);
    // The widest layer's gate and up: the dense layers' 2 x 18432 (the experts': 2 x 8 x 2048);
    // and the input sorted by expert, 8 copies (switch_layers.py:181-185).
    const std::uint64_t ffn = T * (2 * 18432 + 2 * 7168 + 8 * 7168) * d;
    EXPECT_EQ(a.kv.total.count(), 61 * layer_kv);
    EXPECT_EQ(a.compute.bytes.count(), std::max(attention, ffn) + layer_kv);
    EXPECT_EQ(a.total, kWeights + 61 * layer_kv + std::max(attention, ffn) + layer_kv);
}

// A model of windowed layers only attends over the rotating cache: window + chunk - 1 keys.
TEST(FitMlxCompute, AWindowOnlyModelAttendsOverItsWindow) {
    ModelInfo m = safetensors_model(kGemma12B);
    for (auto& l : m.arch.layers) l.cache = LayerCache::sliding;
    RequestFlags f;
    f.context = 32768;
    const Answer a = fit(m, f);
    const std::uint64_t T = 2048, d = 2, window = pad(1024 + T - 1);
    EXPECT_EQ(a.compute.kv_cells, window);
    const std::uint64_t attention = T * (16 * window * d + window + 4 * 3840 * d);
    EXPECT_EQ(a.compute.bytes.count(), attention + 2 * 8 * 256 * d * window);
}

}  // namespace
}  // namespace wiredcap::fit
