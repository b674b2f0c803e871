#!/usr/bin/env bash
# shellcheck disable=SC2016  # the backticks below are Markdown code spans, not commands
# The docs runner fails a wrong example, and names it: each doctored copy of a document must
# fail with exactly one failure, at the line that was changed.
#   selftest.sh RUNNER SOURCE_DIR WORKDIR --wiredcap W --helper H --sim S
set -uo pipefail
[ "$(id -u)" = 0 ] || { echo "SKIP: the docs tests run as root (as CI does)"; exit 77; }
runner=$1 src=$2 work=$3; shift 3
rm -rf "$work" && mkdir -p "$work" || exit 1
failed=0
# doctor NAME DOC SED_EXPRESSION PATTERN RUNNER_OPTIONS...: a copy of DOC (a path in the source
# tree) with the first line matching PATTERN changed by the sed expression, run through the
# runner, which must exit 1 with one failure that names that line.
doctor() {
  local name=$1 doc=$2 expr=$3 pattern=$4 copy line out rc
  shift 4
  copy=$work/$name/$(basename "$doc")
  mkdir -p "$work/$name"
  line=$(grep -n -m1 -e "$pattern" "$src/$doc" | cut -d: -f1)
  [ -n "$line" ] || { echo "FAIL $name: $doc has no line matching '$pattern' to doctor"; failed=1; return; }
  sed "${line}${expr}" "$src/$doc" >"$copy"
  cmp -s "$src/$doc" "$copy" && { echo "FAIL $name: the doctoring changed nothing"; failed=1; return; }
  out=$(python3 "$runner" "$@" --work "$work/$name/run" "$copy" 2>&1); rc=$?
  echo "$out" >"$work/$name/report.txt"
  if [ "$rc" != 1 ]; then
    echo "FAIL $name: the runner exited $rc on a doctored $doc (line $line), not 1"; failed=1
  elif [ "$(grep -c '^FAIL ' <<<"$out")" != 1 ]; then
    echo "FAIL $name: expected exactly one failure, got:"; grep -A3 '^FAIL ' <<<"$out"; failed=1
  elif ! grep -q "^FAIL $copy:$line: \|expected line $copy:$line " <<<"$out"; then
    echo "FAIL $name: the failure does not name line $line:"; grep -A3 '^FAIL ' <<<"$out"; failed=1
  else
    echo "ok   $name: the doctored $doc line $line fails:"; grep -A4 '^FAIL ' <<<"$out"
  fi
}
# A row of the commands table that lists exit codes the command does not use.
doctor exit_codes README.md 's/| 0, 7 |$/| 7 |/' '^| `wiredcap status` |.*| 0, 7 |$' "$@"
# A shown output line that the program does not print (the effective cap, one MiB off).
doctor output_line README.md 's/161792 MiB/161793 MiB/' '^effective GPU cap  *161792 MiB' "$@"
# A command in a sh block with an option that does not exist.
doctor usage_error README.md 's/wiredcap reset  /wiredcap reset --frobnicate/' '^wiredcap reset  ' "$@"
# A syntax in the commands table with an option that does not exist.
doctor table_syntax README.md 's/`wiredcap persist --off`/`wiredcap persist --of`/' '`wiredcap persist --off`' "$@"
# A figure in output shown for a state (a hang recorded), rounded up where the tool cuts down.
doctor state_output docs/recovery.md 's/120\.25 GB/120.26 GB/' '(112.00 GiB, 120.25 GB), 2026' "$@"
# A man page's example with a misspelt option.
doctor man_example packaging/man/wiredcap.1 's/\\-\\-step 16GiB/\\-\\-stepp 16GiB/' '^wiredcap ramp .*step 16GiB' "$@"
# A row of the JSON table naming another schema than the command prints.
doctor schema_row docs/json-schema.md 's/`wiredcap.recover\/2`/`wiredcap.status\/2`/' '^| `wiredcap.recover/2` |' "$@"
# Root's program named in prose with a misspelt command, and the same behind sudo.
doctor root_span docs/helper.md 's/`wiredcap-system boot-action`/`wiredcap-system boot-actoin`/' '`wiredcap-system boot-action`' "$@"
doctor sudo_span docs/linux.md 's/`sudo wiredcap-system compact`/`sudo wiredcap-system compcat`/' '`sudo wiredcap-system compact`' "$@"
[ "$failed" = 0 ] && echo "PASS: every doctored document failed at its line"
exit "$failed"
