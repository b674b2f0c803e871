#!/bin/sh
# /init of the guest's initramfs (busybox-static): what a booted APU's udev and
# wiredcap-ttm-after-boot would read, printed on the serial console, then power off.
# The VM has no amdgpu, so ttm is loaded alone: busybox's modprobe, like kmod, adds the
# `ttm.*` options it finds on the kernel's command line (modutils/modprobe.c,
# parse_and_add_kcmdline_module_options).
/bin/busybox mkdir -p /proc /sys /dev
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
say() { echo "wiredcap-guest: $*"; }
say "up $(cat /proc/sys/kernel/random/boot_id)"
depmod
modprobe ttm || say "modprobe-failed"
pages=$(cat /sys/module/ttm/parameters/pages_limit 2>/dev/null || echo unreadable)
# The test's stand-in for a value too high for the machine: a guest given
# wiredcap_test.hang_above=N stops here, before it reports, when pages_limit is above N
# (saying which value it hangs with: the trial's entry was the one booted).
# shellcheck disable=SC2013  # the command line's words, split as the kernel splits them
for word in $(cat /proc/cmdline); do
  case $word in
    wiredcap_test.hang_above=*)
      if [ "$pages" != unreadable ] && [ "$pages" -gt "${word#*=}" ]; then
        say "hanging $pages"
        while :; do sleep 3600; done
      fi ;;
  esac
done
say "cmdline $(cat /proc/cmdline)"
say "pages_limit $pages"
say "$(grep -m1 KernelPageSize /proc/self/smaps)"
say "$(grep MemTotal /proc/meminfo)"
say "uptime $(cat /proc/uptime)"
say "end"
poweroff -f
