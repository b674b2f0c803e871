#include "wiredcap/json_writer.hpp"

namespace wiredcap {

std::string json_quote(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c >= 0x7f) {
                    out += "\\u00";
                    out += kHex[c >> 4];
                    out += kHex[c & 0xf];
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

JsonObject& JsonObject::raw(std::string_view key, std::string_view json) {
    if (!body_.empty()) body_ += ',';
    body_ += json_quote(key);
    body_ += ':';
    body_ += json;
    return *this;
}

JsonObject& JsonObject::str(std::string_view key, std::string_view value) {
    return raw(key, json_quote(value));
}
JsonObject& JsonObject::num(std::string_view key, std::uint64_t value) {
    return raw(key, std::to_string(value));
}
JsonObject& JsonObject::boolean(std::string_view key, bool value) {
    return raw(key, value ? "true" : "false");
}
JsonObject& JsonObject::null(std::string_view key) { return raw(key, "null"); }
JsonObject& JsonObject::strings(std::string_view key, const std::vector<std::string>& values) {
    std::string a = "[";
    for (const auto& v : values) {
        if (a.size() > 1) a += ',';
        a += json_quote(v);
    }
    return raw(key, a + "]");
}
JsonObject& JsonObject::decimal(std::string_view key, std::string_view digits) {
    const auto dot = digits.find('.');
    const auto all_digits = [](std::string_view s) {
        return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
    };
    const bool ok = dot == std::string_view::npos
                        ? all_digits(digits)
                        : all_digits(digits.substr(0, dot)) && all_digits(digits.substr(dot + 1));
    return raw(key, ok ? digits : "null");
}
JsonObject& JsonObject::object(std::string_view key, const JsonObject& value) {
    return raw(key, value.text());
}

}  // namespace wiredcap
