// A minimal JSON object writer for the helper's one-line results and the journal. Output is
// pure ASCII: control characters and every byte >= 0x80 are escaped, so a journal line can
// never smuggle a terminal escape sequence or a forged line break into a reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wiredcap {

// "..." with JSON escapes; bytes >= 0x80 become \u00XX (the byte's value), never raw.
[[nodiscard]] std::string json_quote(std::string_view s);

// Builds {"k":v,...} in insertion order. Distinct method names per type on purpose: an
// overloaded add("k", "text") would silently pick bool over std::string_view.
class JsonObject {
public:
    JsonObject& str(std::string_view key, std::string_view value);
    JsonObject& num(std::string_view key, std::uint64_t value);
    JsonObject& boolean(std::string_view key, bool value);
    JsonObject& null(std::string_view key);
    JsonObject& object(std::string_view key, const JsonObject& value);
    JsonObject& strings(std::string_view key, const std::vector<std::string>& values);
    // An exact decimal written as a JSON number ("96", "103.079215104"): digits with at most
    // one '.' between digits. Anything else is written as null, never as a malformed number.
    JsonObject& decimal(std::string_view key, std::string_view digits);
    // An array already written as JSON text, e.g. of objects built with text().
    JsonObject& raw_array(std::string_view key, std::string_view json_array) {
        return raw(key, json_array);
    }

    [[nodiscard]] std::string text() const { return "{" + body_ + "}"; }

private:
    JsonObject& raw(std::string_view key, std::string_view json);
    std::string body_;
};

}  // namespace wiredcap
