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
[ -z "${rest:-}" ] || fail "ExecStart passes more than a subcommand: $rest"
"$system" --help | grep -q "^  $subcommand " || fail "wiredcap-system has no $subcommand"
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
echo "unit: ok"
