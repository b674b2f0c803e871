// `wiredcap-system upgrade-check`: whether the machine is between a ramp's step and its
// settlement, which the macOS package's preinstall asks before it replaces anything. While a
// step awaits confirmation, the ramp's guard reverts it through the setuid helper as a group
// member; a payload that lays the helper down 0755 until postinstall runs would refuse that
// revert and leave the raised cap in force. The answer is the journal's, read by the rule
// `status` and `recover` use (ramp/include/wiredcap/ramp/recovery.hpp): no second reading of it here.
#pragma once

#include "wiredcap/system/dispatch.hpp"

namespace wiredcap::system {

// Exit 0 when no run is unresolved (or one only lacks its end record: nothing at risk); exit
// 10 (unresolved_journal) naming each open run and the command that settles it; 12 when the
// journal cannot be read. Nothing is written.
[[nodiscard]] helper::Result upgrade_check(helper::Context& ctx, const Args& args);

}  // namespace wiredcap::system
