#!/usr/bin/env bash
# A hostile group member looping every attack at once, while root's commands must
# keep working within their times: `reset` under 1 s, `persist` and the boot action under
# 3.5 s (the helper's lock wait is 3 s), each exit 0.
#
# The member (`nobody` in the policy's group) and an outsider (`nobody` without it), in
# parallel loops:
#   - stop: runs its helper and sends it SIGSTOP, SIGKILL the moment /proc/locks shows it
#     holding a lock (tests/hostile/stopper.py; every write is slowed by 30 ms so that it
#     finds one often); every signal must fail with EPERM;
#   - flood: apply, confirm of steps never applied, persist 176GiB, persist --unconfirmed,
#     reset, end, with fresh run ids, at nice 19 in the idle I/O class;
#   - claims: --effective at and above memory, with every source word;
#   - sync storm: writes and syncs 200 MB at a time on the journal's file system;
#   - outsider: applies and resets (refused; rate-limited in the system log).
# Root, every ~2 s: `reset`, `persist 80GiB --unconfirmed`, then a simulated reboot and the boot
# action. At the end: every root call's time and exit, the journal's size, the stopper's tally.
#
# Figures (2026-12-02, branch c23, dev build, 2 shared cores at load 3-5, 600 s): reset 366
# calls, median 110 ms, max 431 ms; persist median 99 ms, max 940 ms; boot action median 272 ms,
# max 984 ms (27 refusals at a hang ceiling, 4 yielded to a member's reset); 2,896 helpers caught
# holding a lock, every SIGSTOP refused; the journal at the end 1,578,823 bytes (the member
# bound is 1,572,864; root's records are taken past it).
#
# Uses the setuid test build and its fixture (build/dev): run as root, never while the hostile or
# setuid ctest families run.
#   tests/stress/member_siege.sh [SECONDS]     (default 600: ten minutes)
# shellcheck disable=SC2016  # the loops' scripts expand their own variables
set -uo pipefail
seconds=${1:-600}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
build=${BUILD:-$ROOT/build/dev}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (it installs the setuid test helper)"; exit 77; }
# shellcheck disable=SC2034  # read by lib.sh's suid_fixture_install and sim
FIXTURE=$build/suid-fixture
SIM=$build/bin/wiredcap-sim
SYSTEM=$build/bin/wiredcap-system
# shellcheck source=../integration/lib.sh
. "$ROOT/tests/integration/lib.sh"
suid_fixture_install "$build/bin/wiredcap-helper-suidtest" wcaptest
WORK=$(mktemp -d "$build/siege.XXXXXX")
chmod 755 "$WORK"
member=(setpriv --reuid=65534 --regid=65534 --groups "$GID" --)
outsider=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
# Every write takes 30 ms longer (the simulator's stall, holding no lock of its own), so that
# the stopper finds helpers holding the lock often; root's times include it.
"$SIM" --state "$STATE" fault stall-write 30 >/dev/null || { echo "cannot set the simulator's stall"; exit 1; }
end=$(( $(date +%s) + seconds ))
export HELPER end
# Under the sanitizers (SANITIZED=1, the asan build's ctest) every process starts four to five
# times slower (ASan's set-up and page faults, ~90 ms a setuid start against ~20 ms): root's
# limits are three times as long there; the dev suite holds them to the times above. An ASan
# reset at load 9 took 1,110-1,290 ms, where the same reset in the dev build takes ~110 ms.
slow=1
[ "${SANITIZED:-0}" = 1 ] && slow=3

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$WORK/storm"; }
trap cleanup EXIT

# The member's loops (each a process of the member's own; they end at $end).
"${member[@]}" bash -c '
  i=0; while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i + 1))
    "$HELPER" apply 80GiB --effective 64GiB --run "f$i" --step 1; "$HELPER" confirm --run "z$i" --step 7
    "$HELPER" confirm --run "f$i" --step 1; "$HELPER" persist 176GiB; "$HELPER" persist 80GiB --unconfirmed --effective 64GiB
    "$HELPER" end --run "f$i" --outcome completed; "$HELPER" reset
  done >/dev/null 2>&1' &
pids+=($!)
"${member[@]}" nice -n 19 ionice -c 3 bash -c '
  while [ "$(date +%s)" -lt "$end" ]; do
    for s in metal simulated-metal given; do
      "$HELPER" apply 96GiB --effective 1TiB --effective-source $s
      "$HELPER" apply 72GiB --effective 192GiB --effective-source $s
    done
  done >/dev/null 2>&1' &
pids+=($!)
mkdir -p "$WORK/stopper" && chown 65534 "$WORK/stopper"
"${member[@]}" bash -c '
  n=0; while [ "$(date +%s)" -lt "$end" ]; do
    n=$((n + 1))
    /usr/bin/python3 "$1" --report "$2/stop.$n" --tries 20 --hold 0.2 -- "$HELPER" apply 80GiB --effective 64GiB
    [ -s "$2/stop.$n" ] && tr "\n" " " < "$2/stop.$n" >> "$2/stops" && echo >> "$2/stops"
    rm -f "$2/stop.$n"
  done' _ "$ROOT/tests/hostile/stopper.py" "$WORK/stopper" >"$WORK/stopper.log" 2>&1 &
pids+=($!)
mkdir -p "$WORK/storm" && chown 65534 "$WORK/storm"
"${member[@]}" bash -c '
  while [ "$(date +%s)" -lt "$end" ]; do
    dd if=/dev/zero of="$1/big" bs=1M count=200 conv=fsync status=none; rm -f "$1/big"
  done' _ "$WORK/storm" >/dev/null 2>&1 &
pids+=($!)
"${outsider[@]}" bash -c '
  while [ "$(date +%s)" -lt "$end" ]; do "$HELPER" apply 96GiB; "$HELPER" reset; done >/dev/null 2>&1' &
pids+=($!)

# Root's commands, timed.
# The boot action may also yield to a member's reset (exit 4, counted apart), or refuse a value
# at or above a hang ceiling: a member's write in flight
# when the simulated machine rebooted reads as a write that hung it (as a real hard reboot
# would), which binds the boot action by design (exit 3, counted apart).
timed() {  # timed NAME LIMIT_MS CMD...: one line "NAME ms exit" to $WORK/root
  local name=$1 limit=$2 t0 t1 rc
  shift 2
  t0=$(date +%s%N); "$@" >/dev/null 2>"$WORK/err"; rc=$?; t1=$(date +%s%N)
  local ms=$(( (t1 - t0) / 1000000 ))
  echo "$name $ms $rc" >> "$WORK/root"
  [ "$rc" -eq 3 ] && [ "$name" = boot ] && grep -q 'where the machine hung' "$WORK/err" && rc=0
  # A member may reset (the safe direction). When it went on without the lock while the boot
  # action held it, the boot action backs off or reverts itself (exit 4): the reset stands.
  [ "$rc" -eq 4 ] && [ "$name" = boot ] && grep -q 'a reset went on without' "$WORK/err" && rc=0
  if [ "$rc" -ne 0 ] || [ "$ms" -ge "$limit" ]; then echo "FAIL: root's $name: exit $rc in $ms ms: $(head -c 300 "$WORK/err")" >> "$WORK/failures"; fi
}
: > "$WORK/root"; : > "$WORK/failures"
while [ "$(date +%s)" -lt "$end" ]; do
  timed reset $((1000 * slow)) "$HELPER" reset
  # The flood's ramp steps at 80 GiB, unconfirmed at each reboot, are hangs the helper honours
  #; root overrides them here, as this story is about root's times, not the ceiling.
  timed persist $((3500 * slow)) "$HELPER" persist 80GiB --unconfirmed --ignore-hang-ceiling
  sim_reboot_ok=$("$SIM" --state "$STATE" reboot >/dev/null 2>&1 && echo 1)
  [ -n "$sim_reboot_ok" ] || echo "FAIL: the simulator did not reboot" >> "$WORK/failures"
  # As launchd runs it at boot (and every minute): the boot action, then the journal's upkeep.
  timed boot $((3500 * slow)) "$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" boot-action
  sleep 1
done
cleanup
trap - EXIT

summary() {  # summary NAME: count, median and max ms of root's NAME
  awk -v n="$1" '$1 == n { print $2 }' "$WORK/root" | sort -n |
    awk -v n="$1" '{ a[NR] = $1 } END { if (NR) printf "  %-8s %4d calls, median %5d ms, max %5d ms\n", n, NR, a[int((NR + 1) / 2)], a[NR] }'
}
echo "member siege, $seconds s:"
summary reset; summary persist; summary boot
echo "  boot action: $(awk '$1 == "boot" && $3 == 3' "$WORK/root" | wc -l) refusals at a hang ceiling (a member's write in flight at the reboot), $(awk '$1 == "boot" && $3 == 4' "$WORK/root" | wc -l) yielded to a member's reset"
stopped=$(grep -c 'STOP ok' "$WORK/stopper/stops"); refused=$(grep -c 'STOP EPERM' "$WORK/stopper/stops")
unlocked=$(grep -c 'STOP unlocked' "$WORK/stopper/stops")
echo "  stopper: $refused helpers caught holding a lock, SIGSTOP refused (EPERM); $stopped stopped holding it; $unlocked stopped after releasing it and giving root back; $(grep -c "STOP gone" "$WORK/stopper/stops") gone before the signal"
echo "  journal: $(stat -c %s "$JOURNAL") bytes, $(wc -l < "$JOURNAL") records"
# Members' records stop at 1.5 MiB (kMemberBound); root's own since the last compaction may
# add a little; wiredcap-system's upkeep brings it back down.
[ "$(stat -c %s "$JOURNAL")" -le $((2 * 1024 * 1024)) ] ||
  echo "FAIL: the journal grew past its bound: $(stat -c %s "$JOURNAL") bytes" >> "$WORK/failures"
[ "$stopped" -eq 0 ] || echo "FAIL: the member stopped its helper $stopped times" >> "$WORK/failures"
[ "$(wc -l < "$WORK/root")" -gt 0 ] || echo "FAIL: root's commands never ran" >> "$WORK/failures"
if [ -s "$WORK/failures" ]; then
  sort "$WORK/failures" | uniq -c | head -20
  exit 1
fi
rm -rf "$WORK"
echo "PASS: root's reset, persist and boot action within their times throughout"
