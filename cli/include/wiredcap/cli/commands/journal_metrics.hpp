// The journal's families of `wiredcap metrics`, on a Mac and on a Linux APU alike: what
// recovery::Report answers (the hang ceiling, every hang, the last confirmed change, the runs left
// unresolved, the suspects no person answered), never the journal's records read again here, and
// the journal file's size. Written only when the journal was read: unknown is left out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/cli/output/prometheus_text.hpp"

namespace wiredcap::cli {

// `report`: nullptr when the journal could not be read. `bytes`: journal_bytes().
void journal_metrics(Exposition& e, const recovery::Report* report,
                     const std::optional<std::uint64_t>& bytes);

// The journal file's size by lstat(2) (the reader opens no link): 0 when there is none yet,
// nullopt when it cannot be told (not a regular file, or lstat failed otherwise).
[[nodiscard]] std::optional<std::uint64_t> journal_bytes(const std::string& path);

// The journal's "time" ("2026-03-01T12:00:00Z", UTC, as the helper writes it) in Unix seconds;
// nullopt for any other text or a time before 1970.
[[nodiscard]] std::optional<std::uint64_t> unix_seconds(std::string_view utc_time);

}  // namespace wiredcap::cli
