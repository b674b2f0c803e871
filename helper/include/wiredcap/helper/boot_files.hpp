// The files around the boot action that both privileged programs touch: the boot state (the
// value `persist` stores, the guard the boot action moves on) and the disable switch. The
// helper's persist, reset and read use them; wiredcap-system's boot action too (one copy).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wiredcap/helper/boot/boot_state.hpp"
#include "wiredcap/helper/action.hpp"

namespace wiredcap::helper {

[[nodiscard]] std::int64_t unix_now();

// Anything at the switch path disables the boot action; a path that cannot be checked counts
// as present (fail closed). nullopt: absent; else what was found.
[[nodiscard]] std::optional<std::string> boot_switch_on(const Context& ctx);

// The boot state file, open and checked (root's, not writable by others).
[[nodiscard]] Expected<boot::Store, Failure> open_boot_store(const Context& ctx);

}  // namespace wiredcap::helper
