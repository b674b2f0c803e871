#!/usr/bin/env bash
# The journal's mirror in the system log is written at a priority the macOS unified log keeps
# on disk (notice or above; info is kept in memory only and is gone after a hang and reboot).
# Read off a real /dev/log: in a private mount namespace an overlay over /dev gives this test a
# /dev/log of its own, a datagram socket like syslogd's, and the helper's records (an apply, a
# refusal, a reset) are read from it with their <PRI> prefix: auth.notice is 4*8+5 = 37.
# Needs root (unshare, mount); exits 77 (skip) otherwise.
#   syslog_priority_test.sh HELPER SIM WORKDIR
HELPER=$1 SIM=$2 WORK=$3
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a private /dev/log"; exit 77; }
# shellcheck source=../private_mount_ns.sh
. "$(dirname "$0")/../private_mount_ns.sh"
private_mount_ns || { echo "SKIP: no private /dev/log: $PRIVATE_NS_WHY"; exit 77; }

new_tree; standard_policy
mkdir -p "$WORK/overlay/up" "$WORK/overlay/work"
# shellcheck disable=SC2016  # the inner script expands its own variables
"${PRIVATE_NS[@]}" bash -c '
  set -e
  mount -t overlay overlay -o "lowerdir=/dev,upperdir=$1/overlay/up,workdir=$1/overlay/work" /dev
  exec python3 - "$@"' _ "$WORK" "$HELPER" "$POLICY" "$JOURNAL" "$STATE" >"$WORK/records" 2>"$WORK/listener.err" <<'PY'
import socket, subprocess, sys
work, helper, policy, journal, state = sys.argv[1:6]
log = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
log.bind("/dev/log")
log.settimeout(5)
# From the OS default the helper alone needs the effective cap (the simulated Mac's 158 GiB).
for args in (["apply", "80GiB", "--effective", "158GiB"], ["apply", "300GiB"], ["reset"]):
    subprocess.run([helper, "--policy", policy, "--journal", journal, "--sim-state", state, *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
log.settimeout(0.5)
try:
    while True:
        print(log.recv(65536).decode("ascii", "replace"))
except socket.timeout:
    pass
PY
[ -s "$WORK/records" ] || fail "nothing reached /dev/log: $(cat "$WORK/listener.err")"
note "$(cut -c1-100 "$WORK/records")"
records=$(wc -l <"$WORK/records")
journaled=$(wc -l <"$JOURNAL")
[ "$records" -eq "$journaled" ] || fail "$records records reached the system log, $journaled were journaled"
not_notice=$(grep -vc '^<37>' "$WORK/records")
[ "$not_notice" -eq 0 ] || fail "$not_notice records not at auth.notice (<37>): $(grep -v '^<37>' "$WORK/records")"
grep -q '"event":"applied"' "$WORK/records" || fail "the apply's record is missing from the system log"
grep -q '"event":"refused"' "$WORK/records" || fail "the refusal's record is missing from the system log"
echo "PASS: $records records, every one auth.notice"
