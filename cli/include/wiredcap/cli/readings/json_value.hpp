// Reading JSON: the helper's one-line results and the journal's lines. The parser is
// nlohmann/json (RFC 8259, strict UTF-8, no comments, no trailing commas). This header adds what
// wiredcap keeps on top of it: limits on size and depth, a repeated key is an error, and
// accessors that give nothing (nullptr, nullopt) for a missing member or another type instead of
// throwing, so a malformed field becomes an unknown reading, never a crash.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/expected.hpp"

namespace wiredcap::json {

// Members in document order, as written (status lists the helper's related keys in its order).
using Value = nlohmann::ordered_json;

inline constexpr std::size_t kMaxDepth = 32;
inline constexpr std::size_t kMaxText = 1 << 20;

// Parses exactly one JSON value (surrounding whitespace allowed, nothing else).
[[nodiscard]] Expected<Value> parse(std::string_view text);

// The member `key` of an object, or nullptr (not an object, or no such member).
[[nodiscard]] const Value* get(const Value& object, std::string_view key);

[[nodiscard]] std::optional<bool> as_bool(const Value& v);
// Only numbers written as integers that fit: "1.0", "1e3" and, for as_u64, "-1" give nullopt
// (nlohmann keeps integers as integers, so no value is rounded through a double).
[[nodiscard]] std::optional<std::uint64_t> as_u64(const Value& v);
[[nodiscard]] std::optional<std::int64_t> as_i64(const Value& v);
[[nodiscard]] const std::string* as_string(const Value& v);

}  // namespace wiredcap::json
