// The memory mlx-lm's prompt processing takes beside the weights and the KV cache: an estimate,
// read from the sources of mlx-lm 0.32.0 (commit d78bf58e) and mlx 0.32.2 (commit 846d1762).
//
// mlx-lm allocates as it runs, nothing up front, so the peak is the largest step. Its prompt is
// processed in chunks of T = min(2048, context) tokens (mlx_lm/generate.py:307
// prefill_step_size = 2048, :421-433), and of a chunk only the cache is evaluated (:433): the
// output logits exist for the last token alone (:398). So the peak is one layer of one chunk,
// in the model's dtype (d = 2 bytes, bf16 or f16), plus what growing the cache holds:
//   attention  T x ( 4 x n_embd x d            the hidden states in flight
//                  + n_head x n_kv x d          the scores, only where mlx's fused kernel is not
//                                               used (below)
//                  + n_kv x 1 )                 their causal mask, bool
//              + n_head x n_kv x (d_q + d_v) x d  MLA only: the latent expanded into every head's
//                                               K and V (mlx_lm/models/deepseek_v3.py:158-160)
//   feed-fwd   T x (g x n_ff + 2 x n_embd) x d  as llama.cpp's rule counts it (compute_buffer.hpp),
//              + T x k x n_embd x d           a mixture's input sorted by expert, once for each of
//                                               the k it uses (mlx_lm/models/switch_layers.py:181-185)
//   output     2 x n_vocab x 4                  the last token's logits and log-probabilities
//   + one layer's K and V                       the cache's concatenation holds the old cache
//                                               beside the new (mlx_lm/models/cache.py:347-348,
//                                               and :463-464 for the rotating cache)
// where n_kv is the keys the chunk attends to: the whole cache for a full layer, the window plus
// the chunk minus one for a rotating one (cache.py:460-462). The attention is
// mx.fast.scaled_dot_product_attention (mlx_lm/models/base.py:132). mlx runs its fused Metal
// kernel for more than 8 queries when the query and value head lengths are equal and one of 64,
// 72, 80, 96 or 128 (mlx/backend/metal/scaled_dot_product_attention.cpp:661-672, 761-766: 192
// and 256 go unfused); otherwise its fallback materialises the scores, heads x queries x keys
// in the inputs' dtype (mlx/fast.cpp:734), which the mask and softmax then overwrite in place
// (they donate their input: mlx/backend/metal/softmax.cpp:27). A head length the files do not
// give counts as unfused, and the M5's headdim-split kernel (:754-759) is not assumed: both the
// larger need. Not modelled: mlx's buffer cache, which generate.py empties after every chunk
// (:442).
#pragma once

#include "wiredcap/fit/compute_buffer.hpp"

namespace wiredcap::fit {

inline constexpr std::uint64_t kMlxPrefillStep = 2048;  // mlx_lm/generate.py:307

// Whether mlx runs its fused attention kernel for a prefill chunk of a model with these head
// lengths (the query's is the key's).
[[nodiscard]] bool mlx_fused_attention(std::optional<std::uint64_t> query_head_length,
                                       std::optional<std::uint64_t> value_head_length);

[[nodiscard]] Expected<ComputeEstimate> estimate_mlx_compute(const Architecture& arch,
                                                             const KvRequest& req,
                                                             const KvEstimate& kv);

}  // namespace wiredcap::fit
