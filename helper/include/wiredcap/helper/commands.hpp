// What each helper command does, in the order the design fixes: check caller, load policy,
// check band, check memsize minus reserve, check max_step, journal intent, write, read back,
// journal the outcome. Returns the exit code, the one JSON line for stdout, and the human
// error for stderr (empty on success).
#pragma once

#include "wiredcap/helper/args.hpp"
#include "wiredcap/helper/answer.hpp"

namespace wiredcap::helper {

[[nodiscard]] Result run(const Invocation& inv, Context& ctx);

}  // namespace wiredcap::helper
