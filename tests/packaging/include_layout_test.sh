#!/usr/bin/env bash
# Includes say where they point (tools/include-layout): no "src/..." or "journal/..." without a
# library prefix, and nothing in ramp/ includes the CLI's commands. The check passes on the
# source and fails on a tree with each offence planted (a check that cannot fail is no check).
# Usage: include_layout_test.sh SOURCE_DIR
set -uo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

"$src/tools/include-layout" "$src" || fail "the source has an include without its library or a ramp-to-command include"

tree=$(mktemp -d); trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/ramp/src" "$tree/system/src"
printf '#include "wiredcap/ramp/plan.hpp"\n#include "wiredcap/cli/commands/recover_cmd.hpp"\n' > "$tree/ramp/src/plan.cpp"
out=$("$src/tools/include-layout" "$tree" 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "ramp/ including a command passed (exit $rc): $out"
echo "$out" | grep -q '^ramp/src/plan.cpp:2: ' || fail "the ramp's include of a command is not named: $out"

rm -r "$tree/ramp"
printf '#include "wiredcap/system/journal/upkeep.hpp"\n  #include "journal/journal.hpp"\n#include "src/commands.hpp"\n' \
  > "$tree/system/src/upkeep.cpp"
out=$("$src/tools/include-layout" "$tree" 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "includes without a library prefix passed (exit $rc): $out"
echo "$out" | grep -q '^system/src/upkeep.cpp:2: ' || fail "\"journal/...\" is not named: $out"
echo "$out" | grep -q '^system/src/upkeep.cpp:3: ' || fail "\"src/...\" is not named: $out"
[ "$(echo "$out" | wc -l)" -eq 2 ] || fail "a prefixed include was named: $out"
echo "ok: includes carry their library; ramp/ includes no command; planted offences are named"
