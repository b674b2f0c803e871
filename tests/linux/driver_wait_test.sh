#!/usr/bin/env bash
# The after-boot read-back never reads before amdgpu is up. amdgpu may bind the GPU late (from
# udev) or the unit may run first: a read of an absent mem_info_gtt_total or an unloaded
# amdgpu is UNKNOWN (exit 7, nothing changed: no mismatch, no trial entry removed, no hang),
# and the read-back happens once the driver is up; `--wait-driver S` waits for it, bounded.
# usage: driver_wait_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch driver
phase() { sed -n 's/^phase=//p' "$root/var/lib/wiredcap/ttm-state"; }
card=sys/class/drm/card1

# The trial boot, before amdgpu has bound the card: unknown, then read back once it has.
root=$base/late; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null
mv "$root/$card" "$base/card-late"
rc=0; out=$(sys after-boot 2>/dev/null) || rc=$?
[ "$rc" = 7 ] || fail "after-boot before the driver exited $rc, not 7: $out"
grep -q "read-back unknown, the GPU driver is not up" <<<"$out" || fail "not said unknown: $out"
[ "$(phase)" = scheduled ] || fail "phase $(phase) after an unknown read-back"
[ "$(events)" = "ttm-trial:intent ttm-trial:trial-scheduled " ] || fail "journal after an unknown read-back: $(events)"
[ -e "$root/boot/grub/custom.cfg" ] || fail "the trial entry was removed on an unknown read-back"
grep -q '"event":"hung"' "$(journal)" && fail "an unknown read-back made a hang ceiling"
mv "$base/card-late" "$root/$card"
sys after-boot >/dev/null || fail "after-boot with the driver up failed"
[ "$(events)" = "ttm-trial:intent ttm-trial:trial-scheduled ttm-after-boot:trial-booted " ] || fail "journal: $(events)"
# Confirming while the driver is away is unknown too (exit 7), not a mismatch; nothing made default.
mv "$root/$card" "$base/card-late"
rc=0; out=$(sys confirm 2>/dev/null) || rc=$?
[ "$rc" = 7 ] || fail "confirm without the driver exited $rc, not 7: $out"
grep -q "ttm.pages_limit" "$root/etc/default/grub" && fail "made default without a read-back"
mv "$base/card-late" "$root/$card"

# --wait-driver: amdgpu binds a second into the wait; the read-back waits for it.
root=$base/wait; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null
mv "$root/$card" "$base/card-wait"
sys after-boot --wait-driver 30 >"$base/out" 2>/dev/null &
waiter=$!
sleep 1
mv "$base/card-wait" "$root/$card"
rc=0; wait "$waiter" || rc=$?
[ "$rc" = 0 ] || fail "after-boot --wait-driver exited $rc: $(cat "$base/out")"
[ "$(phase)" = booted ] || fail "phase $(phase) after the wait"
# The wait is bounded: with no driver it gives up after S seconds, unknown.
mv "$root/$card" "$base/card-gone"
sed -i 's/^phase=booted$/phase=scheduled/' "$root/var/lib/wiredcap/ttm-state"
rc=0; sys after-boot --wait-driver 1 >/dev/null 2>&1 || rc=$?
[ "$rc" = 7 ] || fail "a bounded wait without a driver exited $rc, not 7"
rc=0; sys after-boot --wait-driver 601 >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--wait-driver 601 exited $rc, not 2"
before=$(events)
for bad in x -1 '' 1s; do
  rc=0; sys after-boot --wait-driver "$bad" >/dev/null 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "--wait-driver '$bad' exited $rc, not 2"
done
[ "$(phase)" = scheduled ] || fail "a refused --wait-driver changed the trial: phase $(phase)"
[ "$(events)" = "$before" ] || fail "a refused --wait-driver journaled: $(events)"

# A value made default, on a boot where amdgpu is not loaded: unknown, not a dropped default.
root=$base/default; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null && sys confirm >/dev/null && "$sim" reboot --root "$root" >/dev/null
mv "$root/sys/module/amdgpu" "$base/amdgpu-module"
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 7 ] || fail "the default's check without amdgpu exited $rc, not 7"
grep -q '"event":"default-mismatch"' "$(journal)" && fail "unknown taken for a mismatch"
mv "$base/amdgpu-module" "$root/sys/module/amdgpu"
sys after-boot >/dev/null || fail "the default did not read back with amdgpu up"
echo "driver wait: ok"
