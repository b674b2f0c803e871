#!/usr/bin/env bash
# docs/linux.md's examples: every line of its ```sh blocks runs, in order, against this build's
# wiredcap-ttm and wiredcap-sim-linux in a scratch root standing in for the /tmp/apu it names.
# usage: docs_test.sh TTM SIM DOC
set -euo pipefail
ttm=$1 sim=$2 doc=$3
root=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-docs.XXXXXX")
trap 'rm -rf "$root"' EXIT
n=0
while IFS= read -r line; do
  line=${line//\/tmp\/apu/$root}
  read -ra words <<<"$line"
  case ${words[0]} in
    wiredcap-ttm) words[0]=$ttm ;;
    wiredcap-sim-linux) words[0]=$sim ;;
    *) echo "FAIL: not a wiredcap-ttm or wiredcap-sim-linux example: $line" >&2; exit 1 ;;
  esac
  "${words[@]}" >/dev/null || { echo "FAIL: exit $?: $line" >&2; exit 1; }
  n=$((n + 1))
done < <(awk '/^```sh$/{on=1; next} /^```/{on=0} on && NF' "$doc")
[ "$n" -gt 0 ] || { echo "FAIL: no examples in $doc" >&2; exit 1; }
echo "$n examples of $doc: ok"
