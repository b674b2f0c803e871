#!/usr/bin/env bash
# The after-boot unit (packaging/systemd/wiredcap-ttm-after-boot.service): systemd accepts it
# (systemd-analyze verify, its ExecStart pointed at this build's program), it runs the
# installed wiredcap-system (LAYOUT.md's path) with a subcommand that program has, and the exit
# code it tolerates is the one ttm-after-boot uses for a trial that did not settle (9).
# usage: unit_test.sh SYSTEM SOURCE_DIR
set -euo pipefail
system=$1 src=$2
unit=$src/packaging/systemd/wiredcap-ttm-after-boot.service
work=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-unit.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
read -r program subcommand rest <<<"$exec_start"
[ "$program" = /usr/local/libexec/wiredcap/wiredcap-system ] || fail "ExecStart runs $program"
grep -q '`libexec/wiredcap/wiredcap-system`' "$src/packaging/LAYOUT.md" || fail "LAYOUT.md does not install it there"
# The bounded wait for amdgpu, an option the subcommand takes (its usage line says so).
read -r option seconds extra <<<"${rest:-}"
{ [ "$option" = --wait-driver ] && [ -n "$seconds" ] && [ -z "${extra:-}" ]; } || fail "ExecStart's options: $rest"
{ [ "$seconds" -gt 0 ] && [ "$seconds" -le 600 ]; } || fail "--wait-driver $seconds is not 1..600"
timeout=$(sed -n 's/^TimeoutStartSec=//p' "$unit")
[ "${timeout:-0}" -gt "$seconds" ] || fail "TimeoutStartSec=${timeout:-} does not outlast --wait-driver $seconds"
"$system" --help | grep -q "^  $subcommand \[--wait-driver S\]" || fail "wiredcap-system has no $subcommand --wait-driver"
grep -q '^SuccessExitStatus=9$' "$unit" || fail "SuccessExitStatus is not 9 (ramp_reverted)"
grep -q 'ramp_reverted = 9' "$src/common/include/wiredcap/exit_codes.hpp" || fail "exit code 9 moved"
if command -v systemd-analyze >/dev/null; then
  sed "s|^ExecStart=$program|ExecStart=$system|" "$unit" >"$work/$(basename "$unit")"
  systemd-analyze verify "$work/$(basename "$unit")" 2>"$work/err" || { cat "$work/err" >&2; fail "systemd-analyze verify"; }
  # A container without systemd's own units cannot resolve the default dependencies; any
  # other complaint is the unit's.
  if grep -v 'target not found' "$work/err" | grep -q .; then
    cat "$work/err" >&2
    fail "systemd-analyze complained"
  fi
  timer=${unit%.service}.timer
  grep -q '^Unit=wiredcap-ttm-after-boot.service$' "$timer" || fail "the timer does not start the service"
  cp "$timer" "$work/"
  systemd-analyze verify "$work/$(basename "$timer")" 2>"$work/err" || { cat "$work/err" >&2; fail "verify timer"; }
  if grep -v 'target not found' "$work/err" | grep -q .; then cat "$work/err" >&2; fail "systemd-analyze complained (timer)"; fi
  echo "ok: systemd-analyze verify"
fi
# The udev rule starts the unit when amdgpu registers a DRM card (not a connector), whenever
# that is: from the initramfs (udev's coldplug replays it) or late from udev. Debian 12's udev
# (252) has no `udevadm verify` (systemd 254); where it exists it runs, and every line is
# checked here for udev's own keys and operators either way.
rule=$src/packaging/udev/71-wiredcap-ttm.rules
line=$(grep -v '^#' "$rule" | grep .)
[ "$(wc -l <<<"$line")" = 1 ] || fail "the rule file holds more than one rule"
for want in 'ACTION=="add"' 'SUBSYSTEM=="drm"' 'KERNEL=="card[0-9]*"' 'ENV{DEVTYPE}=="drm_minor"' \
            'DRIVERS=="amdgpu"' 'TAG+="systemd"' "ENV{SYSTEMD_WANTS}+=\"$(basename "$unit")\""; do
  grep -qF "$want" <<<"$line" || fail "the rule lacks $want"
done
rest=$line
while [ -n "$rest" ]; do  # KEY or KEY{ARG}, an operator, a quoted value, then ", " or the end
  [[ $rest =~ ^(ACTION|SUBSYSTEM|KERNEL|DRIVERS|TAG|ENV\{[A-Z_]+\})(==|\+=)\"[^\"]*\"(,\ |$)(.*)$ ]] \
    || fail "not a udev key/operator/value here: $rest"
  rest=${BASH_REMATCH[4]}
done
if command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1; then
  udevadm verify "$rule" || fail "udevadm verify"
  echo "ok: udevadm verify"
fi
grep -q "udev/71-wiredcap-ttm.rules" "$src/cmake/Install.cmake" || fail "the rule is not installed"
echo "unit: ok"
