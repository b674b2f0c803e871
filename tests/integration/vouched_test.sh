#!/usr/bin/env bash
# A value vouched for by root's policy (`vouched = SIZE`) is reached from the
# OS default in one write, without a local ramp, and journaled with the policy file that vouched
# for it (its path and SHA-256). Everything else still binds it: the band, memory minus reserve,
# a local hang ceiling, the boot guard; and only that exact value is exempt from max_step.
# Asserted on the simulator's write history, the journal and the boot state, not on messages.
#   vouched_test.sh WIREDCAP HELPER SYSTEM SIM WORK SCENARIO
WIREDCAP=$1 HELPER=$2 SYSTEM=$3 SIM=$4 WORK=$5 scenario=$6
. "$(dirname "$0")/lib.sh"

# m2ultra-192: the OS default's effective cap is 158 GiB; 176 GiB is 18 GiB above it, more than
# the 16 GiB max_step, so without the vouch it takes a ramp.
band=('min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB')
vouching_policy() { write_policy "${band[@]}" 'vouched = 176GiB' 'vouched_note = M2 Ultra 192 GB, ops ticket 42'; }

wcap() {
  OUT=$("$WIREDCAP" --helper "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" "$@" \
        </dev/null 2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}
history_is() { local h; h=$(sim history | sed 's/ MiB$//' | paste -sd, -); [ "$h" = "$1" ] || fail "write history is '$h', expected '$1'"; }
policy_hash() { sha256sum "$POLICY" | cut -d' ' -f1; }
# The journal's applied record of 176 GiB names the policy file and its hash as sha256sum has it.
expect_vouched_record() {
  local event=$1 line
  line=$(grep "\"event\":\"$event\"" "$JOURNAL" | grep '"to_mib":180224' | tail -n 1)
  [ -n "$line" ] || fail "no $event record of 180224 MiB: $(cat "$JOURNAL")"
  [[ $line == *"\"vouched\":\"vouched by the policy file $POLICY (sha256 $(policy_hash)): M2 Ultra 192 GB, ops ticket 42\""* ]] ||
    fail "the $event record does not name the vouching policy and its hash: $line"
}

one_set_from_the_os_default() {
  new_tree; vouching_policy
  wcap status
  expect_rc 0; expect_out 'vouched (no max_step)          180224 MiB'
  wcap set 176GiB --yes
  expect_rc 0; expect_knob 180224; history_is 180224
  expect_vouched_record intent; expect_vouched_record applied
  wcap set 176GiB --yes  # idempotent: nothing written, nothing journaled
  expect_rc 0; history_is 180224
}

only_the_vouched_value_skips_the_step() {
  new_tree; vouching_policy
  wcap set 175GiB --yes
  expect_rc 3; expect_knob 0; history_is ''
  expect_err 'more than max_step'
}

removing_the_setting_refuses_again() {
  new_tree; write_policy "${band[@]}"
  wcap set 176GiB --yes
  expect_rc 3; expect_knob 0; history_is ''
  expect_err 'more than max_step'
  ! grep -q '"vouched"' "$JOURNAL" 2>/dev/null || fail "a record says vouched without a vouch: $(cat "$JOURNAL")"
}

the_helper_needs_no_effective_cap_for_it() {
  new_tree; vouching_policy
  helper apply 176GiB
  expect_rc 0; expect_knob 180224; history_is 180224
  expect_vouched_record applied
}

a_hang_ceiling_below_it_refuses() {
  new_tree; vouching_policy
  # A ramp step at 170 GiB hangs the machine; after the reboot, recover records the hang.
  sim hang-above 165GiB || fail "cannot set hang-above"
  helper apply 170GiB --run r-h --step 1 --effective 158GiB --effective-source given
  expect_rc 6; expect_knob 174080
  sim reboot >/dev/null || fail "cannot reboot"
  sim hang-above off >/dev/null
  wcap recover; expect_rc 0
  wcap set 176GiB --yes
  expect_rc 3; expect_err 'at or above the hang ceiling'
  expect_knob 0; history_is 174080
  wcap persist 176GiB
  expect_rc 3; expect_err 'at or above the hang ceiling'
  [ ! -e "$WORK/journal/boot.state" ] || fail "something was stored for boot"
}

outside_the_band_is_no_policy() {
  new_tree; write_policy "${band[@]}" 'vouched = 180GiB'
  wcap set 176GiB --yes
  expect_rc 11; expect_err "vouched (184320 MiB"
  history_is ''
}

# persist without a ramp; the boot state says unconfirmed, so each boot checks the policy again:
# the boot action applies it from the OS default in one write while the policy vouches for it,
# and refuses it once the setting is gone.
persist_and_boot() {
  new_tree; vouching_policy
  local state=$WORK/journal/boot.state
  helper persist 176GiB
  expect_rc 0; expect_out '"basis":"vouched"'
  expect_vouched_record persisted
  grep -qx 'basis=unconfirmed' "$state" || fail "not stored as unconfirmed: $(cat "$state")"
  helper persist 176GiB  # idempotent
  expect_rc 0; expect_out '"changed":false'
  sim reboot >/dev/null; system boot-action
  expect_rc 0; expect_out '"action":"applied"'; expect_knob 180224; history_is 180224
  expect_vouched_record applied
  sim advance 11m >/dev/null; system boot-action; expect_out '"action":"healthy"'
  expect_vouched_record healthy
  write_policy "${band[@]}"
  sim reboot >/dev/null; system boot-action
  expect_rc 3; expect_knob 0; history_is 180224
  expect_err 'more than max_step'
}

# The vouch stands in for a local ramp, not for the boot guard: once a boot with the vouched
# value tripped the guard (it applied it and never became healthy), `persist` no longer stores
# it on the vouch, as it no longer does on a ramp's confirmation; the guard stays tripped and no
# later boot writes it; the helper's apply and persist --unconfirmed take max_step's steps
# again. Only a ramp that confirms it again brings it back.
a_tripped_boot_withdraws_the_vouch() {
  new_tree; vouching_policy
  local state=$WORK/journal/boot.state
  helper persist 176GiB; expect_rc 0
  sim reboot >/dev/null; system boot-action; expect_out '"action":"applied"'
  sim reboot >/dev/null; system boot-action; expect_out '"action":"tripped"'
  history_is 180224
  # The trip is a hang at 176 GiB: the helper refuses it as wiredcap does; with the ceiling
  # overridden, the vouch is still withdrawn.
  helper persist 176GiB
  expect_rc 3; expect_journal '"command":"persist","event":"refused".*"to_mib":180224.*at or above 180224 MiB.*hung'
  helper persist 176GiB --ignore-hang-ceiling
  expect_rc 3; expect_err 'tripped the boot guard'
  wcap persist 176GiB
  expect_rc 3
  # --unconfirmed stores a value one step from the effective cap: without the vouch, not this one.
  helper persist 176GiB --unconfirmed --effective 158GiB --effective-source given --ignore-hang-ceiling
  expect_rc 3; expect_err 'more than max_step'
  grep -qx 'guard=tripped' "$state" || fail "the tripped guard was re-armed: $(cat "$state")"
  sim reboot >/dev/null; system boot-action
  expect_rc 0; expect_knob 0; history_is 180224
  # Nor does a write reach it in one step any more: wiredcap counts the trip as a hang, and the
  # helper itself (called directly, as a member may) takes max_step's steps again.
  wcap set 176GiB --yes
  expect_rc 3
  helper apply 176GiB --effective 158GiB --effective-source given
  expect_rc 3; expect_knob 0; history_is 180224
  helper apply 176GiB --effective 158GiB --effective-source given --ignore-hang-ceiling
  expect_rc 3; expect_err 'more than max_step'; expect_knob 0; history_is 180224
}

"$scenario"
echo "PASS: $scenario"
