// The helper's usage text, printed by `wiredcap-helper --help`: the synopsis of every command
// and word list. What each one does, the files and the exit codes are in wiredcap-helper(8)
// (the packaging tests check that the page names everything listed here, and the reverse).
#pragma once

namespace wiredcap::helper {

inline constexpr const char* kUsage = R"(usage: wiredcap-helper [--policy PATH] [--journal PATH] [--sim-state PATH]
                       COMMAND
       wiredcap-helper --help | --version

Sets iogpu.wired_limit_mb within the band root permits, reads it back and
journals it; one JSON line per call. Details: man 8 wiredcap-helper.

Commands:
  read
  apply SIZE [--run ID --step N] [--revert REASON]
             [--effective SIZE [--effective-source SOURCE]] [--by WRITER]
             [--ignore-hang-ceiling] [--check]
  reset [--run ID --step N] [--revert REASON] [--check]
  confirm --run ID --step N
  end --run ID --outcome OUTCOME
  persist SIZE [--unconfirmed [--lower] [--effective SIZE
               [--effective-source SOURCE]]] [--ignore-hang-ceiling] [--check]
  persist --off [--check]
  verdict SIZE --boot ID --answer ANSWER
  forget-hang SIZE --why WHY

  REASON:  no eof interrupt terminate hangup timeout guard mismatch probe
  OUTCOME: completed stopped reverted revert_failed aborted hung
  SOURCE:  metal simulated-metal given
  WRITER:  set
  ANSWER:  hung not-hung
  WHY:     macos-update hardware-change other-cause

--policy, --journal and --sim-state exist in test builds only.
)";

}  // namespace wiredcap::helper
