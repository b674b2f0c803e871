#!/usr/bin/env bash
# Benchmark: root's `reset` while another user writes and syncs hundreds of MB.
# Reset promises to finish within a second whatever anyone else does; each of its
# syncs waits behind the other user's dirty pages. Before each reset a member raises the cap
# and stores a value for boot, so every reset does the most it can: intent, write, outcome,
# the boot state's removal (3 journal and directory syncs, and the simulator's 2 for its own
# state file; docs/design.md "Reset's syncs").
#
# Uses the setuid test build and its fixture (build/dev, as the hostile suite does): run it as
# root, never while the hostile or setuid ctest families run (they share the fixture).
#
# Usage: bench/reset_under_io.sh [RESETS] [MB]   (defaults: 30 resets, 400 MB per sync)
set -euo pipefail
cd "$(dirname "$0")/.."
resets=${1:-30}
mb=${2:-400}
[ "$(id -u)" -eq 0 ] || { echo "needs root (it installs the setuid test helper)"; exit 2; }
build=$PWD/build/dev
FIXTURE=$build/suid-fixture  # the path compiled into the setuid test build
# shellcheck disable=SC2034  # read by lib.sh's suid_fixture_install
SIM=$build/bin/wiredcap-sim
# shellcheck source=../tests/integration/lib.sh
. tests/integration/lib.sh
suid_fixture_install "$build/bin/wiredcap-helper-suidtest" wcaptest
member=(setpriv --reuid=65534 --regid=65534 --groups "$GID" --)

# The other user: a file of its own on the journal's file system, written and synced in a loop.
storm=$(mktemp -d "$(dirname "$FIXTURE")/storm.XXXXXX")
chown 65534 "$storm"
setpriv --reuid=65534 --regid=65534 --clear-groups -- bash -c \
  'while :; do dd if=/dev/zero of="$1/big" bs=1M count="$2" conv=fsync status=none; rm -f "$1/big"; done' \
  _ "$storm" "$mb" &
storm_pid=$!
trap 'kill $storm_pid 2>/dev/null; wait $storm_pid 2>/dev/null; rm -rf "$storm"' EXIT
sleep 2  # let the storm fill the page cache

times=()
for ((i = 0; i < resets; i++)); do
  "${member[@]}" "$HELPER" apply 80GiB --effective 64GiB >/dev/null 2>&1 || true
  "$HELPER" persist 80GiB --unconfirmed >/dev/null 2>&1 || true
  t0=$(date +%s%N)
  "$HELPER" reset >/dev/null 2>&1 || echo "reset $i failed"
  t1=$(date +%s%N)
  times+=($(( (t1 - t0) / 1000000 )))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
n=${#times[@]}
pick() { sed -n "$1p" <<< "$sorted"; }
over=$(awk '$1 >= 1000' <<< "$sorted" | wc -l)
echo "root's reset under a ${mb} MB write-and-sync storm by another user, $n resets:"
echo "  min $(pick 1) ms, median $(pick $(( (n + 1) / 2 ))) ms, p90 $(pick $(( (n * 9 + 9) / 10 ))) ms, max $(pick "$n") ms; $over at or over 1000 ms"
