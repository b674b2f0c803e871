// The safetensors header parser on files generated here, and on malformed ones.
#include <gtest/gtest.h>

#include "wiredcap/fit/safetensors_header.hpp"
#include "model_writer.hpp"

namespace wiredcap::fit {
namespace {

using testing::safetensors_file;

Expected<SafetensorsHeader> parse(const std::string& bytes) {
    ByteReader in = ByteReader::of_memory(std::as_bytes(std::span(bytes.data(), bytes.size())));
    return parse_safetensors(in);
}

// BF16 [4, 8] = 64 B at [0, 64); U32 [2, 4] = 32 B at [64, 96); F32 [3] = 12 B at [96, 108).
const std::string kHeader =
    R"({"__metadata__":{"format":"mlx"},)"
    R"("a":{"dtype":"BF16","shape":[4,8],"data_offsets":[0,64]},)"
    R"("b.scales":{"dtype":"U32","shape":[2,4],"data_offsets":[64,96]},)"
    R"("c":{"dtype":"F32","shape":[3],"data_offsets":[96,108]}})";

TEST(FitSafetensors, ExactBytesFromDataOffsets) {
    const auto h = parse(safetensors_file(kHeader, 108));
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->tensor_count, 3u);
    EXPECT_EQ(h->tensor_bytes.count(), 108u);
    EXPECT_EQ(h->metadata.at("format"), "mlx");
}

TEST(FitSafetensorsMalformed, TruncatedAnywhere) {
    const std::string f = safetensors_file(kHeader, 108);
    for (std::size_t n = 0; n < f.size(); ++n) EXPECT_FALSE(parse(f.substr(0, n))) << "cut at " << n;
}

TEST(FitSafetensorsMalformed, HeaderLengthOverTheLimitOrPastTheEnd) {
    EXPECT_FALSE(parse(testing::GgufWriter::le(kMaxSafetensorsHeader + 1, 8) + "{}"));
    EXPECT_FALSE(parse(testing::GgufWriter::le(UINT64_MAX, 8) + "{}"));
    EXPECT_FALSE(parse(testing::GgufWriter::le(1000, 8) + "{}"));
}

TEST(FitSafetensorsMalformed, OffsetsOverlappingReversedOrDisagreeing) {
    // Overlap: b starts inside a.
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                                        R"("b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})", 12)));
    // Out of order: end before begin.
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[8,0]}})", 8)));
    // The range disagrees with dtype x shape.
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"F16","shape":[8],"data_offsets":[0,8]}})", 8)));
    // Past the end of the file.
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", 4)));
    // Overflowing shape and offsets.
    EXPECT_FALSE(parse(safetensors_file(
        R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 0)));
    EXPECT_FALSE(parse(safetensors_file(
        R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[18446744073709551615,0]}})", 0)));
}

TEST(FitSafetensorsMalformed, NotATensorTable) {
    EXPECT_FALSE(parse(safetensors_file("[1,2]", 0)));
    EXPECT_FALSE(parse(safetensors_file("{not json", 0)));
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", 1)));
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})", 1)));
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[1]}})", 1)));
    EXPECT_FALSE(parse(safetensors_file(std::string(100, '[') + std::string(100, ']'), 0)));
}

}  // namespace
}  // namespace wiredcap::fit
