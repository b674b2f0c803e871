// The GGUF header parser on files generated here with known contents, and on malformed ones.
#include <gtest/gtest.h>

#include "wiredcap/fit/gguf_architecture.hpp"
#include "wiredcap/fit/gguf_header.hpp"
#include "model_writer.hpp"

namespace wiredcap::fit {
namespace {

using testing::GgufWriter;

Expected<GgufHeader> parse(const std::string& bytes) {
    ByteReader in = ByteReader::of_memory(std::as_bytes(std::span(bytes.data(), bytes.size())));
    return parse_gguf(in);
}

// A small llama-like model: 2 layers, tensors of several types with known sizes.
GgufWriter small_llama(std::uint32_t version) {
    GgufWriter w(version);
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 2)
        .u32("llama.context_length", 8192)
        .u32("llama.embedding_length", 256)
        .u32("llama.attention.head_count", 4)
        .u32("llama.attention.head_count_kv", 2)
        .f32("llama.rope.freq_base", 10000.0F)
        .string_array("tokenizer.ggml.tokens", 300);
    // f32 [256]: 1024 B; f16 [256 x 4]: 2048 B; q4_0 [256 x 2]: 2 rows x 8 blocks x 18 = 288 B;
    // q4_K [512 x 3]: 6 blocks x 144 = 864 B; q8_0 [64]: 2 x 34 = 68 B.
    w.tensor("norm", {256}, 0, 1024)
        .tensor("a", {256, 4}, 1, 2048)
        .tensor("b", {256, 2}, 2, 288)
        .tensor("c", {512, 3}, 12, 864)
        .tensor("d", {64}, 8, 68);
    return w;
}

TEST(FitGguf, Version3ExactTensorBytes) {
    const auto h = parse(small_llama(3).file());
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->version, 3u);
    EXPECT_EQ(h->tensor_count, 5u);
    EXPECT_EQ(h->tensor_bytes.count(), 1024u + 2048u + 288u + 864u + 68u);
    EXPECT_EQ(meta_uint(*h, "llama.block_count"), 2u);
    EXPECT_EQ(meta_string(*h, "general.architecture"), "llama");
}

TEST(FitGguf, Version2ReadsTheSame) {
    const auto h = parse(small_llama(2).file());
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->version, 2u);
    EXPECT_EQ(h->tensor_bytes.count(), 4292u);
}

TEST(FitGguf, ArchitectureFromMetadata) {
    const auto h = parse(small_llama(3).file());
    ASSERT_TRUE(h);
    const auto a = gguf_architecture(*h);
    ASSERT_TRUE(a) << a.error().message;
    ASSERT_EQ(a->layers.size(), 2u);
    // 2 KV heads x (256 / 4) = 128 values per token per layer, for K and for V.
    EXPECT_EQ(a->layers[0].k_values, 128u);
    EXPECT_EQ(a->layers[1].v_values, 128u);
    EXPECT_EQ(a->trained_context, 8192u);
    EXPECT_FALSE(a->sliding_window);
}

TEST(FitGguf, PerLayerKvHeadsWithLayersWithoutCache) {
    GgufWriter w;
    w.str("general.architecture", "deci")
        .u32("deci.block_count", 3)
        .u32("deci.embedding_length", 128)
        .u32("deci.attention.head_count", 2)
        .i32_array("deci.attention.head_count_kv", {2, 0, 1});
    const auto h = parse(w.file());
    ASSERT_TRUE(h) << h.error().message;
    const auto a = gguf_architecture(*h);
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_EQ(a->layers[0].k_values, 128u);
    EXPECT_EQ(a->layers[1].k_values, 0u);
    EXPECT_EQ(a->layers[2].k_values, 64u);
}

TEST(FitGguf, SlidingWindowFromBuiltInPatternIsNoted) {
    GgufWriter w;
    w.str("general.architecture", "gemma3")
        .u32("gemma3.block_count", 12)
        .u32("gemma3.attention.head_count", 8)
        .u32("gemma3.attention.head_count_kv", 4)
        .u32("gemma3.attention.key_length", 256)
        .u32("gemma3.attention.value_length", 256)
        .u32("gemma3.attention.sliding_window", 1024);
    const auto a = gguf_architecture(*parse(w.file()));
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_EQ(a->sliding_window, 1024u);
    int full = 0;
    for (const auto& l : a->layers) full += l.cache == LayerCache::sliding ? 0 : 1;
    EXPECT_EQ(full, 2);  // layers 5 and 11
    EXPECT_EQ(a->layers[5].cache, LayerCache::full);
    EXPECT_EQ(a->notes.size(), 1u);
}

TEST(FitGguf, SlidingWindowWithoutPatternCountsEveryLayerFull) {
    GgufWriter w;
    w.str("general.architecture", "newarch")
        .u32("newarch.block_count", 4)
        .u32("newarch.attention.head_count", 8)
        .u32("newarch.embedding_length", 512)
        .u32("newarch.attention.sliding_window", 4096);
    const auto a = gguf_architecture(*parse(w.file()));
    ASSERT_TRUE(a);
    for (const auto& l : a->layers) EXPECT_EQ(l.cache, LayerCache::full);
    ASSERT_EQ(a->notes.size(), 1u);
    EXPECT_NE(a->notes[0].find("overestimate"), std::string::npos);
}

// llama.cpp refuses these; a silent fall-back to the query head count would size another model.
TEST(FitGguf, NegativeOrMisSizedPerLayerValuesAreRefusedByName) {
    const auto base = [] {
        GgufWriter w;
        w.str("general.architecture", "llama")
            .u32("llama.block_count", 4)
            .u32("llama.attention.head_count", 8)
            .u32("llama.embedding_length", 512);
        return w;
    };
    for (auto w : {base().i32("llama.attention.head_count_kv", -1),
                   base().i32_array("llama.attention.head_count_kv", {2, 2, 2}),
                   base().i32_array("llama.attention.head_count_kv", {2, -2, 2, 2}),
                   base().i32("llama.attention.key_length", -64)}) {
        const auto a = gguf_architecture(*parse(w.file()));
        ASSERT_FALSE(a);
        const bool named =
            a.error().message.find("llama.attention.head_count_kv") != std::string::npos ||
            a.error().message.find("llama.attention.key_length") != std::string::npos;
        EXPECT_TRUE(named) << a.error().message;
    }
}

TEST(FitGguf, MissingLayoutKeyIsNamed) {
    GgufWriter w;
    w.str("general.architecture", "llama").u32("llama.attention.head_count", 8);
    const auto a = gguf_architecture(*parse(w.file()));
    ASSERT_FALSE(a);
    EXPECT_NE(a.error().message.find("llama.block_count"), std::string::npos);
}

// --- malformed input ---------------------------------------------------------------------

TEST(FitGgufMalformed, WrongMagic) {
    std::string f = small_llama(3).file();
    f[0] = 'X';
    EXPECT_FALSE(parse(f));
}

TEST(FitGgufMalformed, UnsupportedVersions) {
    EXPECT_FALSE(parse(small_llama(1).file()));
    EXPECT_FALSE(parse(small_llama(4).file()));
}

TEST(FitGgufMalformed, EveryTruncationIsRefused) {
    const std::string f = small_llama(3).file();
    const std::size_t header = small_llama(3).header().size();
    // Every prefix that cuts the header or the data: refused, never a crash or a smaller sum.
    for (std::size_t n = 0; n < f.size(); n += (n < header ? 1 : 97)) {
        const auto h = parse(f.substr(0, n));
        EXPECT_FALSE(h) << "a file cut at " << n << " of " << f.size() << " bytes was accepted";
    }
}

TEST(FitGgufMalformed, HugeCountsAreRefusedBeforeAllocating) {
    EXPECT_FALSE(parse(small_llama(3).tensor_count_override(UINT64_MAX).file()));
    EXPECT_FALSE(parse(small_llama(3).meta_count_override(UINT64_MAX).file()));
    EXPECT_FALSE(parse(small_llama(3).tensor_count_override(1000).file()));  // more than present
    // A metadata key claiming 2^63 bytes.
    std::string body = "GGUF" + GgufWriter::le(3, 4) + GgufWriter::le(0, 8) + GgufWriter::le(1, 8) +
                       GgufWriter::le(1ULL << 63, 8) + "key";
    EXPECT_FALSE(parse(body));
    // Arrays claiming 2^60 strings or u32s, and counts whose byte size wraps to 0 in 64 bits
    // (2^62 u32s, 2^61 u64s): refused, never skipped as empty.
    for (const auto& [type, count] : std::vector<std::pair<std::uint32_t, std::uint64_t>>{
             {8u, 1ULL << 60}, {4u, 1ULL << 60}, {4u, 1ULL << 62}, {10u, 1ULL << 61}}) {
        std::string arr = "GGUF" + GgufWriter::le(3, 4) + GgufWriter::le(0, 8) +
                          GgufWriter::le(1, 8) + GgufWriter::string("k") + GgufWriter::le(9, 4) +
                          GgufWriter::le(type, 4) + GgufWriter::le(count, 8) +
                          std::string(64, '\0');
        EXPECT_FALSE(parse(arr)) << "array of type " << type << ", " << count << " elements";
    }
}

TEST(FitGgufMalformed, OverflowingTensorShapesAndOffsets) {
    GgufWriter shape;
    shape.tensor("huge", {1ULL << 32, 1ULL << 32, 1ULL << 32}, 0, 0);
    EXPECT_FALSE(parse(shape.file()));
    // An offset near 2^64: offset + size must not wrap into the file.
    GgufWriter w;
    w.raw_tensor_info(GgufWriter::string("t") + GgufWriter::le(1, 4) + GgufWriter::le(8, 8) +
                      GgufWriter::le(0, 4) + GgufWriter::le(UINT64_MAX - 31, 8));
    EXPECT_FALSE(parse(w.header() + std::string(64, '\0')));
    // Five dimensions (ggml has four).
    GgufWriter dims;
    dims.raw_tensor_info(GgufWriter::string("t") + GgufWriter::le(5, 4) + GgufWriter::le(1, 8) +
                         GgufWriter::le(1, 8) + GgufWriter::le(1, 8) + GgufWriter::le(1, 8) +
                         GgufWriter::le(1, 8) + GgufWriter::le(0, 4) + GgufWriter::le(0, 8));
    EXPECT_FALSE(parse(dims.file() + std::string(64, '\0')));
}

TEST(FitGgufMalformed, OverlappingTensorsAndBadTypes) {
    GgufWriter w;
    // Two f32 [16] tensors (64 B each), the second starting inside the first.
    for (std::uint64_t off : {0ULL, 32ULL})
        w.raw_tensor_info(GgufWriter::string("t" + std::to_string(off)) + GgufWriter::le(1, 4) +
                          GgufWriter::le(16, 8) + GgufWriter::le(0, 4) + GgufWriter::le(off, 8));
    EXPECT_FALSE(parse(w.header() + std::string(128, '\0')));
    GgufWriter removed;  // ggml type 4 (Q4_2) was removed: its size is unknown
    removed.tensor("t", {32}, 4, 32);
    EXPECT_FALSE(parse(removed.file() + std::string(64, '\0')));
    GgufWriter partial;  // q4_0 rows must be whole 32-value blocks
    partial.tensor("t", {33}, 2, 18);
    EXPECT_FALSE(parse(partial.file() + std::string(64, '\0')));
}

TEST(FitGgufMalformed, DuplicateKeyAndBadBoolean) {
    GgufWriter dup;
    dup.u32("a", 1).u32("a", 2);
    EXPECT_FALSE(parse(dup.file()));
    std::string f = GgufWriter().boolean("b", true).file();
    const auto at = f.find(std::string("\x07\0\0\0\x01", 5));
    ASSERT_NE(at, std::string::npos);
    f[at + 4] = 2;
    EXPECT_FALSE(parse(f));
}

// Names from the file reach terminals: a control byte in one is printed escaped.
TEST(FitGgufMalformed, FileStringsInMessagesAreEscaped) {
    GgufWriter dup;
    dup.u32("evil\x1b]0;title\x07", 1).u32("evil\x1b]0;title\x07", 2);
    const auto h = parse(dup.file());
    ASSERT_FALSE(h);
    EXPECT_EQ(h.error().message.find('\x1b'), std::string::npos) << h.error().message;
    EXPECT_NE(h.error().message.find("\\x1b"), std::string::npos) << h.error().message;
    GgufWriter arch;
    arch.str("general.architecture", "\x1b[2J").u32("x.block_count", 1);
    const auto a = gguf_architecture(*parse(arch.file()));
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error().message.find('\x1b'), std::string::npos) << a.error().message;
}

}  // namespace
}  // namespace wiredcap::fit

namespace wiredcap::fit {
namespace {

// --- hostile files stay cheap ---------------------------------------------------

// A GGUF header of `entries` metadata arrays, each of `n` elements of `type` (u32 = 4, string
// = 8), the element bytes all zero (zero-length strings, zero integers).
std::string crafted(std::uint64_t entries, std::uint32_t type, std::uint64_t n,
                    std::uint64_t element_bytes) {
    std::string out =
        "GGUF" + GgufWriter::le(3, 4) + GgufWriter::le(0, 8) + GgufWriter::le(entries, 8);
    for (std::uint64_t i = 0; i < entries; ++i)
        out += GgufWriter::string("k" + std::to_string(i)) + GgufWriter::le(9, 4) +
               GgufWriter::le(type, 4) + GgufWriter::le(n, 8) +
               std::string(n * element_bytes, '\0');
    return out;
}

TEST(FitGgufHostile, KeptArraysAreBoundedInTotal) {
    // 64 arrays of 65536 integers each: every one under the per-array limit, 32 MiB kept in all.
    const auto h = parse(crafted(64, 4, 65536, 4));
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message.find("keeps more than a real model's"), std::string::npos)
        << h.error().message;
}

TEST(FitGgufHostile, ArrayElementsAreBoundedInTotal) {
    // 16 string arrays of 300000 empty strings: 4.8 M strings, each one a read.
    const auto h = parse(crafted(16, 8, 300000, 8));
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message.find("more elements than a real model's"), std::string::npos)
        << h.error().message;
}

TEST(FitGgufHostile, MetadataBytesAreBoundedInTotal) {
    // A 100 MiB string would be skipped without being read, but no model has metadata that large.
    const std::string f = "GGUF" + GgufWriter::le(3, 4) + GgufWriter::le(0, 8) +
                          GgufWriter::le(1, 8) + GgufWriter::string("k") + GgufWriter::le(8, 4) +
                          GgufWriter::string(std::string(100u << 20, ' '));
    const auto h = parse(f);
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message.find("metadata is larger than 64 MiB"), std::string::npos)
        << h.error().message;
}

TEST(FitGgufHostile, DuplicateTensorNameIsRefused) {
    GgufWriter w = small_llama(3);
    w.tensor("norm", {256}, 0, 1024);  // "norm" is already there
    const auto h = parse(w.file());
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message.find("tensor 'norm' appears twice"), std::string::npos)
        << h.error().message;
}

TEST(FitGgufHostile, TensorNameLongerThanGgmlAllowsIsRefused) {
    GgufWriter w = small_llama(3);
    w.tensor(std::string(64, 'x'), {256}, 0, 1024);
    const auto h = parse(w.file());
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message.find("longer than 63 bytes"), std::string::npos)
        << h.error().message;
}

// Today's ggml types (ggml.h): NVFP4 = 40 (64 values in 36 bytes), Q1_0 = 41 (128 in 18), Q2_0 =
// 42 (64 in 18); MXFP4 = 39 (32 in 17).
TEST(FitGgufHostile, EveryCurrentTensorTypeIsSized) {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .tensor("a", {4096, 2}, 40, 2 * 64 * 36)
        .tensor("b", {4096, 2}, 41, 2 * 32 * 18)
        .tensor("c", {4096, 2}, 42, 2 * 64 * 18)
        .tensor("d", {4096, 2}, 39, 2 * 128 * 17);
    const auto h = parse(w.file());
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->tensor_bytes.count(), 2u * (64 * 36 + 32 * 18 + 64 * 18 + 128 * 17));
    GgufWriter gone;
    gone.str("general.architecture", "llama").tensor("a", {4096}, 43, 4096);
    EXPECT_FALSE(parse(gone.file()));
}

TEST(FitGgufHostile, BigEndianFileIsNamedAsSuch) {
    std::string f = small_llama(3).file();
    f.replace(4, 4, std::string("\0\0\0\3", 4));
    const auto h = parse(f);
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message.find("big-endian GGUF file (version 3)"), std::string::npos)
        << h.error().message;
}

}  // namespace
}  // namespace wiredcap::fit
