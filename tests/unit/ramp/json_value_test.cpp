// The strict JSON reader: everything RFC 8259 allows is read exactly, everything else is
// refused with the byte offset where it went wrong.
#include "json_value.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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
    EXPECT_EQ(parsed("true").as_bool(), true);
    EXPECT_EQ(parsed("false").as_bool(), false);
    EXPECT_EQ(parsed("42").as_u64(), 42u);
    ASSERT_NE(parsed("\"text\"").as_string(), nullptr);
    EXPECT_EQ(*parsed("\"text\"").as_string(), "text");
    EXPECT_EQ(*parsed("\"\"").as_string(), "");
}

TEST(JsonParse, AccessorsOfTheWrongTypeGiveNothing) {
    const Value n = parsed("1");
    EXPECT_FALSE(n.is_null());
    EXPECT_EQ(n.as_bool(), std::nullopt);
    EXPECT_EQ(n.as_string(), nullptr);
    EXPECT_EQ(n.as_array(), nullptr);
    EXPECT_EQ(n.as_object(), nullptr);
    EXPECT_EQ(n.get("x"), nullptr);
    EXPECT_EQ(parsed("\"1\"").as_u64(), std::nullopt);  // a string of digits is not a number
    EXPECT_EQ(parsed("true").as_u64(), std::nullopt);
    EXPECT_EQ(parsed("null").as_bool(), std::nullopt);
}

TEST(JsonParse, ReadsObjectsInDocumentOrder) {
    const Value v = parsed(R"({"b":1,"a":"x","c":[true,null]})");
    const Object* o = v.as_object();
    ASSERT_NE(o, nullptr);
    ASSERT_EQ(o->size(), 3u);
    EXPECT_EQ((*o)[0].first, "b");
    EXPECT_EQ((*o)[1].first, "a");
    EXPECT_EQ((*o)[2].first, "c");
    EXPECT_EQ(v.get("b")->as_u64(), 1u);
    EXPECT_EQ(*v.get("a")->as_string(), "x");
    EXPECT_EQ(v.get("missing"), nullptr);
    const Array* c = v.get("c")->as_array();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->size(), 2u);
    EXPECT_EQ((*c)[0].as_bool(), true);
    EXPECT_TRUE((*c)[1].is_null());
}

TEST(JsonParse, ReadsEmptyContainersAndWhitespace) {
    EXPECT_EQ(parsed("[]").as_array()->size(), 0u);
    EXPECT_EQ(parsed("{}").as_object()->size(), 0u);
    const Value v = parsed(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n ");
    ASSERT_NE(v.get("a"), nullptr);
    EXPECT_EQ(v.get("a")->as_array()->size(), 2u);
}

TEST(JsonParse, ReadsNestedContainers) {
    const Value v = parsed(R"({"a":{"b":[[{"c":7}]]}})");
    const Value* b = v.get("a")->get("b");
    ASSERT_NE(b, nullptr);
    const Value& inner = (*(*b->as_array())[0].as_array())[0];
    EXPECT_EQ(inner.get("c")->as_u64(), 7u);
}

TEST(JsonParse, DuplicateKeysKeepBothAndGetReturnsTheFirst) {
    const Value v = parsed(R"({"k":1,"k":2})");
    EXPECT_EQ(v.get("k")->as_u64(), 1u);
    EXPECT_EQ(v.as_object()->size(), 2u);
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
    EXPECT_NE(msg.find("at byte 32"), std::string::npos) << msg;
    EXPECT_FALSE(parse("[" + objects + "]"));
}

TEST(JsonParse, SizeLimit) {
    std::string big = "\"" + std::string(kMaxText - 2, 'a') + "\"";
    ASSERT_EQ(big.size(), kMaxText);
    EXPECT_TRUE(parse(big));
    big.insert(1, "a");
    EXPECT_NE(error_of(big).find("limit"), std::string::npos);
}

// ---- strings ----------------------------------------------------------------------------------

TEST(JsonString, SimpleEscapes) {
    EXPECT_EQ(*parsed(R"("\"\\\/\b\f\n\r\t")").as_string(), "\"\\/\b\f\n\r\t");
}

TEST(JsonString, UnicodeEscapesBecomeUtf8) {
    EXPECT_EQ(*parsed(R"("caf\u00e9")").as_string(), "caf\xc3\xa9");
    EXPECT_EQ(*parsed(R"("\u00E9")").as_string(), "\xc3\xa9");  // hex digits in either case
    EXPECT_EQ(*parsed(R"("\u20ac")").as_string(), "\xe2\x82\xac");
    EXPECT_EQ(*parsed(R"("\u0041")").as_string(), "A");
}

TEST(JsonString, SurrogatePairBecomesOneFourByteCharacter) {
    EXPECT_EQ(*parsed(R"("\ud83d\ude00")").as_string(), "\xf0\x9f\x98\x80");  // U+1F600
    EXPECT_EQ(*parsed(R"("\uDBFF\uDFFF")").as_string(), "\xf4\x8f\xbf\xbf");  // U+10FFFF
}

TEST(JsonString, EscapedNulIsKept) {
    const std::string s = *parsed(R"("a\u0000b")").as_string();
    EXPECT_EQ(s, std::string("a\0b", 3));
}

TEST(JsonString, RawUtf8IsKept) {
    EXPECT_EQ(*parsed("\"caf\xc3\xa9 \xf0\x9f\x98\x80\"").as_string(), "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

TEST(JsonString, RefusesInvalidUtf8) {
    EXPECT_FALSE(parse("\"\xc3\""));          // truncated
    EXPECT_FALSE(parse("\"\xc0\xaf\""));      // overlong
    EXPECT_FALSE(parse("\"\xed\xa0\x80\""));  // an encoded surrogate
    EXPECT_FALSE(parse("\"\xf4\x90\x80\x80\""));  // above U+10FFFF
    EXPECT_FALSE(parse("\"\x80\""));          // a lone continuation byte
    EXPECT_FALSE(parse("\"\xff\""));
}

TEST(JsonString, RefusesUnterminatedString) {
    EXPECT_NE(error_of("\"abc").find("unexpected end of input"), std::string::npos);
    EXPECT_FALSE(parse(R"("abc\")"));
}

TEST(JsonString, RefusesRawControlCharacters) {
    const std::string msg = error_of("\"a\nb\"");
    EXPECT_NE(msg.find("at byte 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0x0a"), std::string::npos) << msg;  // named, not echoed
    EXPECT_FALSE(parse(std::string("\"a\0b\"", 5)));
    EXPECT_FALSE(parse("\"\t\""));
    EXPECT_FALSE(parse("\"\x1b[31m\""));
}

TEST(JsonString, RefusesInvalidEscapes) {
    EXPECT_NE(error_of(R"("\x41")").find("invalid escape"), std::string::npos);
    EXPECT_FALSE(parse(R"("\a")"));
    EXPECT_FALSE(parse(R"("\')"));
    EXPECT_FALSE(parse(R"("\u12")"));
    EXPECT_FALSE(parse(R"("\u12G4")"));
    EXPECT_FALSE(parse(R"("\U00e9")"));
}

TEST(JsonString, RefusesLoneSurrogates) {
    EXPECT_NE(error_of(R"("\ud83d")").find("high surrogate"), std::string::npos);
    EXPECT_FALSE(parse(R"("\ud83dx")"));
    EXPECT_FALSE(parse(R"("\ud83d\u0041")"));  // followed by a non-surrogate
    EXPECT_FALSE(parse(R"("\ud83d\ud83d")"));  // two highs
    EXPECT_NE(error_of(R"("\ude00")").find("low surrogate"), std::string::npos);
}

// ---- numbers ----------------------------------------------------------------------------------

TEST(JsonNumber, BigIntegersAreExact) {
    EXPECT_EQ(parsed("18446744073709551615").as_u64(), UINT64_MAX);  // 2^64 - 1
    EXPECT_EQ(parsed("18446744073709551616").as_u64(), std::nullopt);  // 2^64: valid JSON, no u64
    EXPECT_EQ(parsed("99999999999999999999999").as_u64(), std::nullopt);
    EXPECT_EQ(parsed("0").as_u64(), 0u);
}

TEST(JsonNumber, SignedIntegers) {
    EXPECT_EQ(parsed("-1").as_i64(), -1);
    EXPECT_EQ(parsed("-1").as_u64(), std::nullopt);
    EXPECT_EQ(parsed("9223372036854775807").as_i64(), INT64_MAX);
    EXPECT_EQ(parsed("9223372036854775808").as_i64(), std::nullopt);
    EXPECT_EQ(parsed("9223372036854775808").as_u64(), 9223372036854775808u);
    EXPECT_EQ(parsed("-9223372036854775808").as_i64(), INT64_MIN);
    EXPECT_EQ(parsed("-9223372036854775809").as_i64(), std::nullopt);
    EXPECT_EQ(parsed("-0").as_i64(), 0);
    EXPECT_EQ(parsed("-0").as_u64(), std::nullopt);
}

TEST(JsonNumber, FractionsAndExponentsAreValidButNotIntegers) {
    for (const char* text : {"1.0", "1e3", "1E3", "1e+3", "1e-3", "-0.5", "0.0", "2.5E10"}) {
        const Value v = parsed(text);
        EXPECT_EQ(v.as_u64(), std::nullopt) << text;
        EXPECT_EQ(v.as_i64(), std::nullopt) << text;
    }
}

TEST(JsonNumber, RefusesWhatTheGrammarDoesNot) {
    EXPECT_NE(error_of("01").find("leading zero"), std::string::npos);
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
    EXPECT_NE(error_of("[1,2,]").find("at byte 5"), std::string::npos);
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
    const std::string msg = error_of("{} x");
    EXPECT_NE(msg.find("at byte 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("after the value"), std::string::npos) << msg;
    EXPECT_FALSE(parse("1 2"));
    EXPECT_FALSE(parse("{}{}"));
    EXPECT_FALSE(parse("truex"));
    EXPECT_FALSE(parse(std::string("1\0", 2)));
}

TEST(JsonRefuse, EmptyOrBlankInput) {
    EXPECT_NE(error_of("").find("unexpected end of input"), std::string::npos);
    EXPECT_FALSE(parse("   \n"));
}

TEST(JsonRefuse, BadWordsAndOddWhitespace) {
    EXPECT_FALSE(parse("True"));
    EXPECT_FALSE(parse("nul"));
    EXPECT_FALSE(parse("undefined"));
    EXPECT_FALSE(parse("\f1"));              // form feed is not JSON whitespace
    EXPECT_FALSE(parse("\xef\xbb\xbf" "1"));  // nor is a byte-order mark
}

TEST(JsonRefuse, UnclosedContainers) {
    for (const char* text : {"[", "[1", "[1,", "{", R"({"a")", R"({"a":)", R"({"a":1)", R"({"a":1,)"}) {
        const std::string msg = error_of(text);
        EXPECT_NE(msg.find("unexpected end of input"), std::string::npos) << text << ": " << msg;
    }
    EXPECT_FALSE(parse("[}"));
    EXPECT_FALSE(parse("{]"));
}

TEST(JsonRefuse, ErrorsNeverEchoControlBytes) {
    const std::string msg = error_of("\x1b[2J");
    EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
    EXPECT_NE(msg.find("0x1b"), std::string::npos) << msg;
}

// Values are shared, not deep-copied, when copied: a copy must still read the same.
TEST(JsonValue, CopiesReadTheSame) {
    Value a = parsed(R"({"x":[1,2,3]})");
    const Value b = a;
    a = Value();
    EXPECT_TRUE(a.is_null());
    ASSERT_NE(b.get("x"), nullptr);
    EXPECT_EQ(b.get("x")->as_array()->size(), 3u);
}

}  // namespace
}  // namespace wiredcap::json
