#!/usr/bin/env bash
# GRUB_DEFAULT=saved (with GRUB_SAVEDEFAULT=true): the default is grubenv's saved_entry, here
# an older kernel in the "Advanced options" submenu (grub-set-default's MENU>ENTRY form). The
# trial copies that entry and arms next_entry; the trial boot runs it once; a hang boots the
# saved entry again; the value made default reaches the saved entry through update-grub, and
# saved_entry is never changed. A saved recovery entry, a saved_entry naming nothing, or a
# grub.cfg not generated for `saved` are refused with nothing written. Real grub-editenv.
# usage: grub_saved_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch saved
env_var() { grub-editenv "$root/boot/grub/grubenv" list | sed -n "s/^$1=//p"; }
old_kernel="Debian GNU/Linux, with Linux 6.12.38-amd64"
pinned="Advanced options for Debian GNU/Linux>$old_kernel"
saved_machine() {  # $1: the saved_entry
  "$sim" init --root "$root" --profile strix-64
  sed -i 's/^GRUB_DEFAULT=0$/GRUB_DEFAULT=saved\nGRUB_SAVEDEFAULT=true/' "$root/etc/default/grub"
  "$sim" update-grub --root "$root"
  grub-editenv "$root/boot/grub/grubenv" set "saved_entry=$1"
}
# The 6.12.38 entry's linux line in grub.cfg (inside the submenu).
old_kernel_args() { grep -P '^\t\tlinux\t/vmlinuz-6\.12\.38-amd64 ' "$root/boot/grub/grub.cfg" | grep -v single; }

root=$base/pinned; saved_machine "$pinned"
"$sim" reboot --root "$root" | grep -qF "booted '$old_kernel'" || fail "the simulated GRUB did not boot the saved entry"
grep -q "GRUB, one-shot" <<<"$(status)" || fail "status does not see GRUB's one-shot: $(status)"
sys trial 40GiB >/dev/null || fail "trial refused with GRUB_DEFAULT=saved"
[ "$(env_var next_entry)" = wiredcap-trial ] || fail "next_entry is '$(env_var next_entry)'"
[ "$(env_var saved_entry)" = "$pinned" ] || fail "saved_entry changed to $(env_var saved_entry)"
grep -Pq '^\tlinux /vmlinuz-6\.12\.38-amd64 .* ttm\.pages_limit=10485760$' "$root/boot/grub/custom.cfg" \
  || fail "the trial entry is not the saved entry's kernel: $(cat "$root/boot/grub/custom.cfg")"
grep -q savedefault "$root/boot/grub/custom.cfg" && fail "the trial entry would save itself as the default"
"$sim" reboot --root "$root" | grep -q "wiredcap trial" || fail "the trial was not booted"
grep -q "BOOT_IMAGE=/vmlinuz-6.12.38-amd64 .*ttm.pages_limit=10485760" "$root/proc/cmdline" || fail "trial cmdline"
{ sys after-boot >/dev/null && sys confirm >/dev/null; } || fail "confirm failed"
old_kernel_args | grep -q "ttm.pages_limit=10485760" || fail "the saved entry does not carry the default"
[ "$(env_var saved_entry)" = "$pinned" ] || fail "saved_entry changed to $(env_var saved_entry)"
"$sim" reboot --root "$root" | grep -qF "booted '$old_kernel'" || fail "the saved entry was not booted"
grep -q "ttm.pages_limit=10485760" "$root/proc/cmdline" || fail "the saved entry lost the value"
sys after-boot >/dev/null || fail "the default did not read back"
# A hang during a second trial: the power button boots the saved entry, with the default.
"$sim" hang-above --root "$root" 10485760
sys trial 44GiB >/dev/null
"$sim" reboot --root "$root" | grep -q HUNG || fail "did not hang"
"$sim" reboot --root "$root" | grep -qF "booted '$old_kernel'" || fail "after the hang the saved entry was not booted"
grep -q "ttm.pages_limit=10485760" "$root/proc/cmdline" || fail "the revert lost the confirmed value"
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 9 ] || fail "the hang was not recorded (exit $rc)"
grep -q '"event":"hung".*"to_pages":11534336' "$(journal)" || fail "hang ceiling: $(events)"
sys reset >/dev/null
old_kernel_args | grep -q "ttm.pages_limit" && fail "reset left the parameter on the saved entry"
[ "$(env_var saved_entry)" = "$pinned" ] || fail "saved_entry changed to $(env_var saved_entry)"

# Refused, nothing written: a saved recovery entry (update-grub never gives it the value),
# a saved_entry that names nothing, a grub.cfg that does not boot saved_entry.
refused() {  # $1: a piece of the reason
  local rc=0 out
  out=$(sys trial 40GiB 2>/dev/null) || rc=$?
  [ "$rc" = 7 ] || fail "trial exited $rc, not 7: $out"
  grep -qF "$1" <<<"$out" || fail "the refusal does not say '$1': $out"
  [ -z "$(env_var next_entry)" ] || fail "next_entry armed"
  [ ! -e "$root/boot/grub/custom.cfg" ] || fail "custom.cfg written"
  [ "$(events)" = "ttm-trial:intent ttm-trial:refused " ] || fail "journal: $(events)"
}
root=$base/recovery; saved_machine "1>1"
refused "which update-grub does not give GRUB_CMDLINE_LINUX_DEFAULT"
root=$base/nothing; saved_machine "Windows Boot Manager"
refused "saved_entry=Windows Boot Manager names no entry"
root=$base/stale; "$sim" init --root "$root" --profile strix-64
sed -i 's/^GRUB_DEFAULT=0$/GRUB_DEFAULT=saved/' "$root/etc/default/grub"
refused "does not boot saved_entry: run update-grub first"
echo "GRUB_DEFAULT=saved: ok"
