#include "wiredcap/fit/kv_cache.hpp"

#include <algorithm>

#include "wiredcap/fit/ggml_types.hpp"

namespace wiredcap::fit {
namespace {

GgmlType ggml_of(KvType t) {
    switch (t) {
        case KvType::q8_0: return *ggml_type(8);
        case KvType::q4_0: return *ggml_type(2);
        case KvType::f16: break;
    }
    return *ggml_type(1);
}

std::optional<std::uint64_t> mul(std::uint64_t a, std::uint64_t b) {
    if (b != 0 && a > UINT64_MAX / b) return std::nullopt;
    return a * b;
}

std::optional<std::uint64_t> add(std::uint64_t a, std::uint64_t b) {
    if (a > UINT64_MAX - b) return std::nullopt;
    return a + b;
}

Error overflow() { return Error{"the KV cache size overflows 64 bits: is --context or --parallel too large?"}; }

}  // namespace

std::optional<KvType> kv_type_of(std::string_view name) {
    if (name == "f16") return KvType::f16;
    if (name == "q8_0") return KvType::q8_0;
    if (name == "q4_0") return KvType::q4_0;
    return std::nullopt;
}

std::string_view kv_type_name(KvType t) {
    switch (t) {
        case KvType::q8_0: return "q8_0";
        case KvType::q4_0: return "q4_0";
        case KvType::f16: break;
    }
    return "f16";
}

Expected<KvEstimate> estimate_kv(const Architecture& arch, const KvRequest& req) {
    if (req.context == 0 || req.parallel == 0) return Error{"--context and --parallel must be above 0"};
    KvEstimate e;
    const auto full = mul(req.context, req.parallel);
    if (!full) return overflow();
    e.full_cells = *full;
    if (arch.sliding_window) {
        // llama.cpp: window x sequences + one micro-batch, padded, never more than the full cache.
        const auto w = mul(*arch.sliding_window, req.parallel);
        const auto raw = w ? add(*w, kUbatch + kCellPad - 1) : std::nullopt;
        if (!raw) return overflow();
        e.window_cells = std::min(e.full_cells, *raw / kCellPad * kCellPad);
    }
    const GgmlType type = ggml_of(req.type);
    std::uint64_t total = 0;
    std::uint64_t per_token = 0;
    for (std::size_t i = 0; i < arch.layers.size(); ++i) {
        const AttentionLayer& l = arch.layers[i];
        if (l.k_values == 0 && l.v_values == 0) continue;
        const auto k = ggml_row_bytes(type, l.k_values);
        const auto v = ggml_row_bytes(type, l.v_values);
        if (!k || !v)
            return Error{"layer " + std::to_string(i) + "'s KV width is not whole " + std::string(type.name) +
                         " blocks (32 values); choose another --kv-type"};
        const auto row = add(*k, *v);
        const bool windowed = l.sliding && arch.sliding_window;
        const auto bytes = row ? mul(*row, windowed ? e.window_cells : e.full_cells) : std::nullopt;
        const auto sum = bytes ? add(total, *bytes) : std::nullopt;
        if (!sum) return overflow();
        total = *sum;
        if (windowed) {
            ++e.window_layers;
        } else {
            ++e.full_layers;
            per_token += *row;  // cannot overflow: row <= bytes <= total
        }
    }
    e.total = units::Bytes::from_count_or_throw(total);
    e.per_token = units::Bytes::from_count_or_throw(per_token);
    return e;
}

}  // namespace wiredcap::fit
