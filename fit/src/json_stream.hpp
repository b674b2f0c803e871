// JSON read from a ByteReader chunk by chunk for nlohmann's SAX parser, never held whole in
// memory, each character checked as it passes, so that a header of any size up to its format's
// limit costs a bounded time and memory (bench/fit_hostile.sh):
//   - objects and arrays nest no deeper than a limit;
//   - a budget of values (strings, numbers, literals, objects and arrays) for the whole text;
//   - no number or literal longer than a limit (the parser buffers each token whole);
//   - a string longer than `max_string` reaches the parser cut to about that length, the rest
//     only scanned here (its escapes and control characters checked, not its UTF-8): fit keeps
//     no string that long, and the parser's lexer costs ten times this scan;
//   - a run of whitespace reaches the parser as one character;
//   - a budget of bytes the parser sees (its lexer is the cost: about 60 MB/s on a string).
// A limit crossed ends the input there, and says why.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "wiredcap/fit/byte_reader.hpp"

namespace wiredcap::fit {

// No number or literal in fit's JSON files is near this long; strings longer than this reach the
// parser cut (fit keeps none that long: a tensor name, a dtype, a shard's file name, a
// metadata value of at most 4 KiB).
inline constexpr std::uint64_t kMaxJsonNumber = 1024;
inline constexpr std::uint64_t kMaxJsonString = 8u << 10;

struct JsonLimits {
    std::size_t max_nesting;
    std::uint64_t max_values;
    std::uint64_t max_token;   // bytes of one number or literal
    std::uint64_t max_string;  // bytes of a string the parser sees; the rest is scanned here
    std::uint64_t max_parsed;  // bytes the parser sees in all
};

class JsonStream {
public:
    // The next `length` bytes of `in` (which the stream advances) are the JSON text.
    JsonStream(ByteReader& in, std::uint64_t length, JsonLimits limits);
    JsonStream(const JsonStream&) = delete;
    JsonStream& operator=(const JsonStream&) = delete;

    // An input iterator over the checked characters, the form nlohmann's sax_parse takes.
    class Iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;
        Iterator() = default;
        explicit Iterator(JsonStream* s) : s_(s) {}
        reference operator*() const { return s_->current(); }
        Iterator& operator++() {
            s_->advance();
            return *this;
        }
        bool operator==(const Iterator& o) const { return ended() == o.ended(); }

    private:
        [[nodiscard]] bool ended() const { return s_ == nullptr || s_->ended(); }
        JsonStream* s_ = nullptr;
    };

    Iterator begin() { return Iterator(this); }
    static Iterator end() { return Iterator(); }
    // Why the input ended early (a limit, or the file failing to read); nullopt if it did not.
    [[nodiscard]] const std::optional<std::string>& refusal() const { return refusal_; }

private:
    [[nodiscard]] const char& current() const { return buf_[pos_]; }
    [[nodiscard]] bool ended() const { return ended_; }
    void advance();
    bool next_byte();
    void skip_plain();
    bool fill();
    bool passed_over(char c);
    bool admit(char c);
    bool refuse(std::string why);

    ByteReader& in_;
    std::uint64_t left_;  // bytes of the text not yet in buf_
    JsonLimits lim_;
    std::array<char, 64 * 1024> buf_{};
    std::size_t pos_ = 0;
    std::size_t filled_ = 0;
    bool ended_ = false;
    std::optional<std::string> refusal_;
    // The lexical state, as far as the limits need it.
    bool in_string_ = false;
    bool escaped_ = false;      // the character before was a backslash
    int hex_left_ = 0;          // hex digits of a \u escape still to come
    bool cutting_ = false;      // inside a long string, past what the parser sees
    bool after_space_ = false;  // the character the parser saw last was whitespace
    std::size_t depth_ = 0;
    std::uint64_t values_ = 0;
    std::uint64_t parsed_ = 0;
    std::uint64_t token_ = 0;
};

}  // namespace wiredcap::fit
