// `wiredcap status --json` on Linux: the same readings as status_text.hpp, as one object of the
// published schema wiredcap.linux-status/1 (docs/schema/linux-status-1.json,
// docs/json-schema.md). Every size is an amount in pages with their page size, bytes, MiB and
// GiB (each cut, never rounded up); every reading has its source, and an unknown one is null
// with why_unknown.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::linux_amd {

// `version` is wiredcap's; the hang ceiling is the journal's shared reader's (status_text.hpp).
[[nodiscard]] std::string status_json(const SystemRoot& root,
                                      const Expected<std::optional<units::MiB>>& hang_ceiling,
                                      const PolicyText& policy, std::string_view journal,
                                      std::string_view version);

}  // namespace wiredcap::linux_amd
