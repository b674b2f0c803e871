// wiredcap-ttm: the Linux backend's verbs, until they join wiredcap-system's dispatch.
//
//   wiredcap-ttm [--root DIR] status
//   wiredcap-ttm [--root DIR] trial SIZE          (root)
//   wiredcap-ttm [--root DIR] after-boot          (root; wiredcap-ttm-after-boot.service)
//   wiredcap-ttm [--root DIR] confirm [--check CMD ARGS...]   (root)
//   wiredcap-ttm [--root DIR] reset               (root)
//
// --root names a scratch tree (the simulator's); writes to the real "/" need root.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "wiredcap/linux/status_text.hpp"
#include "wiredcap/linux/trial.hpp"
#include "wiredcap/units/parse.hpp"

namespace {

using namespace wiredcap::linux_amd;

int usage() {
    std::fputs("usage: wiredcap-ttm [--root DIR] status | trial SIZE | after-boot | confirm [--check CMD...] | reset\n",
               stderr);
    return 64;
}

int report(const VerbResult& r) {
    for (const auto& line : r.lines) std::printf("%s\n", line.c_str());
    return r.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string root_dir = "/";
    if (args.size() >= 2 && args[0] == "--root") {
        root_dir = args[1];
        args.erase(args.begin(), args.begin() + 2);
    }
    if (args.empty()) return usage();
    const SystemRoot root(root_dir);
    const std::string verb = args[0];
    if (verb == "status" && args.size() == 1) {
        std::fputs(status_text(root).c_str(), stdout);
        return 0;
    }
    if (root.is_real() && ::geteuid() != 0) {
        std::fprintf(stderr, "wiredcap-ttm %s: needs root (sudo): it writes the boot loader\n", verb.c_str());
        return 77;
    }
    if (verb == "trial" && args.size() == 2) {
        auto size = wiredcap::units::parse_size(args[1]);
        if (!size) {
            std::fprintf(stderr, "wiredcap-ttm trial: %s\n", size.error().message.c_str());
            return 64;
        }
        return report(schedule_trial(root, size->bytes));
    }
    if (verb == "after-boot" && args.size() == 1) return report(after_boot(root));
    if (verb == "confirm") {
        std::vector<std::string> check;
        if (args.size() >= 3 && args[1] == "--check") check.assign(args.begin() + 2, args.end());
        else if (args.size() != 1) return usage();
        return report(confirm_trial(root, check));
    }
    if (verb == "reset" && args.size() == 1) return report(reset_ttm(root));
    return usage();
}
