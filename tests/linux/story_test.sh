#!/usr/bin/env bash
# The whole try-once story on one simulated Linux APU profile, in a scratch root (never the
# host's /boot): status, a refused out-of-band value, a trial scheduled through GRUB's real
# grub-editenv, the trial boot read back, confirmation made default, a hang during a second
# trial that the next boot reverts and remembers, and reset. The boot loader's files, the
# state and the journal are checked after every step.
#
# usage: story_test.sh WIREDCAP SYSTEM SIM PROFILE TRIAL_SIZE TRIAL_PAGES HANG_SIZE PARAM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3 profile=$4 size=$5 pages=$6 hang_size=$7 param=$8
hang_pages=$((${hang_size%GiB} * 262144))  # every profile's pages are 4 KiB
root=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-story.XXXXXX")
trap 'rm -rf "$root"' EXIT
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL [$profile]: $*" >&2; exit 1; }
# The boot loader's files, GRUB's, Fedora's GRUB with BLS entries or systemd-boot's (the
# profile decides; read from the tree).
sdboot() { [ -e "$root/efi/loader/loader.conf" ]; }
bls() { [ -e "$root/boot/grub2/grub.cfg" ]; }
bls_default=$root/boot/loader/entries/0d772916a9724907a5d1350bcd39ac92-6.12.48-200.fc41.x86_64.conf
oneshot_var=sys/firmware/efi/efivars/LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
oneshot() {  # the armed one-shot entry, or nothing
  if sdboot; then
    [ -e "$root/$oneshot_var" ] && tail -c +5 "$root/$oneshot_var" | tr -d '\0'
  elif bls; then
    grub-editenv "$root/boot/grub2/grubenv" list | sed -n 's/^next_entry=//p'
  else
    grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p'
  fi
  return 0
}
trial_file() {
  if sdboot; then echo "$root/efi/loader/entries/wiredcap-trial.conf"
  elif bls; then echo "$root/boot/loader/entries/wiredcap-trial.conf"
  else echo "$root/boot/grub/custom.cfg"; fi
}
trial_id() { if sdboot; then echo wiredcap-trial.conf; else echo wiredcap-trial; fi; }
default_title() {
  if sdboot; then echo "Arch Linux"; elif bls; then echo "Fedora Linux (6.12.48"; else echo "Debian GNU/Linux"; fi
}
# What the default entry boots with: GRUB's generated grub.cfg, the default BLS entry.
booted_default() {
  if sdboot; then cat "$root/efi/loader/entries/arch-6.12.conf"
  elif bls; then cat "$bls_default"
  else cat "$root/boot/grub/grub.cfg"; fi
}
default_cmdline() {  # where wiredcap makes a value the default
  if sdboot; then sed -n 's/^options //p' "$root/efi/loader/entries/arch-6.12.conf"
  elif bls; then sed -n 's/^options //p' "$bls_default"
  else sed -n 's/^GRUB_CMDLINE_LINUX_DEFAULT="\(.*\)"$/\1/p' "$root/etc/default/grub"; fi
}

"$sim" init --root "$root" --profile "$profile"
out=$(status)
grep -q "TTM module     ${param%%.*}:" <<<"$out" || fail "status does not name module ${param%%.*}: $out"
if sdboot; then want_loader="systemd-boot, one-shot"
elif bls; then want_loader="GRUB with BLS entries, one-shot"
else want_loader="GRUB, one-shot"; fi
grep -q "$want_loader" <<<"$out" || fail "status does not see $want_loader: $out"

# Above the band: refused, and nothing written anywhere.
if sys trial 127GiB >/dev/null; then fail "127GiB accepted"; fi
[ -z "$(oneshot)" ] || fail "refused value still set next_entry"
[ ! -e "$(trial_file)" ] || fail "refused value wrote a trial entry"

# The trial: one boot with the parameter, through next_entry and custom.cfg.
sys trial "$size"
[ "$(oneshot)" = "$(trial_id)" ] || fail "the one-shot is '$(oneshot)'"
grep -Eq "^\s*(linux|options) .* $param=$pages\$" "$(trial_file)" || fail "trial entry lacks $param=$pages"
booted_default | grep -q "$param" && fail "the default entry changed before confirmation"
"$sim" reboot --root "$root" | grep -q "wiredcap trial" || fail "the trial entry was not booted"
[ -z "$(oneshot)" ] || fail "the boot loader did not clear the one-shot"
grep -q "$param=$pages" "$root/proc/cmdline" || fail "trial boot's cmdline lacks the parameter"
sys after-boot
grep -q '^healthy=0$' "$root/var/lib/wiredcap/ttm-state" || fail "healthy before its time"
"$sim" advance --root "$root" 600
sys after-boot
grep -q '^healthy=1$' "$root/var/lib/wiredcap/ttm-state" || fail "not marked healthy after 10 minutes up"
sys confirm --check true
default_cmdline | grep -q "$param=$pages" || fail "not made default: $(default_cmdline)"
booted_default | grep -Eq "(linux|options).* $param=$pages" || fail "the default entry does not carry it"
if sdboot || bls; then grep -q "$param=$pages" "$root/etc/kernel/cmdline" || fail "/etc/kernel/cmdline lacks it"; fi
# grubby --update-kernel=ALL --args: every BLS entry carries it, not only the default.
if bls; then
  for e in "$root"/boot/loader/entries/*.conf; do
    grep -q "^options .*$param=$pages" "$e" || fail "$(basename "$e") lacks $param=$pages"
  done
fi
[ ! -e "$(trial_file)" ] || fail "trial entry left after confirmation"
"$sim" reboot --root "$root" | grep -q "$(default_title)" || fail "default entry not booted"
grep -q "$param=$pages" "$root/proc/cmdline" || fail "default boot lost the parameter"
sys after-boot

# A second trial above it hangs; the power button boots the default; the value is remembered.
"$sim" hang-above --root "$root" "$pages"
sys trial "$hang_size"
"$sim" reboot --root "$root" | grep -q HUNG || fail "the simulated machine did not hang"
"$sim" reboot --root "$root" | grep -q "$(default_title)" || fail "after the hang the default was not booted"
grep -q "$param=$pages" "$root/proc/cmdline" || fail "the revert lost the confirmed value"
if sys after-boot; then fail "after-boot did not report the hang"; fi
grep -q "\"command\":\"ttm-after-boot\",\"event\":\"hung\".*\"to_pages\":$hang_pages" "$(journal)" \
  || fail "no hang recorded at the trial's value"
grep -q "hang ceiling" <<<"$(status)" || fail "status does not show the hang ceiling: $(status)"
# The hung trial is named as the hang, never as the default: status and recover print the
# default stored at confirmation, and the trial apart.
for shown in "$(status | tr -s ' \n' ' ')" "$( (front recover 2>&1 || true) | tr -s ' \n' ' ')"; do
  grep -Eq "(trial |Trial: )default: $param=$pages " <<<"$shown" || fail "the default is not the stored one: $shown"
  grep -q "the last trial, $param=$hang_pages (.*HUNG" <<<"$shown" || fail "the hung trial is not named: $shown"
done
[ ! -e "$(trial_file)" ] || fail "the hung trial's entry was left"
if sys trial "$hang_size"; then fail "a value at the hang ceiling was scheduled"; fi
[ -z "$(oneshot)" ] || fail "refused trial set next_entry"

# Only a person clears the ceiling, with a reason; then the value may be tried again.
sys forget-hang --why other-cause >/dev/null
grep -q '"command":"ttm-forget-hang","event":"forgotten".*"reason":"other-cause"' "$(journal)" || fail "forget not journaled"
grep -q "hang ceiling" <<<"$(status)" && fail "status still shows a forgotten hang ceiling: $(status)"
# The journal is the shared one: wiredcap-system compact keeps every record of the story.
before_compact=$(events)
"$system" --sim-state "$root/.mac/sim-state" --journal "$(journal)" --policy "$root/.mac/policy" compact >/dev/null
[ "$(events)" = "$before_compact" ] || fail "compact changed the story's records: $(events)"

# Reset: wiredcap's parameter leaves every place it wrote.
sys reset
default_cmdline | grep -q "$param=$pages" && fail "reset left the parameter: $(default_cmdline)"
booted_default | grep -q "$param" && fail "reset left the default entry with the parameter"
if sdboot || bls; then grep -q "$param" "$root/etc/kernel/cmdline" && fail "reset left /etc/kernel/cmdline"; fi
if bls; then grep -l "$param" "$root"/boot/loader/entries/*.conf && fail "reset left a BLS entry with $param"; fi
want="ttm-trial:intent ttm-trial:trial-scheduled ttm-after-boot:trial-booted ttm-after-boot:healthy \
ttm-confirm:intent ttm-confirm:made-default ttm-trial:intent ttm-trial:trial-scheduled ttm-after-boot:hung \
ttm-forget-hang:forgotten ttm-reset:intent ttm-reset:reset "
[ "$(events)" = "$want" ] || fail "journal events: $(events)"
echo "story on $profile: ok"
