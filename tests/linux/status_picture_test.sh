#!/usr/bin/env bash
# The picture of memory that leads `wiredcap status --linux-root`, on a simulated strix-128:
# MemTotal split by pages_limit in force, the band's reserve and top, and a hang ceiling once
# a trial hung. In three states (the kernel's default, a value made default, after a hang), at
# 80 and 120 columns and under TERM=dumb (piped: ASCII), against
# tests/linux/expected/status_picture_strix-128.txt. Every line fits its width. To accept a
# deliberate change: run with UPDATE=1 and review the diff.
# usage: status_picture_test.sh WIREDCAP SYSTEM SIM EXPECTED_DIR
set -euo pipefail
wiredcap=$1 system=$2 sim=$3 expected=$4/status_picture_strix-128.txt
root=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-picture.XXXXXX")
trap 'rm -rf "$root" "$root.out"' EXIT
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
"$sim" init --root "$root" --profile strix-128 >/dev/null
# One state: status at 80 and 120 columns and under TERM=dumb, only the picture (up to the
# report's heading), each width checked.
shot() {
  echo "## $1" >>"$root.out"
  for how in "COLUMNS=80" "COLUMNS=120" "TERM=dumb"; do
    echo "\$ $how wiredcap status --linux-root ROOT"
    local width=80 text
    [ "$how" = COLUMNS=120 ] && width=120
    text=$(env -u COLUMNS "$how" "$wiredcap" --journal "$(journal)" --policy "$root/.mac/policy" \
             status --linux-root "$root" | awk '/^Linux AMD GPU memory/ { stop = 1 } !stop')
    awk -v w="$width" 'length > w { exit 1 }' <<<"$text" || fail "$1, $how: a line over $width columns"
    LC_ALL=C grep -q '[^ -~]' <<<"$text" && fail "$1, $how: not ASCII when piped"
    echo "$text"
  done >>"$root.out"
}
shot "the kernel's default: pages_limit unset, half of RAM"
sys trial 100GiB >/dev/null
"$sim" reboot --root "$root" >/dev/null
"$sim" advance --root "$root" 600 >/dev/null
sys after-boot >/dev/null
sys confirm --check true >/dev/null
"$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null
shot "100 GiB made default"
"$sim" hang-above --root "$root" 26214400 >/dev/null
sys trial 101GiB >/dev/null
"$sim" reboot --root "$root" >/dev/null
"$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null 2>&1 || true
shot "a trial of 101 GiB hung: the hang ceiling"
sed -i "s|$root|ROOT|g" "$root.out"
if [ "${UPDATE:-}" = 1 ]; then cp "$root.out" "$expected"; fi
diff -u "$expected" "$root.out"
echo "the picture in three states, at 80 and 120 columns and TERM=dumb: as expected"
