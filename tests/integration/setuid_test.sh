#!/usr/bin/env bash
# The real setuid path, end to end: the test build of the helper (its policy, journal and fake
# kernel compiled in, under the build tree) is installed setuid root and run as `nobody` via
# setpriv, with and without the policy's group. Needs root (CI runs as root); exits 77 (skip)
# otherwise.
#   setuid_test.sh HELPER_SUIDTEST SIM EXEC_ARGV FIXTURE_DIR SCENARIO SYSTEM
# (SYSTEM: wiredcap-system, root's own program, for the boot action.)
SUID_SRC=$1 SIM=$2 EXEC_ARGV=$3 FIXTURE=$4 scenario=$5 SYSTEM=$6
WORK=$FIXTURE
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to install a setuid binary"; exit 77; }
command -v setpriv >/dev/null || fail "setpriv (util-linux) is missing"

GROUP=wcaptest
NOBODY=65534

install_fixture() {
  getent group "$GROUP" >/dev/null || groupadd --system "$GROUP" || fail "cannot create group $GROUP"
  GID=$(getent group "$GROUP" | cut -d: -f3)
  rm -rf "$FIXTURE" && mkdir -p "$FIXTURE/etc" "$FIXTURE/bin" "$FIXTURE/journal"
  chmod 755 "$FIXTURE" "$FIXTURE/etc" "$FIXTURE/bin" "$FIXTURE/journal"
  POLICY=$FIXTURE/etc/wiredcap.conf JOURNAL=$FIXTURE/journal/journal.jsonl STATE=$FIXTURE/sim-state
  write_policy 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' "group = $GROUP"
  "$SIM" --state "$STATE" init --profile m2ultra-192 >/dev/null || fail "cannot init the simulator"
  "$SIM" --state "$STATE" clock pinned >/dev/null || fail "cannot pin the simulator's clock"
  HELPER=$FIXTURE/bin/wiredcap-helper
  install -o root -g root -m 4755 "$SUID_SRC" "$HELPER"
  [ -u "$HELPER" ] || fail "the setuid bit did not stick"
}

# Runs the installed helper as nobody; extra setpriv options first, then `--`, then the args.
as_nobody() {
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  OUT=$(setpriv --reuid=$NOBODY --regid=$NOBODY "${opts[@]}" -- "$HELPER" "$@" 2>"$FIXTURE/stderr")
  RC=$?
  ERR=$(cat "$FIXTURE/stderr")
}

member_of_the_group_may_apply() {
  install_fixture
  as_nobody --groups="$GID" -- apply 80GiB --effective 158GiB
  expect_rc 0; expect_out '"readback_mib":{"value":81920'
  expect_knob 81920
  expect_journal '"uid":65534,"command":"apply","event":"applied"'
}

# An outsider's refusal goes to the system log only: nothing an outsider does grows root's
# journal (hostile.outsider_flood_does_not_grow_the_journal).
outsider_is_refused_not_journaled() {
  install_fixture
  as_nobody --clear-groups -- apply 80GiB --effective 158GiB
  expect_rc 4; expect_err "not a member of group '$GROUP'"
  expect_knob 0
  [ ! -s "$JOURNAL" ] || fail "an outsider's refusal reached the journal: $(cat "$JOURNAL")"
}

hostile_environment_changes_nothing() {
  install_fixture
  as_nobody --groups="$GID" -- read
  local clean_out=$OUT clean_rc=$RC
  OUT=$(env -i LD_PRELOAD=/nonexistent/evil.so LD_LIBRARY_PATH=/tmp PATH=/tmp/evil:/usr/bin IFS=x \
          TZ=/etc/shadow LC_ALL=../x GCONV_PATH=/tmp NLSPATH=/tmp/%N TMPDIR=/tmp/evil \
          WIREDCAP_SIM_STATE=/tmp/evil WIREDCAP_POLICY=/tmp/evil USER=root LOGNAME=root SUDO_UID=0 \
          setpriv --reuid=$NOBODY --regid=$NOBODY --groups="$GID" -- "$HELPER" read 2>"$FIXTURE/stderr")
  RC=$?
  [ "$RC" -eq "$clean_rc" ] || fail "hostile env exit $RC, clean env exit $clean_rc"
  expect_same_output "the hostile environment" "$clean_out" "$OUT"
  expect_out '"uid":65534'
  # The spoofed USER=root / SUDO_UID=0 did not make nobody root: an outsider is still refused.
  OUT=$(env -i USER=root LOGNAME=root SUDO_UID=0 setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- \
          "$HELPER" apply 80GiB --effective 158GiB 2>"$FIXTURE/stderr"); RC=$?
  expect_rc 4; expect_knob 0
}

development_options_are_refused_when_setuid() {
  install_fixture
  for opt in --policy --journal --sim-state; do
    as_nobody --groups="$GID" -- "$opt" /tmp/evil read
    expect_rc 4; expect_err 'compiled-in paths'
  done
  expect_knob 0
}

argc_zero_is_refused_cleanly() {
  install_fixture
  OUT=$(setpriv --reuid=$NOBODY --regid=$NOBODY --groups="$GID" -- "$EXEC_ARGV" "$HELPER" --no-argv 2>"$FIXTURE/stderr")
  RC=$?; ERR=$(cat "$FIXTURE/stderr")
  # Linux >= 5.18 turns argc == 0 into argv = {""}: no command. Either way: a usage error.
  expect_rc 2; expect_one_line
  OUT=$(setpriv --reuid=$NOBODY --regid=$NOBODY --groups="$GID" -- "$EXEC_ARGV" "$HELPER" $'\e[31mevil\n' apply 80GiB --effective 158GiB 2>"$FIXTURE/stderr")
  RC=$?
  expect_rc 0; expect_knob 81920
}

# Persistence. The boot action is launchd's, as root: nobody is refused (exit 4) with
# or without the policy's group, and the refusal is journaled with the real uid; nothing is
# applied or stored. Root running the same setuid binary (as launchd does, at the next boot) is
# not refused.
boot_is_refused_for_nobody() {
  install_fixture
  local state=$FIXTURE/journal/boot.state
  as_nobody --groups="$GID" -- persist 80GiB --unconfirmed --effective 64GiB
  expect_rc 0
  cp "$state" "$FIXTURE/state.before"
  # The setuid helper has no boot action at all (it is wiredcap-system's, root's own program).
  as_nobody --groups="$GID" -- boot
  expect_rc 2; expect_one_line; expect_err 'wiredcap-system boot-action'
  as_nobody --clear-groups -- boot
  expect_rc 2; expect_err 'wiredcap-system boot-action'
  # Refused before the journal is opened: the system log has them, root's journal does not.
  ! grep -q '"command":"boot"' "$JOURNAL" || fail "a refused boot reached the journal: $(cat "$JOURNAL")"
  expect_knob 0
  [ -z "$("$SIM" --state "$STATE" show | sed -n 's/^history=//p')" ] || fail "something was written to the knob"
  cmp -s "$state" "$FIXTURE/state.before" || fail "a refused boot action changed the boot state: $(cat "$state")"
  "$SIM" --state "$STATE" reboot || fail "cannot reboot"  # a stored value applies from the next boot
  OUT=$("$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" boot-action 2>"$FIXTURE/stderr")
  RC=$?; ERR=$(cat "$FIXTURE/stderr")
  expect_rc 0; expect_out '"action":"applied"'; expect_knob 81920
  expect_journal '"uid":0,"command":"boot","event":"applied"'
}

# A member of the policy's group may store a value (--unconfirmed: no ramp confirmed it); the
# setuid helper writes the boot state root-owned beside the journal, and journals the real uid.
# Without --unconfirmed, a value no ramp confirmed is refused.
member_may_persist() {
  install_fixture
  local state=$FIXTURE/journal/boot.state
  as_nobody --groups="$GID" -- persist 96GiB
  expect_rc 3; expect_err 'never confirmed'
  [ ! -e "$state" ] || fail "a refused persist stored something"
  as_nobody --groups="$GID" -- persist 80GiB --unconfirmed --effective 64GiB
  expect_rc 0; expect_one_line
  expect_out '"basis":"unconfirmed","changed":true'
  expect_out '"persisted_mib":{"value":81920,"source":"boot state file read-back"}'
  expect_journal '"uid":65534,"command":"persist","event":"persisted","to_mib":81920,"reason":"unconfirmed: stored with --unconfirmed"'
  [ "$(stat -c '%u %a' "$state")" = "0 644" ] || fail "the boot state is not root-owned 0644: $(stat -c '%U %a' "$state")"
  grep -qx 'value_mib=81920' "$state" || fail "boot state: $(cat "$state")"
  expect_knob 0  # persisting changes nothing now
}

# Someone outside the policy's group may neither store a value nor remove one: refused (exit 4),
# to the system log only; the stored value stays.
outsider_may_not_persist() {
  install_fixture
  local state=$FIXTURE/journal/boot.state
  as_nobody --clear-groups -- persist 80GiB --unconfirmed
  expect_rc 4; expect_err "not a member of group '$GROUP'"
  [ ! -s "$JOURNAL" ] || fail "an outsider's refusal reached the journal: $(cat "$JOURNAL")"
  [ ! -e "$state" ] || fail "an outsider stored a value"
  as_nobody --groups="$GID" -- persist 80GiB --unconfirmed --effective 64GiB
  expect_rc 0
  cp "$state" "$FIXTURE/state.before"
  as_nobody --clear-groups -- persist --off
  expect_rc 4; expect_err "not a member of group '$GROUP'"
  expect_last_event persisted
  cmp -s "$state" "$FIXTURE/state.before" || fail "an outsider's persist --off changed the boot state"
}

declare -F "$scenario" >/dev/null || fail "no scenario '$scenario'"
"$scenario"
echo "PASS: $scenario"
