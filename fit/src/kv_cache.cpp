#include "wiredcap/fit/kv_cache.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "wiredcap/fit/ggml_types.hpp"

namespace wiredcap::fit {
namespace {

// Each cache type with its ggml type id (ggml.h enum ggml_type).
constexpr std::array<std::pair<std::string_view, std::uint32_t>, 9> kKvTypes{{
    {"f32", 0},
    {"f16", 1},
    {"bf16", 30},
    {"q8_0", 8},
    {"q4_0", 2},
    {"q4_1", 3},
    {"iq4_nl", 20},
    {"q5_0", 6},
    {"q5_1", 7},
}};

GgmlType ggml_of(KvType t) { return *ggml_type(kKvTypes[static_cast<std::size_t>(t)].second); }

std::optional<std::uint64_t> mul(std::uint64_t a, std::uint64_t b) {
    if (b != 0 && a > UINT64_MAX / b) return std::nullopt;
    return a * b;
}

std::optional<std::uint64_t> add(std::uint64_t a, std::uint64_t b) {
    if (a > UINT64_MAX - b) return std::nullopt;
    return a + b;
}

Error overflow() {
    return Error{"the KV cache size overflows 64 bits: is --context or --parallel too large?"};
}

// The bytes of one row of `values` in `type`, or an error naming the option to change.
Expected<std::uint64_t> row_bytes(KvType type, std::uint64_t values, std::size_t layer,
                                  const char* which) {
    const GgmlType g = ggml_of(type);
    const auto bytes = ggml_row_bytes(g, values);
    if (!bytes)
        return Error{"layer " + std::to_string(layer) + "'s " + which + " width " +
                     std::to_string(values) + " is not whole " + std::string(g.name) + " blocks (" +
                     std::to_string(g.elements) + " values); choose another --kv-type"};
    return *bytes;
}

// Cells of a sliding or chunked layer (llama-kv-cache-iswa.cpp): the window plus one
// micro-batch, padded, never more than a sequence's context, in each sequence's stream (without
// a unified cache, llama.cpp's default for -np N; a unified one holds pad(window x sequences +
// micro-batch), never more). `full` is the full cache's cells, every sequence's together.
Expected<std::uint64_t> window_cells(std::uint64_t window, const KvRequest& req,
                                     std::uint64_t full) {
    const std::uint64_t streams = req.unified ? 1 : req.parallel;
    const auto held =
        req.unified ? mul(window, req.parallel) : std::optional<std::uint64_t>(window);
    const auto raw = held ? add(*held, micro_batch(req) + kCellPad - 1) : std::nullopt;
    if (!raw) return overflow();
    const auto cells = mul(std::min(full / streams, *raw / kCellPad * kCellPad), streams);
    if (!cells) return overflow();
    return *cells;
}

// The V values a layer stores per token. Without flash attention llama.cpp keeps V transposed,
// and a transposed V row is as wide as the widest layer's (src/llama-kv-cache.cpp,
// [TAG_V_CACHE_VARIABLE]: n_embd_v_gqa_max(), over every layer): a model whose KV heads or head
// lengths vary by layer holds more V than its layers' own widths add up to, and a layer without
// KV heads holds a whole V row. No V tensor (MLA) stays none.
std::uint64_t stored_v_values(const AttentionLayer& l, std::uint64_t widest_v,
                              const KvRequest& req) {
    if (!l.has_v || runs_flash_attention(req)) return l.v_values;
    return widest_v;
}

std::uint64_t widest_v_values(const Architecture& arch) {
    std::uint64_t widest = 0;
    for (const AttentionLayer& l : arch.layers) widest = std::max(widest, l.v_values);
    return widest;
}

// A running sum that turns the first overflow into an error.
struct Sum {
    std::uint64_t value = 0;
    bool ok = true;
    void add_product(std::uint64_t a, std::uint64_t b) {
        const auto p = mul(a, b);
        const auto s = p ? add(value, *p) : std::nullopt;
        if (!s) ok = false;
        else value = *s;
    }
};

}  // namespace

std::optional<KvType> kv_type_of(std::string_view name) {
    for (std::size_t i = 0; i < kKvTypes.size(); ++i)
        if (kKvTypes[i].first == name) return static_cast<KvType>(i);
    return std::nullopt;
}

std::uint64_t micro_batch(const KvRequest& r) { return std::min(r.batch, r.ubatch); }

bool runs_flash_attention(const KvRequest& r) {
    return r.flash_attn || kv_type_quantized(r.v_type);
}

std::string_view kv_type_name(KvType t) { return kKvTypes[static_cast<std::size_t>(t)].first; }

std::uint64_t kv_type_bytes_per_256(KvType t) { return *ggml_row_bytes(ggml_of(t), 256); }

bool kv_type_quantized(KvType t) {
    return t != KvType::f32 && t != KvType::f16 && t != KvType::bf16;
}

std::string kv_type_names() {
    std::string out;
    for (const auto& [name, id] : kKvTypes) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

Expected<KvEstimate> estimate_kv(const Architecture& arch, const KvRequest& req) {
    if (req.context == 0 || req.parallel == 0 || micro_batch(req) == 0)
        return Error{"--context, --parallel, --batch and --ubatch must be above 0"};
    KvEstimate e;
    // llama.cpp pads the context to 256 cells before sizing the cache (llama-context.cpp: n_ctx
    // and, without a unified cache, each sequence's n_ctx_seq); mlx-lm's cache grows in steps of
    // 256. Padded per sequence, the figure is exact for one and an upper bound for several.
    const auto padded = add(req.context, kCellPad - 1);
    const auto full =
        padded ? mul(*padded / kCellPad * kCellPad, req.unified ? 1 : req.parallel) : std::nullopt;
    if (!full) return overflow();
    e.full_cells = *full;
    if (arch.sliding_window) {
        auto w = window_cells(*arch.sliding_window, req, e.full_cells);
        if (!w) return w.error();
        e.window_cells = *w;
    }
    Sum k;
    Sum v;
    Sum per_token;
    std::uint64_t largest = 0;
    const std::uint64_t widest_v = widest_v_values(arch);
    for (std::size_t i = 0; i < arch.layers.size(); ++i) {
        const AttentionLayer& l = arch.layers[i];
        if (l.cache == LayerCache::none) {
            ++e.uncached_layers;
            continue;
        }
        if (l.cache == LayerCache::recurrent) {
            ++e.recurrent_layers;
            continue;
        }
        const auto kb = row_bytes(req.k_type, l.k_values, i, "K");
        if (!kb) return kb.error();
        // No V cache (MLA): the V type does not apply, so its block size cannot refuse it.
        const std::uint64_t v_values = stored_v_values(l, widest_v, req);
        const auto vb =
            v_values == 0 ? Expected<std::uint64_t>(0) : row_bytes(req.v_type, v_values, i, "V");
        if (!vb) return vb.error();
        const bool windowed = l.cache != LayerCache::full && arch.sliding_window;
        const std::uint64_t cells = windowed ? e.window_cells : e.full_cells;
        k.add_product(*kb, cells);
        v.add_product(*vb, cells);
        Sum layer;
        layer.add_product(*kb + *vb,
                          cells);  // row sums cannot overflow: each row <= its layer's bytes
        if (!layer.ok) return overflow();
        largest = std::max(largest, layer.value);
        if (windowed) {
            ++e.window_layers;
        } else {
            ++e.full_layers;
            per_token.add_product(*kb + *vb, 1);  // cannot overflow: row <= bytes <= total
        }
    }
    // The recurrent state: one per sequence (llama_memory_recurrent, mem_size = n_seq_max), f32.
    Sum recurrent;
    const auto state = add(arch.recurrent.r_values, arch.recurrent.s_values);
    const auto per_layer = state ? mul(*state, 4) : std::nullopt;
    if (!per_layer) return overflow();
    e.recurrent_layers += arch.recurrent_beside_attention;
    recurrent.add_product(*per_layer, e.recurrent_layers);
    const std::uint64_t rec_one = recurrent.value;
    recurrent.value = 0;
    recurrent.add_product(rec_one, req.parallel);
    const auto total = add(k.value, v.value);
    if (!k.ok || !v.ok || !per_token.ok || !recurrent.ok || !total) return overflow();
    e.k_bytes = units::Bytes::from_count_or_throw(k.value);
    e.v_bytes = units::Bytes::from_count_or_throw(v.value);
    e.total = units::Bytes::from_count_or_throw(*total);
    e.recurrent = units::Bytes::from_count_or_throw(recurrent.value);
    e.per_token = units::Bytes::from_count_or_throw(per_token.value);
    e.largest_layer = units::Bytes::from_count_or_throw(largest);
    return e;
}

}  // namespace wiredcap::fit
