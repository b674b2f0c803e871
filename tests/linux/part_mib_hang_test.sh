#!/usr/bin/env bash
# A trial whose value is not a whole number of MiB (a size in KiB or bytes: 100000004KiB is
# 25000001 pages of 4 KiB, 97656.25 MiB) hangs. Its `hung` record has to_pages and page_size
# but no to_mib. wiredcap-system binds it (the MiB rounded down); the front-end's readers,
# `wiredcap status` and `wiredcap recover`, must see the same hang ceiling, not "no trial has
# ever hung", and recover's suggested forget must work.
# usage: part_mib_hang_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch part-mib
chmod 755 "$base"
root=$base/m
ceiling_pages() {
  front status --json | python3 -c 'import json,sys; v=json.load(sys.stdin)["hang_ceiling"]["value"]
print(v["pages"] if v else "none")'
}

"$sim" init --root "$root" --profile strix-128 >/dev/null
mkdir -p "$root/.mac" "$root/var/lib"
"$sim" hang-above --root "$root" 25000000
rc=0; front set 100000004KiB >/dev/null || rc=$?
[ "$rc" = 18 ] || fail "the trial was not scheduled: exit $rc"
"$sim" reboot --root "$root" >/dev/null; "$sim" reboot --root "$root" >/dev/null
rc=0; sys after-boot >/dev/null 2>&1 || rc=$?
[ "$rc" = 9 ] || fail "after-boot after the hang exited $rc, not 9"
grep -q '"event":"hung".*"to_pages":25000001,"page_size":4096' "$(journal)" || fail "no hung record: $(events)"
# wiredcap-system binds it: 97656 MiB (rounded down) is 24999936 pages.
rc=0; sys trial 97656MiB >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "wiredcap-system scheduled a trial at the hang ceiling: exit $rc"
# The front-end's readers see the same ceiling, rounded down, never up past what hung.
[ "$(ceiling_pages)" = 24999936 ] || fail "status --json hang ceiling: $(ceiling_pages), not 24999936 pages"
status | grep -A1 "hang ceiling" | grep -q "24999936 pages" || fail "status: $(status)"
out=$(front recover) || fail "recover exited $?: $out"
# Every figure in pages of the page size, MiB and GiB, as status prints it; cut, never rounded up.
figure="24999936 pages of 4 KiB (97656 MiB, 95.36 GiB)"
grep -qF "hang ceiling   $figure" <<<"$(status)" || fail "status does not show $figure: $(status)"
grep -qF "Hang ceiling: $figure " <<<"$out" || fail "recover does not name the hang in pages: $out"
forget=$(sed -n '/forget it (journaled):$/,/^[^ ]/p' <<<"$out" | sed -n '/^ /p' | tr -s ' \n' ' ')
read -ra words <<<"$forget"
[ "${words[0]:-}" = wiredcap ] || fail "no forget command: $out"
front recover "${words[@]:4}" >/dev/null || fail "the suggested forget failed: $forget"
[ "$(ceiling_pages)" = none ] || fail "the hang still binds after the forget: $(ceiling_pages)"
out=$(front recover) || fail "recover after the forget exited $?: $out"
grep -qF "The hang ceiling $figure was forgotten" <<<"$out" || fail "recover's forgotten hang: $out"
rc=0; front set 97656MiB >/dev/null 2>&1 || rc=$?
[ "$rc" = 18 ] || fail "after the forget, a trial below the old value exited $rc, not 18"
echo "part-MiB hang: ok"
