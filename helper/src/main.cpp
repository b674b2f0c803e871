// wiredcap-helper: the privileged program. Everything happens in helper_main; this file only
// supplies the paths compiled into this particular binary (production or setuid-test build).
#include "wiredcap/helper/entry.hpp"

#ifndef WIREDCAP_POLICY_PATH
#error "WIREDCAP_POLICY_PATH must be defined by the build"
#endif

#include "wiredcap/helper/process/hardening.hpp"
#include "wiredcap/durable_write.hpp"

int main(int argc, char** argv) {
    // First, in the smallest frame: a caller's tiny stack limit would overflow helper_main.
    if (const char* refusal = wiredcap::process::raise_limits()) {
        (void)wiredcap::write_fully(1, refusal);
        return 1;
    }
    static const wiredcap::helper::BuildPaths paths{
        WIREDCAP_POLICY_PATH, WIREDCAP_JOURNAL_PATH, WIREDCAP_SIM_STATE_PATH,
#ifdef WIREDCAP_FALLBACK_GROUP
        WIREDCAP_FALLBACK_GROUP,
#else
        nullptr,
#endif
    };
    return wiredcap::helper::helper_main(argc, argv, paths);
}
