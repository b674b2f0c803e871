#!/usr/bin/env bash
# The armed one-shot is read back before a trial counts as scheduled. A boot loader whose tool
# exits 0 without keeping the one-shot (the scratch root's own grub-editenv or bootctl, which
# wiredcap runs as it runs the machine's own update-grub) gives a refusal: nothing armed, no
# trial entry left, journal `ttm-trial` `refused` and never `trial-scheduled`, state back to none.
# A one-shot someone else armed (grub-reboot, bootctl set-oneshot) is left alone, no trial.
# usage: oneshot_readback_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch oneshot
real_editenv=$(command -v grub-editenv)
next_entry() { "$real_editenv" "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p'; }
oneshot_var=sys/firmware/efi/efivars/LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
refused_cleanly() {  # $1: the trial file that must not be left
  [ ! -e "$1" ] || fail "the trial entry $1 was left"
  [ "$(events)" = "ttm-trial:intent ttm-trial:refused " ] || fail "journal: $(events)"
  grep -q '^phase=none$' "$root/var/lib/wiredcap/ttm-state" || fail "state: $(cat "$root/var/lib/wiredcap/ttm-state")"
}

# GRUB: a grub-editenv that says yes to `set` and writes nothing.
root=$base/grub; "$sim" init --root "$root" --profile strix-64
mkdir -p "$root/usr/bin"
# shellcheck disable=SC2016  # the wrapper's own $2 and $@
printf '#!/bin/sh\n[ "$2" = set ] && exit 0\nexec %s "$@"\n' "$real_editenv" >"$root/usr/bin/grub-editenv"
chmod 755 "$root/usr/bin/grub-editenv"
rc=0; out=$(sys trial 40GiB 2>/dev/null) || rc=$?
[ "$rc" = 7 ] || fail "GRUB that kept no next_entry: exit $rc, not 7: $out"
grep -q "reads next_entry=(unset), not wiredcap-trial" <<<"$out" || fail "refusal does not say what grubenv holds: $out"
[ -z "$(next_entry)" ] || fail "next_entry is $(next_entry)"
refused_cleanly "$root/boot/grub/custom.cfg"
# The same machine with GRUB's real tool schedules (the refusal was the read-back's).
rm "$root/usr/bin/grub-editenv"
sys trial 40GiB >/dev/null || fail "the real grub-editenv did not schedule"
[ "$(next_entry)" = wiredcap-trial ] || fail "not armed with the real grub-editenv"

# GRUB: a one-shot armed by grub-reboot is not taken over.
root=$base/grubreboot; "$sim" init --root "$root" --profile strix-64
"$real_editenv" "$root/boot/grub/grubenv" set next_entry=gnulinux-simple-3b1f0c2e
rc=0; out=$(sys trial 40GiB 2>/dev/null) || rc=$?
[ "$rc" = 7 ] || fail "a foreign next_entry: exit $rc, not 7"
[ "$(next_entry)" = gnulinux-simple-3b1f0c2e ] || fail "the foreign next_entry was changed to $(next_entry)"
refused_cleanly "$root/boot/grub/custom.cfg"

# systemd-boot: a bootctl that says yes to set-oneshot and sets nothing.
root=$base/sdboot; "$sim" init --root "$root" --profile strix-128-sdboot
mkdir -p "$root/usr/bin"
printf '#!/bin/sh\nexit 0\n' >"$root/usr/bin/bootctl"
chmod 755 "$root/usr/bin/bootctl"
rc=0; out=$(sys trial 100GiB 2>/dev/null) || rc=$?
[ "$rc" = 7 ] || fail "systemd-boot that kept no one-shot: exit $rc, not 7: $out"
grep -q "LoaderEntryOneShot reads (unset), not wiredcap-trial.conf" <<<"$out" || fail "refusal unclear: $out"
[ ! -e "$root/$oneshot_var" ] || fail "LoaderEntryOneShot set"
refused_cleanly "$root/efi/loader/entries/wiredcap-trial.conf"
rm "$root/usr/bin/bootctl"
sys trial 100GiB >/dev/null || fail "the simulated efivarfs did not schedule"
[ -e "$root/$oneshot_var" ] || fail "not armed on the simulated efivarfs"
echo "one-shot read-back: ok"
