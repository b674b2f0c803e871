#include "wiredcap/cli/output/text_wrap.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace wiredcap::cli {
namespace {

// A word and the spaces before it, as written (a table's "   [source]" keeps its three).
struct Word {
    std::size_t gap = 0;
    std::string text;
};

// What is never broken (unless wider than a row): one word, or words glued by a rule below.
struct Unit {
    std::size_t gap = 0;
    std::vector<Word> words;
    bool command = false;  // a suggested command: kept whole even when wider than a row

    [[nodiscard]] std::size_t width() const {
        std::size_t w = 0;
        for (std::size_t i = 0; i < words.size(); ++i)
            w += (i == 0 ? 0 : words[i].gap) + display_width(words[i].text);
        return w;
    }
    [[nodiscard]] std::string text() const {
        std::string s;
        for (std::size_t i = 0; i < words.size(); ++i)
            s += std::string(i == 0 ? 0 : words[i].gap, ' ') + words[i].text;
        return s;
    }
};

constexpr std::size_t kShortGroup = 28;  // "(176.00 GiB, 188.97 GB)," and the like, not sentences

std::string_view trim_punct(std::string_view w, std::string_view lead, std::string_view trail) {
    while (!w.empty() && lead.find(w.front()) != std::string_view::npos) w.remove_prefix(1);
    while (!w.empty() && trail.find(w.back()) != std::string_view::npos) w.remove_suffix(1);
    return w;
}

bool is_subcommand(std::string_view w) {
    static constexpr std::array<std::string_view, 9> kSubs = {
        "status", "set", "reset", "ramp", "recover", "persist", "policy", "convert", "fit"};
    return std::find(kSubs.begin(), kSubs.end(), trim_punct(w, "", ".,;)'\"`")) != kSubs.end();
}

// An argument of a suggested command: an option, a size, a placeholder (SIZE) or a path.
bool is_command_argument(std::string_view w) {
    w = trim_punct(w, "", ".,;)'\"`");
    if (w.empty()) return false;
    if (w.starts_with("--") || w.starts_with("/") ||
        std::isdigit(static_cast<unsigned char>(w.front())) != 0)
        return true;
    return w.size() >= 2 && std::all_of(w.begin(), w.end(),
                                        [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; });
}

bool ends_sentence_part(std::string_view w) {
    return !w.empty() && std::string_view(".,;)'\"`").find(w.back()) != std::string_view::npos;
}

// `wiredcap SUBCOMMAND ARG...` starting at words[i]: how many words it has (0: not a command).
// "wiredcap set:" is a message's prefix, not a command.
std::size_t command_length(const std::vector<Word>& words, std::size_t i) {
    if (i + 1 >= words.size() || trim_punct(words[i].text, "'\"`(", "") != "wiredcap") return 0;
    const std::string& sub = words[i + 1].text;
    if (sub.find(':') != std::string::npos || !is_subcommand(sub)) return 0;
    std::size_t j = i + 2;
    if (ends_sentence_part(sub)) return j - i;
    if (trim_punct(sub, "", "") == "policy" && j < words.size() &&
        trim_punct(words[j].text, "", ".,;)'\"`") == "check") {
        if (ends_sentence_part(words[j++].text)) return j - i;
    }
    while (j < words.size() && is_command_argument(words[j].text)) {
        if (ends_sentence_part(words[j++].text)) break;
    }
    return j - i;
}

// A group from an opening to a closing character (brackets, parentheses): its word count, or 0.
std::size_t group_length(const std::vector<Word>& words, std::size_t i, char open, char close,
                         std::size_t max_width) {
    if (words[i].text.front() != open) return 0;
    std::size_t w = 0;
    for (std::size_t j = i; j < words.size(); ++j) {
        w += (j == i ? 0 : words[j].gap) + display_width(words[j].text);
        if (w > max_width) return 0;
        if (words[j].text.find(close) != std::string::npos) return j - i + 1;
        if (j > i && words[j].text.find(open) != std::string::npos)
            return 0;  // nested: the inner one is the group
    }
    return 0;
}

bool is_number(std::string_view w) {
    w = trim_punct(w, "(", "");
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
    });
}

bool is_unit(std::string_view w) {
    static constexpr std::array<std::string_view, 13> kUnits = {
        "B", "kB", "KiB", "MB", "MiB", "GB", "GiB", "TB", "TiB", "s", "min", "%", "tokens"};
    return std::find(kUnits.begin(), kUnits.end(), trim_punct(w, "", ".,;:)'\"")) != kUnits.end();
}

bool has_digit(const std::vector<Word>& words, std::size_t i, std::size_t n) {
    for (std::size_t k = i; k < i + n; ++k)
        if (std::any_of(words[k].text.begin(), words[k].text.end(),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
            return true;
    return false;
}

bool is_footnote_mark(const Unit& u) {
    if (u.words.size() != 1) return false;
    const std::string_view w = u.words[0].text;
    return w.size() >= 3 && w.front() == '[' && w.back() == ']' &&
           std::all_of(w.begin() + 1, w.end() - 1,
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::vector<Word> split_words(std::string_view s) {
    std::vector<Word> words;
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t gap = 0;
        while (i < s.size() && s[i] == ' ') ++gap, ++i;
        const std::size_t start = i;
        while (i < s.size() && s[i] != ' ') ++i;
        if (i > start) words.push_back({gap, std::string(s.substr(start, i - start))});
    }
    return words;
}

std::vector<Unit> glue(const std::vector<Word>& words, std::size_t row_width) {
    std::vector<Unit> units;
    for (std::size_t i = 0; i < words.size();) {
        std::size_t n = command_length(words, i);
        const bool command = n > 0;
        if (n == 0) n = group_length(words, i, '[', ']', row_width);
        if (n == 0) {  // a short group of figures, not a parenthetical remark
            n = group_length(words, i, '(', ')', kShortGroup);
            if (!has_digit(words, i, n)) n = 0;
        }
        if (n == 0 && i + 1 < words.size() && is_number(words[i].text) &&
            is_unit(words[i + 1].text))
            n = 2;
        if (n == 0) n = 1;
        Unit u{words[i].gap,
               std::vector<Word>(words.begin() + static_cast<std::ptrdiff_t>(i),
                                 words.begin() + static_cast<std::ptrdiff_t>(i + n)),
               command};
        // A footnote mark ("[3]") stays with the value it marks, unless that word alone fills
        // a row (a long path).
        if (is_footnote_mark(u) && !units.empty() &&
            units.back().width() + u.gap + u.width() <= row_width) {
            for (auto& w : u.words) units.back().words.push_back(std::move(w));
            i += n;
            continue;
        }
        if (u.width() > row_width && !u.command && n > 1) {
            for (std::size_t k = i; k < i + n; ++k)
                units.push_back({words[k].gap, {words[k]}, false});
        } else {
            units.push_back(std::move(u));
        }
        i += n;
    }
    return units;
}

// Where continuation rows start: under the value of a "label   value" line, else indent + 2.
std::size_t hang_column(std::string_view line, std::size_t indent, std::size_t width) {
    const auto run = line.find("  ", indent);
    if (run != std::string_view::npos && run > indent) {
        const auto value = line.find_first_not_of(' ', run);
        if (value != std::string_view::npos && value <= width / 2) return value;
    }
    return std::min(indent + 2, width / 2);
}

}  // namespace

std::size_t display_width(std::string_view s) {
    return static_cast<std::size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::vector<std::string> wrap_line(std::string_view line, std::size_t width) {
    if (display_width(line) <= width) return {std::string(line)};
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    const std::size_t hang = hang_column(line, indent, width);
    const auto units = glue(split_words(line.substr(indent)), width - std::min(hang, indent + 2));
    std::vector<std::string> rows{std::string(indent, ' ')};
    std::size_t col = indent;
    bool empty = true;  // the current row has no word yet
    for (const auto& u : units) {
        const std::size_t w = u.width();
        if (!empty && col + u.gap + w > width) {
            // A unit too wide for the hang column (a long source) starts at the indent instead.
            const std::size_t at = w <= width - hang ? hang : std::min(hang, indent + 2);
            rows.push_back(std::string(at, ' '));
            col = at;
            empty = true;
        }
        const std::size_t gap = empty ? 0 : u.gap;
        rows.back() += std::string(gap, ' ') + u.text();
        col += gap + w;
        empty = false;
    }
    for (auto& r : rows) r.erase(r.find_last_not_of(' ') + 1);
    return rows;
}

}  // namespace wiredcap::cli
