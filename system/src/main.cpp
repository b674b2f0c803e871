// wiredcap-system: root's own program (system_main.hpp). This file only supplies the paths
// compiled into this binary: the same policy, journal and simulated Mac as wiredcap-helper's.
#include "wiredcap/system/system_main.hpp"

#ifndef WIREDCAP_POLICY_PATH
#error "WIREDCAP_POLICY_PATH must be defined by the build"
#endif

int main(int argc, char** argv) {
    static const wiredcap::system::BuildPaths paths{WIREDCAP_POLICY_PATH, WIREDCAP_JOURNAL_PATH,
                                                    WIREDCAP_SIM_STATE_PATH};
    return wiredcap::system::system_main(argc, argv, paths);
}
