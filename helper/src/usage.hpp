// The helper's usage text, printed by `wiredcap-helper --help` (and checked against the man
// page wiredcap-helper(8) by the packaging tests).
#pragma once

namespace wiredcap::helper {

inline constexpr const char* kUsage = R"(usage: wiredcap-helper [--policy PATH] [--journal PATH] [--sim-state PATH]
                       COMMAND
       wiredcap-helper --help | --version

The privileged core of wiredcap: sets iogpu.wired_limit_mb within the band
root permits in /etc/wiredcap.conf, reads every change back, and journals it.
Prints one JSON line per call (--version too:
{"v":1,"ok":true,"version":"..."}).

Commands:
  read                      read the knob, memory, boot id, related keys,
                            policy, caller
  apply SIZE [--run ID --step N] [--revert REASON]
             [--effective SIZE [--effective-source SOURCE]] [--by WRITER]
             [--ignore-hang-ceiling]
                            set the cap to SIZE (with its unit, e.g. 98304MiB)
  reset [--run ID --step N] [--revert REASON]
                            back to the OS default (0); permitted with a broken
                            policy; without --run it also forgets the stored
                            boot value
  confirm --run ID --step N record that a person confirmed a ramp step
  end --run ID --outcome OUTCOME
                            record how a ramp ended
  persist SIZE [--unconfirmed [--lower] [--effective SIZE
               [--effective-source SOURCE]]] [--ignore-hang-ceiling]
                            store SIZE for the boot action; it must have been
                            confirmed in a ramp (journal) unless --unconfirmed:
                            then one max_step from --effective (else the band's
                            min), and below --effective only with --lower
  persist --off             forget the stored value (a plain reset does too)
  verdict SIZE --boot ID --answer ANSWER
                            record a person's answer: did the machine hang
                            with SIZE in force in boot ID (wiredcap recover)
  forget-hang SIZE --why WHY
                            record that the hang ceiling SIZE no longer binds

  REASON:  no eof interrupt terminate hangup timeout guard mismatch probe
  OUTCOME: completed stopped reverted revert_failed aborted hung
  SOURCE:  metal simulated-metal given
  WRITER:  set
  ANSWER:  hung not-hung
  WHY:     macos-update hardware-change other-cause

Files: the boot state beside the journal (boot.state); anything at
/etc/wiredcap.boot-disabled (beside the policy file) disables the boot action
(wiredcap-system boot-action, root's own program) entirely. Past 1.5 MiB the
journal takes no caller's record but root's until wiredcap-system compacts it;
the journal before the last compaction is journal.jsonl.1 beside it.

Development options (test builds only; refused in a setuid process):
  --policy PATH     the policy file (default /etc/wiredcap.conf)
  --journal PATH    the journal
  --sim-state PATH  the simulated Mac's state file

Exit codes: 0 ok, 1 internal error, 2 usage, 3 refused by policy, 4 not
permitted, 5 kernel write failed, 6 read-back differs, 7 unsupported platform,
11 policy invalid, 12 journal or boot state write failed.
)";

}  // namespace wiredcap::helper
