#!/usr/bin/env bash
# Journal compaction through the real binaries (system/include/wiredcap/system/journal/compaction.hpp):
#   compaction_test.sh WIREDCAP HELPER SYSTEM SIM WORKDIR
#
# A journal of years of closed ramps (generated in the helper's own format) followed by what the
# real helper records for a ramp that hung the simulated Mac, a reboot, a confirmed ramp and a
# value stored for boot. Two copies of that machine: in one, the next command takes the journal
# past 1 MiB and wiredcap-system's next run (the boot LaunchDaemon's, every minute) compacts it;
# in the other it stays below and is not compacted. Every answer
# people and the helper act on must be the same in both: `status`, `recover` (which records what
# it finds), `persist` of the confirmed value and of the value that hung.
WIREDCAP=$1 HELPER=$2 SYSTEM=$3 SIM=$4 WORK=$5
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
PY=$(python3 -c 'import sys; print(sys.executable)') || fail "python3 is needed"
THRESHOLD=$((1024 * 1024))  # kCompactFrom (system/include/wiredcap/system/journal/compaction.hpp)

new_tree m2ultra-192
standard_policy
sim default-cap 64GiB >/dev/null || fail "cannot set the OS default"
mkdir -p "$WORK/journal" && chmod 755 "$WORK/journal"

# Years of closed ramps, from earlier boots, 120 KiB short of the threshold.
"$PY" -S - "$JOURNAL" "$((THRESHOLD - 120 * 1024))" <<'PY' || fail "cannot generate the journal"
import sys
path, size = sys.argv[1], int(sys.argv[2])
def rec(boot, command, event, run, extra):
    return ('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"%s","uid":501,"command":"%s","event":"%s","run":"%s"%s}\n'
            % (boot, command, event, run, extra))
out, n = [], 0
written = 0
while written < size:
    boot, run = "OLD-%05d" % (n // 10), "old-%07d" % n
    n += 1
    for step, value in ((1, 73728), (2, 81920)):
        for line in (rec(boot, "apply", "intent", run, ',"step":%d,"to_mib":%d' % (step, value)),
                     rec(boot, "apply", "applied", run, ',"step":%d,"to_mib":%d,"readback_mib":%d' % (step, value, value)),
                     rec(boot, "confirm", "confirmed", run, ',"step":%d,"readback_mib":%d' % (step, value))):
            out.append(line); written += len(line)
    line = rec(boot, "end", "end", run, ',"readback_mib":81920,"reason":"completed"')
    out.append(line); written += len(line)
open(path, "w").writelines(out)
PY
chmod 644 "$JOURNAL"

# What the real helper records: a ramp whose 96 GiB step hung the machine...
helper apply 80GiB --run hung-run --step 1 --effective 64GiB --effective-source simulated-metal; expect_rc 0
helper confirm --run hung-run --step 1; expect_rc 0
helper apply 96GiB --run hung-run --step 2; expect_rc 0
sim reboot >/dev/null || fail "cannot reboot the simulated Mac"
# ...then, after the reboot, a ramp to 80 GiB a person confirmed, and that value stored for boot.
helper apply 80GiB --run good-run --step 1 --effective 64GiB --effective-source simulated-metal; expect_rc 0
helper confirm --run good-run --step 1; expect_rc 0
helper end --run good-run --outcome completed; expect_rc 0
helper persist 80GiB; expect_rc 0
helper reset --run good-run --step 1 --revert no; expect_rc 0
[ "$(stat -c %s "$JOURNAL")" -lt $((THRESHOLD - 4096)) ] || fail "the journal is already past the threshold"

# The two machines: REF stays below the threshold, WORK is padded to 60 bytes short of it with a
# record every reader ignores (a refusal), so the next command's record crosses it.
REF=$WORK.ref
rm -rf "$REF" && cp -a "$WORK" "$REF"
pad=$((THRESHOLD - 60 - $(stat -c %s "$JOURNAL")))
head='{"v":1,"time":"2026-12-01T08:40:00Z","boot":"PAD","uid":501,"command":"apply","event":"refused","reason":"'
printf '%s%s"}\n' "$head" "$(head -c $((pad - ${#head} - 3)) /dev/zero | tr '\0' x)" >>"$JOURNAL"
[ "$(stat -c %s "$JOURNAL")" -eq $((THRESHOLD - 60)) ] || fail "padding missed: $(stat -c %s "$JOURNAL") bytes"

helper end --run trigger --outcome aborted; expect_rc 0
grep -q '"event":"compacted"' "$JOURNAL" && fail "the helper compacted the journal: that is wiredcap-system's"
# The LaunchDaemon's next run: the journal's upkeep, then the boot action (nothing to do: the
# value was stored in this boot).
system_run() {  # system_run TREE: wiredcap-system boot-action on that machine
  "$SYSTEM" --policy "$1/etc/wiredcap.conf" --journal "$1/journal/journal.jsonl" --sim-state "$1/sim-state" \
    boot-action >/dev/null || fail "wiredcap-system boot-action failed on $1"
}
system_run "$WORK"
grep -q '"command":"journal","event":"compacted"' "$JOURNAL" || fail "no compaction was recorded: $(tail -n 2 "$JOURNAL")"
size=$(stat -c %s "$JOURNAL")
lines=$(wc -l <"$JOURNAL")
# What it keeps: the last 1,000 records (kKeepRecent, the padding among them) and what the
# readers need, a few records here.
[ "$lines" -le 1050 ] && [ "$size" -lt $((THRESHOLD / 2)) ] || fail "the compacted journal is $lines records, $size bytes"
cmp -n $((THRESHOLD - 60)) "$JOURNAL.1" "$REF/journal/journal.jsonl" 2>/dev/null && fail "the archive is not the padded journal"
[ "$(head -c $((THRESHOLD - 60)) "$JOURNAL.1" | wc -l)" -gt 5000 ] || fail "the archive does not hold the old journal"
note "compacted: $(wc -l <"$JOURNAL") records, $size bytes; archive $(stat -c %s "$JOURNAL.1") bytes"
OUT=$("$HELPER" --policy "$REF/etc/wiredcap.conf" --journal "$REF/journal/journal.jsonl" --sim-state "$REF/sim-state" \
      end --run trigger --outcome aborted) || fail "end on the reference machine: $OUT"
system_run "$REF"
grep -q '"event":"compacted"' "$REF/journal/journal.jsonl" && fail "the reference journal was compacted"

# Every answer the same on both machines.
on() {  # on TREE ARGS...: wiredcap on that machine, stdout and exit code
  local tree=$1; shift
  "$WIREDCAP" --helper "$HELPER" --policy "$tree/etc/wiredcap.conf" --journal "$tree/journal/journal.jsonl" \
    --sim-state "$tree/sim-state" "$@" 2>&1
  echo "exit $?"
}
same() {
  local a b
  a=$(on "$REF" "$@" | normalize_output "$REF") b=$(on "$WORK" "$@" | normalize_output "$WORK")
  [ "$a" = "$b" ] || fail "wiredcap $* answers differently after the compaction:
$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b"))"
  note "same: wiredcap $*"
}
same status
same --json status
same --json recover
same recover
same --json persist 80GiB
same --json persist 96GiB
same --json persist 88GiB
# (Captured first: grep -q leaving a pipe early would fail the pipeline under pipefail.)
answer=$(on "$WORK" --json recover)
[[ $answer == *'"hang_ceiling":{"value":98304,'* ]] || fail "the hang at 96 GiB is not reported after the compaction: $answer"
echo "PASS"
