#include "json_stream.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace wiredcap::fit {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string size_text(std::uint64_t bytes) {
    return bytes % (1u << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                   : std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

JsonStream::JsonStream(ByteReader& in, std::uint64_t length, JsonLimits limits)
    : in_(in), left_(length), lim_(limits) {
    ended_ = !fill() || !admit(buf_[pos_]);
}

// Moves to the next character the parser sees, passing over the rest of a long string and the
// rest of a run of whitespace.
void JsonStream::advance() {
    if (ended_) return;
    for (;;) {
        if (!next_byte()) {
            ended_ = true;
            return;
        }
        if (cutting_ && !escaped_ && hex_left_ == 0) skip_plain();
        if (pos_ == filled_) continue;  // the chunk held nothing else: the next one
        const char c = buf_[pos_];
        if (cutting_) {
            if (!passed_over(c)) {
                ended_ = true;
                return;
            }
            if (cutting_) continue;  // else c is the closing quote, which the parser sees
        } else if (!in_string_ && after_space_ && is_space(c)) {
            continue;
        }
        ended_ = !admit(c);
        return;
    }
}

bool JsonStream::next_byte() {
    if (++pos_ < filled_) return true;
    return fill();
}

// Inside a cut string, over the plain characters (neither quote, backslash nor control) in the
// chunk: a tight loop, as the rest of a 100 MB string is most of such a header.
void JsonStream::skip_plain() {
    while (pos_ < filled_) {
        const auto u = static_cast<unsigned char>(buf_[pos_]);
        if (u == '"' || u == '\\' || u < 0x20) return;
        ++pos_;
    }
}

// The next chunk into buf_; false at the end of the text or when the file fails to read.
bool JsonStream::fill() {
    if (left_ == 0) return false;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left_, buf_.size()));
    if (!in_.read(buf_.data(), n)) return refuse("the text could not be read whole");
    left_ -= n;
    pos_ = 0;
    filled_ = n;
    return true;
}

// A character of a long string the parser does not see: its escapes and control characters
// checked as the parser would; the closing quote ends the cut.
bool JsonStream::passed_over(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (hex_left_ > 0) {
        --hex_left_;
        if (std::isxdigit(u) == 0) return refuse("a string has an invalid \\u escape");
    } else if (escaped_) {
        escaped_ = false;
        if (c == 'u') hex_left_ = 4;
        else if (std::strchr("\"\\/bfnrt", c) == nullptr || c == '\0')
            return refuse("a string has an invalid escape");
    } else if (c == '\\') {
        escaped_ = true;
    } else if (c == '"') {
        cutting_ = false;
    } else if (u < 0x20) {
        return refuse("a string holds a control character");
    }
    return true;
}

// Whether the parser may see `c`: the lexical state after it stays within the limits.
bool JsonStream::admit(char c) {
    if (++parsed_ > lim_.max_parsed)
        return refuse("its text, long strings and whitespace aside, is over " +
                      size_text(lim_.max_parsed));
    after_space_ = false;
    if (in_string_) {
        if (hex_left_ > 0) --hex_left_;
        else if (escaped_) {
            escaped_ = false;
            hex_left_ = c == 'u' ? 4 : 0;
        } else if (c == '\\') escaped_ = true;
        else if (c == '"') in_string_ = false;
        // Cut only where the parser can take a closing quote next: not inside an escape, not
        // inside a UTF-8 sequence.
        if (in_string_ && ++token_ >= lim_.max_string && !escaped_ && hex_left_ == 0 &&
            static_cast<unsigned char>(c) < 0x80)
            cutting_ = true;
        return true;
    }
    if (is_space(c) || c == ',' || c == ':' || c == '}' || c == ']') {
        if ((c == '}' || c == ']') && depth_ > 0) --depth_;
        after_space_ = is_space(c);
        token_ = 0;
        return true;
    }
    const bool starts = token_ == 0;
    if (starts && ++values_ > lim_.max_values)
        return refuse("it holds more than " + std::to_string(lim_.max_values) + " values");
    if (c == '"') {
        in_string_ = true;
        token_ = 1;
    } else if (c == '{' || c == '[') {
        if (++depth_ > lim_.max_nesting)
            return refuse("it nests deeper than " + std::to_string(lim_.max_nesting) + " levels");
        token_ = 0;
    } else if (++token_ > lim_.max_token) {
        return refuse("it holds a number longer than " + size_text(lim_.max_token));
    }
    return true;
}

bool JsonStream::refuse(std::string why) {
    if (!refusal_) refusal_ = std::move(why);
    return false;
}

}  // namespace wiredcap::fit
