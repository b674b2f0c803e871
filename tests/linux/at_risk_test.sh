#!/usr/bin/env bash
# A trial boot stays at risk until it is confirmed, whatever its read-back said: the kernel runs
# with the trial's value, so a hang during that boot must still be remembered as a hang ceiling.
# And reset, facing a default it cannot edit, still removes the rest and says it is not done.
# usage: at_risk_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
system=$2 sim=$3  # system: lib.sh's sys
root=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-at-risk.XXXXXX")
trap 'rm -rf "$root"' EXIT
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
# The hang the journal holds at PAGES pages of 4 KiB, recorded by VERB.
hung_at() { grep -q "\"command\":\"ttm-$1\",\"event\":\"hung\".*\"to_pages\":$2,\"page_size\":4096" "$(journal)"; }

# The driver's GTT does not show the trial's value (amdgpu not up yet, or overridden).
"$sim" init --root "$root" --profile strix-128
sys trial 100GiB >/dev/null
"$sim" reboot --root "$root" | grep -q "wiredcap trial" || fail "the trial entry was not booted"
gtt=$(ls "$root"/sys/class/drm/card*/device/mem_info_gtt_total | head -1)
echo 1234 >"$gtt"
if sys after-boot >/dev/null; then fail "a read-back mismatch was not reported"; fi
if sys confirm >/dev/null; then fail "a mismatching trial was confirmed"; fi
# The trial's boot ends without a confirmation (a hang and a power-button reset).
"$sim" reboot --root "$root" >/dev/null
if sys after-boot >/dev/null; then fail "the unconfirmed trial was not reported"; fi
hung_at after-boot 26214400 || fail "no hang at the trial's value: $(cat "$(journal)")"
if sys trial 100GiB >/dev/null; then fail "the value that ran unconfirmed was scheduled again"; fi

# A hang counted in other pages binds by its size: 100 GiB in 16 KiB pages on a 4 KiB machine.
root=$root/pagesize; "$sim" init --root "$root" --profile strix-128
mkdir -p "$root/var/lib/wiredcap" && echo '{"v":1,"time":"2026-12-01T00:00:00Z","boot":"b-0","uid":0,'\
'"command":"ttm-after-boot","event":"hung","param":"ttm.pages_limit","to_pages":6553600,"page_size":16384}' \
  >"$(journal)"
if sys trial 100GiB >/dev/null; then fail "a trial at a 16 KiB-page ceiling was scheduled"; fi
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "a refused trial wrote its entry"

# reset after an admin's override in grub.d made the default uneditable: the rest is removed,
# the default's parameter is left and named, the exit is not 0, the record of it is kept.
root=$root/override; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null && sys confirm >/dev/null
mkdir -p "$root/etc/default/grub.d" && echo 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT x"' \
  >"$root/etc/default/grub.d/50-admin.cfg"
before=$(cat "$root/etc/default/grub")
rc=0; out=$(sys reset 2>/dev/null) || rc=$?
[ "$rc" != 0 ] || fail "reset exited 0 with wiredcap's default left in place: $out"
[ "$before" = "$(cat "$root/etc/default/grub")" ] || fail "reset edited a file it may not edit"
grep -q "ttm.pages_limit=10485760 NOT removed" <<<"$out" || fail "reset did not name what it left: $out"
grep -q '^phase=default$' "$root/var/lib/wiredcap/ttm-state" || fail "reset forgot the default it left"

# An update-grub that exits 0 but leaves grub.cfg as it was: not made default, not exit 0.
root=$root/stale; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
printf '#!/bin/sh\nexit 0\n' >"$root/usr/sbin/update-grub"
before=$(cat "$root/etc/default/grub")
if out=$(sys confirm 2>/dev/null); then fail "confirmed though grub.cfg lacks the value: $out"; fi
[ "$before" = "$(cat "$root/etc/default/grub")" ] || fail "/etc/default/grub kept an edit that did not count"
grep -q '^phase=booted$' "$root/var/lib/wiredcap/ttm-state" || fail "recorded as default: $(cat "$root/var/lib/wiredcap/ttm-state")"

# reset on the boot after an unconfirmed trial, before ttm-after-boot ran: the hang is still
# remembered (reset clears what wiredcap wrote, never what a trial taught).
root=$root/resetfirst; "$sim" init --root "$root" --profile strix-64
sys trial 40GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
"$sim" reboot --root "$root" >/dev/null
sys reset >/dev/null
hung_at reset 10485760 || fail "reset before after-boot forgot the unconfirmed trial"

# /boot/grub on LVM, RAID or LUKS (a device-mapper or md device): GRUB cannot write grubenv
# there, a hung trial would boot again and again. Refused, nothing armed.
root=$root/lvm; "$sim" init --root "$root" --profile strix-64
mkdir -p "$root/sys/dev/block/$(stat -c '%Hd:%Ld' "$root/boot/grub")/dm"
if sys trial 40GiB >/dev/null 2>&1; then fail "a trial was scheduled with /boot/grub on device-mapper"; fi
[ -z "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" ] || fail "armed on device-mapper"

# GRUB_DEFAULT=saved (in /etc/default/grub, or set later in grub.d): the entry a reset boots is
# not the one wiredcap copied; refused, nothing armed, nothing written.
for where in etc/default/grub etc/default/grub.d/50-saved.cfg; do
  root=$root/saved-${where##*/}; "$sim" init --root "$root" --profile strix-64
  mkdir -p "$root/etc/default/grub.d" && echo 'GRUB_DEFAULT=saved' >>"$root/$where"
  if sys trial 40GiB >/dev/null 2>&1; then fail "a trial was scheduled with GRUB_DEFAULT=saved in $where"; fi
  [ -z "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" ] || fail "armed with saved"
  [ ! -e "$root/boot/grub/custom.cfg" ] || fail "trial entry written with GRUB_DEFAULT=saved in $where"
done
echo "at risk: ok"
