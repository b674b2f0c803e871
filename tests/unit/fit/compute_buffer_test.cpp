// The compute buffer's estimate (fit/include/wiredcap/fit/compute_buffer.hpp): each expected
// figure is derived here from the rule, at three contexts, with and without flash attention and
// at other micro-batches; and the rule is held to llama.cpp's published figures.
#include <gtest/gtest.h>

#include <algorithm>

#include "wiredcap/fit/compute_buffer.hpp"
#include "wiredcap/fit/hf_config.hpp"
#include "model_writer.hpp"
#include "parsed_architecture.hpp"

namespace wiredcap::fit {
namespace {

using testing::GgufWriter;

constexpr std::uint64_t kMiB = 1024 * 1024;

// LLaMA-2 7B as llama.cpp's converter writes it: 32 layers, n_embd 4096, 32 heads (all KV
// heads), and its 32000-token vocabulary as tokenizer.ggml.tokens (no vocab_size key).
GgufWriter llama2_7b() {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 32)
        .u32("llama.embedding_length", 4096)
        .u32("llama.attention.head_count", 32)
        .u32("llama.attention.head_count_kv", 32)
        .u32("llama.context_length", 4096)
        .string_array("tokenizer.ggml.tokens", 32000);
    return w;
}

ComputeEstimate compute(const Architecture& a, KvRequest r) {
    const auto kv = estimate_kv(a, r);
    if (!kv) throw std::runtime_error(kv.error().message);
    const auto c = estimate_compute(a, r, *kv);
    if (!c) throw std::runtime_error(c.error().message);
    return *c;
}

KvRequest at(std::uint64_t context, std::uint64_t ubatch = 512, bool flash = false,
             std::uint64_t batch = 2048) {
    KvRequest r;
    r.context = context;
    r.ubatch = ubatch;
    r.batch = batch;
    r.flash_attn = flash;
    return r;
}

// The rule, written out: T tokens; one layer's attention (scores unless flash, the mask, and its
// f16 copy with flash, four hidden states) or the output (logits and the final norm).
std::uint64_t rule(std::uint64_t tokens, std::uint64_t cells, std::uint64_t heads,
                   std::uint64_t embd, std::uint64_t vocab, bool flash) {
    const std::uint64_t attention =
        tokens * ((flash ? 0 : cells * heads * 4) + cells * (flash ? 6 : 4) + 16 * embd);
    const std::uint64_t output = tokens * (vocab + embd) * 4;
    return std::max(attention, output);
}

TEST(FitComputeBuffer, Llama2_7BIsLlamaCppsPublishedFigure) {
    const Architecture a = testing::parsed_architecture(llama2_7b());
    ASSERT_EQ(a.vocabulary, 32000u);
    // Published: llama.cpp on an Apple M2 (Metal) with LLaMA-2 7B at n_ctx 512, n_ubatch 512:
    // "Metal compute buffer size = 70.50 MiB" (the output logits are the peak); and at n_ctx
    // 4096, n_ubatch 512, flash_attn 0: "compute buffer size = 296.00 MiB" (the attention
    // scores are). Both are in llama.cpp issue logs of llama-2-7b; the rule gives them exactly.
    EXPECT_EQ(compute(a, at(512)).bytes.count(), 70 * kMiB + kMiB / 2);
    EXPECT_EQ(compute(a, at(4096)).bytes.count(), 296 * kMiB);
}

TEST(FitComputeBuffer, GrowsWithContextMicroBatchAndWithoutFlashAttention) {
    const Architecture a = testing::parsed_architecture(llama2_7b());
    for (const std::uint64_t ctx : {4096u, 32768u, 131072u}) {
        for (const bool flash : {false, true}) {
            for (const std::uint64_t ub : {128u, 512u, 2048u}) {
                const ComputeEstimate c = compute(a, at(ctx, ub, flash));
                EXPECT_TRUE(c.by_rule);
                EXPECT_EQ(c.tokens, ub);
                EXPECT_EQ(c.kv_cells, ctx);
                EXPECT_EQ(c.bytes.count(), rule(ub, ctx, 32, 4096, 32000, flash))
                    << ctx << " " << ub << " " << flash;
            }
        }
        EXPECT_GT(compute(a, at(ctx)).bytes, compute(a, at(ctx, 512, true)).bytes) << ctx;
        EXPECT_GT(compute(a, at(ctx, 2048)).bytes, compute(a, at(ctx)).bytes) << ctx;
    }
    EXPECT_GT(compute(a, at(131072)).bytes, compute(a, at(32768)).bytes);
}

TEST(FitComputeBuffer, TheMicroBatchIsTheSmallerOfBatchAndUbatchAndTheContext) {
    const Architecture a = testing::parsed_architecture(llama2_7b());
    EXPECT_EQ(compute(a, at(4096, 512, false, 256)).tokens,
              256u);  // -b 256 -ub 512: llama.cpp clamps
    EXPECT_EQ(compute(a, at(4096, 512, false, 256)).bytes.count(),
              rule(256, 4096, 32, 4096, 32000, false));
    // A context below a micro-batch: llama.cpp pads n_ctx 100 to 256 cells first, so the
    // micro-batch is min(256, 512).
    EXPECT_EQ(compute(a, at(100)).tokens, 256u);
    EXPECT_EQ(compute(a, at(200, 128)).tokens, 128u);
}

// MLA: the scores span every query head (DeepSeek-R1: 128) against the one latent head, so at
// its full 163840-token context the buffer passes 40 GiB without flash attention. ik_llama.cpp
// PR 237 (https://github.com/ikawrakow/ik_llama.cpp/pull/237): K*Q is "n_ctx x n_ubatch x
// n_head x sizeof(float)", "over 40 GB" for DeepSeek-R1 at 163k tokens.
TEST(FitComputeBuffer, MlaScoresSpanEveryQueryHead) {
    const auto a = hf_architecture(R"({"model_type":"deepseek_v3","num_hidden_layers":61,
      "num_attention_heads":128,"num_key_value_heads":128,"hidden_size":7168,"kv_lora_rank":512,
      "qk_rope_head_dim":64,"v_head_dim":128,"vocab_size":129280,"max_position_embeddings":163840})");
    ASSERT_TRUE(a);
    for (const std::uint64_t ctx : {4096u, 32768u, 163840u})
        EXPECT_EQ(compute(*a, at(ctx)).bytes.count(), rule(512, ctx, 128, 7168, 129280, false))
            << ctx;
    EXPECT_GT(compute(*a, at(163840)).bytes.count(), 40 * 1024 * kMiB);
    EXPECT_LT(compute(*a, at(163840, 512, true)).bytes.count(), 1024 * kMiB);
}

// A hybrid's recurrent layers have no scores; a windowed model with no full layer spans its
// window only.
TEST(FitComputeBuffer, WindowedAndRecurrentLayersSpanWhatTheyHold) {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 4)
        .u32("llama.embedding_length", 1024)
        .u32("llama.attention.head_count", 8)
        .u32("llama.attention.head_count_kv", 8)
        .u32("llama.vocab_size", 1000)
        .u32("llama.attention.sliding_window", 1024)
        .i32_array("llama.attention.sliding_window_pattern", {1, 1, 1, 1});
    const Architecture a = testing::parsed_architecture(w);
    const ComputeEstimate c = compute(a, at(65536));
    EXPECT_EQ(c.kv_cells, 1536u);  // pad256(1024 + 512)
    EXPECT_EQ(c.bytes.count(), rule(512, 1536, 8, 1024, 1000, false));
}

// llama.cpp refuses a quantized V cache without flash attention, so one is sized with it; a
// quantized K cache alone is not.
TEST(FitComputeBuffer, AQuantizedVCacheImpliesFlashAttention) {
    const Architecture a = testing::parsed_architecture(llama2_7b());
    for (const std::uint64_t ctx : {4096u, 32768u, 131072u}) {
        KvRequest q = at(ctx);
        q.k_type = q.v_type = KvType::q8_0;
        EXPECT_EQ(compute(a, q).bytes.count(), rule(512, ctx, 32, 4096, 32000, true)) << ctx;
        // Said where the attention is the peak (at 4096 tokens the output logits are).
        if (ctx == 131072) {
            EXPECT_NE(compute(a, q).basis.find("quantized V"), std::string::npos);
        }
        KvRequest k_only = at(ctx);
        k_only.k_type = KvType::q4_0;
        EXPECT_EQ(compute(a, k_only).bytes.count(), rule(512, ctx, 32, 4096, 32000, false)) << ctx;
    }
}

TEST(FitComputeBuffer, WithoutTheSizesTheRuleNeedsItIsTheStatedFixedAllowance) {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 32)
        .u32("llama.embedding_length", 4096)
        .u32("llama.attention.head_count", 32)
        .u32("llama.attention.head_count_kv", 8);
    const ComputeEstimate c = compute(testing::parsed_architecture(w), at(4096));
    EXPECT_FALSE(c.by_rule);
    EXPECT_EQ(c.bytes.count(), kComputeFallbackBytes);
    EXPECT_NE(c.basis.find("estimate"), std::string::npos);
}

// A dense model of narrow vocabulary and wide feed-forward (Mistral Large 2: 88 layers, n_embd
// 12288, 96 heads, 8 KV heads, n_ff 28672, 32768 tokens): with flash attention at a short
// context its gate's and up projection's outputs, beside the normed input and the residual,
// are the peak (160 MiB for a 512-token micro-batch), above the attention (108 MiB) and the
// output (88 MiB) the rule took before. Ungated (no ffn_gate tensor), one n_ff is held.
TEST(FitComputeBuffer, AWideFeedForwardIsThePeakWhenItIsTheLargest) {
    for (const bool gated : {true, false}) {
        GgufWriter w;
        w.str("general.architecture", "llama")
            .u32("llama.block_count", 88)
            .u32("llama.embedding_length", 12288)
            .u32("llama.attention.head_count", 96)
            .u32("llama.attention.head_count_kv", 8)
            .u32("llama.feed_forward_length", 28672)
            .u32("llama.vocab_size", 32768);
        w.tensor(gated ? "blk.0.ffn_gate.weight" : "blk.0.ffn_up.weight", {12288, 1}, 1,
                 12288 * 2);  // its name is what counts
        const Architecture a = testing::parsed_architecture(w);
        ASSERT_EQ(a.feed_forward_values, (gated ? 2u : 1u) * 28672);
        const std::uint64_t ffn = 512 * ((gated ? 2 : 1) * 28672 + 2 * 12288) * 4;
        for (const std::uint64_t ctx : {4096u, 32768u, 131072u}) {
            for (const bool flash : {false, true}) {
                const std::uint64_t others = rule(512, ctx, 96, 12288, 32768, flash);
                const ComputeEstimate c = compute(a, at(ctx, 512, flash));
                EXPECT_EQ(c.bytes.count(), std::max(others, ffn))
                    << ctx << " " << flash << " " << gated;
                EXPECT_EQ(c.basis.find("feed-forward") != std::string::npos, ffn > others)
                    << c.basis;
            }
        }
        if (gated) {
            EXPECT_EQ(compute(a, at(4096, 512, true)).bytes.count(), 160 * kMiB);
        }
    }
}

// A mixture of experts holds the gate's and up's outputs of each expert used: Mixtral 8x7B
// (32 layers, n_embd 4096, 32 heads, 8 KV heads, experts of n_ff 14336, 2 used per token, a
// 32000-token vocabulary, its GGUF giving the experts' width as feed_forward_length) with flash
// attention at 4096 tokens holds 128 MiB there, above the output's 70.5 MiB. Qwen3-MoE's
// feed_forward_length (6144) is a width none of its layers has: only its experts (768 x 8) count.
TEST(FitComputeBuffer, AMixtureOfExpertsCountsTheExpertsUsed) {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 32)
        .u32("llama.embedding_length", 4096)
        .u32("llama.attention.head_count", 32)
        .u32("llama.attention.head_count_kv", 8)
        .u32("llama.feed_forward_length", 14336)
        .u32("llama.expert_count", 8)
        .u32("llama.expert_used_count", 2)
        .u32("llama.vocab_size", 32000);
    const Architecture a = testing::parsed_architecture(w);
    ASSERT_EQ(a.feed_forward_values, 2u * 14336 * 2);
    const std::uint64_t moe = 512 * (2 * 14336 * 2 + 2 * 4096) * 4;
    for (const std::uint64_t ctx : {4096u, 32768u, 131072u})
        for (const bool flash : {false, true})
            EXPECT_EQ(compute(a, at(ctx, 512, flash)).bytes.count(),
                      std::max(rule(512, ctx, 32, 4096, 32000, flash), moe))
                << ctx << " " << flash;
    EXPECT_EQ(compute(a, at(4096, 512, true)).bytes.count(), 128 * kMiB);

    GgufWriter q;
    q.str("general.architecture", "qwen3moe")
        .u32("qwen3moe.block_count", 48)
        .u32("qwen3moe.embedding_length", 2048)
        .u32("qwen3moe.attention.head_count", 32)
        .u32("qwen3moe.attention.head_count_kv", 4)
        .u32("qwen3moe.attention.key_length", 128)
        .u32("qwen3moe.attention.value_length", 128)
        .u32("qwen3moe.feed_forward_length", 6144)
        .u32("qwen3moe.expert_feed_forward_length", 768)
        .u32("qwen3moe.expert_count", 128)
        .u32("qwen3moe.expert_used_count", 8);
    EXPECT_EQ(testing::parsed_architecture(q).feed_forward_values, 2u * 768 * 8);
}

// The fixed allowance stands for the output logits the model does not let the rule size, not
// for the attention, which it does: at 131072 cells the scores of one layer take 8 GiB, and a
// flat 1 GiB for the whole buffer was 7 GiB short. The larger of the two is the estimate.
TEST(FitComputeBuffer, AnUnknownVocabularyNeverHidesTheAttentionScores) {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 32)
        .u32("llama.embedding_length", 4096)
        .u32("llama.attention.head_count", 32)
        .u32("llama.attention.head_count_kv", 8);
    const Architecture a = testing::parsed_architecture(w);
    ASSERT_FALSE(a.vocabulary);
    for (const std::uint64_t ctx : {4096u, 32768u, 131072u}) {
        for (const bool flash : {false, true}) {
            const std::uint64_t attention = rule(512, ctx, 32, 4096, 0, flash);
            const ComputeEstimate c = compute(a, at(ctx, 512, flash));
            EXPECT_EQ(c.bytes.count(), std::max(attention, kComputeFallbackBytes))
                << ctx << " " << flash;
            EXPECT_EQ(c.by_rule, attention > kComputeFallbackBytes) << ctx << " " << flash;
            EXPECT_NE(c.basis.find("estimate"), std::string::npos) << c.basis;
            EXPECT_NE(c.basis.find("vocabulary"), std::string::npos) << c.basis;
        }
    }
}

}  // namespace
}  // namespace wiredcap::fit
