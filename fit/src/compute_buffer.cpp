#include "wiredcap/fit/compute_buffer.hpp"

#include <algorithm>
#include <optional>

#include "checked_math.hpp"
#include "wiredcap/fit/mlx_compute.hpp"

namespace wiredcap::fit {
namespace {

constexpr std::uint64_t kF32 = 4;
constexpr std::uint64_t kF16 = 2;
constexpr std::uint64_t kHiddenInFlight = 4;  // input, Q, attention output, residual

}  // namespace

std::uint64_t score_cells(const KvEstimate& kv) {
    if (kv.full_layers != 0) return kv.full_cells;
    if (kv.window_layers != 0) return kv.window_cells;
    return 0;  // recurrent layers only: no attention scores
}

Expected<ComputeEstimate> estimate_compute(const Architecture& arch, const KvRequest& req,
                                           const KvEstimate& kv) {
    ComputeEstimate e;
    e.tokens = std::min(kv.full_cells, micro_batch(req));
    e.kv_cells = score_cells(kv);
    e.rule = runtime_defaults(Runtime::llama_cpp).compute_source;
    if (!arch.query_heads || !arch.embedding) {
        e.bytes = units::Bytes::from_count_or_throw(kComputeFallbackBytes);
        e.basis = "estimate: fixed 1 GiB; the model lacks heads or width";
        return e;
    }
    const std::uint64_t cells = e.kv_cells;
    // A runtime that took a quantized V cache runs flash attention (runs_flash_attention).
    const bool flash = runs_flash_attention(req);
    const bool implied = flash && !req.flash_attn;
    const auto scores =
        flash ? std::optional<std::uint64_t>(0) : product({cells, *arch.query_heads, kF32});
    const auto mask = product({cells, flash ? kF32 + kF16 : kF32});
    const auto hidden = product({kHiddenInFlight, *arch.embedding, kF32});
    const auto per_token_attention = sum({scores, mask, hidden});
    const auto attention =
        per_token_attention ? product({e.tokens, *per_token_attention}) : std::nullopt;
    // Without the vocabulary the output cannot be sized: the fixed allowance stands for it, and
    // the attention, which can be, still counts when it is the larger.
    const auto per_token_output =
        arch.vocabulary ? sum({*arch.vocabulary, *arch.embedding}) : std::nullopt;
    const auto output = !arch.vocabulary   ? std::optional<std::uint64_t>(kComputeFallbackBytes)
                        : per_token_output ? product({e.tokens, *per_token_output, kF32})
                                           : std::nullopt;
    // A feed-forward layer: its projections' outputs (the gate's and the up's together when
    // gated; for each expert used in a mixture) beside the normed input and the residual. What
    // ggml-alloc must hold at once there at the least, so the term never overstates it; it is
    // the peak for a narrow vocabulary and a wide n_ff (Mistral Large 2, Mixtral).
    const auto per_token_ffn = arch.feed_forward_values
                                   ? sum({*arch.feed_forward_values, product({2, *arch.embedding})})
                                   : std::optional<std::uint64_t>(0);
    const auto ffn = per_token_ffn ? product({e.tokens, *per_token_ffn, kF32}) : std::nullopt;
    if (!attention || !output || !ffn)
        return Error{"the compute buffer's size overflows 64 bits: is --context too large?"};
    e.by_rule = arch.vocabulary || std::max(*attention, *ffn) > *output;
    e.bytes = units::Bytes::from_count_or_throw(std::max({*attention, *output, *ffn}));
    const std::string tokens = std::to_string(e.tokens) + " tokens";
    const std::string unknown = arch.vocabulary ? "" : "; the model lacks its vocabulary";
    if (!e.by_rule) e.basis = "estimate: fixed 1 GiB for the output" + unknown;
    else if (*ffn > *attention && *ffn > *output)
        e.basis = "estimate: feed-forward, " + tokens + unknown;
    else if (*attention >= *output)
        e.basis = "estimate: attention, " + tokens + " x " + std::to_string(cells) + " cells" +
                  (implied ? ", flash (quantized V)"
                   : flash ? ", flash"
                           : "") +
                  unknown;
    else e.basis = "estimate: output logits of " + tokens;
    return e;
}

Expected<ComputeEstimate> estimate_compute_for(Runtime runtime, const Architecture& arch,
                                               const KvRequest& req, const KvEstimate& kv) {
    auto c = runtime == Runtime::mlx ? estimate_mlx_compute(arch, req, kv)
                                     : estimate_compute(arch, req, kv);
    if (c) c->rule = runtime_defaults(runtime).compute_source;
    return c;
}

}  // namespace wiredcap::fit
