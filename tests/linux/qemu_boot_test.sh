#!/usr/bin/env bash
# The one-boot trial on a real boot chain: QEMU (TCG) under Debian's OVMF boots a real GRUB EFI
# image from a FAT ESP made with mtools (no loop device), GRUB's 00_header boots grubenv's
# next_entry once, and Debian's kernel runs a busybox initramfs that loads ttm (modprobe adds
# ttm.* from /proc/cmdline, as kmod does) and reports /proc/cmdline and
# /sys/module/ttm/parameters/pages_limit on the serial console. wiredcap-system writes GRUB's
# files in a simulated root whose /boot/grub is copied from and back to the ESP with mtools,
# and its /proc and /sys are filled from what the guest reported. The VM has no amdgpu, so
# ttm is loaded alone and the one figure written for amdgpu is the GTT total it derives from
# pages_limit at init (docs/linux.md, "The real boot"); MemTotal is the simulated 128 GB
# machine's, not the VM's: TTM compares the value with nothing.
#
# GRUB's boots: (1) the trial of 108000MiB, read back and confirmed; (2) the default, which now
# carries the kept value; (3) a trial of 120GiB that "hangs" (the guest stops before reporting
# and QEMU is killed); (4) the next boot, which comes up without the trial's value: GRUB
# consumed the one-shot. ttm-after-boot records the hang; status --json and recover read it
# from the journal. Then systemd-boot's: (5) a trial of 120GiB armed as LoaderEntryOneShot in
# OVMF's variable store (written from the host), which hangs; (6) the next boot, the default
# entry, the variable gone from the store: systemd-boot consumed it; the hang is recorded.
#
# usage: qemu_boot_test.sh WIREDCAP SYSTEM SIM [ARTIFACT_DIR]
# Skips (exit 77, said on stdout) only where QEMU cannot run. Each boot's serial log is kept
# in ARTIFACT_DIR (default: qemu-boot-artifacts beside the binaries' bin/, so
# build/dev/qemu-boot-artifacts) when the test fails, with the journals and status's answers.
set -euo pipefail
wiredcap=$(realpath "$1") system=$(realpath "$2") sim=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
artifacts=${4:-$(dirname "$(dirname "$wiredcap")")/qemu-boot-artifacts}
cache=${WIREDCAP_GUEST_KERNEL:-${XDG_CACHE_HOME:-$HOME/.cache}/wiredcap/guest-kernel}
ovmf_code=/usr/share/OVMF/OVMF_CODE_4M.fd ovmf_vars=/usr/share/OVMF/OVMF_VARS_4M.fd

skip() { echo "SKIP: qemu_boot: $* (no boot tested)"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg || skip "this QEMU has no TCG accelerator"
for need in mformat mcopy mdel grub-mkimage grub-editenv sfdisk cpio; do
  command -v "$need" >/dev/null || { echo "FAIL: $need is missing (tools/install-deps)" >&2; exit 1; }
done
[ -e /usr/lib/grub/x86_64-efi/normal.mod ] || { echo "FAIL: grub-efi-amd64-bin is missing (tools/install-deps)" >&2; exit 1; }
[ -e "$ovmf_code" ] || { echo "FAIL: ovmf is missing (tools/install-deps)" >&2; exit 1; }
[ -e /usr/lib/systemd/boot/efi/systemd-bootx64.efi ] ||
  { echo "FAIL: systemd-boot-efi is missing (tools/install-deps)" >&2; exit 1; }
if ! file -L /bin/busybox 2>/dev/null | grep -q 'statically linked'; then
  echo "FAIL: busybox-static is missing (tools/install-deps)" >&2; exit 1
fi
[ -s "$cache/version" ] || { echo "FAIL: no guest kernel in $cache (tools/install-deps fetches it)" >&2; exit 1; }
kver=$(cat "$cache/version")

base=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-qemu-boot.XXXXXX")
work=$base/qemu root=$base/grub sdroot=$base/sdboot
mkdir -p "$work"
qemu_pid=
cleanup() {
  local rc=$?
  [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
  if [ "$rc" -ne 0 ]; then
    rm -rf "$artifacts" && mkdir -p "$artifacts"
    cp "$work"/*.serial.log "$work"/*.json "$artifacts"/ 2>/dev/null || true
    cp "$base/grub/var/lib/wiredcap/journal.jsonl" "$artifacts"/grub-journal.jsonl 2>/dev/null || true
    cp "$base/sdboot/var/lib/wiredcap/journal.jsonl" "$artifacts"/sdboot-journal.jsonl 2>/dev/null || true
    echo "qemu_boot: serial logs and the journals kept in $artifacts" >&2
  fi
  rm -rf "$base"
}
trap cleanup EXIT
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

# --- the guest: initramfs, GRUB EFI image, ESP on a partitioned disk image ---------------
mkdir -p "$work/initrd/bin" "$work/initrd/lib"
cp /bin/busybox "$work/initrd/bin/busybox"
for applet in sh mount mkdir cat grep sleep depmod modprobe poweroff echo; do
  ln -s busybox "$work/initrd/bin/$applet"
done
cp -r "$cache/lib/modules" "$work/initrd/lib/"
cp "$here/qemu/guest_init.sh" "$work/initrd/init"
(cd "$work/initrd" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.img"

# GRUB's EFI image as grub-install puts it on the removable-media path: the prefix is the
# ESP's /boot/grub, where grubenv, grub.cfg and custom.cfg live.
grub-mkimage -O x86_64-efi -p /boot/grub -o "$work/BOOTX64.EFI" \
  part_msdos fat normal linux loadenv test echo configfile gzio all_video sleep

# A 48 MiB disk image with one MBR partition of type EF, FAT on it: sfdisk and mtools work on
# the file (mtools' IMAGE@@OFFSET), no loop device, no mount. Sets `esp` for mtools' -i.
new_esp() {
  local disk=$1 offset=1048576
  truncate -s 48M "$disk"
  printf 'label: dos\nstart=2048, type=ef\n' | sfdisk -q "$disk"
  esp="$disk@@$offset"
  mformat -i "$esp" -T $(( (48 * 1048576 - offset) / 512 )) -h 64 -s 32 -v ESP ::
  mmd -i "$esp" ::/EFI ::/EFI/BOOT
}
disk=$work/grub-disk.img
new_esp "$disk"
mmd -i "$esp" ::/boot ::/boot/grub
mcopy -i "$esp" "$work/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$esp" "$cache/vmlinuz-$kver" "::/vmlinuz-$kver"
mcopy -i "$esp" "$work/initrd.img" "::/initrd.img-$kver"

# --- the machine wiredcap sees: a simulated 128 GB Strix Halo with GRUB --------------------
"$sim" init --root "$root" --profile strix-128 >/dev/null
vars=$work/grub-vars.fd
cp "$ovmf_vars" "$vars"
hang_above=30000000  # pages: the guest stops before reporting above this (guest_init.sh)
cat > "$root/etc/default/grub" <<GRUB
GRUB_DEFAULT=0
GRUB_TIMEOUT=0
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX="console=ttyS0 loglevel=3 wiredcap_test.hang_above=$hang_above"
GRUB
printf "#!/bin/sh\nexec '%s' '%s' '%s'\n" "$here/qemu/mkconfig.sh" "$root" "$kver" > "$root/usr/sbin/update-grub"
"$root/usr/sbin/update-grub"
mcopy -i "$esp" "$root/boot/grub/grub.cfg" ::/boot/grub/grub.cfg
mcopy -i "$esp" "$root/boot/grub/grubenv" ::/boot/grub/grubenv

# /boot/grub is the ESP's: read before wiredcap-system runs, written back after it.
from_esp() {
  rm -f "$root/boot/grub/custom.cfg"
  mcopy -n -i "$esp" ::/boot/grub/grubenv ::/boot/grub/grub.cfg "$root/boot/grub/"
  if mdir -i "$esp" ::/boot/grub/custom.cfg >/dev/null 2>&1; then
    mcopy -n -i "$esp" ::/boot/grub/custom.cfg "$root/boot/grub/"
  fi
}
to_esp() {
  mcopy -o -i "$esp" "$root/boot/grub/grubenv" "$root/boot/grub/grub.cfg" ::/boot/grub/
  mdel -i "$esp" ::/boot/grub/custom.cfg 2>/dev/null || true
  [ ! -e "$root/boot/grub/custom.cfg" ] || mcopy -o -i "$esp" "$root/boot/grub/custom.cfg" ::/boot/grub/
}
esp_env() { mcopy -n -i "$esp" ::/boot/grub/grubenv "$work/grubenv.now" && grub-editenv "$work/grubenv.now" list; }
system_on_esp() { from_esp; local rc=0; sys "$@" || rc=$?; to_esp; return "$rc"; }

# One boot of the VM from $disk with the NVRAM $vars (the machine's own, kept across its
# boots); its serial console in NAME.serial.log. With `hang`, the guest is expected to stop
# before it reports: QEMU is killed a second after the guest said it hangs (it never powers
# off by itself). A boot that does not end in 120 s fails the test.
boots=0
boot() {
  local name=$1 mode=${2:-report} log=$work/$1.serial.log start=$SECONDS
  boots=$((boots + 1))
  qemu-system-x86_64 -nodefaults -machine q35 -accel tcg -m 512 -smp 1 -display none -no-reboot \
    -drive if=pflash,format=raw,readonly=on,file="$ovmf_code" -drive if=pflash,format=raw,file="$vars" \
    -drive file="$disk",format=raw,if=virtio -net none -serial file:"$log" -monitor none &
  qemu_pid=$!
  local limit=120 loader_at=- up_at=- seen
  while kill -0 "$qemu_pid" 2>/dev/null; do
    # One look at the log a half second (a 2-core machine's CPU is the guest's): when the
    # firmware started the boot loader and when the guest's init spoke (where a boot's time
    # goes), and a hang.
    seen=$(grep -ao -E 'BdsDxe: starting|wiredcap-guest: (up|hanging)' "$log" 2>/dev/null || true)
    [ "$loader_at" != - ] || [[ $seen != *BdsDxe* ]] || loader_at=$((SECONDS - start))
    [ "$up_at" != - ] || [[ $seen != *up* ]] || up_at=$((SECONDS - start))
    if [ "$mode" = hang ] && [[ $seen == *hanging* ]]; then
      sleep 1; kill "$qemu_pid"; break
    fi
    [ $((SECONDS - start)) -lt "$limit" ] || { kill "$qemu_pid"; fail "boot $name: no power-off in $limit s"; }
    sleep 0.5
  done
  wait "$qemu_pid" 2>/dev/null || true
  qemu_pid=
  [ "$up_at" != - ] || [ -z "$(said "$name" up)" ] || up_at="<$((SECONDS - start))"
  echo "qemu_boot: boot $boots ($name) took $((SECONDS - start)) s (boot loader at $loader_at s, init at $up_at s)"
}
# The serial console's lines (GRUB, the firmware and the kernel end lines in CR LF, or start
# them with a CR), and what the guest printed there as `wiredcap-guest: KEY VALUE`.
serial() { tr -d '\r' < "$work/$1.serial.log"; }
said() { serial "$1" | sed -n "s/^wiredcap-guest: $2 //p" | tail -n 1; }
# The guest's report in the simulated root's /proc and /sys, as a booted machine holds them.
# amdgpu_ttm_init sizes GTT as pages_limit << PAGE_SHIFT: there is no amdgpu in the VM, so
# that derived figure is written for it.
install_report() {
  local name=$1 pages
  pages=$(said "$name" pages_limit)
  [ -n "$pages" ] || fail "boot $name reported no pages_limit"
  said "$name" cmdline > "$root/proc/cmdline"
  said "$name" up > "$root/proc/sys/kernel/random/boot_id"
  echo "$(said "$name" uptime | cut -d' ' -f1) 0.00" > "$root/proc/uptime"
  echo "$pages" > "$root/sys/module/ttm/parameters/pages_limit"
  echo $((pages * 4096)) > "$root/sys/class/drm/card1/device/mem_info_gtt_total"
}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

trial=27648000 hung=31457280  # 108000 MiB and 120 GiB in 4 KiB pages
grep -q 'KernelPageSize: *4 kB' "$root/proc/self/smaps" || fail "the profile's page size is not 4 KiB"

# --- boot 1: the trial ----------------------------------------------------------------------
system_on_esp trial 108000MiB >/dev/null
[ "$(esp_env | sed -n 's/^next_entry=//p')" = wiredcap-trial ] || fail "the ESP's grubenv has no next_entry after ttm-trial"
boot trial
grep -q " ttm.pages_limit=$trial\$" <<<"$(said trial cmdline)" ||
  fail "the trial boot's kernel command line lacks ttm.pages_limit=$trial"
[ "$(said trial pages_limit)" = "$trial" ] || fail "the trial boot's pages_limit is $(said trial pages_limit), not $trial"
[ -z "$(esp_env | sed -n 's/^next_entry=//p')" ] || fail "GRUB did not clear next_entry on the ESP"
install_report trial
system_on_esp after-boot >/dev/null || fail "ttm-after-boot on the trial boot exited $?"
system_on_esp confirm --check true >/dev/null || fail "ttm-confirm exited $?"
grep -q "ttm.pages_limit=$trial" "$root/boot/grub/grub.cfg" || fail "update-grub's grub.cfg lacks the confirmed value"

# --- boot 2: the default now carries the kept value ------------------------------------------
boot kept
[ "$(said kept pages_limit)" = "$trial" ] || fail "the boot after confirmation reads $(said kept pages_limit), not $trial"
grep -q " quiet ttm.pages_limit=$trial\$" <<<"$(said kept cmdline)" ||
  fail "the default entry did not boot the kept value from GRUB_CMDLINE_LINUX_DEFAULT"
install_report kept
system_on_esp after-boot >/dev/null || fail "ttm-after-boot on the kept default exited $?"

# --- boot 3: a trial that hangs; boot 4: the default, the one-shot consumed --------------------
system_on_esp trial 120GiB >/dev/null
boot hang hang
[ -z "$(said hang pages_limit)" ] || fail "the hanging trial reported"
[ "$(said hang hanging)" = "$hung" ] || fail "the hanging boot did not run the trial's $hung pages"
[ -z "$(esp_env | sed -n 's/^next_entry=//p')" ] || fail "GRUB did not clear next_entry before the hung boot's kernel"
boot after-hang
! grep -q "ttm.pages_limit=$hung" <<<"$(said after-hang cmdline)" || fail "the boot after the hang still carries the trial's value"
[ "$(said after-hang pages_limit)" = "$trial" ] || fail "the boot after the hang reads $(said after-hang pages_limit), not the kept $trial"
install_report after-hang
rc=0; system_on_esp after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 9 ] || fail "ttm-after-boot after the hung trial exited $rc, not 9 (reverted and remembered)"

# The journal, as its readers see it: the records in order, each in the boot it names (the
# guests' own boot ids), and status --json's hang ceiling and stored default through the
# classifier every reader calls. recover's exit: nothing pending (0), the hang remembered.
want="ttm-trial:intent ttm-trial:trial-scheduled ttm-after-boot:trial-booted ttm-confirm:intent \
ttm-confirm:made-default ttm-trial:intent ttm-trial:trial-scheduled ttm-after-boot:hung "
[ "$(events)" = "$want" ] || fail "the journal reads: $(events)"
grep -q "\"boot\":\"$(said trial up)\",.*\"event\":\"trial-booted\",.*\"readback_pages\":$trial" "$(journal)" ||
  fail "trial-booted is not the trial boot's read-back"
grep -q "\"boot\":\"$(said after-hang up)\",.*\"event\":\"hung\",.*\"to_pages\":$hung" "$(journal)" ||
  fail "the hang is not recorded by the boot after it"
front status --json > "$work/status.json"
[ "$(json "d['hang_ceiling']['value']['pages']" < "$work/status.json")" = "$hung" ] || fail "status --json's hang ceiling is not $hung"
[ "$(json "d['trial']['default']['value']['pages']" < "$work/status.json")" = "$trial" ] ||
  fail "status --json's stored default is not the confirmed $trial"
[ "$(json "d['trial']['phase']" < "$work/status.json")" = default ] || fail "the trial's phase is not back to default"
[ "$(json "d['pages_limit']['value']['pages']" < "$work/status.json")" = "$trial" ] || fail "status reads another pages_limit"
rc=0; front recover >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "recover exits $rc after the hang was recorded (nothing is pending)"
# The hang binds: the same value again is refused before anything is written (exit 3).
rc=0; system_on_esp trial 120GiB >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "a trial at the hang ceiling exited $rc, not 3"
[ -z "$(esp_env | sed -n 's/^next_entry=//p')" ] || fail "a refused trial armed the ESP's one-shot"
# The kept default reads back on the boot after the hang (nothing more to record).
system_on_esp after-boot >/dev/null || fail "ttm-after-boot's default read-back after the hang exited $?"

# --- systemd-boot: LoaderEntryOneShot in OVMF's NVRAM, a trial that hangs, the boot after ----
# The ESP is the simulated root's /efi (loader.conf, the entries); the EFI variable that
# ttm-trial writes in the root's efivarfs is put into this machine's OVMF variable store from
# the host before the boot (qemu/ovmf_vars.py, edk2's layout), and read back from it after:
# systemd-boot deletes it when it boots the entry (systemd-boot(7)).
root=$sdroot
"$sim" init --root "$root" --profile strix-128-sdboot >/dev/null
guid=4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
oneshot_var=$root/sys/firmware/efi/efivars/LoaderEntryOneShot-$guid
entry=$root/efi/loader/entries/arch-6.12.conf
sed -i "s/^options .*/options ro console=ttyS0 loglevel=3 wiredcap_test.hang_above=$hang_above quiet/" "$entry"
sed -n 's/^options //p' "$entry" > "$root/etc/kernel/cmdline"
sed -i 's/^timeout .*/timeout 0/' "$root/efi/loader/loader.conf"
vars=$work/sdboot-vars.fd
cp "$ovmf_vars" "$vars"
disk=$work/sdboot-disk.img
new_esp "$disk"
mmd -i "$esp" ::/loader ::/loader/entries
mcopy -i "$esp" /usr/lib/systemd/boot/efi/systemd-bootx64.efi ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$esp" "$cache/vmlinuz-$kver" ::/vmlinuz-linux
mcopy -i "$esp" "$work/initrd.img" ::/initramfs-linux.img
sd_to_esp() {
  mcopy -o -i "$esp" "$root/efi/loader/loader.conf" ::/loader/
  mdel -i "$esp" '::/loader/entries/*' 2>/dev/null || true
  mcopy -o -i "$esp" "$root"/efi/loader/entries/* ::/loader/entries/
  if [ -e "$oneshot_var" ] && ! python3 "$here/qemu/ovmf_vars.py" get "$vars" LoaderEntryOneShot "$guid" >/dev/null; then
    python3 "$here/qemu/ovmf_vars.py" set "$vars" LoaderEntryOneShot "$guid" "$oneshot_var"
  fi
}
sd_from_nvram() {  # efivarfs after a boot: what the firmware's store holds
  if python3 "$here/qemu/ovmf_vars.py" get "$vars" LoaderEntryOneShot "$guid" > "$work/oneshot.now"; then
    cp "$work/oneshot.now" "$oneshot_var"
  else
    rm -f "$oneshot_var"
  fi
}
sd_to_esp
sys trial 120GiB >/dev/null
sd_to_esp
python3 "$here/qemu/ovmf_vars.py" get "$vars" LoaderEntryOneShot "$guid" | tail -c +5 | tr -d '\0' |
  grep -qx wiredcap-trial.conf || fail "OVMF's store does not hold LoaderEntryOneShot=wiredcap-trial.conf"
boot sd-hang hang
[ "$(said sd-hang hanging)" = "$hung" ] || fail "systemd-boot's one-shot boot did not run the trial's $hung pages"
sd_from_nvram
[ ! -e "$oneshot_var" ] || fail "systemd-boot left LoaderEntryOneShot in the firmware's store"
boot sd-after-hang
sd_from_nvram
! grep -q "ttm.pages_limit" <<<"$(said sd-after-hang cmdline)" || fail "the boot after the hang carries a ttm.pages_limit"
grep -q "^initrd=.initramfs-linux.img ro console=ttyS0" <<<"$(said sd-after-hang cmdline)" ||
  fail "the boot after the hang is not the default entry: $(said sd-after-hang cmdline)"
install_report sd-after-hang
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 9 ] || fail "systemd-boot: ttm-after-boot after the hung trial exited $rc, not 9"
[ "$(events)" = "ttm-trial:intent ttm-trial:trial-scheduled ttm-after-boot:hung " ] ||
  fail "systemd-boot: the journal reads: $(events)"
front status --json > "$work/sdboot-status.json"
[ "$(json "d['hang_ceiling']['value']['pages']" < "$work/sdboot-status.json")" = "$hung" ] ||
  fail "systemd-boot: status --json's hang ceiling is not $hung"
[ "$(json "d['trial']['phase']" < "$work/sdboot-status.json")" = none ] || fail "systemd-boot: the trial is not settled"
echo "qemu_boot: PASS, $boots boots in $SECONDS s"
