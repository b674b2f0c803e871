// The value stored for boot, as the helper's callers change it (boot/boot_state.hpp has the
// file; wiredcap-system's boot action applies it):
//
//   persist SIZE [--unconfirmed]  store SIZE; it must be in the band and, unless --unconfirmed,
//                                 confirmed in a ramp per the journal (journal/hang_ceiling.hpp)
//   persist --off                 forget it (the safe direction: allowed like reset)
//
// and the boot guard as `read` reports it.
#pragma once

#include <optional>

#include "wiredcap/policy/policy.hpp"
#include "wiredcap/helper/action.hpp"

namespace wiredcap::helper {

// The boot guard as `read` reports it (policy: for healthy_after, when it loads).
[[nodiscard]] JsonObject boot_guard_json(Context& ctx, const std::optional<policy::Policy>& p);

// Removes the stored value, journaled first: `<done>_intent` before, `done` after; nothing
// journaled when nothing is stored. True when there was one.
[[nodiscard]] Expected<bool, Failure> remove_persisted(Action& a, const Context& ctx, const std::string& done);

[[nodiscard]] std::optional<Failure> persist_steps(Action& a, const Invocation& inv, Context& ctx);
[[nodiscard]] std::optional<Failure> persist_off_steps(Action& a, const Invocation& inv, Context& ctx);

}  // namespace wiredcap::helper
