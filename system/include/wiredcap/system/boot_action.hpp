// The LaunchDaemon's boot action, `wiredcap-system boot-action` (root only, never a caller's):
// at most one apply per boot of the value `persist` stored (helper/include/wiredcap/helper/persist_commands.hpp),
// never again after a boot whose apply did not become healthy (the boot guard,
// boot/boot_state.hpp). Its journal records are the `boot` command's.
#pragma once

#include "wiredcap/system/dispatch.hpp"

namespace wiredcap::system {

[[nodiscard]] helper::Result boot_action(helper::Context& ctx, const Args& args);

}  // namespace wiredcap::system
