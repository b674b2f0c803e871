// A small, strict JSON reader for the two things wiredcap reads: the helper's one-line results
// and the journal's lines. RFC 8259 only (no comments, no trailing commas, no NaN), bounded
// depth and size, numbers kept exact (integers only are converted; see as_u64/as_i64).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "wiredcap/units/expected.hpp"

namespace wiredcap::json {

class Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;  // in document order

// A number is kept as its text so that no value is rounded through a double.
struct Number {
    std::string text;
};

class Value {
public:
    Value() = default;  // null
    explicit Value(bool b) : v_(b) {}
    explicit Value(Number n) : v_(std::move(n)) {}
    explicit Value(std::string s) : v_(std::move(s)) {}
    explicit Value(Array a) : v_(std::make_shared<Array>(std::move(a))) {}
    explicit Value(Object o) : v_(std::make_shared<Object>(std::move(o))) {}

    [[nodiscard]] bool is_null() const noexcept { return v_.index() == 0; }
    [[nodiscard]] std::optional<bool> as_bool() const;
    // Only for numbers written as integers that fit; "1.0", "1e3", "-1" (for u64) give nullopt.
    [[nodiscard]] std::optional<std::uint64_t> as_u64() const;
    [[nodiscard]] std::optional<std::int64_t> as_i64() const;
    [[nodiscard]] const std::string* as_string() const;
    [[nodiscard]] const Array* as_array() const;
    [[nodiscard]] const Object* as_object() const;
    // The member `key` of an object (the first, if repeated), or nullptr.
    [[nodiscard]] const Value* get(std::string_view key) const;

private:
    std::variant<std::monostate, bool, Number, std::string, std::shared_ptr<Array>, std::shared_ptr<Object>> v_;
};

inline constexpr std::size_t kMaxDepth = 32;
inline constexpr std::size_t kMaxText = 1 << 20;

// Parses exactly one JSON value (surrounding whitespace allowed, nothing else).
[[nodiscard]] Expected<Value> parse(std::string_view text);

}  // namespace wiredcap::json
