# shellcheck shell=bash
# The hostile member's scenarios (issue 23): `nobody` in the policy's group against the real
# setuid helper, trying to undo root's decisions, break root's commands or rewrite the record.
# Sourced by hostile_test.sh, whose helpers (run, fresh_fixture, root_reset_timed, ...) they use;
# SECURITY.md's "What a group member can and cannot do" names each one.

# as_member CMD...: CMD as nobody in the policy's group (no other groups), as a member would run it.
as_member() { setpriv --reuid=$NOBODY --regid=$NOBODY --groups "$GID" -- "$@"; }

# The member watches /proc/locks for its helper holding a lock and signals it at that moment
# (stopper.py). The helper became root in every uid once it knew its caller: STOP, TERM, HUP
# and KILL are refused (EPERM); it finishes its step, both records, and frees the lock.
member_cannot_stop_the_helper() {
  fresh_fixture
  local report=$WORK/stopper.report i
  chmod 777 "$WORK"
  # The write is slowed (1.5 s, no lock of the simulator held), so the lock is surely seen.
  sim fault stall-write 1500 >/dev/null
  as_member /usr/bin/python3 "$HERE/stopper.py" --report "$report" --hold 5 -- \
    "$HELPER" apply 80GiB --effective 64GiB &
  local stopper=$!
  for i in $(seq 200); do [ -s "$report" ] && break; sleep 0.05; done
  sim fault stall-write off >/dev/null
  note "the member's stopper: $(tr '\n' ' ' < "$report")"
  grep -q '^locked ' "$report" || fail "the stopper never saw the helper hold a lock: $(cat "$report")"
  grep -qx 'STOP EPERM' "$report" || fail "the member stopped its own helper: $(cat "$report")"
  for sig in TERM HUP KILL; do
    grep -qx "$sig EPERM" "$report" || fail "the member's SIG$sig reached its helper: $(cat "$report")"
  done
  # Root's journaled commands wait for the lock only as long as the member's (slow) write.
  local t0 t1
  t0=$(date +%s%N)
  OUT=$("$HELPER" persist 80GiB --unconfirmed 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  t1=$(date +%s%N)
  expect_rc 0
  note "root's persist waited $(( (t1 - t0) / 1000000 )) ms for the member's helper"
  wait "$stopper"
  expect_knob 81920
  expect_journal '"uid":65534,"command":"apply","event":"applied"'
  OUT=$("$HELPER" apply 72GiB 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 0; expect_knob 73728
  root_reset_timed; expect_rc 0; expect_knob 0
  note "root's reset took $MS ms"
  journal_ok
}

# What the member may still do: end its own wiredcap (here the shell that ran the helper, and the
# reader of its answer) and close the terminal while the helper is inside its write. The helper
# finishes its step and records it, and the lock is free for root at once.
member_ending_its_front_end_leaves_nothing_half_done() {
  fresh_fixture
  sim fault stall-write 1000 >/dev/null
  chmod 777 "$WORK"
  as_member setsid bash -c 'echo $$ > "$2/front.pid"; "$1" apply 80GiB --effective 64GiB | cat >/dev/null' \
    _ "$HELPER" "$WORK" >/dev/null 2>&1 &
  wait_for_event intent
  local front; front=$(cat "$WORK/front.pid")
  # The member ends its whole session: the shell, the reader of the answer, SIGHUP for all.
  as_member kill -HUP -- "-$front" 2>/dev/null
  as_member kill -KILL -- "-$front" 2>/dev/null
  sim fault stall-write off >/dev/null
  local i
  for i in $(seq 100); do [ "$(last_event)" = applied ] && break; sleep 0.05; done
  expect_last_event applied; expect_knob 81920
  local t0 t1
  t0=$(date +%s%N)
  OUT=$("$HELPER" apply 72GiB 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  t1=$(date +%s%N)
  expect_rc 0; expect_knob 73728
  note "root's apply after the member ended its front-end: $(( (t1 - t0) / 1000000 )) ms"
  journal_ok
}

# A member's own `confirm` for a step its helper never applied (issue 23: then `persist 176GiB`
# passed as "confirmed in a ramp", and the boot action wrote 0 -> 176 GiB in one jump): refused
# (exit 4, not_permitted) and journaled; so is a confirmation of root's step, and of the
# member's own step after a reboot. Nothing is stored for boot; the boot action writes nothing.
member_cannot_confirm_what_it_did_not_apply() {
  fresh_fixture
  local state=$FIXTURE/journal/boot.state
  run -- confirm --run zz --step 7
  expect_rc 4; expect_err 'was not applied and read back by uid 65534'; expect_last_event refused
  expect_journal '"uid":65534,"command":"confirm","event":"refused","run":"zz","step":7'
  run -- persist 176GiB
  expect_rc 3; expect_err 'never confirmed'
  [ ! -e "$state" ] || fail "a value was stored for boot: $(cat "$state")"
  sim reboot >/dev/null
  OUT=$("$HELPER" boot 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err")
  expect_rc 0; expect_out '"action":"none"'; expect_knob 0; expect_history ""
  # Root's step is root's to confirm.
  AS=0:0: run -- apply 80GiB --run r-root --step 1; expect_rc 0
  AS=$MEMBER
  run -- confirm --run r-root --step 1; expect_rc 4; expect_last_event refused
  # The member's own step: confirmable in its boot while the kernel holds it, not after.
  run -- apply 96GiB --run m1 --step 1; expect_rc 0
  run -- confirm --run m1 --step 1; expect_rc 0; expect_last_event confirmed
  sim reboot >/dev/null
  run -- confirm --run m1 --step 1; expect_rc 4; expect_last_event refused
  # Applied, then changed by someone else: the step no longer holds, nothing to confirm.
  run -- apply 80GiB --run m2 --step 1 --effective 64GiB; expect_rc 0
  "$HELPER" apply 72GiB >/dev/null 2>&1 || fail "root's apply failed"
  run -- confirm --run m2 --step 1; expect_rc 4; expect_err 'no longer holds'
  journal_ok
}
