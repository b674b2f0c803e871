#include "wiredcap/fit/mlx_compute.hpp"

#include <algorithm>
#include <array>

#include "checked_math.hpp"

namespace wiredcap::fit {
namespace {

constexpr std::uint64_t kDtype = 2;           // bf16 or f16: the model's dtype
constexpr std::uint64_t kHiddenInFlight = 4;  // input, Q, attention output, residual
constexpr std::uint64_t kFusedAfterQueries =
    8;  // more queries: the full kernel, not the vector one

// Head lengths mlx's full attention kernel runs fused for more than 8 queries
// (scaled_dot_product_attention.cpp:662-665, less 192 and 256, which :762-763 send unfused).
constexpr std::array<std::uint64_t, 5> kFusedHeadLengths{64, 72, 80, 96, 128};

}  // namespace

bool mlx_fused_attention(std::optional<std::uint64_t> query_head_length,
                         std::optional<std::uint64_t> value_head_length) {
    if (!query_head_length || query_head_length != value_head_length) return false;
    return std::find(kFusedHeadLengths.begin(), kFusedHeadLengths.end(), *query_head_length) !=
           kFusedHeadLengths.end();
}

Expected<ComputeEstimate> estimate_mlx_compute(const Architecture& arch, const KvRequest& req,
                                               const KvEstimate& kv) {
    ComputeEstimate e;
    e.rule = runtime_defaults(Runtime::mlx).compute_source;
    e.tokens = std::min(kv.full_cells, micro_batch(req));
    e.kv_cells = score_cells(kv);
    if (!arch.query_heads || !arch.embedding) {
        e.bytes = units::Bytes::from_count_or_throw(kComputeFallbackBytes);
        e.basis = "estimate: fixed 1 GiB; the model lacks heads or width";
        return e;
    }
    // A chunk of 8 tokens or fewer runs the vector kernel; its scores are 8 rows at most, and
    // counting them as unfused keeps the figure on the larger side.
    const bool fused = e.tokens > kFusedAfterQueries &&
                       mlx_fused_attention(arch.query_head_length, arch.value_head_length);
    const auto scores = fused ? std::optional<std::uint64_t>(0)
                              : sum({product({*arch.query_heads, e.kv_cells, kDtype}), e.kv_cells});
    const auto hidden = product({kHiddenInFlight, *arch.embedding, kDtype});
    const auto per_token_attention = sum({scores, hidden});
    const auto chunk_attention =
        per_token_attention ? product({e.tokens, *per_token_attention}) : std::nullopt;
    // MLA (mlx_lm/models/deepseek_v3.py:158-160): a prefill chunk expands the cached latent into
    // every head's K and V over all the keys; counted at the query's whole head length, the
    // larger, or at the latent's width when the files do not give the heads'.
    const bool mla = std::any_of(arch.layers.begin(), arch.layers.end(),
                                 [](const AttentionLayer& l) { return !l.has_v; });
    const std::uint64_t latent = arch.layers.empty() ? 0 : arch.layers.front().k_values;
    const auto expanded = !mla ? std::optional<std::uint64_t>(0)
                               : product({*arch.query_heads, e.kv_cells, kDtype,
                                          arch.query_head_length && arch.value_head_length
                                              ? *arch.query_head_length + *arch.value_head_length
                                              : 2 * latent});
    const auto attention = sum({chunk_attention, expanded});
    // A mixture of experts also copies each token's input once per expert used, sorted by
    // expert (mlx_lm/models/switch_layers.py:181-185, _gather_sort).
    const auto sorted_input = product({arch.experts_used.value_or(0), *arch.embedding});
    const auto per_token_ffn =
        arch.feed_forward_values
            ? sum({*arch.feed_forward_values, product({2, *arch.embedding}), sorted_input})
            : std::optional<std::uint64_t>(0);
    const auto ffn = per_token_ffn ? product({e.tokens, *per_token_ffn, kDtype}) : std::nullopt;
    const auto output = product({2, arch.vocabulary.value_or(0), 4});
    if (!attention || !ffn || !output)
        return Error{"the compute term's size overflows 64 bits: is --context too large?"};
    const auto peak = sum({std::max({*attention, *ffn, *output}),
                           static_cast<std::uint64_t>(kv.largest_layer.count())});
    if (!peak) return Error{"the compute term's size overflows 64 bits: is --context too large?"};
    e.by_rule = true;
    e.bytes = units::Bytes::from_count_or_throw(*peak);
    const std::string chunk = "prefill chunk of " + std::to_string(e.tokens) + " tokens";
    const std::string what = *ffn > *attention && *ffn > *output ? "feed-forward"
                             : *attention >= *output
                                 ? std::string("attention x ") + std::to_string(e.kv_cells) +
                                       " keys, " + (fused ? "fused kernel" : "scores kept")
                                 : "output logits of the last token";
    e.basis = "estimate (mlx-lm): " + what + ", " + chunk + ", + one layer's cache";
    return e;
}

}  // namespace wiredcap::fit
