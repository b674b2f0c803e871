// Test tool: the helper's entry function called directly with the argument vectors execve can
// hand it. Linux >= 5.18 turns an exec with argc == 0 into argv = {""}, so through a real exec
// the helper never sees argc == 0 there; this calls helper_main itself to prove the argc == 0
// branch (other kernels, macOS) is a clean usage error. Prints what helper_main prints and exits
// with its return value.
//   entry-argc0 null-argv | empty-argv | argc1-null | negative-argc | control
#include <cstring>

#include "wiredcap/helper/entry.hpp"

int main(int argc, char** argv) {
    if (argc != 2) return 120;
    // Paths that do not exist: none of these calls may get as far as using them.
    static const wiredcap::helper::BuildPaths paths{"/nonexistent/wiredcap/policy",
                                                    "/nonexistent/wiredcap/journal",
                                                    "/nonexistent/wiredcap/sim-state", nullptr};
    static const char* const empty[] = {nullptr};
    static const char* const help[] = {"wiredcap-helper", "--help", nullptr};
    const char* mode = argv[1];
    if (std::strcmp(mode, "null-argv") == 0)
        return wiredcap::helper::helper_main(0, nullptr, paths);
    if (std::strcmp(mode, "empty-argv") == 0) return wiredcap::helper::helper_main(0, empty, paths);
    if (std::strcmp(mode, "argc1-null") == 0) return wiredcap::helper::helper_main(1, empty, paths);
    if (std::strcmp(mode, "negative-argc") == 0)
        return wiredcap::helper::helper_main(-1, empty, paths);
    if (std::strcmp(mode, "control") == 0) return wiredcap::helper::helper_main(2, help, paths);
    return 120;
}
