#!/usr/bin/env bash
# One spelling of the journal's words (tools/record-words): the source has no record word as a
# literal outside common/include/wiredcap/journal/vocabulary.hpp, and the check fails on a tree
# where a reader spells one itself (a check that cannot fail is no check).
# Usage: record_words_test.sh SOURCE_DIR
set -uo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

"$src/tools/record-words" "$src" || fail "the source spells a journal word outside the vocabulary"

tree=$(mktemp -d); trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/common/include/wiredcap/journal" "$tree/ramp"
cp "$src/common/include/wiredcap/journal/vocabulary.hpp" "$tree/common/include/wiredcap/journal/"
printf 'bool settled(std::string_view e) { return e == "revert_applied"; }\n' > "$tree/ramp/reader.cpp"
out=$("$src/tools/record-words" "$tree" 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "a reader spelling revert_applied passed (exit $rc): $out"
echo "$out" | grep -q '^ramp/reader.cpp:1: ' || fail "the offending line is not named: $out"
printf '  o.boolean("healthy", ok);  // not a journal word: a key of the answer\n' > "$tree/ramp/reader.cpp"
"$src/tools/record-words" "$tree" >/dev/null || fail "a line that says it is not a journal word was refused"
echo "ok: no journal word outside the vocabulary; a planted one is named"
