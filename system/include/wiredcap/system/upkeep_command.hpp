// The journal's upkeep as wiredcap-system runs it (journal/upkeep.hpp): before every run of the
// boot action (at boot and every minute), and on demand as `wiredcap-system compact`.
#pragma once

#include <cstddef>

#include "wiredcap/system/dispatch.hpp"

namespace wiredcap::system {

// `compact`: compacts the journal now if that saves anything; one JSON line says what it did.
[[nodiscard]] helper::Result compact(helper::Context& ctx, const Args& args);

// The upkeep before a boot-action run: compacts when due. It never stops the boot action: a
// failure is told to the system log, and the next run tries again.
void upkeep_if_due(helper::Context& ctx);

}  // namespace wiredcap::system
