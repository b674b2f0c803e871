#include "wiredcap/linux/cmdline.hpp"

namespace wiredcap::linux_amd {
namespace {

std::string normalized(std::string_view name) {
    std::string out(name);
    for (char& c : out)
        if (c == '-') c = '_';
    return out;
}

// The parameter name of a word ("ttm.pages_limit" of "ttm.pages_limit=5"), normalised.
std::string word_name(std::string_view word) { return normalized(word.substr(0, word.find('='))); }

std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

}  // namespace

std::vector<std::string> split_cmdline(std::string_view line) {
    std::vector<std::string> words;
    std::string word;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
            if (!word.empty()) words.push_back(word);
            word.clear();
            continue;
        }
        word += c;
    }
    if (!word.empty()) words.push_back(word);
    return words;
}

std::optional<std::string> cmdline_value(std::string_view line, std::string_view name) {
    std::optional<std::string> value;
    const std::string want = normalized(name);
    for (const auto& w : split_cmdline(line)) {
        const auto eq = w.find('=');
        if (eq != std::string::npos && word_name(w) == want) value = w.substr(eq + 1);
    }
    return value;
}

std::string remove_param(std::string_view line, std::string_view name) {
    const std::string want = normalized(name);
    std::vector<std::string> kept;
    for (auto& w : split_cmdline(line))
        if (w.find('=') == std::string::npos || word_name(w) != want) kept.push_back(w);
    return join(kept);
}

std::string set_param(std::string_view line, std::string_view name, std::string_view value) {
    std::string out = remove_param(line, name);
    return out + (out.empty() ? "" : " ") + std::string(name) + "=" + std::string(value);
}

}  // namespace wiredcap::linux_amd
