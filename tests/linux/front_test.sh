#!/usr/bin/env bash
# One front-end (docs/linux.md, "One front-end"): wiredcap set, reset and recover drive the
# try-once story on a simulated Linux APU, through root's wiredcap-system, and read the shared
# journal. set exits 18 while a trial is only scheduled (not held), 0 once the value is the
# default in force; a caller who is not root gets the exact sudo command (exit 4), and that
# command is accepted; recover names a hung trial as a hang ceiling and how to forget it.
# usage: front_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch front
chmod 755 "$base"
oneshot() { grep-editenv-list | sed -n 's/^next_entry=//p'; }
grep-editenv-list() { grub-editenv "$root/boot/grub/grubenv" list; }

root=$base/m; "$sim" init --root "$root" --profile strix-64; mkdir -p "$root/.mac" "$root/var/lib"
# Not root: the exact command, nothing done.
rc=0; out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$wiredcap" --journal "$(journal)" \
  --sim-state "$root/.mac/sim-state" --policy "$root/.mac/policy" set --linux-root "$root" 40GiB 2>&1) || rc=$?
[ "$rc" = 4 ] || fail "set by nobody exited $rc, not 4: $out"
[ -z "$(oneshot)" ] || fail "set by nobody armed a trial"
[ ! -e "$(journal)" ] || fail "set by nobody journaled"
cmd=$(sed -n '/Run:$/,$p' <<<"$out" | tail -n +2 | tr -s ' \n' ' ')
[[ $cmd == " sudo $system "* ]] || fail "not the sudo command: $out"
# The command as given is one wiredcap-system accepts (the test runs as root: sudo dropped).
eval "${cmd# sudo }" >/dev/null || fail "the suggested command was refused: $cmd"
[ "$(oneshot)" = wiredcap-trial ] || fail "the suggested command did not arm the trial"

# As root: set schedules through wiredcap-system and says it is not held yet (18).
root=$base/r; "$sim" init --root "$root" --profile strix-64; mkdir -p "$root/.mac" "$root/var/lib"
if front set --ignore-hang-ceiling 40GiB 2>/dev/null; then fail "--ignore-hang-ceiling accepted on Linux"; fi
rc=0; out=$(front set 40GiB) || rc=$?
[ "$rc" = 18 ] || fail "a scheduled trial exited $rc, not 18: $out"
[ "$(oneshot)" = wiredcap-trial ] || fail "set did not arm the trial"
[ "$(events)" = "ttm-trial:intent ttm-trial:trial-scheduled " ] || fail "journal: $(events)"
[[ $(tr -s ' \n' ' ' <<<"$out") == *" ttm-confirm --root $root " ]] || fail "the confirm command is not named: $out"
"$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null && sys confirm >/dev/null
"$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
# The value is the default and in force: held, exit 0, nothing written.
before=$(cat "$(journal)")
front set 40GiB >/dev/null || fail "set of the value in force did not exit 0"
[ "$before" = "$(cat "$(journal)")" ] || fail "set of the value in force journaled"

# A trial that hangs: recover names it as the Mac's recover names a hang, and how to forget it.
"$sim" hang-above --root "$root" 10485760
rc=0; front set 44GiB >/dev/null || rc=$?
[ "$rc" = 18 ] || fail "second trial exited $rc"
"$sim" reboot --root "$root" >/dev/null; "$sim" reboot --root "$root" >/dev/null
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 9 ] || fail "after-boot after the hang exited $rc, not 9"
rc=0; out=$(front recover) || rc=$?
[ "$rc" = 0 ] || fail "recover exited $rc: $out"
grep -qF "Hang ceiling: 11534336 pages of 4 KiB (45056 MiB, 44 GiB)" <<<"$out" || fail "recover does not name the hang: $out"
# The suggestion (wrapped at 80 columns like all output) is one wiredcap accepts: run as given.
forget=$(sed -n '/forget it (journaled):$/,/^[^ ]/p' <<<"$out" | sed -n '/^ /p' | tr -s ' \n' ' ')
[[ $forget == " wiredcap recover --linux-root $root --forget-hang --why other-cause " ]] || fail "forget: $forget"
if front set 44GiB >/dev/null 2>&1; then fail "a trial at the hang ceiling was scheduled"; fi
read -ra words <<<"$forget"
front recover "${words[@]:4}" >/dev/null || fail "the suggested forget failed: $forget"
grep -q "No hang ceiling binds" <<<"$(front recover)" || fail "the hang still binds: $(front recover)"

# reset through the front-end: ttm-reset, journaled.
front reset >/dev/null || fail "reset failed"
[[ "$(events)" == *"ttm-forget-hang:forgotten ttm-reset:intent ttm-reset:reset " ]] || fail "journal: $(events)"
grep -q "ttm.pages_limit" "$root/etc/default/grub" && fail "reset left the default's parameter"
# The journal is the shared one: wiredcap-system compact compacts it (past 1000 newer records
# an earlier trial's steps go to the archive), and the hang still binds, as the readers found it.
root=$base/c; "$sim" init --root "$root" --profile strix-64; mkdir -p "$root/.mac" "$root/var/lib"
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
sys confirm >/dev/null && "$sim" reboot --root "$root" >/dev/null
"$sim" hang-above --root "$root" 10485760
sys trial 44GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null && "$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null 2>&1 || true
sys trial 42GiB >/dev/null  # below the ceiling: the latest trial, pending
for _ in $(seq 1000); do
  echo '{"v":1,"time":"2026-12-01T00:00:00Z","boot":"b-0","uid":501,"command":"apply","event":"refused","reason":"x"}'
done >>"$(journal)"
ceiling=$(grep "hang ceiling" -A1 <<<"$(status)")
out=$("$system" --sim-state "$root/.mac/sim-state" --journal "$(journal)" --policy "$root/.mac/policy" compact)
grep -q '"compacted":true' <<<"$out" || fail "compact did not compact: $out"
linux_events() { events | tr ' ' '\n' | grep -E '^(ttm-|journal:)' | tr '\n' ' '; }
want="ttm-confirm:made-default ttm-after-boot:hung ttm-trial:intent ttm-trial:trial-scheduled journal:compacted "
[ "$(linux_events)" = "$want" ] || fail "after compaction: $(linux_events)"
grep -q '"command":"ttm-trial","event":"trial-scheduled"' "$(journal).1" || fail "the archive lacks what went"
[ "$ceiling" = "$(grep "hang ceiling" -A1 <<<"$(status)" || true)" ] || fail "compaction changed the hang ceiling"
sys reset >/dev/null
rc=0; front set 44GiB >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "after compaction a trial at the hang ceiling exited $rc, not 3"
echo "front-end: ok"
