// A test build's way to hold the helper at a chosen point, for the tests of decisions made on
// stale facts (tests/hostile/member_scenarios.sh): the helper can no longer be stopped by its
// caller (process/hardening.hpp), nor by a debugger, so the test asks it to wait.
//
// Compiled only into test builds (WIREDCAP_HELPER_DEV_OPTIONS, which release, pkg and Homebrew
// builds leave off); elsewhere test_pause does nothing. At point P the helper looks for
// `test-pause-P` in the journal's directory (root's, like the journal): when it is there, the
// helper renames it to `test-paused-P` (the test sees it has arrived) and waits until that is
// removed, at most 20 s.
#pragma once

#include <string_view>

#include "src/commands.hpp"

namespace wiredcap::helper {

void test_pause(const Context& ctx, std::string_view point);

}  // namespace wiredcap::helper
