#!/usr/bin/env bash
# The docs runner fails a wrong example, and names it: each doctored copy of README.md must
# fail with exactly one failure, at the line that was changed, quoting what was changed.
#   selftest.sh RUNNER README WORKDIR --wiredcap W --helper H --sim S
set -uo pipefail
[ "$(id -u)" = 0 ] || { echo "SKIP: the docs tests run as root (as CI does)"; exit 77; }
runner=$1 readme=$2 work=$3; shift 3
rm -rf "$work" && mkdir -p "$work" || exit 1
failed=0
# doctor NAME SED_EXPRESSION PATTERN: a copy of README with one line changed by the sed
# expression (PATTERN finds that line), run through the runner, which must fail once there.
doctor() {
  local name=$1 expr=$2 pattern=$3 copy=$work/$1/README.md line out rc
  shift 3  # the rest: the runner's program options
  mkdir -p "$work/$name"
  line=$(grep -n -m1 -e "$pattern" "$readme" | cut -d: -f1)
  [ -n "$line" ] || { echo "FAIL $name: README.md has no line matching '$pattern' to doctor"; failed=1; return; }
  sed "${line}${expr}" "$readme" >"$copy"
  cmp -s "$readme" "$copy" && { echo "FAIL $name: the doctoring changed nothing"; failed=1; return; }
  out=$(python3 "$runner" "$@" --work "$work/$name/run" "$copy" 2>&1); rc=$?
  echo "$out" >"$work/$name/report.txt"
  if [ "$rc" != 1 ]; then
    echo "FAIL $name: the runner exited $rc on a doctored README (line $line), not 1"; failed=1
  elif [ "$(grep -c '^FAIL ' <<<"$out")" != 1 ]; then
    echo "FAIL $name: expected exactly one failure, got:"; grep -A3 '^FAIL ' <<<"$out"; failed=1
  elif ! grep -q "^FAIL $copy:$line: \|expected line $copy:$line " <<<"$out"; then
    echo "FAIL $name: the failure does not name line $line:"; grep -A3 '^FAIL ' <<<"$out"; failed=1
  else
    echo "ok   $name: the doctored line $line fails:"; grep -A4 '^FAIL ' <<<"$out"
  fi
}
# A shown output line that the program does not print (the effective cap, one MiB off).
doctor output_line 's/161792 MiB/161793 MiB/' '^effective GPU cap  *161792 MiB' "$@"
# A command in a sh block with an option that does not exist.
doctor usage_error 's/wiredcap reset  /wiredcap reset --frobnicate/' '^wiredcap reset  ' "$@"
# A syntax in the commands table that names a subcommand that does not exist.
doctor table_syntax 's/`wiredcap persist --off`/`wiredcap persist --of`/' '`wiredcap persist --off`' "$@"
[ "$failed" = 0 ] && echo "PASS: every doctored README failed at its line"
exit "$failed"
