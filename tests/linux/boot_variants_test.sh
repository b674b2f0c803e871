#!/usr/bin/env bash
# Boot setups wiredcap cannot try a value once on are refused with the reason and what to do,
# and nothing is written: no trial entry, no one-shot, the journal says ttm-trial refused.
#   - a unified kernel image (UKI) as systemd-boot's default, as a type #2 entry
#     (EFI/Linux/*.efi) or a type #1 entry with `uki` or `efi`: its command line is built in;
#   - Fedora's GRUB with BLS entries where the default is not an entry id in saved_entry, or
#     the entry's options are grubenv's $kernelopts, or GRUB_DEFAULT is not saved; GRUB in
#     /boot/grub2 without BLS entries; and a grub-editenv that keeps no next_entry there.
# usage: boot_variants_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch variants
oneshot_var=sys/firmware/efi/efivars/LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
refused() {  # $1 the size, $2 a piece of the reason, then the files that must not exist
  local size=$1 why=$2 rc=0 out f
  shift 2
  out=$(sys trial "$size" 2>/dev/null) || rc=$?
  [ "$rc" = 7 ] || fail "trial exited $rc, not 7: $out"
  grep -qF "$why" <<<"$out" || fail "the refusal does not say '$why': $out"
  for f in "$@"; do [ ! -e "$root/$f" ] || fail "$f written"; done
  [ "$(events)" = "ttm-trial:intent ttm-trial:refused " ] || fail "journal: $(events)"
  # status wraps its lines at 80 columns: compared with the blanks squeezed. (A one-shot that
  # does not read back shows only when one is armed: no_status=1.)
  [ "${no_status:-}" = 1 ] || grep -qF "$why" <<<"$(status | tr -s ' \n' '  ')" || fail "status does not say '$why'"
}

# UKI, type #2: loader.conf's default names EFI/Linux/arch-linux.efi.
root=$base/uki2; "$sim" init --root "$root" --profile strix-128-sdboot
mkdir -p "$root/efi/EFI/Linux" && printf 'MZ' >"$root/efi/EFI/Linux/arch-linux.efi"
sed -i 's/^default .*/default arch-linux.efi/' "$root/efi/loader/loader.conf"
before=$(cat "$root/efi/loader/entries/arch-6.12.conf")
refused 100GiB "arch-linux.efi is a unified kernel image (UKI)" \
  efi/loader/entries/wiredcap-trial.conf "$oneshot_var"
[ "$before" = "$(cat "$root/efi/loader/entries/arch-6.12.conf")" ] || fail "an entry was edited"
grep -q "/etc/kernel/cmdline" <<<"$(sys trial 100GiB 2>/dev/null || true)" || fail "does not say what to do"
# UKI, type #1 with `uki` (the Boot Loader Specification's key for a UKI): options not honoured.
root=$base/uki1; "$sim" init --root "$root" --profile strix-128-sdboot
sed -i 's|^linux .*|uki /EFI/Linux/arch-linux.efi|; /^initrd /d' "$root/efi/loader/entries/arch-6.12.conf"
refused 100GiB "arch-6.12.conf (\`uki /EFI/Linux/arch-linux.efi\`) is a unified kernel image" \
  efi/loader/entries/wiredcap-trial.conf "$oneshot_var"
# Fedora's GRUB with BLS entries.
bls_trial=boot/loader/entries/wiredcap-trial.conf
mid=0d772916a9724907a5d1350bcd39ac92
root=$base/bls-unsaved; "$sim" init --root "$root" --profile fedora-128
grub-editenv "$root/boot/grub2/grubenv" unset saved_entry
refused 100GiB "has no saved_entry: set the default with grub2-set-default" "$bls_trial"
root=$base/bls-index; "$sim" init --root "$root" --profile fedora-128
grub-editenv "$root/boot/grub2/grubenv" set saved_entry=0
refused 100GiB "saved_entry=0 is a position or a path" "$bls_trial"
root=$base/bls-kernelopts; "$sim" init --root "$root" --profile fedora-128
# shellcheck disable=SC2016  # a literal $kernelopts, as Fedora up to 32 wrote it
sed -i 's/^options .*/options $kernelopts/' "$root/boot/loader/entries/$mid-6.12.48-200.fc41.x86_64.conf"
refused 100GiB "options are not a literal command line (\$kernelopts)" "$bls_trial"
root=$base/bls-default; "$sim" init --root "$root" --profile fedora-128
sed -i 's/^GRUB_DEFAULT=saved$/GRUB_DEFAULT=0/' "$root/etc/default/grub"
refused 100GiB "does not set GRUB_DEFAULT=saved" "$bls_trial"
root=$base/bls-uki; "$sim" init --root "$root" --profile fedora-128
sed -i 's|^linux .*|uki /EFI/Linux/fedora.efi|' "$root/boot/loader/entries/$mid-6.12.48-200.fc41.x86_64.conf"
refused 100GiB "starts a unified kernel image (\`uki\`)" "$bls_trial"
root=$base/grub2-plain; "$sim" init --root "$root" --profile fedora-128
sed -i '/^blscfg$/d; /^insmod blscfg$/d' "$root/boot/grub2/grub.cfg"
refused 100GiB "/boot/grub2/grub.cfg without BLS entries" "$bls_trial"
root=$base/bls-silent; "$sim" init --root "$root" --profile fedora-128
mkdir -p "$root/usr/bin"
# shellcheck disable=SC2016  # the wrapper's own $2 and $@
printf '#!/bin/sh\n[ "$2" = set ] && exit 0\nexec %s "$@"\n' "$(command -v grub-editenv)" >"$root/usr/bin/grub-editenv"
chmod 755 "$root/usr/bin/grub-editenv"
no_status=1 refused 100GiB "reads next_entry=(unset), not wiredcap-trial" "$bls_trial"
echo "boot variants: ok"
