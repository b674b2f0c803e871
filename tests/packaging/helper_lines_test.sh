#!/usr/bin/env bash
# The setuid helper's size gate (tools/helper-lines), in the test suite as in CI: the
# count of this build's helper is within the script's ceiling, and the gate fails one line
# below the count (a gate that cannot fail is no gate).
# Usage: helper_lines_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$src/tools/helper-lines" "$build" 2>&1); rc=$?
echo "$out" | tail -3
[ "$rc" -eq 0 ] || fail "the helper is over the ceiling in tools/helper-lines (exit $rc)"
own=$(echo "$out" | sed -n 's/^ *\([0-9][0-9]*\)  lines of code in the setuid binary on a Mac.*/\1/p')
[ -n "$own" ] && [ "$own" -gt 0 ] || fail "no count of the setuid binary's lines in: $out"
helper=$(echo "$out" | sed -n 's/^ *\([0-9][0-9]*\)  lines of code in the setuid helper.s own.*/\1/p')
shared=$(echo "$out" | sed -n 's/^ *\([0-9][0-9]*\)  lines of code in the shared libraries.*/\1/p')
[ "$own" -eq "$((helper + shared))" ] || fail "the whole figure $own is not helper/ $helper + shared $shared"
echo "$out" | grep -q '^ *[0-9][0-9]*  common/' || fail "no file of common/ counted: $out"

"$src/tools/helper-lines" "$build" --max "$own" >/dev/null 2>&1 ||
  fail "--max $own (the count itself) was refused"
below=$("$src/tools/helper-lines" "$build" --max "$((own - 1))" 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 1 ] || fail "--max $((own - 1)) gave exit $rc, not 1"
echo "$below" | grep -q "binary has $own lines of code, over its gate of $((own - 1))" ||
  fail "no refusal naming the count: $below"
echo "ok: $own lines, within the ceiling; one line lower fails"
