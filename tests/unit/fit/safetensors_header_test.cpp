// The safetensors header parser on files generated here, and on malformed ones.
#include <gtest/gtest.h>

#include "wiredcap/fit/safetensors_header.hpp"
#include "model_writer.hpp"

#include <map>
#include <string>

namespace wiredcap::fit {
namespace {

using testing::safetensors_file;

Expected<SafetensorsHeader> parse(const std::string& bytes, const SafetensorsLimits& limits = {}) {
    ByteReader in = ByteReader::of_memory(std::as_bytes(std::span(bytes.data(), bytes.size())));
    return parse_safetensors(in, limits);
}

// `n` zero-byte tensors named t0, t1, ...
std::string tensors(std::size_t n) {
    std::string h = "{";
    for (std::size_t i = 0; i < n; ++i)
        h += (i == 0 ? "\"t" : ",\"t") + std::to_string(i) +
             R"(":{"dtype":"U8","shape":[0],"data_offsets":[0,0]})";
    return h + "}";
}

void expect_refused(const Expected<SafetensorsHeader>& h, const std::string& why) {
    ASSERT_FALSE(h) << "answered, where refused for " << why;
    EXPECT_NE(h.error().message.find(why), std::string::npos) << h.error().message;
}

// BF16 [4, 8] = 64 B at [0, 64); U32 [2, 4] = 32 B at [64, 96); F32 [3] = 12 B at [96, 108).
const std::string kHeader = R"({"__metadata__":{"format":"mlx"},)"
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
    for (std::size_t n = 0; n < f.size(); ++n)
        EXPECT_FALSE(parse(f.substr(0, n))) << "cut at " << n;
}

TEST(FitSafetensorsMalformed, HeaderLengthOverTheLimitOrPastTheEnd) {
    EXPECT_FALSE(parse(testing::GgufWriter::le(kMaxSafetensorsHeader + 1, 8) + "{}"));
    EXPECT_FALSE(parse(testing::GgufWriter::le(UINT64_MAX, 8) + "{}"));
    EXPECT_FALSE(parse(testing::GgufWriter::le(1000, 8) + "{}"));
}

TEST(FitSafetensorsMalformed, OffsetsOverlappingReversedOrDisagreeing) {
    // Overlap: b starts inside a.
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                                        R"("b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})",
                                        12)));
    // Out of order: end before begin.
    EXPECT_FALSE(
        parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[8,0]}})", 8)));
    // The range disagrees with dtype x shape.
    EXPECT_FALSE(
        parse(safetensors_file(R"({"a":{"dtype":"F16","shape":[8],"data_offsets":[0,8]}})", 8)));
    // Past the end of the file.
    EXPECT_FALSE(
        parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", 4)));
    // Overflowing shape and offsets.
    EXPECT_FALSE(parse(safetensors_file(
        R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 0)));
    EXPECT_FALSE(parse(safetensors_file(
        R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[18446744073709551615,0]}})", 0)));
}

TEST(FitSafetensorsMalformed, NotATensorTable) {
    EXPECT_FALSE(parse(safetensors_file("[1,2]", 0)));
    EXPECT_FALSE(parse(safetensors_file("{not json", 0)));
    EXPECT_FALSE(
        parse(safetensors_file(R"({"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", 1)));
    EXPECT_FALSE(
        parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})", 1)));
    EXPECT_FALSE(parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[1]}})", 1)));
    EXPECT_FALSE(parse(safetensors_file(std::string(100, '[') + std::string(100, ']'), 0)));
}

// The bounds on what a header up to the format's 100 MB can cost (bench/fit_hostile.sh measures
// the time and memory): each limit holds at its value and refuses one past it. The limits are
// the parser's own, made small here where the test would be slow.
TEST(FitSafetensorsHostile, MoreTensorsThanTheLimitAreRefused) {
    const SafetensorsLimits limits{.max_tensors = 100};
    const auto at = parse(safetensors_file(tensors(100), 0), limits);
    ASSERT_TRUE(at) << at.error().message;
    EXPECT_EQ(at->tensor_count, 100u);
    expect_refused(parse(safetensors_file(tensors(101), 0), limits), "more than 100 tensors");
}

// A string longer than the parser is shown (64 KiB) is answered, cut, not kept: the rest is
// scanned, and an invalid escape or a control character there is still refused.
TEST(FitSafetensorsHostile, LongStringsAreCutNumbersRefused) {
    const auto meta = [](const std::string& tail) {
        return safetensors_file(R"({"__metadata__":{"x":")" + std::string(100'000, 'a') + tail +
                                    R"("},)"
                                    R"("a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})",
                                8);
    };
    const auto cut = parse(meta(R"(\"\u00e9\n)"));
    ASSERT_TRUE(cut) << cut.error().message;
    EXPECT_EQ(cut->tensor_bytes.count(), 8u);
    EXPECT_FALSE(cut->metadata.contains("x"));
    expect_refused(parse(meta(R"(\x)")), "an invalid escape");
    expect_refused(parse(meta(R"(\u00g9)")), "an invalid \\u escape");
    expect_refused(parse(meta(std::string(1, '\x01'))), "a control character");
    // A 100,000-byte tensor name: the tensor counts, its name is cut.
    const auto name = parse(safetensors_file(
        "{\"" + std::string(100'000, 'n') + R"(":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})",
        8));
    ASSERT_TRUE(name) << name.error().message;
    EXPECT_EQ(name->tensor_count, 1u);
    expect_refused(
        parse(safetensors_file(R"({"a":{"dtype":"U8","shape":[)" + std::string(1025, '1') +
                                   R"(],"data_offsets":[0,0]}})",
                               0)),
        "a number longer than 1 KiB");
}

// Twelve values: the root object, the tensor's name and object, "dtype", "U8", "shape", its
// array and one number, "data_offsets", its array and two numbers.
TEST(FitSafetensorsHostile, MoreValuesThanTheBudgetAreRefused) {
    const auto one = safetensors_file(tensors(1), 0);
    EXPECT_TRUE(parse(one, SafetensorsLimits{.max_values = 12}));
    expect_refused(parse(one, SafetensorsLimits{.max_values = 11}), "more than 11 values");
    // Whitespace is no value, however much of it.
    EXPECT_TRUE(parse(safetensors_file("{" + std::string(1'000'000, ' ') + "\n\t}", 0),
                      SafetensorsLimits{.max_values = 1}));
}

TEST(FitSafetensorsHostile, MetadataPastItsLimitsIsPassedOverNotKept) {
    const SafetensorsLimits limits{.max_metadata_string = 8, .max_metadata_entries = 3};
    const auto h = parse(
        safetensors_file(
            R"({"__metadata__":{"format":"mlx","long":"123456789","b":"2","c":"3","d":"4"}})", 0),
        limits);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->metadata,
              (std::map<std::string, std::string>{{"format", "mlx"}, {"b", "2"}, {"c", "3"}}));
}

TEST(FitSafetensorsHostile, NestingDeeperThanATensorTableIsRefusedAsItIsRead) {
    // Eight levels pass (a tensor entry is three); the ninth ends the input there.
    const auto at = parse(safetensors_file(R"({"__metadata__":{"x":[[[[[[1]]]]]]}})", 0));
    ASSERT_TRUE(at) << at.error().message;
    expect_refused(parse(safetensors_file(R"({"__metadata__":{"x":[[[[[[[1]]]]]]]}})", 0)),
                   "nests deeper than 8 levels");
    expect_refused(parse(safetensors_file(std::string(50'000'000, '['), 0)),
                   "nests deeper than 8 levels");
}

}  // namespace
}  // namespace wiredcap::fit
