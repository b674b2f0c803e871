// The compute buffer a runtime reserves beside the weights and the KV cache: an estimate, and
// said to be one wherever it appears.
//
// llama.cpp sizes it by building its worst-case graph once, when the context is created
// (src/llama-context.cpp, graph_reserve): one micro-batch of T = min(n_ctx, n_ubatch) tokens,
// every one an output, against the whole KV cache. ggml's allocator (ggml/src/ggml-alloc.c)
// lays that graph out reusing a tensor's memory once its last reader has run, and lets soft_max
// overwrite its input; so the buffer is the peak of one layer's attention or of the output:
//   attention  T x ( n_kv x n_head x 4    the scores K*Q, f32 (not with flash attention, which
//                                          never materialises them)
//                  + n_kv x 4             the KQ mask, f32 (+ n_kv x 2: its f16 copy for flash
//                                          attention)
//                  + 4 x n_embd x 4 )     the hidden states in flight
//   output     T x (n_vocab + n_embd) x 4  the logits of every token and the final norm
//   feed-fwd   T x (g x n_ff + 2 x n_embd) x 4  the projections (g = 2 gated: the gate's and
//                                          the up's outputs at once; 2 x experts used for a
//                                          mixture of experts, with the experts' n_ff), the
//                                          normed input and the residual; at the least
// where n_kv is the cells of the largest cache layer. ik_llama.cpp's PR 237 describes the same
// K*Q term ("n_ctx x n_ubatch x n_head x sizeof(float)", soft_max reusing its buffer). The rule
// gives llama.cpp's published figures for LLaMA-2 7B exactly (70.50 MiB at n_ctx 512, 296.00
// MiB at 4096, n_ubatch 512, no flash attention; tests/unit/fit/compute_buffer_test.cpp).
// Not modelled: a mixture's routing and shared experts (small beside its experts), a
// backend's own scratch (Metal's flash-attention reduction), runtimes
// other than llama.cpp (mlx-lm's is its own: mlx_compute.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/fit/runtime_defaults.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

// When the model's files do not give what the rule needs: a fixed allowance, said to be one,
// for the whole buffer without query heads or embedding length; without the vocabulary, for
// the output alone (the attention, sized by the rule, is taken when it is larger).
inline constexpr std::uint64_t kComputeFallbackBytes = std::uint64_t{1} << 30;

struct ComputeEstimate {
    units::Bytes bytes = units::Bytes::zero();
    std::uint64_t tokens = 0;    // T: the micro-batch the graph is reserved for
    std::uint64_t kv_cells = 0;  // n_kv: the cells the attention scores span
    bool by_rule = false;        // false: the figure is the fixed fallback
    std::string basis;           // what the figure is, for its line: "estimate: ..."
    std::string_view rule;       // the runtime's rule it follows, cited (runtime_defaults.cpp)
};

[[nodiscard]] Expected<ComputeEstimate> estimate_compute(const Architecture& arch,
                                                         const KvRequest& req,
                                                         const KvEstimate& kv);

// The compute term of the runtime that runs the model: mlx-lm's own (mlx_compute.hpp) for MLX;
// llama.cpp's rule above for the others, which all run llama.cpp (Ollama, LM Studio, the server).
[[nodiscard]] Expected<ComputeEstimate> estimate_compute_for(Runtime runtime,
                                                             const Architecture& arch,
                                                             const KvRequest& req,
                                                             const KvEstimate& kv);

// The cells one layer's attention scores span: a full layer's when the model has one, else a
// sliding or chunked layer's; 0 for a model of recurrent layers only.
[[nodiscard]] std::uint64_t score_cells(const KvEstimate& kv);

}  // namespace wiredcap::fit
