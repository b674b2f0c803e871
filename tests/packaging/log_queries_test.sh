#!/usr/bin/env bash
# Every documented unified-log query finds both programs that log: the unified log's `process`
# is the executable that logged, and the boot action's records (trying, applied, healthy,
# tripped) come from wiredcap-system, not the helper. Each `log show --...` in README, docs/,
# SECURITY.md, the man pages and tools/mac-smoke must filter on
# process IN {"wiredcap-helper","wiredcap-system"}, and none may filter on one process alone.
#   log_queries_test.sh SOURCE_DIR
set -uo pipefail
src=$1
want='process IN {"wiredcap-helper","wiredcap-system"}'
fail=0 found=0
# roff's \- and \(dq, and the shell's \" (mac-smoke's say lines), read as the person sees them.
normal() { sed -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e 's/\\"/"/g' "$1"; }
files=("$src/README.md" "$src/SECURITY.md" "$src"/docs/*.md "$src"/packaging/man/*.[18] "$src/tools/mac-smoke")
for f in "${files[@]}"; do
  while IFS= read -r line; do
    found=$((found + 1))
    if [[ $line != *"$want"* ]]; then
      echo "FAIL: ${f#"$src"/}: a log show that does not name both processes: $line"
      fail=1
    fi
  done < <(normal "$f" | grep -E 'log show (--|-\\-)')
  if normal "$f" | grep -nE 'process ?== ?"wiredcap' >/dev/null; then
    echo "FAIL: ${f#"$src"/}: a query on one process alone: $(normal "$f" | grep -nE 'process ?== ?"wiredcap' | head -1)"
    fail=1
  fi
done
# Six queries are documented (docs/helper.md, docs/design.md twice, wiredcap-helper(8),
# mac-smoke's two sections); fewer means the grep above stopped seeing them.
if [ "$found" -lt 6 ]; then
  echo "FAIL: only $found documented log show queries found (expected at least 6)"
  fail=1
fi
[ "$fail" = 0 ] && echo "ok: $found documented log show queries, each names wiredcap-helper and wiredcap-system"
exit "$fail"
