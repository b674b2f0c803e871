#!/usr/bin/env bash
# Crash points of a ramp step (docs/design.md section 6), one scenario per CTest test:
#   crash_points_test.sh WIREDCAP HELPER SIM WORKDIR SCENARIO
#
# A step is: the helper journals `intent`, writes iogpu.wired_limit_mb, reads it back, journals
# `applied`; the person then confirms (`confirmed`). Each scenario stops that sequence at one
# point, as a crash or a hang would, and checks what `wiredcap recover` makes of the journal:
# which step is classified how, what it records, and that it never loses a confirmed value.
#
# The helper has no test hooks. To stop it at an exact point the SIMULATED kernel is made slow:
# `fault stall-write` sleeps inside the write before the knob changes, `fault stall-after-write`
# after it changed but before the helper hears back. The test waits (polling, bounded) until the
# journal and the knob show the helper is at that point, then kills it with SIGKILL. The stall
# is far longer than the wait, so where the kill lands does not depend on timing.
WIREDCAP=$1 HELPER=$2 SIM=$3 WORK=$4 scenario=$5
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

RUN=r-x
STEP1_MIB=65536   # 64 GiB: step 1, applied and confirmed
STEP2_MIB=81920   # 80 GiB: step 2, the one that crashes
STALL_MS=20000    # far beyond the 5 s the test waits for the helper to reach the stall

# The interpreter itself, not a version-manager shim in front of it, and without site imports
# (-S): each start then costs milliseconds, not a third of a second.
PY=$(python3 -c 'import sys; print(sys.executable)') || fail "python3 is needed"
py() { "$PY" -S "$@"; }

BG_PID=
cleanup() {
  if [ -n "$BG_PID" ]; then kill -9 "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null; fi
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------
# Driving the machine and the helper

sim_value() { sim show | sed -n "s/^$1=//p"; }
expect_sim() { local v; v=$(sim_value "$1"); [ "$v" = "$2" ] || fail "simulator $1 is '$v', expected '$2'"; }

# A new 192 GiB machine (knob 0, boot 1), an empty journal, and a band of 64-176 GiB in steps
# of at most 16 GiB.
fresh_machine() { new_tree m2ultra-192; standard_policy; }

# Step 1 of run r-x applied and confirmed: the value that must never be lost.
confirmed_step1() {
  helper apply 64GiB --run "$RUN" --step 1; expect_rc 0
  helper confirm --run "$RUN" --step 1; expect_rc 0
  expect_knob "$STEP1_MIB"
}

# The helper applying step 2, in the background.
start_step2() {
  "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" apply 80GiB --run "$RUN" --step 2 \
    >"$WORK/bg.out" 2>"$WORK/bg.err" &
  BG_PID=$!
}


step2_intent_journaled() { grep -q "\"event\":\"intent\",\"run\":\"$RUN\",\"step\":2," "$JOURNAL"; }

kill_helper() { kill_background_job; }

# The helper killed while stalled inside the write, before the knob changed.
kill_after_intent() {
  sim fault stall-write "$STALL_MS" || fail "cannot set the stall-write fault"
  start_step2
  wait_until "step-2 intent in the journal" step2_intent_journaled
  kill_helper
  sim fault stall-write off || fail "cannot clear the stall-write fault"
  expect_knob "$STEP1_MIB"
  expect_sim writes 1
  expect_sim history "$STEP1_MIB"
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2"
}

# The helper killed after the knob changed, before it read it back or journaled `applied`.
kill_after_apply() {
  sim fault stall-after-write "$STALL_MS" || fail "cannot set the stall-after-write fault"
  start_step2
  wait_until "step-2 intent in the journal" step2_intent_journaled
  wait_until "knob at $STEP2_MIB MiB" knob_is "$STEP2_MIB"
  kill_helper
  sim fault stall-after-write off || fail "cannot clear the stall-after-write fault"
  expect_knob "$STEP2_MIB"
  expect_sim writes 2
  expect_sim history "$STEP1_MIB,$STEP2_MIB"
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2"
}

reboot_machine() {
  local boots
  boots=$(sim_value boot_count)
  sim reboot || fail "cannot reboot the simulated Mac"
  expect_sim boot_count $((boots + 1))
  expect_knob 0
  expect_sim hung 0
}

# ---------------------------------------------------------------------------------------------
# The journal, read independently of wiredcap

# Each line as "event run step" ("-" for an absent field; an `end` adds its outcome), "TORN"
# for an unterminated last line that is not JSON, "BAD" for any other line that is not JSON.
journal_events() {
  py - "$JOURNAL" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="ascii").read()
lines = text.split("\n")
if lines and lines[-1] == "":
    lines.pop()
    torn_last = False
else:
    torn_last = True
for i, line in enumerate(lines):
    try:
        r = json.loads(line)
    except ValueError:
        print("TORN" if torn_last and i == len(lines) - 1 else "BAD")
        continue
    words = [r.get("event", "?"), r.get("run", "-"), str(r.get("step", "-"))]
    if r.get("event") == "end":
        words.append(r.get("reason", "?"))
    print(" ".join(words))
PY
}

expect_journal_events() {
  local want got
  want=$(printf '%s\n' "$@")
  got=$(journal_events)
  [ "$got" = "$want" ] || fail "journal records are:
$got
expected:
$want"
}

# The "time" of the last record with that event, run and step.
journal_time() {
  py - "$JOURNAL" "$1" "$2" "$3" <<'PY'
import json, sys
path, event, run, step = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
found = ""
for line in open(path, encoding="ascii").read().split("\n"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("event") == event and r.get("run") == run and r.get("step") == step:
        found = r["time"]
print(found)
PY
}

# A recover --json "step" object for the last record EVENT of RUN STEP, valued MIB.
step_json() {  # step_json MIB RUN STEP EVENT
  local t
  t=$(journal_time "$4" "$2" "$3")
  [ -n "$t" ] || fail "the journal has no $4 record for run $2 step $3"
  printf '{"run":"%s","step":%s,"time":"%s","value":%s}' "$2" "$3" "$t" "$1"
}

journal_sum() { cksum < "$JOURNAL"; }

# ---------------------------------------------------------------------------------------------
# wiredcap recover, and its JSON

recover() {  # recover [--json]: sets OUT, ERR, RC
  OUT=$("$WIREDCAP" --helper "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" recover "$@" \
        2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}

# Every field of a recover --json answer, exactly: STEP objects from step_json, or null. One
# python run reads $OUT and prints each field as compact JSON (keys sorted), in this order.
expect_recover_json() {  # expect_recover_json HANG_CEILING LAST_CONFIRMED KNOB_MIB RAMP_IN_PROGRESS
  expect_one_line
  local want got
  want=$(printf '%s\n' "keys=forgotten hang_ceiling last_confirmed ramp_in_progress recorded schema simulated source suspects version wired_limit" \
    'schema="wiredcap.recover/2"' "simulated=true" "hang_ceiling=$1" "last_confirmed=$2" \
    "wired_limit={\"source\":\"kernel read-back\",\"value\":$3}" "ramp_in_progress=$4" "recorded=true" \
    "source=\"journal $JOURNAL\"" "suspects=[]" "forgotten=null")
  got=$(py -c '
import json, sys
o = json.loads(sys.stdin.read())
print("keys=" + " ".join(sorted(o)))
for k in ("schema", "simulated", "hang_ceiling", "last_confirmed", "wired_limit", "ramp_in_progress", "recorded",
          "source", "suspects", "forgotten"):
    print(k + "=" + json.dumps(o.get(k, "<missing>"), separators=(",", ":"), sort_keys=True))' <<<"$OUT")
  [ "$got" = "$want" ] || fail "recover --json answered:
$got
expected:
$want
stdout: $OUT
stderr: $ERR"
}

expect_no_err() { [ -z "$ERR" ] || fail "unexpected stderr: $ERR"; }
expect_out_lacks() { [[ $(flat "$OUT") != *"$(flat "$1")"* ]] || fail "stdout has '$1': $OUT"; }
expect_err_lacks() { [[ $(flat "$ERR") != *"$(flat "$1")"* ]] || fail "stderr has '$1': $ERR"; }

# After a reboot: the first recover records `end hung` for the run and nothing else; a second
# one finds nothing to record and answers exactly the same.
expect_hang_recorded_once() {  # expect_hang_recorded_once RECORDS_BEFORE...
  expect_journal_events "$@" "end $RUN - hung"
  local boot
  boot=$(tail -n 1 "$JOURNAL" | sed -n 's/.*"boot":"\([^"]*\)".*/\1/p')
  [ "$boot" = "$(sim_value boot_id)" ] || fail "the end record is stamped boot '$boot', not the current one"
  local first=$OUT sum
  sum=$(journal_sum)
  recover --json
  expect_rc 0
  [ "$OUT" = "$first" ] || fail "a second recover answered differently:
$first
$OUT"
  [ "$(journal_sum)" = "$sum" ] || fail "a second recover recorded something: $(tail -n 2 "$JOURNAL")"
  expect_no_err
}

# ---------------------------------------------------------------------------------------------
# Scenarios

# Killed after the intent, before the write, and the machine is still up: the ramp may still
# be running (or its guard reverting), so nothing is decided and nothing recorded.
after_intent_same_boot() {
  fresh_machine
  confirmed_step1
  kill_after_intent
  local sum confirmed
  sum=$(journal_sum)
  confirmed=$(step_json "$STEP1_MIB" "$RUN" 1 confirmed)

  recover --json
  expect_rc 10
  expect_recover_json null "$confirmed" "$STEP1_MIB" true
  expect_err "run $RUN step 2 ($STEP2_MIB MiB"
  expect_err "awaits confirmation in this boot"
  expect_err_lacks "journal:"
  [ "$(journal_sum)" = "$sum" ] || fail "recover recorded something in the same boot: $(tail -n 1 "$JOURNAL")"

  recover
  expect_rc 10
  expect_out "No step has ever hung."
  expect_out "Last confirmed value: run $RUN step 1 ($STEP1_MIB MiB"
  # The kernel still holds step 1's value, so recover does not suggest setting it again.
  expect_out_lacks "wiredcap set ${STEP1_MIB}MiB"
  expect_out "run $RUN step 2 ($STEP2_MIB MiB"
  expect_out "awaits confirmation in this boot"
  [ "$(journal_sum)" = "$sum" ] || fail "recover recorded something in the same boot: $(tail -n 1 "$JOURNAL")"
  expect_knob "$STEP1_MIB"; expect_sim writes 1  # nothing re-applied, nothing reverted
}

# Killed after the intent, then the machine rebooted: the step never got its outcome, so it is
# treated as the hang (interrupted), and the run is closed as hung, once.
after_intent_then_reboot() {
  fresh_machine
  confirmed_step1
  kill_after_intent
  reboot_machine
  local hang confirmed
  hang=$(step_json "$STEP2_MIB" "$RUN" 2 intent)
  confirmed=$(step_json "$STEP1_MIB" "$RUN" 1 confirmed)

  recover --json
  expect_rc 0
  expect_recover_json "$hang" "$confirmed" 0 false
  expect_err "went down at run $RUN step 2 ($STEP2_MIB MiB"
  expect_err "before the step was verified"
  expect_hang_recorded_once "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2"
  expect_recover_json "$hang" "$confirmed" 0 false

  recover
  expect_rc 0
  expect_out "Hang ceiling: run $RUN step 2 ($STEP2_MIB MiB"
  expect_out "Last confirmed value: run $RUN step 1 ($STEP1_MIB MiB"
  expect_out "now reads 0 (OS default policy)"
  expect_out_lacks "went down"  # closed by the first recover: no longer unresolved
  expect_knob 0; expect_sim writes 1  # nothing re-applied
}

# Killed after the knob changed, before the read-back and the `applied` record; then rebooted.
# In the same boot it is still only awaiting; after the reboot it is the hang.
after_apply_then_reboot() {
  fresh_machine
  confirmed_step1
  kill_after_apply
  local sum hang confirmed
  sum=$(journal_sum)
  hang=$(step_json "$STEP2_MIB" "$RUN" 2 intent)
  confirmed=$(step_json "$STEP1_MIB" "$RUN" 1 confirmed)

  recover --json
  expect_rc 10
  expect_recover_json null "$confirmed" "$STEP2_MIB" true
  [ "$(journal_sum)" = "$sum" ] || fail "recover recorded something in the same boot: $(tail -n 1 "$JOURNAL")"

  reboot_machine
  recover --json
  expect_rc 0
  expect_recover_json "$hang" "$confirmed" 0 false
  expect_err "went down at run $RUN step 2 ($STEP2_MIB MiB"
  expect_hang_recorded_once "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2"

  recover
  expect_rc 0
  expect_out "Hang ceiling: run $RUN step 2 ($STEP2_MIB MiB"
  expect_out "Last confirmed value: run $RUN step 1 ($STEP1_MIB MiB"
  expect_knob 0; expect_sim writes 2
}

# The step completed (applied, read back), was never confirmed, and the machine rebooted: the
# textbook hang.
after_applied_then_reboot() {
  fresh_machine
  confirmed_step1
  helper apply 80GiB --run "$RUN" --step 2
  expect_rc 0; expect_knob "$STEP2_MIB"; expect_last_event applied
  reboot_machine
  local hang confirmed
  hang=$(step_json "$STEP2_MIB" "$RUN" 2 applied)
  confirmed=$(step_json "$STEP1_MIB" "$RUN" 1 confirmed)

  recover --json
  expect_rc 0
  expect_recover_json "$hang" "$confirmed" 0 false
  expect_err "The machine hung at run $RUN step 2 ($STEP2_MIB MiB"
  expect_err "the step was applied, never confirmed"
  expect_hang_recorded_once "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2" "applied $RUN 2"

  recover
  expect_rc 0
  expect_out "Hang ceiling: run $RUN step 2 ($STEP2_MIB MiB"
  expect_out "Last confirmed value: run $RUN step 1 ($STEP1_MIB MiB"
  expect_knob 0; expect_sim writes 2
}

# A crash while the journal is being written: the `confirmed` record of step 2 cut short, no
# newline. The torn line is no confirmation: step 1 stays the last confirmed value, in this
# boot and after a reboot (where step 2 is the hang). The next record the helper appends closes
# the torn line and starts on its own line, and every complete record is still read.
torn_journal_write() {
  fresh_machine
  confirmed_step1
  helper apply 80GiB --run "$RUN" --step 2; expect_rc 0; expect_last_event applied

  # A real `confirmed` record for step 2, written by the helper to a scratch journal, cut short.
  local scratch=$WORK/scratch/journal.jsonl record torn
  # Only a step the helper applied can be confirmed: the scratch journal first holds step 2's
  # apply (unchanged: the knob already holds it), then its confirmation, the record taken.
  "$HELPER" --policy "$POLICY" --journal "$scratch" --sim-state "$STATE" apply 80GiB --run "$RUN" --step 2 \
    >/dev/null 2>&1 || fail "cannot make an apply record"
  "$HELPER" --policy "$POLICY" --journal "$scratch" --sim-state "$STATE" confirm --run "$RUN" --step 2 \
    >/dev/null 2>&1 || fail "cannot make a confirmed record"
  record=$(tail -n 1 "$scratch")
  [[ $record == *'"event":"confirmed","run":"'$RUN'","step":2,'* ]] || fail "unexpected record: $record"
  torn=${record:0:$((${#record} - 8))}
  printf '%s' "$torn" >> "$JOURNAL"
  [ "$(tail -c 1 "$JOURNAL")" != "" ] || fail "the journal should end without a newline"
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2" "applied $RUN 2" TORN

  local sum confirmed hang
  sum=$(journal_sum)
  confirmed=$(step_json "$STEP1_MIB" "$RUN" 1 confirmed)
  hang=$(step_json "$STEP2_MIB" "$RUN" 2 applied)

  # Same boot: step 2 awaits confirmation; the torn tail is dropped without a warning.
  recover --json
  expect_rc 10
  expect_recover_json null "$confirmed" "$STEP2_MIB" true
  expect_err "run $RUN step 2 ($STEP2_MIB MiB"
  expect_err "awaits confirmation in this boot"
  expect_err_lacks "journal:"
  recover
  expect_rc 10
  expect_out "Last confirmed value: run $RUN step 1 ($STEP1_MIB MiB"
  expect_out_lacks "journal:"
  [ "$(journal_sum)" = "$sum" ] || fail "recover changed the journal in the same boot"

  # After a reboot: step 2 is the hang; recover's `end` record is the first after the torn line.
  reboot_machine
  recover --json
  expect_rc 0
  expect_recover_json "$hang" "$confirmed" 0 false
  expect_err "The machine hung at run $RUN step 2 ($STEP2_MIB MiB"
  expect_err_lacks "journal:"
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2" "applied $RUN 2" \
    BAD "end $RUN - hung"
  [ "$(tail -c 1 "$JOURNAL")" = "" ] || fail "the journal does not end with a newline"
  [ "$(sed -n 6p "$JOURNAL")" = "$torn" ] || fail "line 6 is not the torn record, closed: $(sed -n 6p "$JOURNAL")"
  tail -n 1 "$JOURNAL" | grep -q '^{"v":1,"time":"[^"]*","boot":"[^"]*","uid":[0-9]*,"command":"end","event":"end","run":"'$RUN'","readback_mib":0,"reason":"hung"}$' ||
    fail "the end record is not a whole line of its own: $(tail -n 1 "$JOURNAL")"

  # Read again: every complete record (the end one included: nothing more is recorded); the
  # closed torn line, no longer last, is skipped with a warning that names it.
  local first=$OUT
  sum=$(journal_sum)
  recover --json
  expect_rc 0
  [ "$OUT" = "$first" ] || fail "a second recover answered differently:
$first
$OUT"
  expect_err "journal: line 6: skipped"
  [ "$(printf '%s\n' "$ERR" | grep -c '^journal:')" -eq 1 ] || fail "expected one journal warning: $ERR"
  [ "$(journal_sum)" = "$sum" ] || fail "a second recover recorded something: $(tail -n 2 "$JOURNAL")"

  # And a new ramp's record after all that lands on its own line too, and is read.
  helper apply 64GiB --run r-y --step 1; expect_rc 0
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2" "applied $RUN 2" \
    BAD "end $RUN - hung" "intent r-y 1" "applied r-y 1"
  recover --json
  expect_rc 10  # r-y awaits confirmation in this boot
  expect_recover_json "$hang" "$confirmed" "$STEP1_MIB" true
  expect_err "run r-y step 1 ($STEP1_MIB MiB"
}

# A crash while the INTENT of step 2 was being written: the helper writes the kernel only once
# the intent is on disk, so the step never happened. Nothing is at risk: no hang, in this boot
# or after a reboot (where the run is closed as aborted); step 1 stays the last confirmed.
torn_intent_write() {
  fresh_machine
  confirmed_step1
  # A real intent record for step 2: the helper applying it to a scratch copy of the machine
  # and a scratch journal (same boot id), cut short and appended to the real journal.
  local scratch=$WORK/scratch/journal.jsonl record torn
  cp "$STATE" "$WORK/scratch-state"
  "$HELPER" --policy "$POLICY" --journal "$scratch" --sim-state "$WORK/scratch-state" apply 80GiB --run "$RUN" --step 2 \
    >/dev/null 2>&1 || fail "cannot make an intent record"
  record=$(head -n 1 "$scratch")
  torn=${record:0:$((${#record} - 5))}
  [[ $torn == *'"event":"intent","run":"'$RUN'","step":2,'* ]] || fail "unexpected record: $record"
  printf '%s' "$torn" >> "$JOURNAL"
  expect_knob "$STEP1_MIB"; expect_sim writes 1
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" TORN

  local sum confirmed
  sum=$(journal_sum)
  confirmed=$(step_json "$STEP1_MIB" "$RUN" 1 confirmed)
  recover --json
  expect_rc 0
  expect_recover_json null "$confirmed" "$STEP1_MIB" false
  expect_err "Run $RUN stopped after run $RUN step 1 ($STEP1_MIB MiB"
  expect_err "nothing was at risk"
  expect_err_lacks "journal:"
  [ "$(journal_sum)" = "$sum" ] || fail "recover recorded something in the same boot: $(tail -n 1 "$JOURNAL")"

  reboot_machine
  recover --json
  expect_rc 0
  expect_recover_json null "$confirmed" 0 false
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" BAD "end $RUN - aborted"
  recover
  expect_rc 0
  expect_out "No step has ever hung."
  expect_out "Last confirmed value: run $RUN step 1 ($STEP1_MIB MiB"
  expect_knob 0; expect_sim writes 1
}

# Killed right after step 2 was confirmed, before the run recorded its end; then a reboot. The
# confirmation stands: step 2 is the last confirmed value, nothing hung, the run is closed.
after_confirm_then_reboot() {
  fresh_machine
  confirmed_step1
  helper apply 80GiB --run "$RUN" --step 2; expect_rc 0
  helper confirm --run "$RUN" --step 2; expect_rc 0
  reboot_machine
  local confirmed
  confirmed=$(step_json "$STEP2_MIB" "$RUN" 2 confirmed)
  recover --json
  expect_rc 0
  expect_recover_json null "$confirmed" 0 false
  expect_err "Run $RUN stopped after run $RUN step 2 ($STEP2_MIB MiB"
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2" "applied $RUN 2" \
    "confirmed $RUN 2" "end $RUN - aborted"
  local first=$OUT
  recover --json
  expect_rc 0; expect_no_err
  [ "$OUT" = "$first" ] || fail "a second recover answered differently:
$first
$OUT"
  expect_journal_events "intent $RUN 1" "applied $RUN 1" "confirmed $RUN 1" "intent $RUN 2" "applied $RUN 2" \
    "confirmed $RUN 2" "end $RUN - aborted"
}

# Confirmations survive later trouble: run r-a confirmed 64 then 80 GiB and ended; run r-b then
# hung the machine at 96 GiB (a real simulated hang: the write above 88 GiB is accepted, then
# nothing answers), and the machine was rebooted. The last confirmed value is still r-a's
# 80 GiB, the hang ceiling is 96 GiB, and a second recover agrees.
confirmed_never_lost() {
  fresh_machine
  helper apply 64GiB --run r-a --step 1; expect_rc 0
  helper confirm --run r-a --step 1; expect_rc 0
  helper apply 80GiB --run r-a --step 2; expect_rc 0
  helper confirm --run r-a --step 2; expect_rc 0
  helper end --run r-a --outcome completed; expect_rc 0

  sim hang-above 88GiB || fail "cannot set hang-above"
  helper apply 96GiB --run r-b --step 1
  expect_rc 6; expect_last_event mismatch  # written, then the read-back found the machine hung
  expect_sim hung 1; expect_knob 98304
  reboot_machine

  local hang confirmed
  hang=$(step_json 98304 r-b 1 mismatch)
  confirmed=$(step_json 81920 r-a 2 confirmed)
  recover --json
  expect_rc 0
  expect_recover_json "$hang" "$confirmed" 0 false
  expect_err "went down at run r-b step 1 (98304 MiB"  # no applied record: interrupted, taken as the hang
  expect_err_lacks "run r-a"  # r-a ended: nothing to say or record about it
  expect_journal_events "intent r-a 1" "applied r-a 1" "confirmed r-a 1" "intent r-a 2" "applied r-a 2" \
    "confirmed r-a 2" "end r-a - completed" "intent r-b 1" "mismatch r-b 1" "end r-b - hung"

  local first=$OUT sum
  sum=$(journal_sum)
  recover --json
  expect_rc 0; expect_no_err
  [ "$OUT" = "$first" ] || fail "a second recover answered differently:
$first
$OUT"
  [ "$(journal_sum)" = "$sum" ] || fail "a second recover recorded something"

  recover
  expect_rc 0
  expect_out "Hang ceiling: run r-b step 1 (98304 MiB"
  expect_out "Last confirmed value: run r-a step 2 (81920 MiB"
  expect_out "wiredcap set 81920MiB"
  expect_knob 0; expect_sim writes 3  # nothing re-applied
}

declare -F "$scenario" >/dev/null || fail "no scenario '$scenario'"
"$scenario"
echo "PASS: $scenario"
