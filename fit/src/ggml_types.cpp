#include "wiredcap/fit/ggml_types.hpp"

#include <array>

namespace wiredcap::fit {
namespace {

// Indexed by ggml_type id (ggml/include/ggml.h, enum ggml_type, up to GGML_TYPE_Q2_0 = 42), with
// ggml.c's type_traits block size and bytes. Empty names are ids that were removed from ggml
// (Q4_2, Q4_3, the repacked Q4_0_4_4 and IQ4_NL_4_4 families): a file naming one is refused.
constexpr std::array<GgmlType, 43> kTypes{{
    {"f32", 1, 4},        {"f16", 1, 2},       {"q4_0", 32, 18},     {"q4_1", 32, 20},
    {"", 0, 0},           {"", 0, 0},          {"q5_0", 32, 22},     {"q5_1", 32, 24},
    {"q8_0", 32, 34},     {"q8_1", 32, 36},    {"q2_K", 256, 84},    {"q3_K", 256, 110},
    {"q4_K", 256, 144},   {"q5_K", 256, 176},  {"q6_K", 256, 210},   {"q8_K", 256, 292},
    {"iq2_xxs", 256, 66}, {"iq2_xs", 256, 74}, {"iq3_xxs", 256, 98}, {"iq1_s", 256, 50},
    {"iq4_nl", 32, 18},   {"iq3_s", 256, 110}, {"iq2_s", 256, 82},   {"iq4_xs", 256, 136},
    {"i8", 1, 1},         {"i16", 1, 2},       {"i32", 1, 4},        {"i64", 1, 8},
    {"f64", 1, 8},        {"iq1_m", 256, 56},  {"bf16", 1, 2},       {"", 0, 0},
    {"", 0, 0},           {"", 0, 0},          {"tq1_0", 256, 54},   {"tq2_0", 256, 66},
    {"", 0, 0},           {"", 0, 0},          {"", 0, 0},           {"mxfp4", 32, 17},
    {"nvfp4", 64, 36},    {"q1_0", 128, 18},   {"q2_0", 64, 18},
}};

}  // namespace

std::optional<GgmlType> ggml_type(std::uint32_t id) {
    if (id >= kTypes.size() || kTypes[id].elements == 0) return std::nullopt;
    return kTypes[id];
}

std::optional<std::uint64_t> ggml_row_bytes(const GgmlType& type, std::uint64_t n) {
    if (n % type.elements != 0) return std::nullopt;
    const std::uint64_t blocks = n / type.elements;
    if (blocks > UINT64_MAX / type.bytes) return std::nullopt;
    return blocks * type.bytes;
}

}  // namespace wiredcap::fit
