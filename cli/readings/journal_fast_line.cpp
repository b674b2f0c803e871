#include "wiredcap/cli/readings/journal_fast_line.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>

#include "wiredcap/cli/readings/json_value.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace wiredcap::journal_view {
namespace {

struct Cursor {
    std::string_view s;
    std::size_t i = 0;
    bool take(char c) {
        if (i >= s.size() || s[i] != c) return false;
        ++i;
        return true;
    }
    bool take(std::string_view word) {
        if (s.substr(i, word.size()) != word) return false;
        i += word.size();
        return true;
    }
};

// Whether a plain string may hold the byte: printable ASCII (DEL too), neither '"' nor '\\'.
bool plain_char(char ch) {
    const auto u = static_cast<unsigned char>(ch);
    return u >= 0x20 && u < 0x80 && u != '"' && u != '\\';
}

// The first byte from p on that a plain string cannot hold (its closing '"', a backslash, a
// control character, a byte outside ASCII), or end. A journal line is mostly strings, and this
// was most of the reading's instructions (callgrind), so it looks at many bytes at a time.
// SSE2 (every x86-64): sixteen bytes, and as signed bytes those outside ASCII are negative, so one
// compare below 0x20 finds them and the control characters both.
// Elsewhere eight bytes in a word: a byte of w ^ 0x22.. is zero where w has a quote, and
// (x - 0x01..) & ~x & 0x80.. marks the lowest zero byte of x exactly (a borrow can only mark bytes
// above it); (w - 0x20..) & ~w marks the lowest byte below 0x20 the same way, and w itself the
// bytes outside ASCII. On a little-endian machine the lowest byte comes first.
// Inline at every string: GCC called it out of line for two of the helper's five strings
// (callgrind, status on a 1.5 MiB journal: 13.39 -> 13.24 million instructions once inline).
[[gnu::always_inline]] inline const char* find_string_end(const char* p, const char* end) {
#if defined(__SSE2__)
    const __m128i quotes = _mm_set1_epi8('"'), backslashes = _mm_set1_epi8('\\'),
                  spaces = _mm_set1_epi8(0x20);
    for (; end - p >= 16; p += 16) {
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i odd =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, quotes), _mm_cmpeq_epi8(b, backslashes)),
                         _mm_cmplt_epi8(b, spaces));
        if (const auto found = static_cast<unsigned>(_mm_movemask_epi8(odd)); found != 0)
            return p + std::countr_zero(found);
    }
#endif
    if constexpr (std::endian::native == std::endian::little) {
        constexpr std::uint64_t kOnes = 0x0101010101010101, kHighs = 0x8080808080808080;
        for (; end - p >= 8; p += 8) {
            std::uint64_t w = 0;
            std::memcpy(&w, p, sizeof w);
            const std::uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
            const std::uint64_t marks = ((quote - kOnes) & ~quote) |
                                        ((backslash - kOnes) & ~backslash) |
                                        ((w - kOnes * 0x20) & ~w) | w;
            if (const std::uint64_t found = marks & kHighs; found != 0)
                return p + (std::countr_zero(found) >> 3);
        }
    }
    while (p != end && plain_char(*p)) ++p;
    return p;
}

// "..." with no escape, no control character and nothing outside ASCII. Outside the strings, the
// reading takes only punctuation, digits and true/false/null: a line with any other byte is not
// in the plain form.
[[gnu::always_inline]] inline std::optional<std::string_view> plain_string(Cursor& c) {
    if (!c.take('"')) return std::nullopt;
    const char* const start = c.s.data() + c.i;
    const char* const end = c.s.data() + c.s.size();
    const char* const p = find_string_end(start, end);
    if (p == end || *p != '"') return std::nullopt;
    c.i = static_cast<std::size_t>(p - c.s.data()) + 1;
    return std::string_view(start, static_cast<std::size_t>(p - start));
}

// Digits only, no leading zero, at most 19 of them (always fits 64 bits). (Past 19 digits n
// wraps, harmlessly: the count is refused.) What may follow is the caller's to check.
[[gnu::always_inline]] inline std::optional<std::uint64_t> plain_digits(Cursor& c) {
    const char* const start = c.s.data() + c.i;
    const char* const end = c.s.data() + c.s.size();
    const char* p = start;
    std::uint64_t n = 0;
    for (unsigned d = 0;
         p != end && (d = unsigned{static_cast<unsigned char>(*p)} - unsigned{'0'}) < 10; ++p)
        n = n * 10 + d;
    const auto digits = p - start;
    if (digits == 0 || digits > 19 || (digits > 1 && *start == '0')) return std::nullopt;
    c.i = static_cast<std::size_t>(p - c.s.data());
    return n;
}

// The same, not followed by a fraction or an exponent.
[[gnu::always_inline]] inline std::optional<std::uint64_t> plain_count(Cursor& c) {
    auto n = plain_digits(c);
    if (n && c.i != c.s.size() && (c.s[c.i] == '.' || c.s[c.i] == 'e' || c.s[c.i] == 'E'))
        return std::nullopt;
    return n;
}

// true or false.
bool take_bool(Cursor& c, bool& b) {
    if (c.take("true")) b = true;
    else if (c.take("false")) b = false;
    else return false;
    return true;
}

// A value of a key the entry does not use: skipped, if it is one of the plain kinds.
bool skip_plain_value(Cursor& c) {
    if (c.i < c.s.size() && c.s[c.i] == '"') return plain_string(c).has_value();
    if (c.take("true") || c.take("false") || c.take("null")) return true;
    return plain_count(c).has_value();
}

enum Field : unsigned {
    v,
    time,
    boot,
    uid,
    command,
    event,
    run,
    step,
    from,
    to,
    readback,
    effective,
    effective_source,
    reason,
    by,
    to_pages,
    page_size,
    ignore_ceiling,
    other
};

// By length first: a key is compared with at most three names (this runs for every key of every
// line of the journal).
Field field_of(std::string_view key) {
    auto is = [&](const auto& name, Field f) { return is_word(key, name) ? f : other; };
    switch (key.size()) {
        case 1: return is("v", v);
        case 2: return is("by", by);
        case 3: return is_word(key, "uid") ? uid : is("run", run);
        case 4: return is_word(key, "time") ? time : is_word(key, "boot") ? boot : is("step", step);
        case 5: return is("event", event);
        case 6: return is_word(key, "to_mib") ? to : is("reason", reason);
        case 7: return is("command", command);
        case 8: return is_word(key, "from_mib") ? from : is("to_pages", to_pages);
        case 9: return is("page_size", page_size);
        case 12: return is("readback_mib", readback);
        case 13: return is("effective_mib", effective);
        case 16: return is("effective_source", effective_source);
        case 19: return is("ignore_hang_ceiling", ignore_ceiling);
        default: return other;
    }
}

std::string_view* string_field(EntryView& e, Field f) {
    switch (f) {
        case time: return &e.time;
        case boot: return &e.boot;
        case command: return &e.command;
        case event: return &e.event;
        case effective_source: return &e.effective_source;
        case reason: return &e.reason;
        case by: return &e.by;
        default: return nullptr;
    }
}

std::optional<units::MiB>* size_field(EntryView& e, Field f) {
    switch (f) {
        case from: return &e.from;
        case to: return &e.to;
        case readback: return &e.readback;
        case effective: return &e.effective;
        default: return nullptr;
    }
}

// One "key":value of the entry's; false when it is not in the plain form.
bool read_field(Cursor& c, Field f, EntryView& e) {
    if (f == other) return skip_plain_value(c);
    if (f == ignore_ceiling) return take_bool(c, e.ignore_hang_ceiling);
    if (std::string_view* s = string_field(e, f)) {
        auto text = plain_string(c);
        if (text) *s = *text;
        return text.has_value();
    }
    if (f == run) {
        auto text = plain_string(c);
        if (text) e.run = *text;
        return text.has_value();
    }
    auto n = plain_count(c);
    if (!n) return false;
    if (auto* size = size_field(e, f)) {
        auto mib = units::MiB::from_count(*n);
        if (!mib) return false;
        *size = *mib;
    } else if (f == v) {
        e.v = *n == 1 ? 1 : 0;
        return *n == 1;
    } else if (f == uid) {
        e.uid = *n;
    } else if (f == to_pages) {
        e.to_pages = *n;
    } else if (f == page_size) {
        e.page_size = *n;
    } else {
        e.step = *n;
    }
    return true;
}

// The optional fields as a new record has them.
void clear_optional(EntryView& e) {
    e.effective_source = {};
    e.ignore_hang_ceiling = false;
    e.reason = {};
    e.by = {};
    e.run.reset();
    e.step.reset();
    e.to_pages.reset();
    e.page_size.reset();
    e.from.reset();
    e.to.reset();
    e.readback.reset();
    e.effective.reset();
}

// Every field as a new record has it.
void clear(EntryView& e) {
    e.v = 0;
    e.uid = 0;
    e.time = e.boot = e.command = e.event = {};
    clear_optional(e);
}

// Whether p holds the N - 1 bytes of word: a constant size, so compared a word at a time (the
// last word overlapping the one before), inline (a call to memcmp per key was a tenth of the
// reading, callgrind).
template <std::size_t N>
[[gnu::always_inline]] inline bool same_bytes(const char* p, const char (&word)[N]) {
    constexpr std::size_t n = N - 1;
    auto equal = [&](std::size_t at, auto width) {
        decltype(width) a{}, b{};
        std::memcpy(&a, p + at, sizeof a);
        std::memcpy(&b, word + at, sizeof b);
        return a == b;
    };
    if constexpr (n >= 8) {
        for (std::size_t at = 0; at + 8 <= n; at += 8)
            if (!equal(at, std::uint64_t{})) return false;
        return n % 8 == 0 || equal(n - 8, std::uint64_t{});
    } else if constexpr (n >= 4) {
        return equal(0, std::uint32_t{}) && equal(n - 4, std::uint32_t{});
    } else {
        return std::memcmp(p, word, n) == 0;
    }
}

// A literal the line must have at the cursor.
template <std::size_t N>
[[gnu::always_inline]] inline bool take_literal(Cursor& c, const char (&word)[N]) {
    if (c.s.size() - c.i < N - 1 || !same_bytes(c.s.data() + c.i, word)) return false;
    c.i += N - 1;
    return true;
}

// A view into the line: nothing copied (a string per field, copied into an Entry line after line,
// was a sixth of status's instructions on a 1.5 MiB journal: callgrind).
[[gnu::always_inline]] inline bool take_string(Cursor& c, std::string_view& out) {
    auto text = plain_string(c);
    if (text) out = *text;
    return text.has_value();
}

// A count in the helper's order needs no look at the byte after its digits: every key after it
// starts with ',' and the line ends with '}', so a fraction or an exponent ('.', 'e', 'E') leaves
// the line unread there (in_helper_order fails, and in_any_order, which checks, refuses it too).
template <class T>
[[gnu::always_inline]] inline bool take_count(Cursor& c, T& out) {
    auto n = plain_digits(c);
    if (n) out = *n;
    return n.has_value();
}

[[gnu::always_inline]] inline bool take_mib(Cursor& c, std::optional<units::MiB>& out) {
    auto n = plain_digits(c);
    auto mib = n ? units::MiB::from_count(*n) : std::nullopt;
    if (mib) out = *mib;
    return mib.has_value();
}

bool take_run(Cursor& c, std::optional<std::string_view>& run) {
    auto text = plain_string(c);
    if (text) run = *text;
    return text.has_value();
}

// Whether another "key": follows: every optional key's literal starts with the comma. Where none
// does, the rest of the literals cannot match, and are not compared (most lines have a few of the
// seventeen).
[[gnu::always_inline]] inline bool more(const Cursor& c) {
    return c.i < c.s.size() && c.s[c.i] == ',';
}

// The optional keys in the helper's order, each at most once; true when each one present has a
// plain value of its type. What is left (the closing brace, or a key out of order) is the
// caller's.
bool optional_fields_in_helper_order(Cursor& c, EntryView& e) {
    if (!more(c)) return true;
    if (take_literal(c, R"(,"run":)") && !take_run(c, e.run)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"step":)") && !take_count(c, e.step)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"from_mib":)") && !take_mib(c, e.from)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"to_mib":)") && !take_mib(c, e.to)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"readback_mib":)") && !take_mib(c, e.readback)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"reason":)") && !take_string(c, e.reason)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"effective_mib":)") && !take_mib(c, e.effective)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"effective_source":)") && !take_string(c, e.effective_source))
        return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"ignore_hang_ceiling":)") && !take_bool(c, e.ignore_hang_ceiling))
        return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"by":)") && !take_string(c, e.by)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"vouched":)") && !skip_plain_value(c)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"effective_said":)") && !skip_plain_value(c)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"param":)") && !skip_plain_value(c)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"to_pages":)") && !take_count(c, e.to_pages)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"readback_pages":)") && !skip_plain_value(c)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"page_size":)") && !take_count(c, e.page_size)) return false;
    if (!more(c)) return true;
    if (take_literal(c, R"(,"place":)") && !skip_plain_value(c)) return false;
    return true;
}

// The helper writes the keys in one order (to_json_line, helper/journal/journal.cpp): the
// mandatory six, then each optional one at most once. This reading expects exactly that and
// compares each key, with its quotes, colon and comma, as one literal; anything else (another
// order, a key twice, another key, "v" other than 1) is not in that form and goes to
// in_any_order, which reads any order and refuses a key twice. Every value is read by the same
// functions in both, so where this one reads a line, it reads what in_any_order reads.
//
// Where the record's closing brace ends, or nullopt; what follows it is the caller's. Nothing it
// takes is a newline (no literal holds one, and a plain string refuses control characters), so
// read from the start of a longer text, it reads the line up to the first newline exactly as it
// reads that line alone.
std::optional<std::size_t> helper_order_end(std::string_view text, std::size_t number,
                                            EntryView& e) {
    // The mandatory fields are all set below before the line is taken.
    clear_optional(e);
    e.line = number;
    Cursor c{text};
    if (!take_literal(c, R"({"v":1,"time":)") || !take_string(c, e.time)) return std::nullopt;
    e.v = 1;
    if (!take_literal(c, R"(,"boot":)") || !take_string(c, e.boot)) return std::nullopt;
    if (!take_literal(c, R"(,"uid":)") || !take_count(c, e.uid)) return std::nullopt;
    if (!take_literal(c, R"(,"command":)") || !take_string(c, e.command)) return std::nullopt;
    if (!take_literal(c, R"(,"event":)") || !take_string(c, e.event)) return std::nullopt;
    // Each optional key, when it is next, must have a plain value of its type.
    if (!optional_fields_in_helper_order(c, e) || !take_literal(c, "}")) return std::nullopt;
    return c.i;
}

}  // namespace

namespace plain_reading {

bool in_helper_order(std::string_view line, std::size_t number, EntryView& e) {
    if (line.size() > json::kMaxText) return false;  // the full parser's limit: it skips the line
    const auto end = helper_order_end(line, number, e);
    return end && *end == line.size();
}

bool in_any_order(std::string_view line, std::size_t number, EntryView& e) {
    if (line.size() > json::kMaxText) return false;  // the full parser's limit: it skips the line
    clear(e);
    e.line = number;
    Cursor c{line};
    unsigned seen = 0;
    // The keys the entry does not use, as they come: the full parser refuses any key twice, these
    // too. More of them than the helper ever writes (six): left to it.
    std::array<std::string_view, 8> unused;
    std::size_t unused_count = 0;
    if (!c.take('{')) return false;
    do {
        auto key = plain_string(c);
        if (!key || !c.take(':')) return false;
        const Field f = field_of(*key);
        if (f != other) {
            if ((seen & (1u << f)) != 0) return false;  // a key twice: the full parser's call
            seen |= 1u << f;
        } else {
            const auto before = unused.begin() + static_cast<std::ptrdiff_t>(unused_count);
            if (unused_count == unused.size() || std::find(unused.begin(), before, *key) != before)
                return false;
            unused[unused_count++] = *key;
        }
        if (!read_field(c, f, e)) return false;
    } while (c.take(','));
    if (!c.take('}') || c.i != line.size()) return false;
    constexpr unsigned kRequired =
        (1u << v) | (1u << time) | (1u << boot) | (1u << uid) | (1u << command) | (1u << event);
    return (seen & kRequired) == kRequired;
}

}  // namespace plain_reading

bool read_plain_record(std::string_view line, std::size_t number, EntryView& e) {
    return plain_reading::in_helper_order(line, number, e) ||
           plain_reading::in_any_order(line, number, e);
}

std::size_t read_helper_line(std::string_view text, std::size_t number, EntryView& e) {
    const auto end = helper_order_end(text, number, e);
    // The full parser's limit, as in_helper_order: a text read whole may hold longer lines.
    if (!end || *end >= text.size() || text[*end] != '\n' || *end > json::kMaxText) return 0;
    return *end;
}

std::optional<Entry> read_plain_record(std::string_view line, std::size_t number) {
    EntryView e;
    if (!read_plain_record(line, number, e)) return std::nullopt;
    return to_entry(e);
}

}  // namespace wiredcap::journal_view
