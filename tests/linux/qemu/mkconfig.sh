#!/bin/sh
# The booted VM's update-grub: writes ROOT/boot/grub/grub.cfg as grub-mkconfig would, from
# ROOT/etc/default/grub. The one-shot logic is not copied: the 00_header and 41_custom
# sections are the output of GRUB's own /etc/grub.d scripts (grub-common), run here. 00_header
# is what loads grubenv, boots next_entry once and clears it with save_env before the menu;
# 41_custom sources custom.cfg, where the trial's entry is. The 10_linux section is the one
# entry 10_linux's linux_entry writes for the simple case (a `linux` line with
# `ro ${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}`, an `initrd` line), for this
# ESP's kernel: the real 10_linux would probe the build machine's disks.
#
# usage: mkconfig.sh ROOT KERNEL_VERSION
set -eu
root=$1 version=$2
value() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$root/etc/default/grub" | tail -n 1; }
cfg=$root/boot/grub/grub.cfg
{
  echo "### BEGIN /etc/grub.d/00_header ###"
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin pkgdatadir=/usr/share/grub \
    GRUB_DEFAULT="$(value GRUB_DEFAULT)" GRUB_TIMEOUT="$(value GRUB_TIMEOUT)" \
    GRUB_TIMEOUT_STYLE=hidden sh /etc/grub.d/00_header
  echo "### END /etc/grub.d/00_header ###"
  echo "### BEGIN /etc/grub.d/10_linux ###"
  echo "menuentry 'Debian GNU/Linux' --class debian --class gnu-linux --class gnu --class os \$menuentry_id_option 'gnulinux-simple-qemu' {"
  printf '\tload_video\n\tinsmod gzio\n\techo\t%s\n' "'Loading Linux $version ...'"
  printf '\tlinux\t/vmlinuz-%s ro %s %s\n' "$version" "$(value GRUB_CMDLINE_LINUX)" "$(value GRUB_CMDLINE_LINUX_DEFAULT)"
  printf '\tinitrd\t/initrd.img-%s\n}\n' "$version"
  echo "### END /etc/grub.d/10_linux ###"
  echo "### BEGIN /etc/grub.d/41_custom ###"
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin sh /etc/grub.d/41_custom
  echo "### END /etc/grub.d/41_custom ###"
} > "$cfg.new"
mv "$cfg.new" "$cfg"
