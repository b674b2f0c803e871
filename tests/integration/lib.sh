# Shared by the integration tests: a private tree per test under the build directory (whose
# ancestry is root- or owner-owned and not writable by others, as the helper demands), a way to
# run the helper and the simulator, and assertions that say what they expected.
#
# The caller sets: HELPER (wiredcap-helper), SIM (wiredcap-sim), WORK (a fresh directory).
set -uo pipefail

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
note() { printf '  %s\n' "$*"; }

# A fresh tree: policy in $WORK/etc, journal in $WORK/journal, the simulated Mac in $WORK/sim.
new_tree() {
  local profile=${1:-m2ultra-192}
  rm -rf "$WORK" && mkdir -p "$WORK/etc" && chmod 755 "$WORK" "$WORK/etc"
  POLICY=$WORK/etc/wiredcap.conf
  JOURNAL=$WORK/journal/journal.jsonl
  STATE=$WORK/sim-state
  "$SIM" --state "$STATE" init --profile "$profile" >/dev/null || fail "cannot init the simulator"
  "$SIM" --state "$STATE" clock pinned >/dev/null || fail "cannot pin the simulator's clock"
}

write_policy() {  # write_policy 'min = 64GiB' 'max = 176GiB' ...
  printf '%s\n' "$@" > "$POLICY"
  chmod 644 "$POLICY"
}

standard_policy() {
  write_policy 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB'
}

# Runs the helper against this tree; sets OUT, ERR and RC.
helper() {
  OUT=$("$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" "$@" 2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}

# Runs wiredcap-system (SYSTEM: its path) against this tree; sets OUT, ERR and RC.
system() {
  OUT=$("$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" "$@" 2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}

sim() { "$SIM" --state "$STATE" "$@"; }
knob() { sim show | sed -n 's/^knob_mib=//p'; }
knob_is() { [ "$(knob)" = "$1" ]; }

expect_rc() { [ "$RC" -eq "$1" ] || fail "expected exit $1, got $RC; stdout: $OUT; stderr: $ERR"; }
# wiredcap wraps its human output to 80 columns (COLUMNS, the terminal): a message is looked
# for in the text with its line breaks and runs of spaces read as one space.
flat() { printf '%s' "$1" | tr -s ' \n' '  '; }
# A table's rows with the rows they were wrapped into (indented) joined back: one row per value.
unwrap() { awk 'NR > 1 && /^ / { sub(/^ +/, " "); printf "%s", $0; next } NR > 1 { print "" } { printf "%s", $0 } END { print "" }'; }
expect_out() { [[ $(flat "$OUT") == *"$(flat "$1")"* ]] || fail "stdout lacks '$1': $OUT"; }
expect_err() { [[ $(flat "$ERR") == *"$(flat "$1")"* ]] || fail "stderr lacks '$1': $ERR"; }
expect_knob() { local k; k=$(knob); [ "$k" = "$1" ] || fail "knob is $k MiB, expected $1 MiB"; }
expect_one_line() { [ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "stdout is not one line: $OUT"; }
last_event() { tail -n 1 "$JOURNAL" | sed -n 's/.*"event":"\([a-z_]*\)".*/\1/p'; }
expect_last_event() { local e; e=$(last_event); [ "$e" = "$1" ] || fail "last journal event is '$e', expected '$1'"; }
# wait_until WHAT CMD...: CMD every 20 ms, for at most 5 s, while the background job BG_PID (its
# output in $WORK/bg.out and bg.err) still runs: the tests that kill a process at an exact point.
wait_until() {
  local what=$1 i
  shift
  for ((i = 0; i < 250; i++)); do
    "$@" && return 0
    kill -0 "$BG_PID" 2>/dev/null ||
      fail "the background job ended before $what (stdout: $(cat "$WORK/bg.out"); stderr: $(cat "$WORK/bg.err"))"
    sleep 0.02
  done
  fail "no $what after 5 s"
}
# SIGKILL to the background job, and proof that it was the kill that ended it (it was held by a
# stall, not finished), before it printed a result.
kill_background_job() {
  local status=0
  kill -9 "$BG_PID" 2>/dev/null ||
    fail "the background job had already ended, not held by the stall (stdout: $(cat "$WORK/bg.out"); stderr: $(cat "$WORK/bg.err"))"
  wait "$BG_PID" || status=$?
  BG_PID=
  [ "$status" -eq 137 ] || fail "the background job ended with status $status, not by SIGKILL (137)"
  [ ! -s "$WORK/bg.out" ] || fail "the killed background job printed a result: $(cat "$WORK/bg.out")"
}
# normalize_output [DIR...]: stdin to stdout with what legitimately differs between two runs
# masked, and nothing else: each DIR (a test's private tree) as <WORK>, boot ids as <BOOT>, UTC
# times as <TIME>, run ids as <RUN>, measured durations (" in 1.24 s") as " in <T> s". The
# uptime is not masked: every test that compares whole outputs pins the simulated clock
# (`wiredcap-sim clock pinned`), so the uptime it prints is exact and is compared too.
# The one place every comparison of outputs between runs goes through (goldens, hostile suite,
# setuid tests).
normalize_output() {
  local masks=() dir
  for dir in "$@"; do masks+=(-e "s|$dir|<WORK>|g"); done
  sed "${masks[@]}" \
    -e 's/[0-9A-F]\{8\}-[0-9A-F]\{4\}-[0-9A-F]\{4\}-[0-9A-F]\{4\}-[0-9A-F]\{12\}/<BOOT>/g' \
    -e 's/[0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}T[0-9:]\{8\}Z/<TIME>/g' \
    -e 's/r-[0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{4\}/<RUN>/g' \
    -e 's/ in [0-9]*\.[0-9]* s/ in <T> s/g'
}
# expect_same_output WHAT EXPECTED ACTUAL: the two outputs equal once normalised.
expect_same_output() {
  local a b
  a=$(printf '%s\n' "$2" | normalize_output) b=$(printf '%s\n' "$3" | normalize_output)
  [ "$a" = "$b" ] || fail "$1 changed the output:
$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b"))"
}

expect_journal() { grep -q -- "$1" "$JOURNAL" || fail "journal lacks '$1': $(cat "$JOURNAL")"; }

# ---- The setuid fixture (used by tests/hostile; setuid_test.sh keeps its own install_fixture) ----
# suid_fixture_install SUID_SRC GROUP [PROFILE]: a fresh fixture at $FIXTURE, the directory the
# setuid test build has compiled in: the policy in etc/ naming GROUP (created if missing; sets
# GID), an empty journal directory, a new simulated Mac, and the helper installed setuid root as
# $FIXTURE/bin/wiredcap-helper (sets HELPER, POLICY, JOURNAL, STATE). Needs root.
suid_fixture_install() {
  local src=$1 group=$2 profile=${3:-m2ultra-192}
  getent group "$group" >/dev/null || groupadd --system "$group" || fail "cannot create group $group"
  # shellcheck disable=SC2034  # GID is for the caller
  GID=$(getent group "$group" | cut -d: -f3)
  rm -rf "$FIXTURE" && mkdir -p "$FIXTURE/etc" "$FIXTURE/bin" "$FIXTURE/journal" || fail "cannot make $FIXTURE"
  chown root:root "$FIXTURE" "$FIXTURE/etc" "$FIXTURE/bin" "$FIXTURE/journal"
  chmod 755 "$FIXTURE" "$FIXTURE/etc" "$FIXTURE/bin" "$FIXTURE/journal"
  POLICY=$FIXTURE/etc/wiredcap.conf JOURNAL=$FIXTURE/journal/journal.jsonl STATE=$FIXTURE/sim-state
  write_policy 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' "group = $group"
  "$SIM" --state "$STATE" init --profile "$profile" >/dev/null || fail "cannot init the simulator"
  "$SIM" --state "$STATE" clock pinned >/dev/null || fail "cannot pin the simulator's clock"
  HELPER=$FIXTURE/bin/wiredcap-helper
  install -o root -g root -m 4755 "$src" "$HELPER" || fail "cannot install $src setuid"
  [ -u "$HELPER" ] || fail "the setuid bit did not stick on $HELPER (nosuid mount?)"
}

# Neither stdout ($OUT) nor stderr ($ERR) carries a raw control byte (newlines between lines
# aside): whatever a caller typed is escaped before it reaches a terminal or a log.
expect_no_raw_control() {
  if printf '%s%s' "$OUT" "$ERR" | LC_ALL=C grep -q '[[:cntrl:]]'; then
    fail "raw control byte in the output: $(printf '%s\n%s' "$OUT" "$ERR" | od -c | head -20)"
  fi
}
