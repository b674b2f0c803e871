#include "wiredcap/ramp/typed_answer.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "wiredcap/cli/output/wrapping_buf.hpp"

namespace wiredcap::cli {
namespace {

// Spaces around a word do not change it. Case does: "Yes" is asked again, as at a ramp's step.
std::string normalized(std::string_view line) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())) != 0)
        line.remove_prefix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())) != 0)
        line.remove_suffix(1);
    return std::string(line);
}

// What the person typed, quoted back to them; a long line is cut.
std::string quoted(const std::string& word) {
    return "\"" + (word.size() > 20 ? word.substr(0, 20) + "..." : word) + "\"";
}

}  // namespace

std::optional<std::string> ask_word(std::istream& in, std::ostream& say, bool say_is_terminal,
                                    const Question& q) {
    for (;;) {
        say << q.text << std::flush;
        std::string line;
        const bool read = static_cast<bool>(std::getline(in, line));
        // Ctrl-D is not echoed as a newline, and a pipe never sees the terminal's echo.
        if (!read || !say_is_terminal) say << "\n";
        else line_ended_by_input(say);
        if (!read) return std::nullopt;
        const std::string word = normalized(line);
        const auto it = std::find_if(q.words.begin(), q.words.end(),
                                     [&](const Word& w) { return w.typed == word; });
        if (it != q.words.end() && !it->meaning.empty()) return it->meaning;
        if (it != q.words.end())
            say << "  " << quoted(word) << " is not taken as an answer here: " << q.in_full << "\n";
        else if (word.empty()) say << "  " << q.again << "\n";
        else say << "  " << quoted(word) << " is not an answer here: " << q.again << "\n";
    }
}

Question yes_or_no(std::string text, std::optional<std::string> full_yes_because) {
    Question q{std::move(text), {{"yes", "yes"}, {"no", "no"}, {"n", "no"}}, "type yes or no.", ""};
    if (full_yes_because) {
        q.words.push_back({"y", ""});
        q.again = "type yes (in full) or no.";
        q.in_full = *full_yes_because + ", so type yes in full, or no.";
    } else {
        q.words.push_back({"y", "yes"});
    }
    return q;
}

}  // namespace wiredcap::cli
