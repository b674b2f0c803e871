#!/usr/bin/env bash
# Clear answers where the Linux backend must refuse or warn: an amdttm host with a stray
# ttm.pages_limit (ignored by the kernel, shown, left alone by reset), a gttsize conflict
# (refused, nothing written), and a machine whose boot loader has no one-shot (refused).
# usage: refusals_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch refusals

root=$base/amdttm; "$sim" init --root "$root" --profile amdttm-128
out=$(status)
grep -q "TTM module     amdttm: amdgpu depends on amdttm" <<<"$out" || fail "amdttm not detected: $out"
grep -q "IGNORED.*ttm.pages_limit=20971520" <<<"$out" || fail "stray ttm.pages_limit not shown: $out"
out=$(sys reset)
grep -q "GRUB_CMDLINE_LINUX_DEFAULT (then update-grub): ttm.pages_limit=20971520 was not written by wiredcap" <<<"$out" \
  || fail "reset did not name the stray parameter: $out"
grep -q "ttm.pages_limit=20971520" "$root/etc/default/grub" || fail "reset removed what it did not write"
grep -q "/etc/modprobe.d/ttm.conf sets pages_limit: not written by wiredcap, left alone" <<<"$out" \
  || fail "reset did not name modprobe.d: $out"
grep -q "pages_limit=26214400" "$root/etc/modprobe.d/ttm.conf" || fail "reset touched modprobe.d"

root=$base/gtt; "$sim" init --root "$root" --profile gttsize-64
out=$(status)
grep -q "CONFLICT *amdgpu.gttsize=57344" <<<"$out" || fail "gttsize conflict not shown: $out"
grep -q "MISMATCH" <<<"$out" || fail "GTT vs pages_limit mismatch not shown: $out"
if out=$(sys trial 40GiB); then fail "trial accepted despite gttsize: $out"; fi
grep -q "amdgpu.gttsize=57344 is set" <<<"$out" || fail "refusal does not name gttsize: $out"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "refused trial wrote custom.cfg"
[ ! -e "$root/var/lib/wiredcap/ttm-state" ] || fail "refused trial wrote state"

root=$base/nogrub; "$sim" init --root "$root" --profile strix-64
rm "$root/boot/grub/grubenv"
grep -q "no one-shot: /boot/grub/grubenv is absent" <<<"$(status)" || fail "status misses no one-shot"
if out=$(sys trial 40GiB); then fail "trial accepted without a one-shot: $out"; fi
grep -q "no one-shot boot loader" <<<"$out" || fail "refusal unclear: $out"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "refused trial wrote custom.cfg"
grep -q '"command":"ttm-trial","event":"refused"' "$(journal)" || fail "refusal not journaled"
# GRUB that cannot clear next_entry (grubenv on a file system it cannot write) boots the
# default and leaves the trial armed: after-boot disarms it, records no hang, tried nothing.
root=$base/stuck; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null
"$sim" reboot --root "$root" --keep-oneshot >/dev/null
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 7 ] || fail "after-boot with an unconsumed one-shot exited $rc, not 7"
[ -z "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" ] || fail "the stuck one-shot is still armed"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "the stuck trial's entry was left"
grep -q '"event":"hung"' "$(journal)" && fail "a trial never tried was recorded as a hang"
grep -q '"command":"ttm-after-boot","event":"trial-not-consumed"' "$(journal)" || fail "not journaled"
# No amdgpu: nothing to raise for and nothing to read back from.
root=$base/noamdgpu; "$sim" init --root "$root" --profile strix-64
rm -r "$root/sys/module/amdgpu"
rc=0; out=$(sys trial 40GiB 2>/dev/null) || rc=$?
[ "$rc" = 7 ] || fail "trial without amdgpu exited $rc, not 7"
grep -q "amdgpu is not loaded" <<<"$out" || fail "refusal unclear: $out"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "trial entry written without amdgpu"

# Fail closed on records that cannot be read: a journal that cannot be trusted for its hangs
# (not root's) binds (nothing armed), a garbled state refuses a trial; reset still works and
# rewrites the state.
root=$base/garbled; "$sim" init --root "$root" --profile strix-64
mkdir -p "$root/var/lib/wiredcap" && touch "$(journal)" && chown 65534 "$(journal)"
rc=0; sys trial 40GiB >/dev/null 2>&1 || rc=$?
[ "$rc" = 12 ] || fail "a journal unreadable for hangs let a trial through (exit $rc)"
[ -z "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" ] || fail "armed past an unreadable journal"
chown 0 "$(journal)"
printf 'phase=maybe\n' >"$root/var/lib/wiredcap/ttm-state"
rc=0; sys trial 40GiB >/dev/null 2>&1 || rc=$?
[ "$rc" = 12 ] || fail "a garbled state let a trial through (exit $rc)"
sys reset >/dev/null || fail "reset refused a garbled state"
grep -q '^phase=none$' "$root/var/lib/wiredcap/ttm-state" || fail "reset did not rewrite the state"

# Intent first: a journal that cannot be written refuses the trial before the boot loader is
# touched (here the journal's path is a directory).
root=$base/nojournal; "$sim" init --root "$root" --profile strix-128
mkdir -p "$(journal)"
rc=0; sys trial 96GiB >/dev/null 2>&1 || rc=$?
[ "$rc" = 12 ] || fail "trial without a journal exited $rc, not 12"
[ -z "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" ] || fail "armed without a journal"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "trial entry written without a journal"
# A journal that reads but takes no record (the file-size limit leaves no room for one): the
# intent cannot be written, so nothing is armed.
root=$base/fulljournal; "$sim" init --root "$root" --profile strix-128
mkdir -p "$root/var/lib/wiredcap"
for _ in $(seq 50); do
  echo '{"v":1,"time":"2026-12-01T00:00:00Z","boot":"b-0","uid":501,"command":"apply","event":"refused","reason":"x"}'
done >"$(journal)"
rc=0; (ulimit -f 5; sys trial 96GiB) >/dev/null 2>&1 || rc=$?
[ "$rc" = 12 ] || fail "trial with a journal that takes no record exited $rc, not 12"
[ -z "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" ] || fail "armed without its intent"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "trial entry written without its intent"
grep -q '^phase=none$' "$root/var/lib/wiredcap/ttm-state" || fail "the state kept a trial never journaled"
# The driver holding something else than the trial asked for (here: it reports a smaller GTT) is
# a mismatch, reported (exit 6): the trial entry goes, no hang is recorded on this boot (that
# the trial stays at risk until the next boot is at_risk_test.sh's).
root=$base/mismatch; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null
echo 34359738368 >"$root/sys/class/drm/card1/device/mem_info_gtt_total"
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 6 ] || fail "a trial read back as something else exited $rc, not 6"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "the mismatched trial's entry was left"
grep -q '"event":"hung"' "$(journal)" && fail "a mismatch was recorded as a hang"
grep -q '"command":"ttm-after-boot","event":"mismatch".*"readback_pages":10485760' "$(journal)" \
  || fail "mismatch (and what was read back) not journaled"
if sys confirm >/dev/null 2>&1; then fail "a mismatched trial was confirmed"; fi

# Readings, not echoes: a value made default that another tool later drops is reported at the
# next boot (exit 6), not assumed.
root=$base/dropped; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null && sys confirm >/dev/null
# Asking again for the value in force writes nothing and exits 0.
before=$(cat "$(journal)")
sys trial 40GiB >/dev/null || fail "a second trial of the default did not exit 0"
[ "$before" = "$(cat "$(journal)")" ] || fail "a second trial of the default journaled"
[ -z "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" ] || fail "it armed a one-shot"
sed -i 's/ ttm.pages_limit=[0-9]*//' "$root/etc/default/grub"
"$sim" update-grub --root "$root" && "$sim" reboot --root "$root" >/dev/null
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 6 ] || fail "a dropped default read back with exit $rc, not 6"
grep -q '"command":"ttm-after-boot","event":"default-mismatch"' "$(journal)" || fail "not journaled"
echo "refusals: ok"
