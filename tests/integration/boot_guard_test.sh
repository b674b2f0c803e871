#!/usr/bin/env bash
# Persistence and the boot-loop guard, end to end on the simulated Mac, one scenario
# per CTest test:
#   boot_guard_test.sh WIREDCAP HELPER SYSTEM SIM PLIST WORKDIR SCENARIO
#
# The LaunchDaemon is the REAL one (PLIST: packaging/macos/org.wiredcap.boot.plist), run by
# launchd_sim.py, a model of launchd: `boot` reboots the simulated Mac and runs the job once
# (RunAtLoad), `tick` runs it once more (StartInterval), `wait 11m` lets 11 minutes of uptime
# pass running the job every StartInterval seconds. A plist that would not run the boot action
# at load and then periodically fails every scenario here (launchd_sim refuses it).
#
# A hang: the simulator's `hang-above` makes the machine hung from the fatal write on (it
# answers nothing, so the helper's read-back fails: loop_scenario); with `fault
# stall-after-write` the writer never hears back at all, as on a frozen Mac
# (loop_scenario_frozen, killed_*). The power button is SIGKILL and a reboot, as
# crash_points_test.sh kills a ramp step. Uptime passes only through `wait` (wiredcap-sim
# advance) and the few real seconds a test takes, so the boot action's answers are exact.
#
# Tests run as root (CI does), as launchd runs the job; scenarios that need another user use
# setpriv.
WIREDCAP=$1 HELPER=$2 SYSTEM=$3 SIM=$4 PLIST=$5 WORK=$6 scenario=$7
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: launchd runs the boot action as root; so must this test"; exit 77; }

# The interpreter itself, without site imports (-S): each start costs milliseconds.
PY=$(python3 -c 'import sys; print(sys.executable)') || fail "python3 is needed"
py() { "$PY" -S "$@"; }

STALL_MS=20000  # far beyond the 5 s the test waits for the helper to reach the stall
NOBODY=65534

BG_PID=
cleanup() {
  if [ -n "$BG_PID" ]; then kill -9 "$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null; fi
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------
# The machine, the daemon, wiredcap

# A new 192 GiB machine (knob 0, boot 1), no journal, a band of 64-176 GiB in steps of at most
# 16 GiB, healthy_after at its default (10m). Its OS default cap is set to the band's floor,
# 64 GiB, so the ramps these stories were written for (to 80 and 96 GiB) still raise the cap.
fresh_machine() {
  new_tree m2ultra-192
  sim default-cap 64GiB >/dev/null || fail "cannot set the default cap"
  standard_policy
  BOOT_STATE=$WORK/journal/boot.state
  SWITCH=$WORK/etc/wiredcap.boot-disabled
}

sim_value() { sim show | sed -n "s/^$1=//p"; }
expect_sim() { local v; v=$(sim_value "$1"); [ "$v" = "$2" ] || fail "simulator $1 is '$v', expected '$2'"; }
# Every value ever written to the simulated knob, oldest first, comma-separated.
expect_history() { expect_sim history "$1"; }

# launchd_sim.py COMMAND [DURATION] against this tree: sets OUT, ERR, RC.
launchd_args() {
  printf '%s\n' "$HERE/launchd_sim.py" --plist "$PLIST" --system "$SYSTEM" --sim "$SIM" \
    --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE"
}
launchd() {
  local args
  mapfile -t args < <(launchd_args)
  OUT=$(py "${args[@]}" "$@" 2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}

# The boot action's "action" of each job run in $OUT, space-separated.
actions() { printf '%s\n' "$OUT" | sed -n 's/.*"action":"\([a-z]*\)".*/\1/p' | tr '\n' ' ' | sed 's/ $//'; }
expect_actions() {
  local a
  a=$(actions)
  [ "$a" = "$*" ] || fail "the job runs answered '$a', expected '$*'; stdout: $OUT; stderr: $ERR"
}
# n copies of WORD, space-separated.
repeat_word() { local i s=; for ((i = 0; i < $1; i++)); do s+="$2 "; done; printf '%s' "${s% }"; }

# wiredcap itself, against this tree: sets OUT, ERR, RC.
wcap() {
  OUT=$("$WIREDCAP" --helper "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" "$@" \
        </dev/null 2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}

# An unattended ramp to SIZE whose check always passes: every step is confirmed in the journal.
ramp_to() {
  wcap ramp --to "$1" --unattended --check true
  expect_rc 0
  expect_journal '"command":"end","event":"end"'
}

# A field of the boot state file (value_mib, guard, guard_boot, ...), read without the helper.
state_field() { sed -n "s/^$1=//p" "$BOOT_STATE"; }
expect_guard() {
  [ -f "$BOOT_STATE" ] || fail "no boot state at $BOOT_STATE"
  local g
  g=$(state_field guard)
  [ "$g" = "$1" ] || fail "the boot guard is '$g', expected '$1': $(cat "$BOOT_STATE")"
  if [ $# -gt 1 ]; then
    [ "$(state_field guard_boot)" = "$2" ] || fail "the guard belongs to boot '$(state_field guard_boot)', expected '$2'"
  fi
}
expect_no_state() {
  if [ -e "$BOOT_STATE" ] || [ -L "$BOOT_STATE" ]; then fail "a boot state is still stored: $(ls -l "$BOOT_STATE")"; fi
}

sum_of() { if [ -e "$1" ]; then cksum < "$1"; else echo none; fi; }

# The journal's records as "command/event to_mib" lines (to_mib "-" when absent), read
# independently of wiredcap; with a COMMAND argument, only that command's records.
journal_records() {
  py - "$JOURNAL" "${1:-}" <<'PY'
import json, sys
path, only = sys.argv[1], sys.argv[2]
for line in open(path, encoding="ascii").read().splitlines():
    r = json.loads(line)
    if only and r.get("command") != only:
        continue
    print("%s/%s %s" % (r.get("command"), r.get("event"), r.get("to_mib", "-")))
PY
}
expect_records() {  # expect_records COMMAND RECORD...
  local want got
  want=$(printf '%s\n' "${@:2}")
  got=$(journal_records "$1")
  [ "$got" = "$want" ] || fail "the journal's $1 records are:
$got
expected:
$want"
}

# The helper's `read`, one member of its boot_guard object as compact JSON.
boot_guard() {
  helper read
  expect_rc 0
  py -c 'import json, sys; print(json.dumps(json.loads(sys.stdin.read())["boot_guard"].get(sys.argv[1], "<absent>"), separators=(",", ":")))' \
    "$1" <<<"$OUT"
}
expect_boot_guard() {  # expect_boot_guard KEY JSON
  local v
  v=$(boot_guard "$1")
  [ "$v" = "$2" ] || fail "read's boot_guard.$1 is $v, expected $2"
}

# ---------------------------------------------------------------------------------------------
# The boot whose apply hangs the machine, and the power button

machine_hung() { [ "$(sim_value hung)" = 1 ]; }
boot_intent_journaled() { [ -f "$JOURNAL" ] && grep -q '"command":"boot","event":"intent"' "$JOURNAL"; }

# `launchd_sim boot` in the background, held by the simulator's stall fault FAULT (stall-write:
# before the knob changes; stall-after-write: after). launchd_sim execs the job, so BG_PID is
# the helper itself.
start_stalled_boot() {
  local args
  sim fault "$1" "$STALL_MS" || fail "cannot set the $1 fault"
  mapfile -t args < <(launchd_args)
  "$PY" -S "${args[@]}" boot >"$WORK/bg.out" 2>"$WORK/bg.err" &  # not through py(): $! must be the job
  BG_PID=$!
}

# The power button: SIGKILL (the helper never ran past the stall), the stall fault cleared (it
# is the test's device, not the machine's), and proof that the kill ended the helper before it
# printed anything.
power_button() {
  kill_background_job
  sim fault stall-write off || fail "cannot clear the stall-write fault"
  sim fault stall-after-write off || fail "cannot clear the stall-after-write fault"
}

# The next boot after a boot whose apply never became healthy: nothing applied, the guard
# tripped, the journal says so, with the value.
expect_tripped_boot() {  # expect_tripped_boot MIB
  local boots sum_hist
  boots=$(sim_value boot_count)
  sum_hist=$(sim_value history)
  launchd boot
  expect_rc 0; expect_one_line
  expect_actions tripped
  expect_out "\"persisted_mib\":{\"value\":$1,\"source\":\"boot state file\"}"
  expect_out 'never recorded healthy'
  expect_sim boot_count $((boots + 1))
  expect_knob 0; expect_sim hung 0
  expect_history "$sum_hist"
  expect_guard tripped "$(sim_value boot_id)"
  tail -n 1 "$JOURNAL" | grep -q "\"boot\":\"$(sim_value boot_id)\",\"uid\":0,\"command\":\"boot\",\"event\":\"tripped\",\"to_mib\":$1,\"reason\":\"[^\"]*never recorded healthy" ||
    fail "the last journal record is not this boot's boot/tripped for $1 MiB: $(tail -n 1 "$JOURNAL")"
}

# After a trip: every later boot and run does nothing at all, records nothing.
expect_trip_is_sticky() {
  local hist jsum ssum
  hist=$(sim_value history); jsum=$(sum_of "$JOURNAL"); ssum=$(sum_of "$BOOT_STATE")
  launchd boot
  expect_rc 0; expect_actions none; expect_out 'the boot guard stopped at'
  launchd wait 3m
  expect_rc 0; expect_actions none none none
  expect_knob 0; expect_history "$hist"
  [ "$(sum_of "$JOURNAL")" = "$jsum" ] || fail "a boot after the trip recorded something: $(tail -n 2 "$JOURNAL")"
  [ "$(sum_of "$BOOT_STATE")" = "$ssum" ] || fail "a boot after the trip changed the boot state: $(cat "$BOOT_STATE")"
}

# ---------------------------------------------------------------------------------------------
# Scenarios

# The boot loop the guard exists to stop. A ramp confirmed 96 GiB, but the value hangs
# this machine when it is applied at boot (hang-above 90GiB from then on: the ramp's check
# passed, the load that starts with the machine does not). It is persisted as confirmed. Boot 1
# applies it and the machine hangs: the helper's read-back gets no answer (exit 6) and the
# guard stays `trying`. The power button; boot 2 does NOT apply it (tripped: boot 1 never
# became healthy), and every later boot does nothing. The value cannot be persisted again as
# confirmed; `wiredcap status` says what happened on its first line; `wiredcap persist 96GiB`
# is refused.
loop_scenario() {
  fresh_machine
  ramp_to 96GiB
  expect_history 81920,98304
  sim reboot || fail "cannot reboot"
  sim hang-above 90GiB || fail "cannot set hang-above"

  helper persist 96GiB
  expect_rc 0; expect_one_line
  expect_out '"requested_mib":98304,"basis":"confirmed","changed":true'
  expect_out '"persisted_mib":{"value":98304,"source":"boot state file read-back"}'
  expect_journal '"command":"persist","event":"persisted","to_mib":98304,"reason":"confirmed in run r-'
  expect_guard armed
  launchd tick  # stored in this boot: applied from the next one on
  expect_rc 0; expect_actions none; expect_out 'applied from the next boot on'

  # Boot 1: the apply hangs the machine; the outcome unknown, the guard stays `trying`.
  launchd boot
  expect_rc 6; expect_one_line; expect_out '"ok":false'; expect_err 'could not read it back'
  local boot1
  boot1=$(sim_value boot_id)
  expect_sim hung 1; expect_knob 98304
  expect_history 81920,98304,98304
  expect_guard trying "$boot1"

  # Boot 2 (after the power button): tripped, nothing applied.
  expect_tripped_boot 98304
  [[ $(state_field reason) == *"boot $boot1 applied 98304 MiB"* ]] || fail "the reason does not name boot 1: $(state_field reason)"
  expect_boot_guard guard '"tripped"'
  expect_boot_guard persisted_mib 98304
  expect_records boot "boot/trying 98304" "boot/intent 98304" "boot/mismatch 98304" "boot/revert_intent 0" "boot/revert_write_failed 0" \
    "boot/tripped 98304"

  # Boots 3 and on: nothing, ever.
  expect_trip_is_sticky

  # The trip is a hang at 96 GiB, for the helper too; and the tripped value is no longer a
  # confirmed one.
  helper persist 96GiB
  expect_rc 3; expect_journal '"command":"persist","event":"refused".*"to_mib":98304.*at or above 98304 MiB.*hung'
  helper persist 96GiB --ignore-hang-ceiling
  expect_rc 3; expect_err 'tripped the boot guard'
  expect_guard tripped

  # wiredcap: the first line of status, and persist refused (the boot trip is a hang at 96 GiB,
  # and the helper refuses it too when the hang ceiling is overridden).
  wcap status
  expect_rc 0
  local first
  # The alert's paragraph: its first line and the rows it was wrapped into (indented), as one.
  first=$(printf '%s\n' "$OUT" | awk 'NR == 1 || /^  / { print; next } { exit }')
  first=$(flat "$first")
  [[ $first == "BOOT GUARD TRIPPED at "* ]] || fail "the first line of status is not the trip: $first
$OUT"
  [[ $first == *"98304 MiB"* ]] || fail "the first line of status does not name the value: $first"
  [[ $first == *"wiredcap persist --off"* ]] || fail "the first line of status does not say what to run: $first"
  flat "$OUT" | grep -q 'hang ceiling 98304 MiB ([^)]*) was applied by the boot action' ||
    fail "status does not count the trip as a hang ceiling at 98304 MiB: $OUT"
  wcap persist 96GiB
  expect_rc 3; expect_err 'at or above the hang ceiling'
  wcap persist 96GiB --ignore-hang-ceiling
  expect_rc 3; expect_err 'tripped the boot guard'
  expect_guard tripped; expect_knob 0
  expect_history 81920,98304,98304
}

# The same boot loop with the hang as a real Mac has it: the machine freezes at the write and
# the helper never hears back (the simulator's stall-after-write holds it there), until the
# power button (SIGKILL, reboot). The guard was `trying` for boot 1, on disk, before the write;
# boot 2 trips.
loop_scenario_frozen() {
  fresh_machine
  ramp_to 96GiB
  sim reboot || fail "cannot reboot"
  sim hang-above 90GiB || fail "cannot set hang-above"
  helper persist 96GiB; expect_rc 0

  start_stalled_boot stall-after-write
  wait_until "a hung machine" machine_hung
  local boot1
  boot1=$(sim_value boot_id)
  expect_knob 98304
  expect_history 81920,98304,98304
  expect_guard trying "$boot1"
  [[ $(state_field applied_uptime_s) =~ ^[0-9]+$ ]] || fail "no applied_uptime_s in the trying state: $(cat "$BOOT_STATE")"
  power_button
  expect_records boot "boot/trying 98304" "boot/intent 98304"

  expect_tripped_boot 98304
  [[ $(state_field reason) == *"boot $boot1 applied 98304 MiB"* ]] || fail "the reason does not name boot 1: $(state_field reason)"
  expect_trip_is_sticky
  helper persist 96GiB --ignore-hang-ceiling
  expect_rc 3; expect_err 'tripped the boot guard'
  helper persist 96GiB
  expect_rc 3; expect_journal '"command":"persist","event":"refused".*"to_mib":98304.*at or above 98304 MiB.*hung'
  expect_history 81920,98304,98304
}

# The value that works: confirmed 80 GiB in a ramp, persisted; every boot applies it
# once and marks it healthy once the machine has stayed up healthy_after (10m) with it.
healthy_scenario() {
  fresh_machine
  ramp_to 80GiB
  expect_history 81920
  wcap persist  # SIZE defaults to the journal's last confirmed value
  expect_rc 0
  expect_guard armed
  [ "$(state_field value_mib) $(state_field basis)" = "81920 confirmed" ] || fail "wiredcap persist stored: $(cat "$BOOT_STATE")"
  expect_journal '"command":"persist","event":"persisted","to_mib":81920,"reason":"confirmed in run r-'
  helper persist 80GiB
  expect_rc 0; expect_out '"changed":false'; expect_last_event unchanged
  expect_guard armed
  # Stored for boot means from the next boot on: the daemon's runs in this boot change nothing.
  launchd tick
  expect_rc 0; expect_actions none; expect_out 'stored in this boot; applied from the next boot on'
  launchd wait 11m
  expect_rc 0; expect_actions "$(repeat_word 11 none)"
  expect_knob 81920; expect_history 81920; expect_guard armed

  # Boot 1.
  launchd boot
  expect_rc 0; expect_one_line; expect_actions applied
  expect_out '"readback_mib":{"value":81920,"source":"kernel read-back"}'
  local boot1
  boot1=$(sim_value boot_id)
  expect_knob 81920; expect_guard trying "$boot1"
  launchd wait 5m
  expect_rc 0; expect_actions "$(repeat_word 5 waiting)"
  expect_guard trying "$boot1"
  launchd wait 6m  # runs at 360 ... 660 s after the apply: healthy at 600 s
  expect_rc 0; expect_actions "$(repeat_word 4 waiting) healthy none"
  expect_guard healthy "$boot1"
  expect_boot_guard guard '"healthy"'
  expect_last_event healthy
  launchd tick
  expect_rc 0; expect_actions none; expect_out 'applied and healthy in this boot'

  # Boot 2: healthy in boot 1 is no reason to skip boot 2. A value set by hand after the boot's
  # apply is noted when the boot is marked healthy, not held against it.
  launchd boot
  expect_rc 0; expect_actions applied
  local boot2
  boot2=$(sim_value boot_id)
  expect_knob 81920; expect_guard trying "$boot2"
  wcap set 72GiB
  expect_rc 0; expect_knob 73728
  launchd wait 11m
  expect_rc 0; expect_actions "$(repeat_word 9 waiting) healthy none"
  expect_guard healthy "$boot2"
  tail -n 1 "$JOURNAL" | grep -q '"event":"healthy".*changed since and reads 73728 MiB' ||
    fail "the healthy record does not note the value set by hand: $(tail -n 1 "$JOURNAL")"

  # Boot 3: the stored value again.
  launchd boot
  expect_rc 0; expect_actions applied; expect_knob 81920

  expect_history 81920,81920,81920,73728,81920
  expect_records boot "boot/trying 81920" "boot/intent 81920" "boot/applied 81920" "boot/healthy 81920" \
    "boot/trying 81920" "boot/intent 81920" "boot/applied 81920" "boot/healthy 81920" "boot/trying 81920" "boot/intent 81920" "boot/applied 81920"

  # wiredcap status: no alarm on the first line; the stored value and the guard shown.
  wcap status
  expect_rc 0
  [[ $(printf '%s\n' "$OUT" | head -n 1) != BOOT* ]] || fail "status starts with an alarm: $OUT"
  printf '%s\n' "$OUT" | unwrap | grep 'stored for boot' | grep -q '81920 MiB' || fail "status lacks 'stored for boot ... 81920 MiB': $OUT"
  printf '%s\n' "$OUT" | unwrap | grep 'boot guard' | grep -q healthy || fail "status lacks 'boot guard ... healthy': $OUT"
}

# At early boot launchd may run the action before the GPU driver registers iogpu.wired_limit_mb.
# Until 300 s of uptime that is "waiting", never the final `failed`: once the key is there, the
# stored value is applied. Only a key still missing at 300 s of uptime fails, for good.
early_boot_waits_for_the_key() {
  fresh_machine
  helper persist 80GiB --unconfirmed
  expect_rc 0
  sim fault key-missing on
  launchd boot
  expect_rc 0; expect_actions waiting; expect_out 'cannot be read yet at 0 s of uptime'
  expect_guard armed; expect_history ""
  launchd wait 2m
  expect_rc 0; expect_actions "waiting waiting"; expect_guard armed
  sim fault key-missing off  # the driver has registered the key
  launchd tick
  expect_rc 0; expect_actions applied; expect_knob 81920
  expect_guard trying "$(sim_value boot_id)"; expect_history 81920

  fresh_machine
  helper persist 80GiB --unconfirmed
  sim fault key-missing on
  launchd boot
  expect_actions waiting
  launchd wait 6m  # runs at 60 ... 360 s: waiting until 240 s, failed at 300 s, then nothing
  expect_actions "waiting waiting waiting waiting none"
  expect_guard failed
  [[ $(state_field reason) == *"cannot read iogpu.wired_limit_mb"* ]] || fail "the failed guard's reason: $(cat "$BOOT_STATE")"
  expect_history ""
}

# The simplest boot loop needs no hang: the value applied, and the machine restarted (crash,
# power cut, impatient person) before it had been up healthy_after. The next boot trips.
restart_before_healthy_trips() {
  fresh_machine
  helper persist 80GiB --unconfirmed
  expect_rc 0; expect_out '"basis":"unconfirmed"'
  expect_journal '"to_mib":81920,"reason":"unconfirmed: stored with --unconfirmed"'
  launchd boot
  expect_rc 0; expect_actions applied
  launchd wait 9m
  expect_rc 0; expect_actions "$(repeat_word 9 waiting)"
  expect_tripped_boot 81920
  expect_trip_is_sticky
  expect_history 81920
}

# A trip holds until a person acts: persisting a lower value (confirmed below the trip) arms the
# guard again and the next boot applies it; persist --off and reset clear a trip too.
a_trip_is_cleared_only_by_a_person() {
  fresh_machine
  ramp_to 96GiB
  helper persist 96GiB; expect_rc 0
  launchd boot; expect_actions applied
  expect_tripped_boot 98304
  # 80 GiB was confirmed, and the trip was at 96 GiB: acceptable.
  helper persist 80GiB
  expect_rc 0; expect_out '"basis":"confirmed","changed":true'
  expect_guard armed
  launchd tick  # the boot it was stored in: nothing
  expect_rc 0; expect_actions none; expect_knob 0
  launchd boot
  expect_rc 0; expect_actions applied; expect_knob 81920
  launchd wait 10m
  expect_actions "$(repeat_word 9 waiting) healthy"

  # Tripped again (restart too soon), then persist --off: nothing stored, nothing applied.
  launchd boot; expect_actions applied
  expect_tripped_boot 81920
  helper persist --off
  expect_rc 0; expect_out '"off":true,"changed":true'; expect_out '"persisted_mib":{"value":null'
  expect_last_event removed
  expect_no_state
  launchd boot; expect_rc 0; expect_actions none; expect_out 'nothing is stored'
  expect_knob 0
  expect_history 81920,98304,98304,81920,81920
}

# The documented switch: anything at dirname(policy)/wiredcap.boot-disabled (a file, a
# directory, a symlink even dangling, any owner) disables the boot action: no kernel write, no
# journal record, no change to the boot state. Removing it enables the action again.
switch_disables() {
  fresh_machine
  helper persist 80GiB --unconfirmed; expect_rc 0
  local kind jsum ssum
  for kind in file directory symlink dangling-symlink owned-by-nobody; do
    rm -rf "$SWITCH"
    case $kind in
      file) : > "$SWITCH" ;;
      directory) mkdir "$SWITCH" ;;
      symlink) ln -s "$POLICY" "$SWITCH" ;;
      dangling-symlink) ln -s "$WORK/nonexistent" "$SWITCH" ;;
      owned-by-nobody) : > "$SWITCH"; chown "$NOBODY:$NOBODY" "$SWITCH" ;;
    esac
    jsum=$(sum_of "$JOURNAL"); ssum=$(sum_of "$BOOT_STATE")
    launchd boot
    expect_rc 0; expect_one_line; expect_actions disabled
    expect_out "$SWITCH exists"
    launchd wait 1m
    expect_rc 0; expect_actions disabled
    expect_knob 0; expect_history ""
    [ "$(sum_of "$JOURNAL")" = "$jsum" ] || fail "switch ($kind): the disabled boot action recorded something: $(tail -n 1 "$JOURNAL")"
    [ "$(sum_of "$BOOT_STATE")" = "$ssum" ] || fail "switch ($kind): the boot state changed: $(cat "$BOOT_STATE")"
    expect_guard armed
    expect_boot_guard disabled true
    wcap status
    printf '%s\n' "$OUT" | unwrap | grep 'boot action' | grep -q DISABLED || fail "status does not show the switch ($kind): $OUT"
  done
  rm -rf "$SWITCH"
  expect_boot_guard disabled false
  launchd tick
  expect_rc 0; expect_actions applied; expect_knob 81920

  # Turned on while the boot is being watched: the runs do nothing, the guard stays `trying`;
  # turned off, the next run finds the machine up long enough.
  : > "$SWITCH"
  jsum=$(sum_of "$JOURNAL")
  launchd wait 11m
  expect_rc 0; expect_actions "$(repeat_word 11 disabled)"
  expect_guard trying
  [ "$(sum_of "$JOURNAL")" = "$jsum" ] || fail "the disabled boot action recorded something"
  rm -f "$SWITCH"
  launchd tick
  expect_rc 0; expect_actions healthy
  expect_history 81920
}

# `wiredcap reset` forgets the stored value (and says so in the journal): the next boot applies
# nothing. A ramp's revert (reset --run ... --revert ...) leaves it alone.
reset_forgets() {
  fresh_machine
  helper persist 80GiB --unconfirmed; expect_rc 0
  launchd boot; expect_actions applied; expect_knob 81920

  helper reset --run r-x --step 1 --revert timeout
  expect_rc 0; expect_knob 0
  expect_guard trying
  helper reset
  expect_rc 0; expect_out '"persist_removed":true'
  expect_no_state
  expect_journal '"command":"reset","event":"persist_removed"'
  helper reset
  expect_rc 0; expect_out '"persist_removed":false'

  helper persist 80GiB --unconfirmed; expect_rc 0
  wcap reset
  expect_rc 0; expect_knob 0
  expect_no_state
  [ "$(grep -c '"event":"persist_removed"' "$JOURNAL")" -eq 2 ] || fail "expected two persist_removed records: $(cat "$JOURNAL")"
  local jsum
  launchd boot
  expect_rc 0; expect_actions none; expect_out 'nothing is stored'
  jsum=$(sum_of "$JOURNAL")
  launchd wait 2m
  expect_rc 0; expect_actions none none
  [ "$(sum_of "$JOURNAL")" = "$jsum" ] || fail "a boot with nothing stored recorded something"
  expect_knob 0; expect_history 81920,0  # the revert's write; the resets after it had nothing to do
  helper persist --off
  expect_rc 0; expect_out '"changed":false'; expect_last_event unchanged
}

# A boot state the helper did not write (garbage, cut short, a symlink, writable by others,
# owned by someone else, not a file; a second hard link is not refused: hostile.outsider_hardlinks_root_files): the boot action applies nothing, exits
# nonzero, and says exactly what is wrong; `read` reports it; persist --off clears it.
tamper() {  # tamper KIND
  fresh_machine
  helper persist 80GiB --unconfirmed; expect_rc 0
  cp "$BOOT_STATE" "$WORK/good-state"
  local message target=$WORK/elsewhere/boot.state
  mkdir -p "$WORK/elsewhere"
  case $1 in
    garbage) printf 'value_mib=98304\nguard=armed\n' > "$BOOT_STATE"; message='first line is not the boot state header' ;;
    truncated) head -c 120 "$WORK/good-state" > "$BOOT_STATE"; message='is not' ;;
    symlink) cp "$WORK/good-state" "$target"; rm "$BOOT_STATE"; ln -s "$target" "$BOOT_STATE"
             message='is a symbolic link' ;;
    group_writable) chmod 664 "$BOOT_STATE"; message='writable by group or others' ;;
    foreign_owner) chown "$NOBODY:$NOBODY" "$BOOT_STATE"; message="owned by uid $NOBODY" ;;
    directory) rm "$BOOT_STATE"; mkdir "$BOOT_STATE"; message='is a directory' ;;
    *) fail "no tamper kind '$1'" ;;
  esac
  local jsum
  jsum=$(sum_of "$JOURNAL")
  launchd boot
  [ "$RC" -ne 0 ] || fail "the boot action accepted a tampered boot state ($1): $OUT"
  expect_one_line
  expect_out '"ok":false'
  expect_err "$BOOT_STATE"; expect_err "$message"; expect_err 'nothing applied'
  expect_knob 0; expect_history ""
  [ "$(sum_of "$JOURNAL")" = "$jsum" ] || note "journaled: $(tail -n 1 "$JOURNAL")"
  [[ $(boot_guard error) == *"$message"* ]] || fail "read's boot_guard has no error naming the problem: $(boot_guard error)"
  expect_boot_guard persisted_mib null
  launchd wait 1m
  [ "$RC" -ne 0 ] || fail "a later run accepted the tampered boot state: $OUT"
  expect_knob 0; expect_history ""

  # persist --off removes what is there (not what a link points to); then nothing is stored.
  [ "$1" = directory ] && rmdir "$BOOT_STATE"
  helper persist --off
  expect_rc 0
  expect_no_state
  case $1 in symlink) cmp -s "$target" "$WORK/good-state" || fail "the link's target was changed" ;; esac
  launchd boot
  expect_rc 0; expect_actions none
  expect_history ""
}

# The helper killed (the power button) while the boot apply is held inside the write, before the
# knob changed: the guard was already `trying` on disk, so the next boot trips, although the
# value never reached the kernel (it cannot know that; it errs on the safe side).
killed_before_the_write() {
  fresh_machine
  helper persist 80GiB --unconfirmed; expect_rc 0
  start_stalled_boot stall-write
  wait_until "the boot intent in the journal" boot_intent_journaled
  expect_guard trying "$(sim_value boot_id)"
  expect_knob 0
  power_button
  expect_history ""
  expect_tripped_boot 81920
  expect_trip_is_sticky
  expect_history ""
}

# The same after the knob changed, before the helper read it back or recorded `applied`.
killed_after_the_write() {
  fresh_machine
  helper persist 80GiB --unconfirmed; expect_rc 0
  start_stalled_boot stall-after-write
  wait_until "the knob at 81920 MiB" knob_is 81920
  expect_guard trying "$(sim_value boot_id)"
  power_button
  expect_records boot "boot/trying 81920" "boot/intent 81920"
  expect_tripped_boot 81920
  expect_trip_is_sticky
  expect_history 81920
}

# Persist --unconfirmed counts from the effective cap read at persist time
# (158 GiB: the simulated Metal, the knob at 0). A value below it would lower the cap below the
# OS default at every boot: refused, nothing stored, unless --lower. The starting point is
# journaled and stored with its source, and the boot action's one step counts from it: 174 GiB
# is one step above 158 GiB (from the band's 64 GiB floor it would be 110 GiB), 176 GiB is not.
unconfirmed_counts_from_the_effective_cap() {
  fresh_machine
  sim default-cap 158GiB >/dev/null || fail "cannot set the default cap"
  wcap persist 80GiB --unconfirmed
  expect_rc 3; expect_no_state
  expect_records persist "persist/refused 81920"  # no persist_intent, nothing persisted
  grep -q '"command":"persist","event":"refused",.*"effective_mib":161792,"effective_source":"given by uid [0-9]*",.*"effective_said":"simulated-metal"' \
    "$JOURNAL" || fail "the refusal does not journal the starting point: $(tail -n 1 "$JOURNAL")"
  wcap persist 80GiB --unconfirmed --lower
  expect_rc 0; expect_out 'LOWERS'
  # The starting point is the caller's claim (the front-end's reading, passed as --effective):
  # labelled as such, the source it named kept apart, as in the journal.
  [ "$(state_field value_mib)/$(state_field start_mib)/$(state_field start_source)/$(state_field start_said)" = \
    "81920/161792/given by uid $(id -u)/simulated-metal" ] ||
    fail "the boot state does not record the starting point as a claim: $(cat "$BOOT_STATE")"
  grep -q '"event":"persisted",.*"effective_mib":161792,"effective_source":"given by uid [0-9]*",.*"effective_said":"simulated-metal"' "$JOURNAL" ||
    fail "the stored lowering does not journal its starting point: $(tail -n 1 "$JOURNAL")"
  wcap persist 174GiB --unconfirmed
  expect_rc 0
  [ "$(state_field start_mib)" = 161792 ] || fail "start_mib: $(cat "$BOOT_STATE")"
  launchd boot
  expect_rc 0; expect_actions applied; expect_knob 178176; expect_history 178176
  # With the knob set the OS default's cap cannot be read (Metal follows the knob): refused,
  # nothing stored (counting from the knob would let the boot jump 18 GiB below).
  local before
  before=$(sum_of "$BOOT_STATE")
  wcap persist 176GiB --unconfirmed
  expect_rc 3
  [ "$(sum_of "$BOOT_STATE")" = "$before" ] || fail "a refused persist changed the boot state: $(cat "$BOOT_STATE")"
  # Back at the OS default, stored again (armed), then root edits it to 176 GiB, 18 GiB above the
  # recorded start: the next boot applies nothing.
  wcap reset; expect_rc 0; expect_no_state
  wcap persist 174GiB --unconfirmed
  expect_rc 0; expect_guard armed
  sed -i 's/^value_mib=178176$/value_mib=180224/' "$BOOT_STATE"
  launchd boot
  expect_rc 3; expect_out 'raising from 161792 MiB'; expect_out 'more than max_step'
  expect_guard failed "$(sim_value boot_id)"; expect_knob 0; expect_history 178176,0
}

# The boot action is root's (launchd's) alone. A tree owned by nobody, complete and valid for
# nobody, so that nothing but the identity check can stop it: the dev helper run by nobody is
# refused with exit 4, the refusal to the system log only, nothing applied or stored. (In the
# setuid build the same is checked by setuid_test.sh.)
refused_for_non_root() {
  fresh_machine
  helper persist 80GiB --unconfirmed; expect_rc 0
  chown -R "$NOBODY:$NOBODY" "$WORK/etc" "$WORK/journal" "$STATE" "$STATE.lock"
  local ssum
  ssum=$(sum_of "$BOOT_STATE")
  OUT=$(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- \
          "$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" boot-action 2>"$WORK/stderr")
  RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 4; expect_one_line; expect_err 'root only'
  ! grep -q '"command":"boot"' "$JOURNAL" || fail "a refused boot reached the journal (the system log only)"
  expect_knob 0; expect_history ""
  [ "$(sum_of "$BOOT_STATE")" = "$ssum" ] || fail "the refused boot action changed the boot state"
}

# wiredcap-system is root's and never setuid: a setuid (or setgid) copy refuses to run even for
# root, and any copy refuses a caller whose real uid is not 0 (a setuid-root copy run by nobody
# included). Nothing runs: the knob, its history, the boot state and the journal stay as they were.
refused_when_setuid() {
  fresh_machine
  helper persist 80GiB --unconfirmed; expect_rc 0
  local copy=$WORK/bin/wiredcap-system bits ssum jsum
  { mkdir -p "$WORK/bin" && cp "$SYSTEM" "$copy" && chmod 755 "$WORK/bin"; } || fail "cannot copy wiredcap-system"
  sim reboot >/dev/null || fail "cannot reboot the simulator"
  ssum=$(sum_of "$BOOT_STATE") jsum=$(sum_of "$JOURNAL")
  for bits in 4755 2755; do
    chmod "$bits" "$copy"
    OUT=$("$copy" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" boot-action 2>"$WORK/stderr")
    RC=$?; ERR=$(cat "$WORK/stderr")
    expect_rc 4; expect_one_line; expect_err 'setuid or setgid'
  done
  chmod 4755 "$copy"
  OUT=$(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- \
          "$copy" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" boot-action 2>"$WORK/stderr")
  RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 4; expect_one_line; expect_err 'root only'
  expect_knob 0; expect_history ""
  [ "$(sum_of "$BOOT_STATE")" = "$ssum" ] || fail "a refused wiredcap-system changed the boot state"
  [ "$(sum_of "$JOURNAL")" = "$jsum" ] || fail "a refused wiredcap-system wrote the journal"
  # The same program, not setuid, run by root: it applies the stored value.
  chmod 755 "$copy"
  OUT=$("$copy" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" boot-action 2>"$WORK/stderr")
  RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 0; expect_knob 81920
}

# A plist that would not run the boot action at load and then every StartInterval is refused by
# the launchd model: nothing runs (no reboot, no journal). So a broken plist fails every
# scenario above, not only the plist's lint test (tests/packaging/launchd_plist_test.sh).
launchd_model_refuses_a_broken_plist() {
  fresh_machine
  local args
  mapfile -t args < <(launchd_args)
  OUT=$(py "${args[@]}" check 2>&1); RC=$?
  expect_rc 0
  [ "$OUT" = "$SYSTEM --policy $POLICY --journal $JOURNAL --sim-state $STATE boot-action" ] || fail "the job's command line: $OUT"
  local edit broken=$WORK/broken.plist real=$PLIST
  for edit in 'del j["RunAtLoad"]' 'j["RunAtLoad"] = False' 'del j["StartInterval"]' 'j["StartInterval"] = 0' \
              'j["ProgramArguments"][1] = "apply"' 'j["ProgramArguments"] = j["ProgramArguments"][:1]' \
              'j["ProgramArguments"][0] = "/usr/local/libexec/wiredcap/wiredcap-helper"' 'j["UserName"] = "nobody"' \
              'j["Disabled"] = True' 'j["Program"] = "/bin/sh"'; do
    py - "$real" "$broken" "$edit" <<'PY' || fail "cannot write a broken plist"
import plistlib, sys
j = plistlib.load(open(sys.argv[1], "rb"))
exec(sys.argv[3])
plistlib.dump(j, open(sys.argv[2], "wb"))
PY
    PLIST=$broken
    launchd boot
    PLIST=$real
    expect_rc 65; expect_err 'refusing to run the job'
    [ -z "$OUT" ] || fail "a job ran with a broken plist ($edit): $OUT"
    expect_sim boot_count 1
    [ ! -e "$JOURNAL" ] || fail "a job ran with a broken plist ($edit): $(cat "$JOURNAL")"
  done
  printf 'not a plist\n' > "$broken"
  PLIST=$broken; launchd boot; PLIST=$real
  expect_rc 65; expect_err 'not a property list'
}

# ---------------------------------------------------------------------------------------------
case $scenario in
  tamper_*) tamper "${scenario#tamper_}" ;;
  *) declare -F "$scenario" >/dev/null || fail "no scenario '$scenario'"
     "$scenario" ;;
esac
echo "PASS: $scenario"
