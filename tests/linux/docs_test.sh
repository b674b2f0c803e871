#!/usr/bin/env bash
# docs/linux.md's examples: every line of its ```sh blocks runs, in order, as written, against
# this build's wiredcap, wiredcap-system and wiredcap-sim-linux, in a scratch root standing in
# for the /tmp/apu the page names (`sudo` runs its command as is: the tests run as root); no
# option is added. Each must exit 0, or the code an `# exit N` comment at the end of its line
# names. The walk-through's journal is the one it names under /tmp/apu: it must hold the
# story's records, and this machine's journal must be as it was. Then each of its
# `wiredcap-system ttm-...` code spans in prose (which docs_test.py, on a simulated Mac, lists
# as not run there) runs on a fresh simulated APU: it must be accepted (not exit 1, 2 or >= 126).
# usage: docs_test.sh WIREDCAP SYSTEM SIM DOC
set -euo pipefail
wiredcap=$1 system=$2 sim=$3 doc=$4
root=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-docs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/.mac"
host_journal=/var/lib/wiredcap/journal.jsonl
host_before=$({ cat "$host_journal" 2>/dev/null || true; } | sha256sum)
n=0
while IFS= read -r line; do
  want=0
  if [[ $line =~ \#\ exit\ ([0-9]+)$ ]]; then want=${BASH_REMATCH[1]}; fi
  line=${line%%#*}
  line=${line//\/tmp\/apu/$root}
  read -ra words <<<"$line"
  [ "${words[0]}" = sudo ] && words=("${words[@]:1}")
  case ${words[0]} in
    wiredcap) words[0]=$wiredcap ;;
    wiredcap-sim-linux) words[0]=$sim ;;
    wiredcap-system) words[0]=$system ;;
    *) echo "FAIL: not a wiredcap example: $line" >&2; exit 1 ;;
  esac
  rc=0
  "${words[@]}" >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || { echo "FAIL: exit $rc, not $want: $line" >&2; exit 1; }
  n=$((n + 1))
done < <(awk '/^```sh$/{on=1; next} /^```/{on=0} on && NF' "$doc")
[ "$n" -gt 0 ] || { echo "FAIL: no examples in $doc" >&2; exit 1; }
grep -q '"command":"ttm-confirm","event":"made-default"' "$root/journal.jsonl" \
  || { echo "FAIL: the walk-through's journal under the scratch root lacks its records" >&2; exit 1; }
[ "$({ cat "$host_journal" 2>/dev/null || true; } | sha256sum)" = "$host_before" ] \
  || { echo "FAIL: the walk-through changed this machine's $host_journal" >&2; exit 1; }
echo "$n examples of $doc: ok"

# The verbs named in prose, each on a fresh simulated APU (its --root right after the verb, as
# in the block above); SIZE is a value inside its band.
spans=0
while IFS= read -r span; do
  span=${span//SIZE/100GiB}
  read -ra words <<<"$span"
  [ "${words[0]}" = sudo ] && words=("${words[@]:1}")
  fresh=$root/span && rm -rf "$fresh" && mkdir -p "$fresh/.mac"
  "$sim" init --root "$fresh" --profile strix-128 >/dev/null
  rc=0
  "$system" --sim-state "$fresh/.mac/sim-state" --journal "$fresh/.mac/journal" --policy "$fresh/.mac/policy" \
    "${words[1]}" --root "$fresh" "${words[@]:2}" >/dev/null 2>&1 || rc=$?
  if [ "$rc" = 1 ] || [ "$rc" = 2 ] || [ "$rc" -ge 126 ]; then
    echo "FAIL: exit $rc, the tool did not accept the example: $span" >&2; exit 1
  fi
  spans=$((spans + 1))
done < <(grep -oE '`(sudo )?wiredcap-system ttm-[a-z-]+( [^`]*)?`' "$doc" | tr -d '`')
[ "$spans" -gt 0 ] || { echo "FAIL: no wiredcap-system spans in $doc" >&2; exit 1; }
echo "$spans spans of $doc: ok"
