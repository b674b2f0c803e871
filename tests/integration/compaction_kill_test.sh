#!/usr/bin/env bash
# A compaction killed at any point (SIGKILL, as a power cut or the OOM killer would) leaves the
# journal's name holding a whole journal, and the next compaction loses nothing; the helper's
# commands go on meanwhile. Compactions are wiredcap-system's (root's own program):
#   compaction_kill_test.sh WIREDCAP HELPER SYSTEM SIM WORKDIR
#
# The journal is 16 MiB (a journal from before compaction, where root's writes went past the
# members' bound; one compaction took 0.5-1 s in the debug build), holding years of closed ramps, one ramp confirmed at 80 GiB and one whose 96 GiB step hung,
# both from an earlier boot. `wiredcap-system compact` is killed at a tenth, two tenths ... and 11
# tenths of the time one compaction takes (then later, should the machine have slowed down).
WIREDCAP=$1 HELPER=$2 SYSTEM=$3 SIM=$4 WORK=$5
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
PY=$(python3 -c 'import sys; print(sys.executable)') || fail "python3 is needed"

new_tree m2ultra-192
standard_policy
mkdir -p "$WORK/journal" && chmod 755 "$WORK/journal"
"$PY" -S - "$JOURNAL" $((16 * 1024 * 1024)) <<'PY' || fail "cannot generate the journal"
import sys
path, size = sys.argv[1], int(sys.argv[2])
def rec(run, event, extra, command="apply"):
    return ('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"%s","event":"%s",'
            '"run":"%s"%s}\n' % (command, event, run, extra))
with open(path, "w") as f:
    f.write(rec("good", "intent", ',"step":1,"to_mib":81920') +
            rec("good", "applied", ',"step":1,"to_mib":81920,"readback_mib":81920') +
            rec("good", "confirmed", ',"step":1,"readback_mib":81920', "confirm") +
            rec("good", "end", ',"readback_mib":81920,"reason":"completed"', "end") +
            rec("hung", "intent", ',"step":1,"to_mib":98304') +
            rec("hung", "applied", ',"step":1,"to_mib":98304,"readback_mib":98304'))
    written, n = 0, 0
    while written < size:
        run = "old-%07d" % n
        n += 1
        block = (rec(run, "intent", ',"step":1,"to_mib":73728') +
                 rec(run, "applied", ',"step":1,"to_mib":73728,"readback_mib":73728') +
                 rec(run, "revert_applied", ',"step":1,"to_mib":0,"readback_mib":0,"reason":"no"') +
                 rec(run, "end", ',"readback_mib":0,"reason":"reverted"', "end"))
        f.write(block)
        written += len(block)
PY
chmod 644 "$JOURNAL"

# Every complete line is a whole record; only the last may be torn (and then it has no newline).
journal_whole() {
  "$PY" -S - "$JOURNAL" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
for n, line in enumerate(data.split(b"\n")[:-1], 1):
    r = json.loads(line)
    assert r["v"] == 1, "line %d" % n
PY
}

# How long one whole compaction takes on this machine now (on a copy), so that the kills land
# all through it: reading, writing the new file, the swap, and the record after it.
mkdir -p "$WORK/copy/journal" && chmod 755 "$WORK/copy" "$WORK/copy/journal" && cp "$JOURNAL" "$WORK/copy/journal/"
start=$(date +%s%N)
"$SYSTEM" --policy "$POLICY" --journal "$WORK/copy/journal/journal.jsonl" --sim-state "$STATE" compact \
  >/dev/null 2>&1 || fail "the timing run failed"
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
grep -q '"event":"compacted"' "$WORK/copy/journal/journal.jsonl" || fail "the timing run did not compact"
note "one compaction takes $took_ms ms here"
# A tenth, two tenths ... of it, then 1.5x, 2x and 3x in case this machine got slower meanwhile.
delays=$("$PY" -S -c "print(' '.join('%.3f' % ($took_ms * k / 10000.0) for k in list(range(1, 12)) + [15, 20, 30]))")

for delay in $delays; do
  "$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" compact >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ -f "$JOURNAL" ] || fail "no journal after a kill at $delay s"
  journal_whole || fail "the journal is not whole after a kill at $delay s"
  note "killed at $delay s: journal $(stat -c %s "$JOURNAL") bytes"
done

# The helper's commands go on between the kills' leftovers; then the next upkeep compacts.
helper end --run last --outcome aborted; expect_rc 0
OUT=$("$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" compact 2>&1) || fail "compact failed: $OUT"
[ "$(stat -c %s "$JOURNAL")" -lt $((1024 * 1024)) ] || fail "the journal was not compacted: $(stat -c %s "$JOURNAL") bytes"
OUT=$("$WIREDCAP" --helper "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" --json recover 2>&1)
[[ $OUT == *'"hang_ceiling":{"value":98304,"run":"hung"'* ]] || fail "the hang at 96 GiB was lost: $OUT"
[[ $OUT == *'"last_confirmed":{"value":81920,"run":"good"'* ]] || fail "the confirmation of 80 GiB was lost: $OUT"
echo PASS
