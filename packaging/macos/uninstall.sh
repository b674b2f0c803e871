#!/bin/bash
# Removes what the wiredcap pkg installed. Run as root:
#
#   sudo /usr/local/libexec/wiredcap/uninstall.sh [--purge] [--root DIR] [--identifier ID]
#
#   --purge          also remove the policy /etc/wiredcap.conf, the journal directory
#                    /var/db/wiredcap and the boot disable switch /etc/wiredcap.boot-disabled
#                    (kept by default: the policy is the administrator's, the journal is the
#                    audit trail and the record of any value that hung the machine)
#   --root DIR       the volume to work on (default /); the tests use a staging tree
#   --identifier ID  the package identifier given to build-pkg.sh (default org.wiredcap.wiredcap)
#
# It first unloads the boot LaunchDaemon (launchctl bootout system/org.wiredcap.boot, on the
# running system) and clears its own entry in launchd's override database when that says
# disabled (launchctl enable system/org.wiredcap.boot: a later install must not meet a stale
# override that makes every bootstrap fail), then removes exactly the files listed in packaging/LAYOUT.md (with
# /Library/LaunchDaemons/org.wiredcap.boot.plist), the directories only wiredcap uses (when
# empty), and /etc/sudoers.d/wiredcap if present (a sudo rule for a program that is gone must
# not stay behind), then forgets the package receipt (pkgutil --forget). Shared
# directories such as /usr/local/bin stay. It always removes the value stored for boot,
# /var/db/wiredcap/boot.state (with or without --purge): a later install loads the LaunchDaemon
# again, and it must not find an old value to apply. It does not change the cap: a value set
# with wiredcap stays until the next reboot; run `wiredcap reset` first to go back to the OS
# default now.
#
# Root runs it, so it lives in the root-owned libexec/wiredcap/ and refuses to go on when it,
# or a directory above it, is not root's or is writable by anyone else (a copy someone else
# could have changed); it runs programs only from the system's directories.
set -euo pipefail
PATH=/usr/bin:/bin:/usr/sbin:/sbin
export PATH

# root-chain:begin
# wiredcap_trusted PATH: succeeds only if PATH is no symbolic link, and it and every directory
# above it (as written, and with its links resolved) are owned by root and writable by nobody
# else: whoever may write any of them could replace what root is about to run or read.
# Otherwise it names the path that failed, and why. (A link may stand for a directory if root
# owns it: only root can change a link in a directory only root may write.)
wiredcap_trusted() (
  _wc_target=$1
  refuse() { printf 'wiredcap: refusing %s: %s (whoever may change it may replace what runs as root)\n' "$_wc_target" "$*" >&2; exit 1; }
  chain() {
    _wc_path=$1
    while :; do
      _wc_line=$(LC_ALL=C ls -ldn "$_wc_path" 2>/dev/null) || refuse "cannot read $_wc_path"
      set -f
      # shellcheck disable=SC2086  # the fields of ls's line, split on purpose
      set -- $_wc_line
      set +f
      [ "$3" = 0 ] || refuse "$_wc_path is owned by uid $3, not root"
      case $1 in
        l*) ;;
        ?????w*|????????w*) refuse "$_wc_path is writable by its group or by others ($1)" ;;
      esac
      [ "$_wc_path" = / ] && return 0
      _wc_path=$(dirname "$_wc_path")
    done
  }
  case $_wc_target in /*) ;; *) refuse "not an absolute path" ;; esac
  [ -L "$_wc_target" ] && refuse "$_wc_target is a symbolic link"
  chain "$_wc_target"
  _wc_dir=$(cd -P "$(dirname "$_wc_target")" 2>/dev/null && pwd -P) || refuse "cannot resolve $(dirname "$_wc_target")"
  chain "$_wc_dir"
)
# root-chain:end

root=/
identifier=org.wiredcap.wiredcap
purge=0

die() { printf 'uninstall.sh: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --purge)      purge=1; shift ;;
    --root)       if [ $# -lt 2 ] || [ -z "$2" ]; then die "--root needs a value"; fi; root=$2; shift 2 ;;
    --identifier) if [ $# -lt 2 ] || [ -z "$2" ]; then die "--identifier needs a value"; fi; identifier=$2; shift 2 ;;
    -h|--help)    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *)            die "unknown argument '$1' (see --help)" ;;
  esac
done

[ -d "$root" ] || die "$root is not a directory"
if [ "$root" = / ] && [ "$(id -u)" -ne 0 ]; then die "run it as root (sudo $0)"; fi
if [ "$(id -u)" = 0 ]; then
  self=$(cd -P "$(dirname "$0")" && pwd -P)/$(basename "$0")
  wiredcap_trusted "$self" || die "run the package's own copy: sudo /usr/local/libexec/wiredcap/uninstall.sh"
fi
base=${root%/}
prefix=$base/usr/local
daemon_label=org.wiredcap.boot
daemon_plist=$base/Library/LaunchDaemons/$daemon_label.plist

# The LaunchDaemon first, so launchd does not run a helper that is being removed; then its
# override ("LABEL" => disabled; "true" before macOS 11), which would outlive the package.
unload_boot_daemon() {
  local listed
  if launchctl bootout system/"$daemon_label" 2>/dev/null; then
    printf 'unloaded %s\n' "$daemon_label"
  else
    printf '%s was not loaded\n' "$daemon_label"
  fi
  listed=$(launchctl print-disabled system 2>/dev/null) || listed=
  if grep -qE "^[[:space:]]*\"$daemon_label\"[[:space:]]*=>[[:space:]]*(disabled|true)[[:space:]]*\$" <<<"$listed"; then
    if launchctl enable system/"$daemon_label"; then
      printf 'cleared the disabled override of %s (launchctl enable system/%s)\n' "$daemon_label" "$daemon_label"
    else
      printf 'could not clear the disabled override of %s: run sudo launchctl enable system/%s\n' \
        "$daemon_label" "$daemon_label" >&2
    fi
  fi
}
if [ "$base" = "" ] && command -v launchctl >/dev/null; then
  unload_boot_daemon
elif [ "$base" = "" ]; then
  printf 'launchctl not found (not macOS): no LaunchDaemon to unload\n'
fi

files=(
  "$daemon_plist"
  "$prefix/bin/wiredcap"
  "$prefix/libexec/wiredcap/wiredcap"
  "$prefix/libexec/wiredcap/wiredcap-helper"
  "$prefix/libexec/wiredcap/wiredcap-system"
  "$prefix/share/man/man1/wiredcap.1"
  "$prefix/share/man/man8/wiredcap-helper.8"
  "$prefix/share/bash-completion/completions/wiredcap"
  "$prefix/share/zsh/site-functions/_wiredcap"
  "$prefix/share/fish/vendor_completions.d/wiredcap.fish"
  "$prefix/share/wiredcap/wiredcap.conf.example"
  "$prefix/share/wiredcap/sudoers.d/wiredcap"
  "$prefix/share/wiredcap/org.wiredcap.boot.plist"
  "$prefix/share/wiredcap/org.wiredcap.metrics.plist"
  "$prefix/share/wiredcap/org.wiredcap.boot.managed-login-items.mobileconfig"
  "$prefix/share/wiredcap/prometheus/wiredcap.rules.yml"
  "$prefix/share/wiredcap/systemd/wiredcap-ttm-after-boot.service"
  "$prefix/share/wiredcap/systemd/wiredcap-ttm-after-boot.timer"
  "$prefix/share/wiredcap/udev/71-wiredcap-ttm.rules"
  "$prefix/libexec/wiredcap/uninstall.sh"
  "$prefix/share/wiredcap/uninstall.sh"
  "$base/etc/sudoers.d/wiredcap"
)
# The --json contract's schemas, by name (LAYOUT.md lists the same): a file someone else put in
# that directory stays, and so does the directory then.
for schema in change-2.json common-2.json convert-2.json error-1.json fit-2.json \
  linux-status-1.json persist-2.json policy-check-2.json ramp-2.json \
  ramp-plan-2.json recover-2.json status-2.json version-1.json; do
  files+=("$prefix/share/wiredcap/schema/$schema")
done
own_dirs=(
  "$prefix/libexec/wiredcap"
  "$prefix/share/wiredcap/sudoers.d"
  "$prefix/share/wiredcap/systemd"
  "$prefix/share/wiredcap/udev"
  "$prefix/share/wiredcap/schema"
  "$prefix/share/wiredcap/prometheus"
  "$prefix/share/wiredcap"
)

for f in "${files[@]}"; do
  if [ -e "$f" ] || [ -L "$f" ]; then
    rm -f "$f"
    printf 'removed %s\n' "$f"
  fi
done
for d in "${own_dirs[@]}"; do
  if [ -d "$d" ]; then
    if rmdir "$d" 2>/dev/null; then
      printf 'removed %s/\n' "$d"
    else
      printf 'kept %s/ (not empty: files wiredcap did not install)\n' "$d"
    fi
  fi
done

policy=$base/etc/wiredcap.conf
journal_dir=$base/var/db/wiredcap
boot_switch=$base/etc/wiredcap.boot-disabled
boot_state=$journal_dir/boot.state

# The value stored for boot goes even without --purge (the journal stays: it is the record);
# the LaunchDaemon is already unloaded, so no boot action is writing it now. Its temporary
# file (boot.state.new, left by a write that was cut short) goes with it. Whatever is at the
# path goes: the helper would refuse to read anything but a regular file anyway.
for f in "$boot_state" "$boot_state.new"; do
  if [ -e "$f" ] || [ -L "$f" ]; then
    rm -rf "$f"
    printf 'removed %s (the value stored for boot; a later install applies nothing)\n' "$f"
  fi
done
if [ "$purge" = 1 ]; then
  if [ -e "$policy" ] || [ -L "$policy" ]; then rm -f "$policy"; printf 'removed %s\n' "$policy"; fi
  if [ -e "$journal_dir" ] || [ -L "$journal_dir" ]; then rm -rf "$journal_dir"; printf 'removed %s/\n' "$journal_dir"; fi
  # The switch may be a file, a directory or a link (anything there disables the boot action).
  if [ -e "$boot_switch" ] || [ -L "$boot_switch" ]; then rm -rf "$boot_switch"; printf 'removed %s\n' "$boot_switch"; fi
else
  if [ -e "$policy" ]; then printf 'kept %s (--purge removes it)\n' "$policy"; fi
  if [ -e "$journal_dir" ]; then printf 'kept %s/ (--purge removes it)\n' "$journal_dir"; fi
  if [ -e "$boot_switch" ] || [ -L "$boot_switch" ]; then printf 'kept %s (--purge removes it)\n' "$boot_switch"; fi
fi

if command -v pkgutil >/dev/null; then
  if pkgutil --volume "$root" --pkg-info "$identifier" >/dev/null 2>&1; then
    pkgutil --volume "$root" --forget "$identifier"
  else
    printf 'no package receipt %s on %s\n' "$identifier" "$root"
  fi
else
  printf 'pkgutil not found (not macOS): no package receipt to forget\n'
fi
printf 'wiredcap is uninstalled. The cap stays as it is until the next reboot; to go back to the OS default now: sudo sysctl iogpu.wired_limit_mb=0\n'
