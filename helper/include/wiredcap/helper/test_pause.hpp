// A test build's way to hold the helper at a chosen point, for the tests of decisions made on
// stale facts (tests/hostile/member_scenarios.sh): the helper can no longer be stopped by its
// caller (process/hardening.hpp), nor by a debugger, so the test asks it to wait.
//
// Compiled only into test builds: the library wiredcap_helper_test_hooks exists only with
// WIREDCAP_HELPER_DEV_OPTIONS. Release, pkg and Homebrew builds leave it off and see the inline
// no-op below, so their helper holds no pause code at all. At point P the helper looks for
// `test-pause-P` in the journal's directory (root's, like the journal): when it is there, the
// helper renames it to `test-paused-P` (the test sees it has arrived) and waits until that is
// removed, at most 20 s.
#pragma once

#include <string_view>

#include "wiredcap/helper/answer.hpp"

namespace wiredcap::helper {

#ifdef WIREDCAP_HELPER_TEST_HOOKS
void test_pause(const Context& ctx, std::string_view point);
#else
inline void test_pause(const Context&, std::string_view) {}
#endif

}  // namespace wiredcap::helper
