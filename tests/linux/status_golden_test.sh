#!/usr/bin/env bash
# `wiredcap status --linux-root` on a fresh simulated machine of PROFILE, against
# tests/linux/expected/status_PROFILE.txt, without a policy file (the built-in band; the
# scratch root's path shows as ROOT). Every line at most 80 columns. To accept a deliberate
# change: run with UPDATE=1 and review the diff.
# usage: status_golden_test.sh WIREDCAP SIM PROFILE EXPECTED_DIR
set -euo pipefail
wiredcap=$1 sim=$2 profile=$3 expected=$4/status_$3.txt
root=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-status.XXXXXX")
trap 'rm -rf "$root"' EXIT
"$sim" init --root "$root" --profile "$profile" >/dev/null
COLUMNS=80 "$wiredcap" --policy "$root/etc/wiredcap.conf" status --linux-root "$root" | sed "s|$root|ROOT|g" >"$root.out"
trap 'rm -rf "$root" "$root.out"' EXIT
if awk 'length > 80 { exit 1 }' "$root.out"; then :; else echo "FAIL: a line over 80 columns" >&2; exit 1; fi
if [ "${UPDATE:-}" = 1 ]; then cp "$root.out" "$expected"; fi
diff -u "$expected" "$root.out"
echo "status on $profile: as expected"
