#include "readings/journal_fast_line.hpp"

#include <cstdint>
#include <string>

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

// "..." with no escape, no control character and nothing outside ASCII.
std::optional<std::string_view> plain_string(Cursor& c) {
    if (!c.take('"')) return std::nullopt;
    const std::size_t start = c.i;
    for (; c.i < c.s.size(); ++c.i) {
        const auto ch = static_cast<unsigned char>(c.s[c.i]);
        if (ch == '"') return c.s.substr(start, c.i++ - start);
        if (ch < 0x20 || ch >= 0x80 || ch == '\\') return std::nullopt;
    }
    return std::nullopt;
}

// Digits only, no leading zero, at most 19 of them (always fits 64 bits), not followed by a
// fraction or an exponent.
std::optional<std::uint64_t> plain_count(Cursor& c) {
    const std::size_t start = c.i;
    std::uint64_t n = 0;
    while (c.i < c.s.size() && c.s[c.i] >= '0' && c.s[c.i] <= '9') {
        if (c.i - start == 19) return std::nullopt;
        n = n * 10 + static_cast<std::uint64_t>(c.s[c.i++] - '0');
    }
    const std::size_t digits = c.i - start;
    if (digits == 0 || (digits > 1 && c.s[start] == '0')) return std::nullopt;
    if (c.i < c.s.size() && (c.s[c.i] == '.' || c.s[c.i] == 'e' || c.s[c.i] == 'E')) return std::nullopt;
    return n;
}

// A value of a key the entry does not use: skipped, if it is one of the plain kinds.
bool skip_plain_value(Cursor& c) {
    if (c.i < c.s.size() && c.s[c.i] == '"') return plain_string(c).has_value();
    if (c.take("true") || c.take("false") || c.take("null")) return true;
    return plain_count(c).has_value();
}

enum Field : unsigned { v, time, boot, uid, command, event, run, step, from, to, readback, effective,
                        effective_source, reason, by, other };

Field field_of(std::string_view key) {
    static constexpr std::pair<std::string_view, Field> kFields[] = {
        {"v", v}, {"time", time}, {"boot", boot}, {"uid", uid}, {"command", command}, {"event", event},
        {"run", run}, {"step", step}, {"from_mib", from}, {"to_mib", to}, {"readback_mib", readback},
        {"effective_mib", effective}, {"effective_source", effective_source}, {"reason", reason}, {"by", by}};
    for (const auto& [name, f] : kFields)
        if (name == key) return f;
    return other;
}

std::string* string_field(Entry& e, Field f) {
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

std::optional<units::MiB>* size_field(Entry& e, Field f) {
    switch (f) {
        case from: return &e.from;
        case to: return &e.to;
        case readback: return &e.readback;
        case effective: return &e.effective;
        default: return nullptr;
    }
}

// One "key":value of the entry's; false when it is not in the plain form.
bool read_field(Cursor& c, Field f, Entry& e) {
    if (f == other) return skip_plain_value(c);
    if (std::string* s = string_field(e, f)) {
        auto text = plain_string(c);
        if (text) *s = std::string(*text);
        return text.has_value();
    }
    if (f == run) {
        auto text = plain_string(c);
        if (text) e.run = std::string(*text);
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
    } else {
        e.step = *n;
    }
    return true;
}

}  // namespace

std::optional<Entry> read_plain_record(std::string_view line, std::size_t number) {
    Cursor c{line};
    Entry e;
    e.line = number;
    unsigned seen = 0;
    if (!c.take('{')) return std::nullopt;
    do {
        auto key = plain_string(c);
        if (!key || !c.take(':')) return std::nullopt;
        const Field f = field_of(*key);
        if (f != other) {
            if ((seen & (1u << f)) != 0) return std::nullopt;  // a key twice: the full parser's call
            seen |= 1u << f;
        }
        if (!read_field(c, f, e)) return std::nullopt;
    } while (c.take(','));
    if (!c.take('}') || c.i != line.size()) return std::nullopt;
    constexpr unsigned kRequired = (1u << v) | (1u << time) | (1u << boot) | (1u << uid) | (1u << command) | (1u << event);
    if ((seen & kRequired) != kRequired) return std::nullopt;
    return e;
}

}  // namespace wiredcap::journal_view
