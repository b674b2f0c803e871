// A strict RFC 8259 reader. What it reads comes from the helper (its result lines, its journal),
// but a journal can be damaged by a crash, so every byte is checked and nothing is guessed:
// anything outside the grammar is an error that names its byte offset.
#include "json_value.hpp"

#include <limits>

namespace wiredcap::json {

// ---- Value accessors ---------------------------------------------------------------------------

std::optional<bool> Value::as_bool() const {
    if (const bool* b = std::get_if<bool>(&v_)) return *b;
    return std::nullopt;
}

namespace {

// The magnitude of an integer-form number ("123", "-123"), or nullopt if the text has a
// fraction or an exponent or does not fit in 64 bits. The grammar was checked by the parser.
struct Magnitude {
    bool negative = false;
    std::uint64_t value = 0;
};

std::optional<Magnitude> integer_magnitude(std::string_view text) {
    Magnitude m;
    if (!text.empty() && text.front() == '-') {
        m.negative = true;
        text.remove_prefix(1);
    }
    if (text.empty()) return std::nullopt;
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    for (const char c : text) {
        if (c < '0' || c > '9') return std::nullopt;  // '.', 'e', 'E': not an integer form
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (m.value > (kMax - digit) / 10) return std::nullopt;
        m.value = m.value * 10 + digit;
    }
    return m;
}

}  // namespace

std::optional<std::uint64_t> Value::as_u64() const {
    const Number* n = std::get_if<Number>(&v_);
    if (n == nullptr) return std::nullopt;
    auto m = integer_magnitude(n->text);
    // "-0" is an integer but not an unsigned one as written; refuse any sign.
    if (!m || m->negative) return std::nullopt;
    return m->value;
}

std::optional<std::int64_t> Value::as_i64() const {
    const Number* n = std::get_if<Number>(&v_);
    if (n == nullptr) return std::nullopt;
    auto m = integer_magnitude(n->text);
    if (!m) return std::nullopt;
    constexpr auto kMaxPositive = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (!m->negative) {
        if (m->value > kMaxPositive) return std::nullopt;
        return static_cast<std::int64_t>(m->value);
    }
    if (m->value > kMaxPositive + 1) return std::nullopt;
    if (m->value == kMaxPositive + 1) return std::numeric_limits<std::int64_t>::min();
    return -static_cast<std::int64_t>(m->value);  // "-0" is 0
}

const std::string* Value::as_string() const { return std::get_if<std::string>(&v_); }

const Array* Value::as_array() const {
    const auto* a = std::get_if<std::shared_ptr<Array>>(&v_);
    return a != nullptr ? a->get() : nullptr;
}

const Object* Value::as_object() const {
    const auto* o = std::get_if<std::shared_ptr<Object>>(&v_);
    return o != nullptr ? o->get() : nullptr;
}

const Value* Value::get(std::string_view key) const {
    const Object* o = as_object();
    if (o == nullptr) return nullptr;
    for (const auto& [k, v] : *o)
        if (k == key) return &v;  // the first of repeated keys, whatever a later one says
    return nullptr;
}

// ---- Parser ------------------------------------------------------------------------------------

namespace {

// Describes a byte for an error message without echoing it raw: a journal line may hold
// anything, and an error must not carry a terminal escape sequence to the screen.
std::string describe_byte(unsigned char c) {
    if (c >= 0x21 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xf];
}

void append_utf8(std::string& out, std::uint32_t cp) {
    auto byte = [&out](std::uint32_t b) { out += static_cast<char>(static_cast<unsigned char>(b)); };
    if (cp < 0x80) {
        byte(cp);
    } else if (cp < 0x800) {
        byte(0xC0 | (cp >> 6));
        byte(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        byte(0xE0 | (cp >> 12));
        byte(0x80 | ((cp >> 6) & 0x3F));
        byte(0x80 | (cp & 0x3F));
    } else {
        byte(0xF0 | (cp >> 18));
        byte(0x80 | ((cp >> 12) & 0x3F));
        byte(0x80 | ((cp >> 6) & 0x3F));
        byte(0x80 | (cp & 0x3F));
    }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    Expected<Value> document() {
        skip_whitespace();
        auto v = value(0);
        if (!v) return v;
        skip_whitespace();
        if (pos_ != text_.size()) return fail("unexpected " + describe_byte(peek_byte()) + " after the value");
        return v;
    }

private:
    Error fail(const std::string& what) const {
        return Error{"invalid JSON at byte " + std::to_string(pos_) + ": " + what};
    }
    Error fail_at_end(const std::string& what) const {
        return pos_ >= text_.size() ? Error{"invalid JSON at byte " + std::to_string(pos_) + ": unexpected end of input"}
                                    : fail(what);
    }

    [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
    [[nodiscard]] unsigned char peek_byte() const { return static_cast<unsigned char>(text_[pos_]); }

    // RFC 8259 whitespace is exactly these four; a form feed or a BOM is not.
    void skip_whitespace() {
        while (!at_end()) {
            const char c = text_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            ++pos_;
        }
    }

    bool consume_literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    Expected<Value> value(std::size_t depth) {
        if (at_end()) return fail_at_end("");
        switch (text_[pos_]) {
            case '{': return object(depth + 1);
            case '[': return array(depth + 1);
            case '"': {
                auto s = string();
                if (!s) return s.error();
                return Value(std::move(*s));
            }
            case 't': return literal("true", Value(true));
            case 'f': return literal("false", Value(false));
            case 'n': return literal("null", Value());
            default: break;
        }
        if (text_[pos_] == '-' || is_digit(text_[pos_])) return number();
        return fail("unexpected " + describe_byte(peek_byte()) + " where a value was expected");
    }

    Expected<Value> literal(std::string_view word, Value v) {
        if (!consume_literal(word)) return fail("unknown word (expected " + std::string(word) + ")");
        return v;
    }

    Expected<Value> array(std::size_t depth) {
        if (depth > kMaxDepth) return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
        ++pos_;  // '['
        Array items;
        skip_whitespace();
        if (!at_end() && text_[pos_] == ']') {
            ++pos_;
            return Value(std::move(items));
        }
        for (;;) {
            skip_whitespace();
            auto item = value(depth);
            if (!item) return item;
            items.push_back(std::move(*item));
            skip_whitespace();
            if (at_end()) return fail_at_end("");
            if (text_[pos_] == ']') break;
            if (text_[pos_] != ',') return fail("expected ',' or ']' in an array, found " + describe_byte(peek_byte()));
            ++pos_;
        }
        ++pos_;  // ']'
        return Value(std::move(items));
    }

    Expected<Value> object(std::size_t depth) {
        if (depth > kMaxDepth) return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
        ++pos_;  // '{'
        Object members;
        skip_whitespace();
        if (!at_end() && text_[pos_] == '}') {
            ++pos_;
            return Value(std::move(members));
        }
        for (;;) {
            skip_whitespace();
            if (at_end()) return fail_at_end("");
            // This also refuses a trailing comma ("{"a":1,}") and unquoted or single-quoted keys.
            if (text_[pos_] != '"') return fail("expected a string key, found " + describe_byte(peek_byte()));
            auto key = string();
            if (!key) return key.error();
            skip_whitespace();
            if (at_end()) return fail_at_end("");
            if (text_[pos_] != ':') return fail("expected ':' after a key, found " + describe_byte(peek_byte()));
            ++pos_;
            skip_whitespace();
            auto v = value(depth);
            if (!v) return v;
            members.emplace_back(std::move(*key), std::move(*v));
            skip_whitespace();
            if (at_end()) return fail_at_end("");
            if (text_[pos_] == '}') break;
            if (text_[pos_] != ',') return fail("expected ',' or '}' in an object, found " + describe_byte(peek_byte()));
            ++pos_;
        }
        ++pos_;  // '}'
        return Value(std::move(members));
    }

    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, kept as text.
    Expected<Value> number() {
        const std::size_t start = pos_;
        if (text_[pos_] == '-') ++pos_;
        if (at_end() || !is_digit(text_[pos_])) return fail_at_end("a '-' must be followed by a digit");
        if (text_[pos_] == '0') {
            ++pos_;
            if (!at_end() && is_digit(text_[pos_])) return fail("a number may not have a leading zero");
        } else {
            skip_digits();
        }
        if (!at_end() && text_[pos_] == '.') {
            ++pos_;
            if (at_end() || !is_digit(text_[pos_])) return fail_at_end("a '.' must be followed by a digit");
            skip_digits();
        }
        if (!at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (!at_end() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            if (at_end() || !is_digit(text_[pos_])) return fail_at_end("an exponent needs a digit");
            skip_digits();
        }
        return Value(Number{std::string(text_.substr(start, pos_ - start))});
    }

    void skip_digits() {
        while (!at_end() && is_digit(text_[pos_])) ++pos_;
    }

    Expected<std::string> string() {
        ++pos_;  // '"'
        std::string out;
        for (;;) {
            if (at_end()) return fail_at_end("");
            const unsigned char c = peek_byte();
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (c < 0x20) return fail("a control character (" + describe_byte(c) + ") must be escaped in a string");
            if (c == '\\') {
                if (auto e = escape(out); !e) return e.error();
            } else if (c < 0x80) {
                out += static_cast<char>(c);
                ++pos_;
            } else if (auto u = utf8_sequence(out); !u) {
                return u.error();
            }
        }
    }

    // One escape sequence after a backslash, appended to `out` as UTF-8.
    Expected<Ok> escape(std::string& out) {
        ++pos_;  // '\\'
        if (at_end()) return fail_at_end("");
        const char c = text_[pos_];
        ++pos_;
        switch (c) {
            case '"': out += '"'; return Ok{};
            case '\\': out += '\\'; return Ok{};
            case '/': out += '/'; return Ok{};
            case 'b': out += '\b'; return Ok{};
            case 'f': out += '\f'; return Ok{};
            case 'n': out += '\n'; return Ok{};
            case 'r': out += '\r'; return Ok{};
            case 't': out += '\t'; return Ok{};
            case 'u': return unicode_escape(out);
            default: break;
        }
        --pos_;
        return fail("invalid escape \\" + describe_byte(static_cast<unsigned char>(c)));
    }

    // After "\u": four hex digits; a UTF-16 surrogate must come as a high-low pair, because a
    // lone one is not a character and has no UTF-8 form.
    Expected<Ok> unicode_escape(std::string& out) {
        auto first = hex4();
        if (!first) return first.error();
        std::uint32_t cp = *first;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("a low surrogate \\u escape without a high one before it");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u") return fail("a high surrogate \\u escape without a low one after it");
            pos_ += 2;
            auto second = hex4();
            if (!second) return second.error();
            if (*second < 0xDC00 || *second > 0xDFFF)
                return fail("a high surrogate \\u escape without a low one after it");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (*second - 0xDC00);
        }
        append_utf8(out, cp);
        return Ok{};
    }

    Expected<std::uint32_t> hex4() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            if (at_end()) return fail_at_end("");
            const char c = text_[pos_];
            std::uint32_t d = 0;
            if (is_digit(c)) d = static_cast<std::uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f') d = static_cast<std::uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = static_cast<std::uint32_t>(c - 'A' + 10);
            else return fail("\\u needs four hex digits, found " + describe_byte(static_cast<unsigned char>(c)));
            v = v * 16 + d;
            ++pos_;
        }
        return v;
    }

    // A raw non-ASCII character: must be well-formed UTF-8 (RFC 8259 section 8.1), so no
    // overlong forms, no encoded surrogates, nothing above U+10FFFF.
    Expected<Ok> utf8_sequence(std::string& out) {
        const unsigned char lead = peek_byte();
        std::size_t len = 0;
        std::uint32_t cp = 0;
        std::uint32_t min = 0;
        if (lead >= 0xC2 && lead <= 0xDF) { len = 2; cp = lead & 0x1Fu; min = 0x80; }
        else if (lead >= 0xE0 && lead <= 0xEF) { len = 3; cp = lead & 0x0Fu; min = 0x800; }
        else if (lead >= 0xF0 && lead <= 0xF4) { len = 4; cp = lead & 0x07u; min = 0x10000; }
        else return fail("invalid UTF-8 (" + describe_byte(lead) + ")");
        if (text_.size() - pos_ < len) return fail("truncated UTF-8 sequence");
        for (std::size_t i = 1; i < len; ++i) {
            const auto b = static_cast<unsigned char>(text_[pos_ + i]);
            if ((b & 0xC0u) != 0x80u) return fail("invalid UTF-8 continuation (" + describe_byte(b) + ")");
            cp = (cp << 6) | (b & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return fail("invalid UTF-8 (not a character)");
        out.append(text_.substr(pos_, len));
        pos_ += len;
        return Ok{};
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace

Expected<Value> parse(std::string_view text) {
    if (text.size() > kMaxText)
        return Error{"invalid JSON: " + std::to_string(text.size()) + " bytes is more than the limit of " +
                     std::to_string(kMaxText)};
    return Parser(text).document();
}

}  // namespace wiredcap::json
