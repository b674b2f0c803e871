// Compiled only into test builds: the library wiredcap_helper_test_hooks exists only with
// WIREDCAP_HELPER_DEV_OPTIONS (helper/CMakeLists.txt).
#include "wiredcap/helper/test_pause.hpp"

#include <sys/stat.h>
#include <time.h>

#include <cstdio>
#include <string>

#include "wiredcap/policy/trusted_path.hpp"

namespace wiredcap::helper {

void test_pause(const Context& ctx, std::string_view point) {
    const auto dir = trusted::split_path(ctx.journal_path);
    if (!dir) return;
    const std::string base = dir->dir + "/test-pause" + "-" + std::string(point);
    const std::string paused = dir->dir + "/test-paused" + "-" + std::string(point);
    struct stat st {};
    // Only a file of the journal's owner counts, like everything the helper trusts there.
    if (::lstat(base.c_str(), &st) != 0 || st.st_uid != ctx.trusted_owner) return;
    if (std::rename(base.c_str(), paused.c_str()) != 0) return;
    for (int i = 0; i < 2000 && ::lstat(paused.c_str(), &st) == 0; ++i) {
        const struct timespec tick {0, 10'000'000};
        ::nanosleep(&tick, nullptr);
    }
}

}  // namespace wiredcap::helper
