#!/usr/bin/env bash
# The helper against the simulated Mac, one scenario per CTest test:
#   helper_sim_test.sh HELPER SIM WORKDIR SCENARIO
HELPER=$1 SIM=$2 WORK=$3 scenario=$4
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

in_band_is_applied_and_read_back() {
  new_tree; standard_policy
  helper apply 80GiB --effective 158GiB
  expect_rc 0; expect_one_line
  expect_out '"requested_mib":81920'
  expect_out '"readback_mib":{"value":81920,"source":"kernel read-back"}'
  expect_out '"previous_mib":{"value":0,"source":"kernel read-back"}'
  expect_knob 81920
  expect_journal '"event":"intent".*"to_mib":81920'
  expect_last_event applied
}

setting_the_current_value_changes_nothing() {
  new_tree; standard_policy
  helper apply 80GiB --effective 158GiB; expect_rc 0
  helper apply 81920MiB
  expect_rc 0; expect_out '"changed":false'
  expect_last_event unchanged
  [ "$(sim history)" = "81920 MiB" ] || fail "the simulator saw another write: $(sim history)"
}

out_of_band_is_refused() {
  new_tree; standard_policy
  helper apply 200GiB
  expect_rc 3; expect_err 'outside the permitted band'
  expect_knob 0; expect_last_event refused
  helper apply 32GiB
  expect_rc 3; expect_knob 0
}

over_max_step_is_refused() {
  new_tree; standard_policy
  helper apply 80GiB --effective 158GiB; expect_rc 0
  helper apply 120GiB
  expect_rc 3; expect_err 'more than max_step'
  expect_knob 81920; expect_last_event refused
}

above_memsize_minus_reserve_is_refused() {
  # A band written for a 192 GiB Mac, on a 16 GiB one: max is above RAM minus reserve.
  new_tree m4-16; standard_policy
  helper apply 12GiB
  expect_rc 11; expect_err 'minus reserve'
  expect_knob 0; expect_last_event refused
}

# The answer cannot be written (standard output /dev/full): the exit code is still the
# command's own, what it did is journaled, and the message still reaches stderr.
an_unwritable_answer_keeps_the_exit_code() {
  new_tree; standard_policy
  "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" apply 200GiB >/dev/full 2>"$WORK/stderr"
  RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 3; expect_err 'outside the permitted band'; expect_last_event refused
  "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" apply 80GiB --effective 158GiB \
    >/dev/full 2>&1
  RC=$?
  expect_rc 0; expect_knob 81920; expect_last_event applied
}

readback_mismatch_has_its_own_exit_code() {
  new_tree; standard_policy
  sim fault readback-offset 1MiB >/dev/null
  helper apply 80GiB --effective 158GiB
  expect_rc 6
  expect_err 'requested 81920 MiB but the kernel reads back 81921 MiB'
  expect_out '"readback_mib":{"value":81921'
  expect_last_event mismatch
}

write_refused_has_its_own_exit_code() {
  new_tree; standard_policy
  sim fault write-refused on >/dev/null
  helper apply 80GiB --effective 158GiB
  expect_rc 5; expect_err 'refused'
  expect_knob 0; expect_last_event write_failed
}

missing_key_is_unsupported_platform() {
  new_tree; standard_policy
  sim fault key-missing on >/dev/null
  helper apply 80GiB
  expect_rc 7
  helper read
  expect_rc 7; expect_out '"wired_limit_mib":{"value":null'
}

reset_works_with_a_broken_policy() {
  new_tree; standard_policy
  helper apply 80GiB --effective 158GiB; expect_rc 0
  chmod 666 "$POLICY"
  helper apply 96GiB
  expect_rc 11; expect_err 'writable by group or others'; expect_knob 81920
  helper reset
  expect_rc 0; expect_out '"changed":true'; expect_knob 0
  expect_last_event applied
  write_policy 'min = 64GiB' 'max = 232000' 'reserve = 16GiB' 'max_step = 16GiB'
  helper apply 80GiB; expect_rc 11; expect_err 'no unit'
  helper reset; expect_rc 0; expect_out '"changed":false'
}

no_policy_file_uses_the_builtin_band() {
  new_tree
  helper read
  expect_rc 0; expect_out '"source":"built-in default"'; expect_out '"min_mib":98304'
  helper apply 100GiB --effective 158GiB
  expect_rc 0; expect_knob 102400
}

unwritable_journal_changes_nothing() {
  new_tree; standard_policy
  mkdir -p "$WORK/journal" && ln -s /dev/null "$JOURNAL"
  helper apply 80GiB
  expect_rc 12; expect_err 'symbolic link'; expect_knob 0
}

a_hung_machine_reports_it() {
  new_tree; standard_policy
  sim hang-above 72GiB >/dev/null
  helper apply 80GiB --effective 158GiB
  # The write itself is accepted; the machine hangs right after, so the read-back fails.
  expect_rc 6; expect_last_event mismatch
  helper read
  expect_out 'hung'
  sim reboot >/dev/null
  expect_knob 0
}

# From the OS default the helper cannot read the effective cap (Metal): on each profile with a
# band (the built-in one), a raise above the band's min needs --effective (journaled as given),
# is refused without it naming the commands to run, and every answer says raised or lowered.
from_the_os_default_the_helper_needs_the_effective_cap() {
  local profile eff min raise lower
  for profile in m1max-64 m2ultra-192 m3ultra-512; do
    new_tree "$profile"
    eff=$(sim metal | sed 's/ MiB$//')
    helper read; min=$(printf '%s' "$OUT" | sed -n 's/.*"min_mib":\([0-9]*\).*/\1/p')
    raise=$((eff + 1024)) lower=$((min))
    helper apply "${raise}MiB"
    expect_rc 3; expect_knob 0; expect_last_event refused
    expect_err "wiredcap set ${raise}MiB"; expect_err "wiredcap-helper apply ${raise}MiB --effective SIZE"
    helper apply "${raise}MiB" --effective "${eff}MiB"
    expect_rc 0; expect_knob "$raise"
    expect_out '"gpu_cap":{"direction":"raised","from_mib":'"$eff"
    expect_journal '"to_mib":'"$raise"'.*"effective_mib":'"$eff"',"effective_source":"given by uid [0-9]*",.*"effective_said":"given"'
    helper reset; expect_rc 0
    helper apply "${lower}MiB" --effective "${eff}MiB"
    expect_rc 0; expect_out '"direction":"lowered"'
    helper reset; expect_rc 0
    helper apply "${lower}MiB"
    expect_rc 0; expect_out '"gpu_cap":{"direction":"unknown"'
    note "$profile: effective $eff MiB, min $min MiB: refused, raised, lowered as told"
  done
}

ramp_events_are_journaled() {
  new_tree; standard_policy
  helper apply 80GiB --run r-1 --step 1 --effective 158GiB --effective-source metal; expect_rc 0
  helper confirm --run r-1 --step 1; expect_rc 0; expect_last_event confirmed
  helper apply 64GiB --run r-1 --step 2 --revert timeout; expect_rc 0; expect_last_event revert_applied
  helper end --run r-1 --outcome reverted; expect_rc 0; expect_last_event end
  expect_journal '"event":"revert_intent","run":"r-1","step":2'
}

usage_errors_exit_2() {
  new_tree; standard_policy
  for args in "" "frobnicate" "apply" "apply 232000" "apply 232000MB" "apply 0MiB" "confirm" \
              "end --run x" "apply 80GiB --step 1" "read --run x --step 1"; do
    # shellcheck disable=SC2086
    helper $args
    [ "$RC" -eq 2 ] || fail "'$args' exited $RC, expected 2"
    expect_one_line
  done
  expect_knob 0
}

declare -F "$scenario" >/dev/null || fail "no scenario '$scenario'"
"$scenario"
echo "PASS: $scenario"
