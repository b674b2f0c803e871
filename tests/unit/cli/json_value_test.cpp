// Reading JSON through nlohmann/json with wiredcap's limits: everything RFC 8259 allows is read
// exactly, everything else is refused; so is a repeated key, a document nested deeper than
// kMaxDepth or longer than kMaxText. The parser is the library's; these tests pin down what
// wiredcap relies on, so a library update that changes any of it fails here.
#include "wiredcap/cli/readings/json_value.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace wiredcap::json {
namespace {

Value parsed(std::string_view text) {
    auto v = parse(text);
    EXPECT_TRUE(v) << "refused " << text << ": " << (v ? "" : v.error().message);
    return v ? *v : Value();
}

std::string error_of(std::string_view text) {
    auto v = parse(text);
    EXPECT_FALSE(v) << "accepted " << text;
    return v ? std::string() : v.error().message;
}

// ---- valid documents --------------------------------------------------------------------------

TEST(JsonParse, ReadsEveryScalarType) {
    EXPECT_TRUE(parsed("null").is_null());
    EXPECT_EQ(as_bool(parsed("true")), true);
    EXPECT_EQ(as_bool(parsed("false")), false);
    EXPECT_EQ(as_u64(parsed("42")), 42u);
    ASSERT_NE(as_string(parsed("\"text\"")), nullptr);
    EXPECT_EQ(*as_string(parsed("\"text\"")), "text");
    EXPECT_EQ(*as_string(parsed("\"\"")), "");
}

TEST(JsonParse, AccessorsOfTheWrongTypeGiveNothing) {
    const Value n = parsed("1");
    EXPECT_FALSE(n.is_null());
    EXPECT_EQ(as_bool(n), std::nullopt);
    EXPECT_EQ(as_string(n), nullptr);
    EXPECT_FALSE(n.is_array());
    EXPECT_FALSE(n.is_object());
    EXPECT_EQ(get(n, "x"), nullptr);
    EXPECT_EQ(as_u64(parsed("\"1\"")), std::nullopt);  // a string of digits is not a number
    EXPECT_EQ(as_u64(parsed("true")), std::nullopt);
    EXPECT_EQ(as_bool(parsed("null")), std::nullopt);
}

TEST(JsonParse, ReadsObjectsInDocumentOrder) {
    const Value v = parsed(R"({"b":1,"a":"x","c":[true,null]})");
    ASSERT_TRUE(v.is_object());
    ASSERT_EQ(v.size(), 3u);
    std::vector<std::string> keys;
    for (const auto& [key, value] : v.items()) keys.push_back(key);
    EXPECT_EQ(keys, (std::vector<std::string>{"b", "a", "c"}));
    EXPECT_EQ(as_u64(*get(v, "b")), 1u);
    EXPECT_EQ(*as_string(*get(v, "a")), "x");
    EXPECT_EQ(get(v, "missing"), nullptr);
    const Value* c = get(v, "c");
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->is_array());
    ASSERT_EQ(c->size(), 2u);
    EXPECT_EQ(as_bool((*c)[0]), true);
    EXPECT_TRUE((*c)[1].is_null());
}

TEST(JsonParse, ReadsEmptyContainersAndWhitespace) {
    EXPECT_TRUE(parsed("[]").is_array() && parsed("[]").empty());
    EXPECT_TRUE(parsed("{}").is_object() && parsed("{}").empty());
    const Value v = parsed(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n ");
    ASSERT_NE(get(v, "a"), nullptr);
    EXPECT_EQ(get(v, "a")->size(), 2u);
}

TEST(JsonParse, ReadsNestedContainers) {
    const Value v = parsed(R"({"a":{"b":[[{"c":7}]]}})");
    const Value* b = get(*get(v, "a"), "b");
    ASSERT_NE(b, nullptr);
    const Value& inner = (*b)[0][0];
    EXPECT_EQ(as_u64(*get(inner, "c")), 7u);
}

// nlohmann would keep the last of a repeated key; wiredcap refuses the line instead, so no two
// readers can disagree about what it says. Nested objects have their own keys.
TEST(JsonParse, RepeatedKeysAreRefused) {
    EXPECT_NE(error_of(R"({"k":1,"k":2})").find("repeats the key \"k\""), std::string::npos);
    EXPECT_FALSE(parse(R"({"a":{"k":1,"k":1}})"));
    EXPECT_TRUE(parse(R"({"k":{"k":1},"j":[{"k":2},{"k":3}]})"));
}

TEST(JsonParse, DepthLimitIsExactlyKMaxDepth) {
    const std::string ok = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
    EXPECT_TRUE(parse(ok));
    const std::string objects = [] {
        std::string s;
        for (std::size_t i = 0; i < kMaxDepth; ++i) s += "{\"a\":";
        s += "1";
        return s + std::string(kMaxDepth, '}');
    }();
    EXPECT_TRUE(parse(objects));
    const std::string deep = std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
    const std::string msg = error_of(deep);
    EXPECT_NE(msg.find("nested deeper than 32"), std::string::npos) << msg;
    EXPECT_FALSE(parse("[" + objects + "]"));
}

TEST(JsonParse, SizeLimit) {
    std::string big = "\"" + std::string(kMaxText - 2, 'a') + "\"";
    ASSERT_EQ(big.size(), kMaxText);
    EXPECT_TRUE(parse(big));
    big.insert(1, "a");
    EXPECT_FALSE(parse(big));
}

// ---- strings ----------------------------------------------------------------------------------

TEST(JsonString, SimpleEscapes) {
    EXPECT_EQ(*as_string(parsed(R"("\"\\\/\b\f\n\r\t")")), "\"\\/\b\f\n\r\t");
}

TEST(JsonString, UnicodeEscapesBecomeUtf8) {
    EXPECT_EQ(*as_string(parsed(R"("caf\u00e9")")), "caf\xc3\xa9");
    EXPECT_EQ(*as_string(parsed(R"("\u00E9")")), "\xc3\xa9");  // hex digits in either case
    EXPECT_EQ(*as_string(parsed(R"("\u20ac")")), "\xe2\x82\xac");
    EXPECT_EQ(*as_string(parsed(R"("\u0041")")), "A");
}

TEST(JsonString, SurrogatePairBecomesOneFourByteCharacter) {
    EXPECT_EQ(*as_string(parsed(R"("\ud83d\ude00")")), "\xf0\x9f\x98\x80");  // U+1F600
    EXPECT_EQ(*as_string(parsed(R"("\uDBFF\uDFFF")")), "\xf4\x8f\xbf\xbf");  // U+10FFFF
}

TEST(JsonString, EscapedNulIsKept) {
    const std::string s = *as_string(parsed(R"("a\u0000b")"));
    EXPECT_EQ(s, std::string("a\0b", 3));
}

TEST(JsonString, RawUtf8IsKept) {
    EXPECT_EQ(*as_string(parsed("\"caf\xc3\xa9 \xf0\x9f\x98\x80\"")),
              "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

TEST(JsonString, RefusesInvalidUtf8) {
    EXPECT_FALSE(parse("\"\xc3\""));              // truncated
    EXPECT_FALSE(parse("\"\xc0\xaf\""));          // overlong
    EXPECT_FALSE(parse("\"\xed\xa0\x80\""));      // an encoded surrogate
    EXPECT_FALSE(parse("\"\xf4\x90\x80\x80\""));  // above U+10FFFF
    EXPECT_FALSE(parse("\"\x80\""));              // a lone continuation byte
    EXPECT_FALSE(parse("\"\xff\""));
}

TEST(JsonString, RefusesUnterminatedString) {
    EXPECT_FALSE(parse("\"abc"));
    EXPECT_FALSE(parse(R"("abc\")"));
}

TEST(JsonString, RefusesRawControlCharacters) {
    const std::string msg = error_of("\"a\nb\"");
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // named, not echoed
    EXPECT_FALSE(parse(std::string("\"a\0b\"", 5)));
    EXPECT_FALSE(parse("\"\t\""));
    EXPECT_FALSE(parse("\"\x1b[31m\""));
}

TEST(JsonString, RefusesInvalidEscapes) {
    EXPECT_FALSE(parse(R"("\x41")"));
    EXPECT_FALSE(parse(R"("\a")"));
    EXPECT_FALSE(parse(R"("\')"));
    EXPECT_FALSE(parse(R"("\u12")"));
    EXPECT_FALSE(parse(R"("\u12G4")"));
    EXPECT_FALSE(parse(R"("\U00e9")"));
}

TEST(JsonString, RefusesLoneSurrogates) {
    EXPECT_FALSE(parse(R"("\ud83d")"));
    EXPECT_FALSE(parse(R"("\ud83dx")"));
    EXPECT_FALSE(parse(R"("\ud83d\u0041")"));  // followed by a non-surrogate
    EXPECT_FALSE(parse(R"("\ud83d\ud83d")"));  // two highs
    EXPECT_FALSE(parse(R"("\ude00")"));
}

// ---- numbers ----------------------------------------------------------------------------------

TEST(JsonNumber, BigIntegersAreExact) {
    EXPECT_EQ(as_u64(parsed("18446744073709551615")), UINT64_MAX);    // 2^64 - 1
    EXPECT_EQ(as_u64(parsed("18446744073709551616")), std::nullopt);  // 2^64: valid JSON, no u64
    EXPECT_EQ(as_u64(parsed("99999999999999999999999")), std::nullopt);
    EXPECT_EQ(as_u64(parsed("0")), 0u);
}

TEST(JsonNumber, SignedIntegers) {
    EXPECT_EQ(as_i64(parsed("-1")), -1);
    EXPECT_EQ(as_u64(parsed("-1")), std::nullopt);
    EXPECT_EQ(as_i64(parsed("9223372036854775807")), INT64_MAX);
    EXPECT_EQ(as_i64(parsed("9223372036854775808")), std::nullopt);
    EXPECT_EQ(as_u64(parsed("9223372036854775808")), 9223372036854775808u);
    EXPECT_EQ(as_i64(parsed("-9223372036854775808")), INT64_MIN);
    EXPECT_EQ(as_i64(parsed("-9223372036854775809")), std::nullopt);
    EXPECT_EQ(as_i64(parsed("-0")), 0);
    EXPECT_EQ(as_u64(parsed("-0")), std::nullopt);
}

TEST(JsonNumber, FractionsAndExponentsAreValidButNotIntegers) {
    for (const char* text : {"1.0", "1e3", "1E3", "1e+3", "1e-3", "-0.5", "0.0", "2.5E10"}) {
        const Value v = parsed(text);
        EXPECT_EQ(as_u64(v), std::nullopt) << text;
        EXPECT_EQ(as_i64(v), std::nullopt) << text;
    }
}

TEST(JsonNumber, RefusesWhatTheGrammarDoesNot) {
    EXPECT_FALSE(parse("01"));
    EXPECT_FALSE(parse("-01"));
    EXPECT_FALSE(parse("00"));
    EXPECT_FALSE(parse("+1"));
    EXPECT_FALSE(parse("-"));
    EXPECT_FALSE(parse("1."));
    EXPECT_FALSE(parse(".5"));
    EXPECT_FALSE(parse("1e"));
    EXPECT_FALSE(parse("1e+"));
    EXPECT_FALSE(parse("0x10"));
    EXPECT_FALSE(parse("1_000"));
    EXPECT_FALSE(parse("NaN"));
    EXPECT_FALSE(parse("Infinity"));
    EXPECT_FALSE(parse("-Infinity"));
}

// ---- refusals ---------------------------------------------------------------------------------

TEST(JsonRefuse, TrailingCommas) {
    EXPECT_FALSE(parse("[1,2,]"));
    EXPECT_FALSE(parse(R"({"a":1,})"));
    EXPECT_FALSE(parse("[,]"));
    EXPECT_FALSE(parse("[1,,2]"));
}

TEST(JsonRefuse, Comments) {
    EXPECT_FALSE(parse("// c\n1"));
    EXPECT_FALSE(parse("/* c */ 1"));
    EXPECT_FALSE(parse("[1 /* c */]"));
    EXPECT_FALSE(parse("1 # c"));
}

TEST(JsonRefuse, SingleQuotesAndBareKeys) {
    EXPECT_FALSE(parse("'a'"));
    EXPECT_FALSE(parse("{'a':1}"));
    EXPECT_FALSE(parse("{a:1}"));
    EXPECT_FALSE(parse(R"({"a" 1})"));
    EXPECT_FALSE(parse(R"({"a":})"));
    EXPECT_FALSE(parse(R"({1:1})"));
}

TEST(JsonRefuse, TrailingGarbage) {
    EXPECT_FALSE(parse("1 2"));
    EXPECT_FALSE(parse("{}{}"));
    EXPECT_FALSE(parse("truex"));
    EXPECT_FALSE(parse(std::string("1\0", 2)));
}

TEST(JsonRefuse, EmptyOrBlankInput) {
    EXPECT_FALSE(parse(""));
    EXPECT_FALSE(parse("   \n"));
}

TEST(JsonRefuse, BadWordsAndOddWhitespace) {
    EXPECT_FALSE(parse("True"));
    EXPECT_FALSE(parse("nul"));
    EXPECT_FALSE(parse("undefined"));
    EXPECT_FALSE(parse("\f1"));  // form feed is not JSON whitespace
    EXPECT_FALSE(
        parse("\xef\xbb\xbf"
              "1"));  // nor is a byte-order mark
}

TEST(JsonRefuse, UnclosedContainers) {
    for (const char* text :
         {"[", "[1", "[1,", "{", R"({"a")", R"({"a":)", R"({"a":1)", R"({"a":1,)"}) {
        EXPECT_FALSE(parse(text)) << text;
    }
    EXPECT_FALSE(parse("[}"));
    EXPECT_FALSE(parse("{]"));
}

// The message may reach a terminal (journal warnings): no control byte, no byte >= 0x80 (C1
// controls, invalid UTF-8) from the input, however the library quotes what it read.
TEST(JsonRefuse, ErrorsAreAsciiWithoutControlBytes) {
    for (const std::string& text : {std::string("\x1b[2J"), std::string("\"\xc3\""),
                                    std::string("[\x9b"
                                                "31m]"),
                                    std::string("{\"a\":\"\x1b]0;x\x07\"}")}) {
        const std::string msg = error_of(text);
        for (const char ch : msg) {
            const auto u = static_cast<unsigned char>(ch);
            EXPECT_TRUE(u >= 0x20 && u < 0x7f) << "byte " << static_cast<int>(u) << " in: " << msg;
        }
    }
}

// A copy is independent of the original.
TEST(JsonValue, CopiesReadTheSame) {
    Value a = parsed(R"({"x":[1,2,3]})");
    const Value b = a;
    a = Value();
    EXPECT_TRUE(a.is_null());
    ASSERT_NE(get(b, "x"), nullptr);
    EXPECT_EQ(get(b, "x")->size(), 3u);
}

}  // namespace
}  // namespace wiredcap::json
