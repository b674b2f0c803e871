// The helper's JSON writer: output is pure ASCII, so a journal line or a result line can never
// carry a raw control character, a forged line break or a terminal escape sequence.
#include "wiredcap/json_writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wiredcap {
namespace {

TEST(JsonQuote, PlainTextIsQuoted) {
    EXPECT_EQ(json_quote(""), "\"\"");
    EXPECT_EQ(json_quote("237568 MiB (232.00 GiB)"), "\"237568 MiB (232.00 GiB)\"");
}

TEST(JsonQuote, QuoteAndBackslashAreEscaped) {
    EXPECT_EQ(json_quote("a\"b"), "\"a\\\"b\"");
    EXPECT_EQ(json_quote("a\\b"), "\"a\\\\b\"");
    EXPECT_EQ(json_quote("\\\""), "\"\\\\\\\"\"");
}

TEST(JsonQuote, ShortEscapes) {
    EXPECT_EQ(json_quote("\n"), "\"\\n\"");
    EXPECT_EQ(json_quote("\r"), "\"\\r\"");
    EXPECT_EQ(json_quote("\t"), "\"\\t\"");
    EXPECT_EQ(json_quote("a\r\nb"), "\"a\\r\\nb\"");
}

TEST(JsonQuote, OtherControlBytesAreUnicodeEscapes) {
    EXPECT_EQ(json_quote(std::string(1, '\0')), "\"\\u0000\"");
    EXPECT_EQ(json_quote("\x01"), "\"\\u0001\"");
    EXPECT_EQ(json_quote("\x08"), "\"\\u0008\"");
    EXPECT_EQ(json_quote("\x0b\x0c"), "\"\\u000b\\u000c\"");
    EXPECT_EQ(json_quote("\x1b[2J"), "\"\\u001b[2J\"");
    EXPECT_EQ(json_quote("\x1f"), "\"\\u001f\"");
}

TEST(JsonQuote, DelAndHighBytesAreUnicodeEscapes) {
    EXPECT_EQ(json_quote("\x7f"), "\"\\u007f\"");
    EXPECT_EQ(json_quote("\x80"), "\"\\u0080\"");
    EXPECT_EQ(json_quote("caf\xc3\xa9"), "\"caf\\u00c3\\u00a9\"");
    EXPECT_EQ(json_quote("\xff"), "\"\\u00ff\"");
}

TEST(JsonQuote, EveryByteComesOutAsPrintableAscii) {
    std::string all;
    for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
    const std::string q = json_quote(all);
    for (const char ch : q) {
        const auto c = static_cast<unsigned char>(ch);
        EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "raw byte " << unsigned{c};
    }
    // 2 quotes + 3 two-character escapes (\n \r \t) + 29 other controls, DEL and 128 high
    // bytes as six-character \u00XX + 2 escaped (\" \\) + 93 printable bytes as they are.
    EXPECT_EQ(q.size(), 2U + 3 * 2 + (29 + 1 + 128) * 6 + 2 * 2 + 93);
}

TEST(JsonQuote, PrintableAsciiOtherThanQuoteAndBackslashPassesThrough) {
    std::string printable;
    for (char c = 0x20; c < 0x7f; ++c)
        if (c != '"' && c != '\\') printable += c;
    ASSERT_EQ(printable.size(), 93U);
    EXPECT_EQ(json_quote(printable), "\"" + printable + "\"");
}

TEST(JsonObject, EmptyObject) { EXPECT_EQ(JsonObject().text(), "{}"); }

TEST(JsonObject, FieldsInInsertionOrder) {
    JsonObject o;
    o.str("z", "last?").num("a", 1).boolean("m", false).null("b").num("c", 5);
    EXPECT_EQ(o.text(), "{\"z\":\"last?\",\"a\":1,\"m\":false,\"b\":null,\"c\":5}");
}

TEST(JsonObject, NumbersCoverTheirWholeRange) {
    JsonObject o;
    o.num("max", UINT64_MAX).num("zero", 0).boolean("t", true);
    EXPECT_EQ(o.text(), "{\"max\":18446744073709551615,\"zero\":0,\"t\":true}");
}

TEST(JsonObject, StrWithStringLiteralIsAString) {
    JsonObject o;
    o.str("k", "text");
    EXPECT_EQ(o.text(), "{\"k\":\"text\"}");
    JsonObject e;
    e.str("k", "");
    EXPECT_EQ(e.text(), "{\"k\":\"\"}");
}

TEST(JsonObject, KeysAreEscapedToo) {
    JsonObject o;
    o.str("a\"b\n", "v");
    EXPECT_EQ(o.text(), "{\"a\\\"b\\n\":\"v\"}");
}

TEST(JsonObject, NestedObjects) {
    JsonObject inner;
    inner.num("mib", 237568).str("source", "kernel");
    JsonObject empty;
    JsonObject outer;
    outer.str("event", "applied").object("readback", inner).object("none", empty);
    EXPECT_EQ(
        outer.text(),
        "{\"event\":\"applied\",\"readback\":{\"mib\":237568,\"source\":\"kernel\"},\"none\":{}}");
}

TEST(JsonObject, StringArrays) {
    JsonObject o;
    o.strings("none", {}).strings("one", {"a"}).strings("three", {"x", "", "q\"\n"});
    EXPECT_EQ(o.text(), "{\"none\":[],\"one\":[\"a\"],\"three\":[\"x\",\"\",\"q\\\"\\n\"]}");
}

// convert's exact decimals are JSON numbers; text that is not one becomes null, never malformed JSON.
TEST(JsonObject, DecimalIsANumberOrNull) {
    EXPECT_EQ(JsonObject().decimal("a", "96").decimal("b", "103.079215104").text(),
              R"({"a":96,"b":103.079215104})");
    for (const char* bad : {"", ".5", "5.", "1.2.3", "1e3", "-1", "9 6", "\"96\""})
        EXPECT_EQ(JsonObject().decimal("a", bad).text(), R"({"a":null})") << bad;
}

}  // namespace
}  // namespace wiredcap
