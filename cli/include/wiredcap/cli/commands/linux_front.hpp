// wiredcap's commands on a Linux AMD APU (docs/linux.md, "One front-end"): the same words as on a
// Mac, driving the try-once story of wiredcap-system's root-only ttm-* verbs.
//
//   status   the Linux readings (linux_status.hpp)
//   set      schedules ONE trial boot (ttm-trial); exit 18 (trial_scheduled): the machine does
//            not hold the value until that boot reads it back and it is confirmed. 0 only when
//            the value is already the default and in force (a reading of the state, not an echo)
//   reset    ttm-reset
//   recover  the shared journal's hang ceiling, as on a Mac, a trial pending, and how to forget
//            a hang (ttm-forget-hang, or --forget-hang --why WHY, which runs it)
//
// The ttm-* verbs run only as root. As root wiredcap runs wiredcap-system itself (by absolute
// path, empty environment, as it runs the helper); anyone else is told the exact sudo command,
// exit 4, nothing done.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/cli/readings/helper_client.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

struct LinuxTarget {
    std::string root;  // "/" for this machine; a simulated tree in test builds (--linux-root)
    DevPaths dev;      // passed through to wiredcap-system, as to the helper
};

// The Linux backend for this call: --linux-root DIR when given; else "/" when this machine is
// an AMD TTM host (wiredcap/linux/host.hpp) and no simulated Mac was asked for (--sim-state);
// else nullopt: the Mac's commands.
[[nodiscard]] std::optional<LinuxTarget> linux_target(const std::string& linux_root,
                                                      const DevPaths& dev);

[[nodiscard]] ExitCode run_linux_set(const LinuxTarget& t, const std::string& size,
                                     std::ostream& out, std::ostream& err);
// ramp and persist: a Mac's stepped raise and stored boot value have no Linux counterpart (a
// value is tried on one boot, then confirmed). Exit 7, nothing run or written; names the
// command that does it on Linux: `wiredcap set SIZE`, with the caller's size when it parses.
[[nodiscard]] ExitCode refuse_linux_unsupported(const LinuxTarget& t, std::string_view command,
                                                const std::optional<std::string>& size,
                                                std::ostream& err);
[[nodiscard]] ExitCode run_linux_reset(const LinuxTarget& t, std::ostream& out, std::ostream& err);

struct LinuxRecoverRequest {
    bool forget_hang = false;
    std::optional<std::string> why;
};
[[nodiscard]] ExitCode run_linux_recover(const LinuxTarget& t, const LinuxRecoverRequest& req,
                                         std::ostream& out, std::ostream& err);

}  // namespace wiredcap::cli
