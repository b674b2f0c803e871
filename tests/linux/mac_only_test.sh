#!/usr/bin/env bash
# ramp and persist are the Mac's (a stepped raise, a value stored for the boot action): on a
# Linux AMD host, or --linux-root, they refuse with exit 7 (unsupported platform) before the
# simulated Mac's helper is asked anything: nothing written (the Mac simulator's write history
# and the journal unchanged). The refusal names what does it on Linux, `wiredcap set SIZE`, and
# that command is one wiredcap accepts: run as given, it schedules the trial (exit 18).
# usage: mac_only_test.sh WIREDCAP SYSTEM SIM MAC_SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3 mac_sim=$4
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch mac-only
chmod 755 "$base"
root=$base/m; "$sim" init --root "$root" --profile strix-64; mkdir -p "$root/.mac" "$root/var/lib/wiredcap"
# A working simulated Mac (cap 32 GiB) with a band that permits 40GiB: without the refusal,
# ramp and persist would write to it.
"$mac_sim" --state "$root/.mac/sim-state" init --profile m1max-64 >/dev/null
"$mac_sim" --state "$root/.mac/sim-state" default-cap 32GiB >/dev/null
printf '%s\n' 'min = 16GiB' 'max = 48GiB' 'reserve = 8GiB' 'max_step = 12GiB' >"$root/.mac/policy"
chmod 644 "$root/.mac/policy"
wc() {
  "$wiredcap" --journal "$(journal)" --sim-state "$root/.mac/sim-state" --policy "$root/.mac/policy" "$@"
}
history() { "$mac_sim" --state "$root/.mac/sim-state" history; }
journal_now() { cat "$(journal)" 2>/dev/null || echo absent; }
refused() {
  local before_history before_journal rc=0 out
  before_history=$(history) before_journal=$(journal_now)
  out=$(wc "$@" 2>&1 </dev/null) || rc=$?
  [ "$before_history" = "$(history)" ] || fail "$* wrote to the Mac: $(history | tr '\n' ' ')"
  [ "$before_journal" = "$(journal_now)" ] || fail "$* journaled: $(events)"
  [ "$rc" = 7 ] || fail "$* exited $rc, not 7: $out"
  grep -q "docs/linux.md" <<<"$out" || fail "$* does not point to docs/linux.md: $out"
  suggested=$(sed -n 's/^  \(wiredcap set .*\)$/\1/p' <<<"$out")
  [ "$suggested" = "wiredcap set 40GiB --linux-root $root" ] || fail "$* suggests: $out"
}
refused ramp --to 40GiB --unattended --check true --linux-root "$root"
refused persist 40GiB --unconfirmed --linux-root "$root"
# The suggestion is accepted as given: set schedules the one trial boot (18).
read -ra words <<<"$suggested"
rc=0; wc "${words[@]:1}" >/dev/null || rc=$?
[ "$rc" = 18 ] || fail "the suggested '$suggested' exited $rc, not 18"
[ "$(events)" = "ttm-trial:intent ttm-trial:trial-scheduled " ] || fail "journal: $(events)"
echo "ramp and persist on Linux: refused (7), nothing written"
