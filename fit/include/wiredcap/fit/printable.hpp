// A string from a model file, made safe to print: a key, tensor or architecture name can hold
// any bytes, and wiredcap's messages end up on terminals and in logs. Control and non-ASCII
// bytes become \xNN, and the result is cut at `max` characters.
#pragma once

#include <string>
#include <string_view>

namespace wiredcap::fit {

[[nodiscard]] inline std::string printable(std::string_view s, std::size_t max = 64) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (const char ch : s) {
        if (out.size() >= max) return out + "...";
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7f && c != '\\') out += ch;
        else out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    }
    return out;
}

// A path as messages show it: escaped as above, cut only when absurdly long.
[[nodiscard]] inline std::string printable_path(std::string_view path) {
    return printable(path, 1024);
}

}  // namespace wiredcap::fit
