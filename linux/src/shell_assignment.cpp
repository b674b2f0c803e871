#include "wiredcap/linux/shell_assignment.hpp"

#include <sstream>
#include <vector>

namespace wiredcap::linux_amd {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
    std::vector<std::string> out;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

bool is_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// key as a whole shell name on a line that is not a comment (GRUB_CMDLINE_LINUX is not named by
// GRUB_CMDLINE_LINUX_DEFAULT=).
bool names(const std::string& line, std::string_view key) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') return false;
    for (auto at = line.find(key); at != std::string::npos; at = line.find(key, at + 1)) {
        const auto end = at + key.size();
        if ((at == 0 || !is_name_char(line[at - 1])) &&
            (end == line.size() || !is_name_char(line[end])))
            return true;
    }
    return false;
}

// Characters whose meaning a rewrite in other quotes could change: expansions and escapes.
bool plain(std::string_view value, char quote) {
    const std::string_view special = quote == '\'' ? "$`\\\"" : quote == '"' ? "$`\\" : "$`\\\"'";
    return value.find_first_of(special) == std::string_view::npos;
}

Expected<ShellAssignment> parse_line(const std::string& line, std::size_t n, std::string_view key) {
    const auto bad = [&](const std::string& why) {
        return Error{"line " + std::to_string(n + 1) + " sets " + std::string(key) + " " + why +
                     ": wiredcap edits only a plain KEY=\"words\" line"};
    };
    ShellAssignment a;
    a.line = n;
    const auto first = line.find_first_not_of(" \t");
    const std::string want = std::string(key) + "=";
    if (line.compare(first, want.size(), want) != 0) return bad("in a form wiredcap does not edit");
    a.head = line.substr(0, first + want.size());
    std::string rest = line.substr(a.head.size());
    std::size_t end = 0;
    if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
        a.quote = rest.front();
        end = rest.find(a.quote, 1);
        if (end == std::string::npos) return bad("with an unclosed quote");
        a.value = rest.substr(1, end - 1);
        ++end;
    } else {
        end = rest.find_first_of(" \t#");
        if (end == std::string::npos) end = rest.size();
        a.value = rest.substr(0, end);
    }
    a.tail = rest.substr(end);
    const auto after = a.tail.find_first_not_of(" \t\r");
    if (after != std::string::npos && a.tail[after] != '#') return bad("with more after the value");
    if (!plain(a.value, a.quote)) return bad("with a shell expansion or escape");
    return a;
}

}  // namespace

bool mentions(std::string_view text, std::string_view key) {
    for (const auto& line : lines_of(text))
        if (names(line, key)) return true;
    return false;
}

Expected<std::optional<ShellAssignment>> find_assignment(std::string_view text,
                                                         std::string_view key) {
    std::optional<ShellAssignment> found;
    const auto lines = lines_of(text);
    for (std::size_t n = 0; n < lines.size(); ++n) {
        // Any mention counts (`export KEY=`, `KEY+=`, `$KEY`): each would change what a rewrite means.
        if (!names(lines[n], key)) continue;
        if (found)
            return Error{std::string(key) + " is set on lines " + std::to_string(found->line + 1) +
                         " and " + std::to_string(n + 1) +
                         ": wiredcap edits only a single assignment"};
        auto a = parse_line(lines[n], n, key);
        if (!a) return a.error();
        found = *a;
    }
    return found;
}

std::string with_assignment(std::string_view text, std::string_view key,
                            const std::optional<ShellAssignment>& found, std::string_view value) {
    const auto lines = lines_of(text);
    std::string out;
    for (std::size_t n = 0; n < lines.size(); ++n) {
        if (found && n == found->line) {
            const char q = found->quote ? found->quote : '"';  // words with blanks need quotes
            out += found->head + q + std::string(value) + q + found->tail + "\n";
        } else {
            out += lines[n] + "\n";
        }
    }
    if (!found) out += std::string(key) + "=\"" + std::string(value) + "\"\n";
    return out;
}

}  // namespace wiredcap::linux_amd
