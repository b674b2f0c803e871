// The shapes every `--json` answer shares (docs/json-schema.md, docs/schema/common-2.json): the
// head (schema and version), a size, and a reading. One place writes them, so that one output
// cannot drift from the others.
//   - A size is an integer count of MiB (the unit of iogpu.wired_limit_mb). A figure measured in
//     bytes becomes MiB rounded toward safety: down for a limit, up for what something needs.
//   - A reading is {value, source}, and `why_unknown` when the value is null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/exit_codes.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli::contract {

// {"schema": SCHEMA, "version": the program's version}: how every answer starts.
[[nodiscard]] JsonObject head(std::string_view schema);

// {value, source} or {value: null, source, why_unknown}.
[[nodiscard]] JsonObject size(const std::optional<units::MiB>& v, std::string_view source,
                              std::string_view why_unknown);
[[nodiscard]] JsonObject size_of_count(const std::optional<std::uint64_t>& mib,
                                       std::string_view source, std::string_view why_unknown);
// A limit measured in bytes, in MiB rounded down (never toward danger).
[[nodiscard]] JsonObject limit_from_bytes(const std::optional<units::Bytes>& b,
                                          std::string_view source, std::string_view why_unknown);
// What something needs, measured in bytes, in MiB rounded up.
[[nodiscard]] JsonObject need_from_bytes(units::Bytes b, std::string_view source);

// The answer of a command that failed before it had its own shape to report in
// (wiredcap.error/1): {schema, version, command, ok: false, exit, error}.
[[nodiscard]] std::string error(std::string_view command, ExitCode code, std::string_view message);

}  // namespace wiredcap::cli::contract
