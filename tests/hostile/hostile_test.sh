#!/usr/bin/env bash
# The hostile-caller suite: the setuid test build of the helper (wiredcap-helper-suidtest, with
# its policy, journal and simulated Mac compiled in under $FIXTURE) is installed setuid root and
# run as `nobody` (uid 65534) by tools that hand it the worst process state a caller can hand over: see
# spawn_hostile.cpp, helper_loop.cpp, swap_loop.cpp, entry_argc0.cpp; hostile_check.py reads
# journals and strace logs. One scenario per CTest test (tests/hostile/CMakeLists.txt sets the
# tool paths in the environment):
#   hostile_test.sh SCENARIO
# Needs root (CI runs as root): exits 77 (skip) otherwise. HOSTILE_SEED fixes the random seed of
# the signal and race loops (printed on every run, so a failure can be replayed).
scenario=${1:?usage: hostile_test.sh SCENARIO}
: "${SUID_SRC:?}" "${PROD_HELPER:?}" "${SYSTEM:?}" "${SIM:?}" "${EXEC_ARGV:?}" "${SPAWN:?}" "${LOOP:?}" "${SWAP:?}" "${ENTRY:?}"
: "${FIXTURE:?}" "${SCRATCH:?}"
SANITIZED=${SANITIZED:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../integration/lib.sh
. "$HERE/../integration/lib.sh"
# shellcheck source=../private_mount_ns.sh
. "$HERE/../private_mount_ns.sh"
CHECK=("python3" "$HERE/hostile_check.py")

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to install a setuid binary"; exit 77; }
command -v setpriv >/dev/null || fail "setpriv (util-linux) is missing (tools/install-deps)"

# Whatever this script started in the background (a swap loop, a stalled helper) ends with it.
trap 'kill $(jobs -p) 2>/dev/null' EXIT

GROUP=wcaptest
NOBODY=65534
WORK=$SCRATCH/$scenario
rm -rf "$WORK" && mkdir -p "$WORK" && chmod 755 "$WORK"

# LeakSanitizer cannot run under ptrace: a sanitizer build's traced runs turn it off (the same
# for every run compared, so the comparison stays fair).
TRACED_ENV=()
[ "$SANITIZED" = 1 ] && TRACED_ENV=(--env ASAN_OPTIONS=detect_leaks=0)

# How many runs a loop of N makes: N, or a quarter of it under the sanitizers. There every
# setuid start costs about 90 ms (20 ms in the debug build) and the suite runs one scenario at a
# time, so the full loops alone took 9 minutes of CI. The dev suite makes every run; the
# sanitized one walks the same paths looking for memory errors. A variable set by hand (e.g.
# HOSTILE_RACE_RUNS) is taken as it is.
loop_runs() { if [ "$SANITIZED" = 1 ]; then echo $(( ($1 + 3) / 4 )); else echo "$1"; fi; }

GOOD_BAND=('min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' "group = $GROUP")
# A band only an attacker would write: up to 188 GiB of the 192 GiB machine, in one step.
HOSTILE_BAND=('min = 64GiB' 'max = 188GiB' 'reserve = 4GiB' 'max_step = 188GiB' "group = $GROUP")
HOSTILE_VALUE_MIB=190464   # 186 GiB: inside the hostile band only

fresh_fixture() {
  suid_fixture_install "$SUID_SRC" "$GROUP"
  MEMBER="$NOBODY:$NOBODY:$GID"
  OUTSIDER="$NOBODY:$NOBODY:"
  AS=$MEMBER
}

# run [SPAWN-OPTIONS...] -- ARGS...: the installed helper as $AS (default: nobody in the group),
# through spawn-hostile with an empty environment unless --env says otherwise. Sets OUT ERR RC.
run() {
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  # From the OS default the helper needs the caller's effective cap to measure a raise (issue
  # 22). These stories are about hostile callers, not that rule: an apply without one gives the
  # band's min (64GiB in every band here), the starting point the helper measured from before.
  local args=("$@")
  if [ "${args[0]:-}" = apply ] && [[ " ${args[*]} " != *" --effective "* ]]; then args+=(--effective 64GiB); fi
  # So for persist --unconfirmed, which a member may not give without it, or --lower.
  if [ "${args[0]:-}" = persist ] && [[ " ${args[*]} " == *" --unconfirmed "* ]] &&
    [[ " ${args[*]} " != *" --effective "* && " ${args[*]} " != *" --lower "* ]]; then args+=(--effective 64GiB); fi
  JSIZE_BEFORE=$(journal_size)
  OUT=$("$SPAWN" --as "$AS" "${opts[@]}" -- "$HELPER" "${args[@]}" 2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}

# wiredcap-system (root's own program, never setuid) on the fixture, as launchd runs it: root.
system() { (umask 022 && "$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" "$@"); }

# The simulator's record of every write ever made: a write that was refused before the kernel
# leaves it as it was.
sim_history() { sim history | tr '\n' ' '; }
expect_history() { local h; h=$(sim_history); [ "$h" = "$1" ] || fail "writes seen by the simulator: '$h', expected '$1'"; }
journal_ok() { "${CHECK[@]}" journal "$JOURNAL" "$@" >"$WORK/check" 2>&1 || fail "$(cat "$WORK/check")"; note "$(cat "$WORK/check")"; }
journal_size() { if [ -e "$JOURNAL" ]; then stat -c %s "$JOURNAL"; else echo 0; fi; }
expect_journal_size() { local s; s=$(journal_size); [ "$s" = "$1" ] || fail "the journal grew from $1 to $s bytes"; }
# An action refused by the policy loader: exit 11, the reason on stderr, nothing changed. The
# caller (not root) cannot be known to be in the group without a policy: the refusal goes to the
# system log only, and root's journal does not grow.
expect_policy_refused() {
  expect_rc 11; expect_err "$1"; expect_one_line; expect_no_raw_control
  expect_knob 0; expect_journal_size "$JSIZE_BEFORE"
}
# Refused, and nothing of it in root's journal (an outsider's refusal goes to the system log).
expect_not_journaled() { expect_journal_size "$JSIZE_BEFORE"; }
restore_policy() { rm -rf "$POLICY"; write_policy "${GOOD_BAND[@]}"; }

# Waits (up to 10 s) until the journal's last event is $1; the helper is then inside the
# simulator's stall fault.
wait_for_event() {
  local _
  for _ in $(seq 200); do
    [ -s "$JOURNAL" ] && [ "$(last_event)" = "$1" ] && return 0
    sleep 0.05
  done
  fail "the journal never showed '$1'"
}

# ---------------------------------------------------------------------------------------------
# 1. Arguments

argc_zero_entry_function() {
  fresh_fixture
  # helper_main itself, with the vectors a kernel may hand over (Linux >= 5.18 rewrites argc 0).
  for mode in null-argv empty-argv argc1-null negative-argc; do
    OUT=$("$ENTRY" "$mode" 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
    expect_rc 2; expect_one_line; expect_out '"exit":2'; expect_out 'argc == 0'
  done
  OUT=$("$ENTRY" control); RC=$?
  expect_rc 0; expect_out 'usage: wiredcap-helper'
  # Through a real exec of the setuid binary: argc == 0, then argv[0] == "".
  run --no-argv -- apply 80GiB
  expect_rc 2; expect_one_line; expect_knob 0
  run --argv0 '' -- apply 80GiB
  expect_rc 0; expect_knob 81920
}

argv0_is_never_used() {
  fresh_fixture
  run -- read
  expect_rc 0
  local baseline=$OUT long
  long=$(head -c 100000 /dev/zero | tr '\0' A)
  for argv0 in '' $'\e[31mevil\n' "$long" '--policy' '/tmp/evil' 'apply' '-' $'\xff\xfe'; do
    run --argv0 "$argv0" -- read
    expect_rc 0
    expect_same_output "argv[0] $(printf %q "${argv0:0:40}")" "$baseline" "$OUT"
    [ -z "$ERR" ] || fail "argv[0] $(printf %q "${argv0:0:40}") produced stderr: $ERR"
  done
  run --argv0 $'\e]0;owned\a' -- apply 80GiB
  expect_rc 0; expect_knob 81920; expect_no_raw_control
}

unknown_missing_and_extra_arguments() {
  fresh_fixture
  local size; size=$(journal_size)
  local -a cases=(
    "" "frobnicate" "APPLY 80GiB" "apply" "apply 80GiB extra" "apply 80GiB 96GiB" "read extra" "read read"
    "reset now" "confirm" "confirm --run r1" "end --run r1" "end --run r1 --outcome bogus"
    "end --outcome completed" "apply 80GiB --run" "apply 80GiB --run r1" "apply 80GiB --step 1"
    "apply 80GiB --run r1 --step 0" "apply 80GiB --run r1 --step 100001" "apply 80GiB --run r1 --step 01"
    "apply 80GiB --run r1 --run r2 --step 1" "apply 80GiB --revert timeout" "apply 80GiB --run r1 --step 1 --revert bogus"
    "reset --outcome completed" "--policy" "--journal" "--help extra" "-h" "--" "apply -- 80GiB"
    "--policy=/tmp/x read" "--frobnicate read" "apply 80GiB --policy /tmp/x" "read --sim-state /tmp/x")
  for args in "${cases[@]}"; do
    # shellcheck disable=SC2086
    run -- $args
    [ "$RC" -eq 2 ] || fail "'$args' exited $RC, expected 2 (usage); stdout: $OUT; stderr: $ERR"
    expect_one_line; expect_out '"exit":2'; expect_no_raw_control
    [ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] || fail "'$args': stderr is not one line: $ERR"
  done
  # Values a caller can shape: run ids of the wrong length or alphabet, control characters.
  local id65; id65=$(head -c 65 /dev/zero | tr '\0' a)
  for bad in "$id65" 'a b' $'r\n1' $'r\e[31m' 'r/1' '' 'ä'; do
    run -- apply 80GiB --run "$bad" --step 1
    expect_rc 2; expect_one_line; expect_no_raw_control
  done
  run -- --help
  expect_rc 0; expect_out 'usage: wiredcap-helper'
  expect_knob 0; expect_journal_size "$size"
}

hostile_sizes() {
  fresh_fixture
  local digits; digits=$(head -c 100000 /dev/zero | tr '\0' 7)
  # SIZE -> expected exit: 2 (usage: malformed) or 3 (well formed, outside the band)
  local -a malformed=(
    "-1" "-1MiB" "4294967295" "18446744073709551616B" "18446744073709551615MiB" "18446744073709551615B"
    "0x10MiB" "010MiB" "00MiB" "+5MiB" " 5MiB" "5MiB " $'5 \tMiB' $'5\xc2\xa0MiB' "1e3MiB" "1E3MiB" "" "${digits}MiB" "$digits"
    '5MiB\' '5\MiB' $'5\tMiB' $'5MiB\n' $'5MiB\e[31m' $'\e]0;owned\a5MiB' $'5\x01MiB' $'5\x7fMiB'
    "5,000MiB" "5_000MiB" "5'000MiB" "5.5MiB" "5MB" "5mib" "5M" "5Mi" "5  GiB" "5GiBMiB" "٥MiB" $'\xff5MiB'
    "0MiB" "0GiB" "NaN" "inf" "MiB" "5" "0.0000001GiB" "16777216TiB" "99999999999999999999999GiB")
  for v in "${malformed[@]}"; do
    run -- apply "$v"
    [ "$RC" -eq 2 ] || fail "size $(printf %q "${v:0:60}") exited $RC, expected 2; stderr: ${ERR:0:300}"
    expect_one_line; expect_no_raw_control
    [ "${#OUT}" -lt 2048 ] && [ "${#ERR}" -lt 2048 ] ||
      fail "size $(printf %q "${v:0:60}") produced ${#OUT}+${#ERR} bytes of output (not bounded)"
  done
  # One space between number and unit is the documented form ("232 GB").
  for v in "5 MiB" "4294967295MiB" "4294967296MiB" "17592186044415MiB" "1TiB" "16777215TiB"; do
    run -- apply "$v"
    [ "$RC" -eq 3 ] || fail "size $v exited $RC, expected 3 (outside the band); stderr: $ERR"
    expect_one_line
  done
  expect_knob 0
  expect_history ""
}

band_edges() {
  fresh_fixture
  # The band is 64 GiB (65536 MiB) to 176 GiB (180224 MiB), max_step 16 GiB (16384 MiB).
  run -- apply 65535MiB
  expect_rc 3; expect_err 'outside the permitted band'; expect_knob 0; expect_last_event refused
  expect_journal '"event":"refused",.*"to_mib":65535,'
  run -- apply 65536MiB
  expect_rc 0; expect_knob 65536
  run -- apply 81921MiB            # min + max_step + 1 MiB
  expect_rc 3; expect_err 'more than max_step'; expect_knob 65536
  run -- apply 81920MiB            # min + max_step exactly
  expect_rc 0; expect_knob 81920
  for v in 98304 114688 131072 147456 163840; do
    run -- apply ${v}MiB; expect_rc 0; expect_knob $v
  done
  run -- apply 180225MiB           # max + 1 MiB, within one step
  expect_rc 3; expect_err 'outside the permitted band'; expect_knob 163840
  run -- apply 180224MiB           # max exactly
  expect_rc 0; expect_knob 180224
  run -- apply 180225MiB
  expect_rc 3; expect_knob 180224
  run -- apply 176GiB
  expect_rc 0; expect_out '"changed":false'
  run -- apply 65535MiB            # lowering below min is still outside the band
  expect_rc 3; expect_knob 180224
  run -- apply 65536MiB            # lowering to min: any distance, the safe direction
  expect_rc 0; expect_knob 65536
  journal_ok
}

# ---------------------------------------------------------------------------------------------
# 2. The policy file

# A caller-owned file with the hostile band, in a directory only the caller owns.
caller_file() {
  mkdir -p "$WORK/caller" && chown $NOBODY:$NOBODY "$WORK/caller" && chmod 755 "$WORK/caller"
  printf '%s\n' "${HOSTILE_BAND[@]}" > "$WORK/caller/evil.conf"
  chown $NOBODY:$NOBODY "$WORK/caller/evil.conf"; chmod 644 "$WORK/caller/evil.conf"
  CALLER_FILE=$WORK/caller/evil.conf
}

policy_symlinks() {
  fresh_fixture; caller_file
  # A symlink is refused even when it points at a good, root-owned file in a trusted directory.
  mv "$POLICY" "$FIXTURE/etc/real.conf" && ln -s real.conf "$POLICY"
  run -- apply 80GiB; expect_policy_refused 'symbolic link'
  rm "$POLICY"; ln -s "$CALLER_FILE" "$POLICY"
  run -- apply 80GiB; expect_policy_refused 'symbolic link'
  # Dangling: not "no policy file" (which would mean the built-in band), but a refusal.
  rm "$POLICY"; ln -s "$FIXTURE/etc/nonexistent.conf" "$POLICY"
  run -- apply 80GiB; expect_policy_refused 'symbolic link'
  [ ! -e "$FIXTURE/etc/nonexistent.conf" ] || fail "the dangling symlink's target was created"
  rm "$POLICY"; ln -s /dev/zero "$POLICY"
  run -- apply 80GiB; expect_policy_refused 'symbolic link'
  # The directory a symlink to a caller-owned directory holding a root-owned hostile policy.
  restore_policy
  mkdir "$WORK/caller/etc" && printf '%s\n' "${HOSTILE_BAND[@]}" > "$WORK/caller/etc/wiredcap.conf"
  chmod 644 "$WORK/caller/etc/wiredcap.conf"; chown $NOBODY:$NOBODY "$WORK/caller/etc"
  mv "$FIXTURE/etc" "$FIXTURE/etc.real" && ln -s "$WORK/caller/etc" "$FIXTURE/etc"
  run -- apply 80GiB; expect_policy_refused "owned by uid $NOBODY"
  rm "$FIXTURE/etc"; mv "$FIXTURE/etc.real" "$FIXTURE/etc"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
}

policy_hardlinks() {
  fresh_fixture; caller_file
  # A hard link to a file the caller owns (fs.protected_hardlinks lets a user link only files
  # they own; root made this one, as a confused administrator might).
  rm "$POLICY"; ln "$CALLER_FILE" "$POLICY"
  run -- apply 80GiB; expect_policy_refused "owned by uid $NOBODY"
  # A second name for the good, root-owned file changes nothing (who may write it is its owner
  # and mode): hostile.outsider_hardlinks_root_files.
  restore_policy; ln "$POLICY" "$FIXTURE/etc/alias.conf"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
}

policy_permissions() {
  fresh_fixture
  for mode in 664 646 666 660 606 4664; do
    chmod "$mode" "$POLICY"
    run -- apply 80GiB; expect_policy_refused 'writable by group or others'
  done
  chmod 644 "$POLICY"; chown $NOBODY "$POLICY"
  run -- apply 80GiB; expect_policy_refused "owned by uid $NOBODY"
  chown root:"$GROUP" "$POLICY"; chmod 664 "$POLICY"   # writable by the caller's own group
  run -- apply 80GiB; expect_policy_refused 'writable by group or others'
  chown root:root "$POLICY"; chmod 644 "$POLICY"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
}

policy_insecure_parents() {
  fresh_fixture; caller_file
  for mode in 775 777 757; do
    chmod "$mode" "$FIXTURE/etc"
    run -- apply 80GiB; expect_policy_refused 'writable by group or others'
  done
  chmod 755 "$FIXTURE/etc"; chown $NOBODY "$FIXTURE/etc"
  run -- apply 80GiB; expect_policy_refused "owned by uid $NOBODY"
  chown root "$FIXTURE/etc"
  # A group-writable ancestor: refused too (the journal, checked first, lives under it as well).
  chmod 775 "$FIXTURE"
  run -- apply 80GiB
  [ "$RC" -eq 11 ] || [ "$RC" -eq 12 ] || fail "a group-writable ancestor gave exit $RC"
  expect_err 'writable by group or others'; expect_knob 0
  chmod 755 "$FIXTURE"
  # A sticky, root-owned, world-writable directory (like /tmp): a root-owned file in it is
  # trusted (only its owner can rename or remove it); a caller-owned one is not.
  chmod 1777 "$FIXTURE/etc"
  install -o $NOBODY -g $NOBODY -m 644 "$CALLER_FILE" "$FIXTURE/etc/evil.conf"
  mv "$POLICY" "$FIXTURE/etc/good.conf"; mv "$FIXTURE/etc/evil.conf" "$POLICY"
  run -- apply 80GiB; expect_policy_refused "owned by uid $NOBODY"
  rm "$POLICY"; mv "$FIXTURE/etc/good.conf" "$POLICY"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
  chmod 755 "$FIXTURE/etc"
}

policy_not_a_file() {
  fresh_fixture
  rm "$POLICY"; mkdir -m 755 "$POLICY"
  run -- apply 80GiB; expect_policy_refused 'is a directory'
  rmdir "$POLICY"; mkfifo -m 644 "$POLICY"
  # A FIFO with no writer: opening it must not wait for one.
  OUT=$(timeout 10 "$SPAWN" --as "$AS" -- "$HELPER" apply 80GiB --effective 64GiB 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  [ "$RC" -ne 124 ] || fail "the helper hung on a FIFO policy"
  expect_policy_refused 'not a regular file'
  rm "$POLICY"; mknod -m 644 "$POLICY" c 1 5   # the /dev/zero device
  run -- apply 80GiB; expect_policy_refused 'not a regular file'
  rm "$POLICY"; python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$POLICY"
  chmod 644 "$POLICY"
  run -- apply 80GiB
  expect_rc 11; expect_knob 0; expect_not_journaled
  restore_policy
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
}

policy_oversized_and_malformed() {
  fresh_fixture
  put() { rm -f "$POLICY"; cat > "$POLICY"; chmod 644 "$POLICY"; }
  head -c $((10 << 20)) /dev/zero | put
  run -- apply 80GiB; expect_policy_refused 'larger than 65536 bytes'
  { printf 'min = 64GiB\n# '; head -c $((1 << 20)) /dev/zero | tr '\0' x; printf '\n'; } | put
  run -- apply 80GiB; expect_policy_refused 'larger than 65536 bytes'
  { printf 'min = 64GiB\n# '; head -c 60000 /dev/zero | tr '\0' x; printf '\n'; } | put
  run -- apply 80GiB; expect_policy_refused 'longer than 1024 characters'
  printf 'min = 64GiB\nmax = 176\0GiB\n' | put
  run -- apply 80GiB; expect_policy_refused 'NUL byte'
  printf 'min = 64GiB\r\nmax = 176GiB\r\nreserve = 16GiB\r\nmax_step = 16GiB\r\n' | put
  run -- apply 80GiB; expect_policy_refused 'carriage return'
  printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\ngroup = wcap\xff\xfetest\n' | put
  run -- apply 80GiB; expect_policy_refused 'non-ASCII byte'
  printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\ngroup = \e[31mwcaptest\e]0;x\a\n' | put
  run -- apply 80GiB; expect_policy_refused 'control character'
  printf '' | put
  run -- apply 80GiB; expect_policy_refused "missing key 'min'"
  printf '%s\n' "${GOOD_BAND[@]}" 'max = 188GiB' | put
  run -- apply 80GiB; expect_policy_refused "duplicate key 'max'"
  # Exactly the largest file accepted (65536 bytes): a good policy padded with comment lines.
  { printf '%s\n' "${GOOD_BAND[@]}"; yes '# padding padding padding padding padding padding padding' | head -c 70000; } |
    head -c 65535 > "$WORK/edge"; printf '\n' >> "$WORK/edge"
  [ "$(stat -c %s "$WORK/edge")" -eq 65536 ] || fail "the edge file is not 65536 bytes"
  put < "$WORK/edge"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
  printf '#' >> "$POLICY"   # 65537 bytes
  run -- apply 96GiB; expect_rc 11; expect_err 'larger than 65536 bytes'; expect_knob 81920
}

# The policy file is swapped, atomically and as fast as the kernel allows, between the good
# one and a hostile one while the helper runs thousands of times asking for a value only the
# hostile band permits: it is never applied, and never gets as far as an intent.
policy_swap_race() {
  fresh_fixture; caller_file
  # 5 x 350 = 1,750 runs (about 15 s); a quarter under the sanitizers (loop_runs).
  local runs=${HOSTILE_RACE_RUNS:-$(loop_runs 350)} seed=${HOSTILE_SEED:-$RANDOM}
  note "seed $seed (HOSTILE_SEED=$seed replays it), $runs runs per variant"
  # Control: as a real, root-owned policy the hostile band does permit the value.
  write_policy "${HOSTILE_BAND[@]}"
  run -- apply "${HOSTILE_VALUE_MIB}MiB"; expect_rc 0; expect_knob $HOSTILE_VALUE_MIB
  sim reboot >/dev/null; expect_knob 0
  restore_policy
  : > "$JOURNAL"
  local hist; hist=$(sim_history)
  local hostile=$FIXTURE/etc/hostile.conf
  # Each variant puts something a careless or hostile setup could leave at $hostile.
  variant_caller_owned() { install -o $NOBODY -g $NOBODY -m 644 "$CALLER_FILE" "$hostile"; }
  variant_group_writable() { printf '%s\n' "${HOSTILE_BAND[@]}" > "$hostile"; chmod 664 "$hostile"; }
  variant_world_writable() { printf '%s\n' "${HOSTILE_BAND[@]}" > "$hostile"; chmod 666 "$hostile"; }
  variant_symlink() { ln -s "$CALLER_FILE" "$hostile"; }
  # (No hard-link variant: a root-owned 0644 file under a second name is root's file, trusted as
  # such; the link count is not checked, see hostile.outsider_hardlinks_root_files.)
  for v in caller_owned group_writable world_writable symlink directory; do
    local a=$POLICY b=$hostile
    rm -rf "$hostile" "$FIXTURE/etc/hostile.alias" "$FIXTURE/etc.hostile"
    if [ $v = directory ]; then
      # The whole directory: a caller-owned one holding a root-owned hostile policy.
      mkdir "$FIXTURE/etc.hostile"; printf '%s\n' "${HOSTILE_BAND[@]}" > "$FIXTURE/etc.hostile/wiredcap.conf"
      chmod 644 "$FIXTURE/etc.hostile/wiredcap.conf"; chown $NOBODY "$FIXTURE/etc.hostile"
      a=$FIXTURE/etc b=$FIXTURE/etc.hostile
    else
      "variant_$v"
    fi
    "$SWAP" "$a" "$b" >"$WORK/swaps" & local swapper=$!
    "$LOOP" --runs "$runs" --as "$MEMBER" --state "$STATE" --values "${HOSTILE_VALUE_MIB}MiB" --seed "$seed" \
      --expect-unchanged -- "$HELPER" apply '{}' --effective 64GiB >"$WORK/loop" 2>&1; local rc=$?
    kill -TERM $swapper; wait $swapper
    note "variant $v: $(cat "$WORK/swaps") swaps; $(tr '\n' ' ' < "$WORK/loop")"
    [ $rc -eq 0 ] || fail "variant $v: $(cat "$WORK/loop")"
    # Both sides of the race were seen: the good policy (exit 3) and the hostile one (exit 11).
    grep -q 'exit 3$' "$WORK/loop" && grep -q 'exit 11$' "$WORK/loop" ||
      fail "variant $v: the race did not reach both files: $(cat "$WORK/loop")"
    [ -f "$POLICY" ] && [ ! -L "$POLICY" ] || fail "variant $v: the swap loop did not put the policy back"
  done
  expect_knob 0; expect_history "$hist"
  journal_ok --never-to $HOSTILE_VALUE_MIB
}

# ---------------------------------------------------------------------------------------------
# 3. The environment

# strace, running as root, traces the whole exec chain; a tracer with CAP_SYS_PTRACE does not
# stop the setuid bit from taking effect (checked below: the JSON line says the run applied).
traced_opens() {  # traced_opens NAME [SPAWN-OPTIONS...]: apply 72GiB from a rebooted machine
  local name=$1; shift
  sim reboot >/dev/null
  OUT=$(strace -f -qq -y -s 4096 -o "$WORK/$name.strace" -e trace=open,openat,openat2,creat,execve \
          "$SPAWN" --as "$AS" "${TRACED_ENV[@]}" "$@" -- "$HELPER" apply 72GiB --effective 64GiB 2>"$WORK/stderr")
  RC=$?; ERR=$(cat "$WORK/stderr")
  "${CHECK[@]}" opens "$WORK/$name.strace" "$HELPER" > "$WORK/$name.opens" || fail "cannot read $WORK/$name.strace"
}

# loader_only OPENS_REGEX STDERR_REGEX: drops what the dynamic loader did from this run's
# record ($name.opens, $ERR) so the helper's own behaviour can be compared; there must be some.
loader_only() {
  grep -q -E "$1" "$WORK/$name.opens" || fail "environment '$name': expected the loader's own lookups"
  grep -v -E "$1" "$WORK/$name.opens" > "$WORK/$name.kept"; mv "$WORK/$name.kept" "$WORK/$name.opens"
  ERR=$(printf '%s\n' "$ERR" | grep -v -E "$2")
}

environment_is_ignored() {
  fresh_fixture
  command -v strace >/dev/null || fail "strace is missing (tools/install-deps)"
  local evil=$WORK/evil
  mkdir -p "$evil/C/LC_MESSAGES" "$evil/x/LC_CTYPE"
  # Bait: things ld.so, libc or a shell would pick up if they looked.
  for f in evil.so libc.so.6 libm.so.6 gconv-modules audit.so; do printf 'bait\n' > "$evil/$f"; done
  for tool in sysctl sh bash env id getent; do
    printf '#!/bin/sh\ntouch %s/RAN-%s\n' "$evil" "$tool" > "$evil/$tool"; chmod 755 "$evil/$tool"
  done
  chmod -R a+rX "$evil"

  # The journal exists before the clean run, as for every run after it: the helper opens a
  # journal it creates (O_EXCL, then given to root:root) differently from one that is there.
  run -- apply 80GiB; expect_rc 0
  traced_opens clean
  expect_rc 0; expect_out '"changed":true'; expect_knob 73728
  local clean_out=$OUT clean_err=$ERR
  # The clean run's files, each accounted for: the dynamic loader and libc, the fixture and the
  # directories on its way, the group database, the zone file the syslog mirror's time stamp
  # reads, /dev/null. (Sanitizer builds also read /proc and /sys.)
  local prefix=$FIXTURE ancestors="/" p
  while [ "$prefix" != "/" ]; do ancestors="$ancestors|$prefix"; prefix=$(dirname "$prefix"); done
  local allowed="^(open|openat) (($ancestors)|$FIXTURE/.*|/etc/ld\.so\.cache|/etc/nsswitch\.conf|/etc/group|/etc/passwd|/etc/localtime|/usr/share/zoneinfo/.*|(/usr)?/lib(64|32|x32)?/.*\.so[.0-9]*|/dev/null)"
  [ "$SANITIZED" = 1 ] && allowed="$allowed|^(open|openat) (/proc/.*|/sys/.*)"
  while read -r p; do
    [[ $p =~ $allowed ]] || fail "the helper opened a file nobody expected: $p"
  done < "$WORK/clean.opens"
  note "clean environment: $(wc -l < "$WORK/clean.opens") distinct opens, all expected"

  local -A envs=(
    [ld_preload]="LD_PRELOAD=$evil/evil.so|LD_PRELOAD=$evil/libc.so.6"
    [ld_preload_bare_name]="LD_PRELOAD=evil.so"
    [ld_library_path]="LD_LIBRARY_PATH=$evil|LD_RUN_PATH=$evil"
    [ld_audit_and_friends]="LD_AUDIT=$evil/audit.so|LD_DEBUG_OUTPUT=$evil/debug|LD_PROFILE_OUTPUT=$evil|LD_ORIGIN_PATH=$evil|LD_HWCAP_MASK=0|LD_BIND_NOT=1|LD_SHOW_AUXV=1"
    [ld_profile]="LD_PROFILE=libc.so.6|LD_PROFILE_OUTPUT=$evil"
    [gconv_path]="GCONV_PATH=$evil|CHARSET=evil"
    [nlspath]="NLSPATH=$evil/%N|LANGUAGE=x|LC_MESSAGES=C"
    [locpath_lc_all]="LOCPATH=$evil|LC_ALL=../x|LANG=../../../$evil/x|LC_CTYPE=../x"
    [tz]="TZ=/etc/shadow|TZDIR=$evil"
    [tz_colon]="TZ=:/etc/shadow"
    [tmpdir]="TMPDIR=$evil|TMP=$evil|TEMP=$evil"
    [path]="PATH=$evil:/usr/bin:/bin|SHELL=$evil/sh"
    [ifs]=$'IFS=x\n|IFS=/|PS4=$(touch '"$evil"'/RAN-ps4)'
    [malloc]="MALLOC_CHECK_=3|MALLOC_PERTURB_=165|MALLOC_TRACE=$evil/trace|GLIBC_TUNABLES=glibc.malloc.check=3:glibc.malloc.tcache_count=0"
    [config_homes]="HOME=$evil|XDG_CONFIG_HOME=$evil|SPDLOG_LEVEL=trace|HOSTALIASES=$evil/hosts|RES_OPTIONS=debug|LOCALDOMAIN=evil"
    [wiredcap_names]="WIREDCAP_POLICY=$evil/p|WIREDCAP_SIM_STATE=$evil/s|WIREDCAP_JOURNAL=$evil/j|WIREDCAP_HELPER=$evil/sh"
    [spoofed_identity]="USER=root|LOGNAME=root|SUDO_UID=0|SUDO_GID=0|SUDO_USER=root|USERNAME=root"
    [without_equals]="LD_PRELOAD|=$evil/evil.so|PATH||TZ|LD_LIBRARY_PATH=$evil=x"
    [many]="@many"
  )
  for name in "${!envs[@]}"; do
    local opts=() item
    IFS='|' read -r -d '' -a items < <(printf '%s' "${envs[$name]}")  # items may hold newlines
    for item in "${items[@]}"; do
      if [ "$item" = "@many" ]; then opts+=(--env-many 10000); else opts+=(--env "$item"); fi
    done
    [ "$name" = without_equals ] && opts+=(--env '')
    traced_opens "$name" "${opts[@]}"
    # Two things glibc's ld.so does in secure-execution mode, before any helper code runs
    # (ld.so(8)); only root-owned system locations are involved, and the result is the same:
    case $name in
      ld_preload_bare_name)
        # a preload without a slash is looked for in the system library directories only, and
        # loaded only if it is setuid there;
        loader_only '^openat (/usr)?/lib(64)?/([^ ]*/)?evil\.so O_RDONLY\|O_CLOEXEC -> ENOENT$' \
                    "^ERROR: ld.so: object 'evil.so' from LD_PRELOAD cannot be preloaded" ;;
      ld_profile)
        # LD_PROFILE is still honoured, with its output forced into /var/profile (which a
        # system must not have unless root wants every setuid program profiled there).
        loader_only '^openat /var/profile/libc\.so\.6\.profile O_RDWR\|O_CREAT\|O_NOFOLLOW -> ENOENT$' \
                    '^/var/profile/libc\.so\.6\.profile: cannot open file' ;;
    esac
    [ "$RC" -eq 0 ] && [ "$OUT" = "$clean_out" ] && [ "$ERR" = "$clean_err" ] ||
      fail "environment '$name': exit $RC, output '$OUT' '$ERR'; a clean environment gave 0, '$clean_out'"
    if ! diff "$WORK/clean.opens" "$WORK/$name.opens" > "$WORK/$name.diff"; then
      fail "environment '$name' changed the files the helper opened:\n$(cat "$WORK/$name.diff")"
    fi
  done
  local ran; ran=$(find "$evil" -name 'RAN-*')
  [ -z "$ran" ] || fail "something the caller planted was run: $ran"
  grep -q 'execve' "$WORK/clean.opens" && fail "the helper ran a program: $(grep execve "$WORK/clean.opens")"
  note "${#envs[@]} hostile environments: the same exit, output and opened files as an empty one; nothing run"
}

# ---------------------------------------------------------------------------------------------
# 4. Process state

std_fds_closed() {
  fresh_fixture
  local closed
  for closed in "0 1 2" "1" "2" "0" "1 2" "0 1"; do
    sim reboot >/dev/null
    local opts=() fd
    for fd in $closed; do opts+=(--close "$fd"); done
    run "${opts[@]}" -- apply 80GiB
    expect_rc 0; expect_knob 81920; expect_last_event applied
    run "${opts[@]}" -- apply 190GiB     # a refusal, with its message for stderr
    expect_rc 3; expect_knob 81920; expect_last_event refused
    sim show >/dev/null || fail "the simulator's state is damaged (fds $closed closed)"
  done
  # Nothing the helper meant for stdout or stderr went into the journal or the policy.
  journal_ok
  grep -q '"ok"' "$JOURNAL" && fail "a result line landed in the journal"
  grep -q 'wiredcap-helper:' "$JOURNAL" "$POLICY" && fail "an error message landed in the journal or the policy"
  cmp -s "$POLICY" <(printf '%s\n' "${GOOD_BAND[@]}") || fail "the policy file changed"
}

# The helper (pid $1), held inside its write, holds none of the descriptors opened on $2 and at
# most four of its own above 2; $3 labels the note.
expect_no_inherited_fds() {
  local pid=$1 marker=$2 fds high
  fds=$(ls -l "/proc/$pid/fd" 2>&1)
  grep -q "$marker" <<< "$fds" && fail "an inherited descriptor survived into the helper:\n$(grep "$marker" <<< "$fds" | head -5)"
  high=$(ls "/proc/$pid/fd" | awk '$1 > 2' | wc -l)
  [ "$high" -le 4 ] || fail "the helper holds $high descriptors above 2:\n$fds"
  note "$3while writing, the helper holds: $(ls "/proc/$pid/fd" | tr '\n' ' ')"
}

inherited_fds_are_closed() {
  fresh_fixture
  local marker=$WORK/inherited-marker
  printf 'marker\n' > "$marker"; chmod 644 "$marker"
  sim fault stall-write 1500 >/dev/null
  # The highest descriptor the hard limit allows (a root without CAP_SYS_RESOURCE cannot raise it).
  local top; top=$(ulimit -Hn); [ "$top" = unlimited ] && top=65536
  "$SPAWN" --as "$AS" --inherit 1000:"$marker" --inherit-at 4000:"$marker" --inherit-at $((top - 1)):"$marker" \
    -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out" 2>"$WORK/err" &
  local pid=$!
  wait_for_event intent          # the helper is now inside the (stalled) kernel write
  expect_no_inherited_fds "$pid" "$marker" ""
  wait $pid; RC=$?; OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
  expect_rc 0; expect_knob 81920
  sim fault stall-write off >/dev/null
  # And it runs nothing that could receive them: the only execve is the helper's own; the
  # descriptors are closed in one call before anything is opened.
  sim reboot >/dev/null
  strace -f -qq -o "$WORK/exec.strace" -e trace=execve,close_range,openat \
    "$SPAWN" --as "$AS" "${TRACED_ENV[@]}" --inherit 200:"$marker" -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out" 2>&1 ||
    fail "traced run failed: $(cat "$WORK/out")"
  local execs; execs=$(grep -c 'execve(' "$WORK/exec.strace")
  # spawn-hostile's own, then the helper's: nothing after that.
  [ "$execs" -eq 2 ] && grep 'execve(' "$WORK/exec.strace" | tail -n 1 | grep -q "execve(\"$HELPER\"" ||
    fail "the helper ran something: $(grep execve "$WORK/exec.strace")"
  # The first of these after the exec is the dynamic loader's; the helper's first own call
  # must be close_range, before any file of its own is opened.
  # One awk reads the file and prints that line: no pipeline whose reader stops early (under
  # pipefail, a writer killed by SIGPIPE failed the test on a loaded machine).
  local first
  first=$(awk -v h="execve(\"$HELPER\"" 'index($0, h) {seen=1; next}
    seen && $0 !~ /"\/(etc\/ld\.so\.cache|(usr\/)?lib)/ {print; exit}' "$WORK/exec.strace")
  [[ $first == *'close_range(3, '* ]] ||
    fail "close_range is not the helper's first act: $(grep -A8 "execve(\"$HELPER" "$WORK/exec.strace")"
}

# Without close_range (a kernel before 5.9; macOS has none), every inherited descriptor is still
# closed, whatever RLIMIT_NOFILE says: the helper lists the open ones (/proc/self/fd here,
# proc_pidinfo on macOS) and closes each. A seccomp filter installed by root makes close_range
# fail with ENOSYS; the limit is as high as the kernel allows and descriptors sit far above
# 1024. When the open descriptors cannot be listed either (/proc hidden in a private mount
# namespace), the helper does not run: nothing changes.
inherited_fds_are_closed_by_listing() {
  fresh_fixture
  local marker=$WORK/inherited-marker top
  printf 'marker\n' > "$marker"; chmod 644 "$marker"
  # As high as this root may set it (a container may deny raising the hard limit).
  top=$(ulimit -Hn); [ "$top" = unlimited ] && top=$(cat /proc/sys/fs/nr_open)
  [ "$top" -gt 2000 ] || fail "the hard RLIMIT_NOFILE ($top) leaves no room above 1024"
  sim fault stall-write 1500 >/dev/null
  "$SPAWN" --as "$AS" --no-close-range --rlimit nofile="$top" --inherit 1000:"$marker" \
    --inherit-at 1500:"$marker" --inherit-at $((top / 2)):"$marker" --inherit-at $((top - 1)):"$marker" \
    -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out" 2>"$WORK/err" &
  local pid=$!
  wait_for_event intent
  grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" || fail "the helper runs without the filter: $(grep Seccomp "/proc/$pid/status")"
  expect_no_inherited_fds "$pid" "$marker" "RLIMIT_NOFILE $top, close_range blocked: "
  wait $pid; RC=$?; OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
  expect_rc 0; expect_knob 81920
  sim fault stall-write off >/dev/null
  private_mount_ns || { echo "SKIP: $PRIVATE_NS_WHY"; exit 77; }
  local size; size=$(journal_size)
  export SPAWN AS HELPER marker
  "${PRIVATE_NS[@]}" bash -c '
    mount -t tmpfs -o size=4k wcap-noproc /proc || exit 99
    "$SPAWN" --as "$AS" --no-close-range --inherit 10:"$marker" -- "$HELPER" apply 72GiB --effective 64GiB
  ' >"$WORK/out" 2>"$WORK/err"
  RC=$?; OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
  [ "$RC" -ne 99 ] || fail "cannot hide /proc in a private mount namespace"
  expect_rc 1; expect_knob 81920; expect_history "81920 MiB "; expect_journal_size "$size"
  note "close_range blocked and /proc hidden: exit $RC, nothing changed"
}

rlimit_nofile() {
  fresh_fixture
  local n results=""
  for n in 3 4 5 6 7 8 10 12 16; do
    sim reboot >/dev/null
    run --rlimit nofile=$n -- apply 80GiB
    local k; k=$(knob)
    results="$results nofile=$n:exit=$RC:knob=$k"
    case $RC in
      0) [ "$k" = 81920 ] || fail "nofile=$n: exit 0 but knob $k"; expect_last_event applied ;;
      *) [ "$k" = 0 ] || [ "$RC" = 6 ] || fail "nofile=$n: exit $RC and the knob changed to $k" ;;
    esac
    [ "$RC" -lt 128 ] || fail "nofile=$n: the helper died of a signal ($RC)"
    journal_ok >/dev/null
  done
  note "$results"
  [ "$RC" -eq 0 ] || fail "even RLIMIT_NOFILE=16 is not enough for the helper"
  journal_ok
}

# The journal cannot be written (the file-size limit is its current size): the helper exits
# journal_failed (12) and the kernel is never touched. SIGXFSZ is ignored by the helper, so the
# limit fails the write instead of killing the helper; and a record that would cross the limit
# is refused whole, so no torn or complete-looking partial record is left behind.
rlimit_fsize_journal_first() {
  fresh_fixture
  # Some history first: the journal must outgrow the simulator's state file, which is written
  # under the same limit (a real kernel is not a file and would not be).
  for v in 72GiB 80GiB 72GiB 80GiB 72GiB; do run -- apply $v; expect_rc 0; done
  sim reboot >/dev/null
  local size hist; size=$(journal_size); hist=$(sim_history)
  cp "$JOURNAL" "$WORK/journal.before"
  # The intent record for 80GiB from 0 is as long as the one for 72GiB was (fixed-width fields).
  local len; len=$(grep '"event":"intent"' "$JOURNAL" | head -n 1 | wc -c)
  local extra
  for extra in 0 1 40 150 $((len - 1)); do
    run --rlimit fsize=$((size + extra)) -- apply 80GiB
    expect_rc 12; expect_err 'File too large'; expect_err 'nothing was changed'
    expect_knob 0; expect_history "$hist"
    cmp -s "$JOURNAL" "$WORK/journal.before" ||
      fail "limit +$extra: the journal changed: $(tail -c 300 "$JOURNAL" | od -c | tail -5)"
  done
  note "limits from +0 to +$((len - 1)) bytes: refused whole, journal byte-identical, kernel untouched"
  # Room for the intent and not for the outcome: the value is applied (the intent came first),
  # the helper says so, and the intent stands as an interrupted action.
  run --rlimit fsize=$((size + len)) -- apply 80GiB
  expect_rc 12; expect_err 'the value was applied'; expect_knob 81920
  expect_last_event intent
  journal_ok --allow-interrupted
}

# A tiny address space. Below some limit the kernel or the dynamic loader gives up before the
# helper runs (SIGSEGV at exec, exit 127); above it the helper runs and, near that edge, runs
# out of memory on its way: it must then fail cleanly (exit 1 and its JSON line, not an abort),
# and never change the kernel without the intent record before it. The edge depends on the
# build, so it is found by bisection and the band above it walked page by page.
rlimit_as() {
  [ "$SANITIZED" = 1 ] && { echo "SKIP: ASan reserves terabytes of address space; RLIMIT_AS cannot be tested under it"; exit 77; }
  fresh_fixture
  mkdir -m 700 "$WORK/cwd" && chown $NOBODY "$WORK/cwd"
  try_as() {  # try_as KiB: sets RC OUT ERR K, and NEW (the journal records this run added)
    sim reboot >/dev/null
    local before; before=$(journal_size)
    run --rlimit as=$(($1 * 1024)) --rlimit core=unlimited --chdir "$WORK/cwd" -- apply 80GiB
    K=$(knob)
    NEW=$(tail -c +$((before + 1)) "$JOURNAL" 2>/dev/null)
  }
  local lo=1024 hi=65536 mid
  try_as $hi; [ "$RC" -eq 0 ] || fail "64 MiB of address space is not enough for the helper (exit $RC: $ERR)"
  while [ $((hi - lo)) -gt 4 ]; do
    mid=$(( (lo + hi) / 2 / 4 * 4 ))
    try_as $mid
    if [ "$RC" -eq 127 ] || [ "$RC" -eq 139 ]; then lo=$mid; else hi=$mid; fi
  done
  note "the helper's own code first runs at RLIMIT_AS=$hi KiB"
  local kb=$hi ok_streak=0 outcomes=""
  while [ $ok_streak -lt 8 ] && [ $kb -lt $((hi + 4096)) ]; do
    try_as $kb
    outcomes="$outcomes $RC"
    [ "$RC" -lt 128 ] || fail "as=${kb}KiB: the helper died of signal $((RC - 128)): $ERR"
    if [ "$RC" -ne 127 ]; then
      expect_one_line
      [ "$RC" -eq 0 ] && expect_out '"ok":true' || expect_out "\"exit\":$RC"
    fi
    [ "$RC" -ne 0 ] || [ "$K" = 81920 ] || fail "as=${kb}KiB: exit 0 but knob $K"
    if [ "$K" != 0 ]; then
      head -n 1 <<< "$NEW" | grep -q '"event":"intent".*"to_mib":81920' ||
        fail "as=${kb}KiB: the knob changed without its intent record first: $NEW"
    fi
    journal_ok --allow-interrupted >/dev/null
    if [ "$RC" -eq 0 ]; then ok_streak=$((ok_streak + 1)); else ok_streak=0; fi
    kb=$((kb + 4))
  done
  note "exits from $hi KiB upwards, page by page:$outcomes"
  [ -z "$(ls -A "$WORK/cwd")" ] || fail "a core file was written: $(ls -A "$WORK/cwd")"
}

core_dumps_off() {
  fresh_fixture
  mkdir -m 700 "$WORK/cwd" && chown $NOBODY "$WORK/cwd"
  sim fault stall-write 1500 >/dev/null
  "$SPAWN" --as "$AS" --rlimit core=unlimited --chdir "$WORK/cwd" -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out" 2>"$WORK/err" &
  local pid=$!
  wait_for_event intent
  grep -E '^Max core file size +0 +0 ' "/proc/$pid/limits" >/dev/null ||
    fail "RLIMIT_CORE is not 0 in the helper: $(grep core "/proc/$pid/limits")"
  # Every signal whose default action dumps core is blocked: QUIT ILL TRAP ABRT BUS FPE SEGV
  # XCPU SYS (signal n is bit n-1 of SigBlk).
  local blk; blk=$(awk '/^SigBlk:/ {print $2}' "/proc/$pid/status")
  (( (16#$blk & 0x408004FC) == 0x408004FC )) || fail "the helper does not block the core-dumping signals: SigBlk $blk"
  for sig in ABRT SEGV QUIT BUS FPE ILL TRAP SYS; do kill -s $sig $pid; done
  wait $pid; RC=$?; OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
  expect_rc 0; expect_knob 81920
  sim fault stall-write off >/dev/null
  [ -z "$(ls -A "$WORK/cwd")" ] || fail "files appeared in the caller's cwd: $(ls -A "$WORK/cwd")"
  # Not dumpable: shown on an unprivileged run (a setuid one is never dumpable anyway), where
  # the kernel hands the /proc entries of a non-dumpable process to root.
  local dev=$WORK/dev
  mkdir -p "$dev/etc" && printf '%s\n' "${GOOD_BAND[@]}" > "$dev/etc/wiredcap.conf"
  chown -R $NOBODY:$NOBODY "$dev"; chmod 755 "$dev" "$dev/etc"; chmod 644 "$dev/etc/wiredcap.conf"
  "$SIM" --state "$dev/sim-state" init >/dev/null && "$SIM" --state "$dev/sim-state" fault stall-write 1500 >/dev/null
  chown $NOBODY:$NOBODY "$dev/sim-state" "$dev/sim-state.lock"   # the lock: 0600, its creator's
  "$SPAWN" --as "$AS" --rlimit core=unlimited -- "$PROD_HELPER" --policy "$dev/etc/wiredcap.conf" \
    --journal "$dev/journal/journal.jsonl" --sim-state "$dev/sim-state" apply 80GiB --effective 64GiB >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  local _; for _ in $(seq 200); do grep -q intent "$dev/journal/journal.jsonl" 2>/dev/null && break; sleep 0.05; done
  grep -q intent "$dev/journal/journal.jsonl" || fail "the unprivileged run never reached its write"
  local owner; owner=$(stat -c %u "/proc/$pid/status")
  "$SPAWN" --as "$AS" -- /bin/sleep 1 & local control=$!
  sleep 0.2
  local control_owner; control_owner=$(stat -c %u "/proc/$control/status")
  wait $pid; RC=$?; wait $control
  expect_rc 0
  [ "$control_owner" = $NOBODY ] || fail "control: a dumpable process of nobody shows owner $control_owner"
  [ "$owner" = 0 ] || fail "the unprivileged helper is dumpable (its /proc entry belongs to uid $owner)"
}

umask_000() {
  fresh_fixture
  rm -rf "$FIXTURE/journal"          # the helper creates the directory and the file
  run --umask 000 -- apply 80GiB
  expect_rc 0; expect_knob 81920
  [ "$(stat -c '%a %u' "$FIXTURE/journal")" = "755 0" ] || fail "journal directory: $(stat -c '%a %u' "$FIXTURE/journal")"
  [ "$(stat -c '%a %u' "$JOURNAL")" = "644 0" ] || fail "journal: $(stat -c '%a %u' "$JOURNAL")"
  [ "$(stat -c '%a %u' "$STATE")" = "644 0" ] || fail "sim state: $(stat -c '%a %u' "$STATE")"
  run --umask 000 -- apply 96GiB
  expect_rc 0; [ "$(stat -c %a "$JOURNAL")" = 644 ] || fail "journal mode changed"
  rm -rf "$FIXTURE/journal"
  run --umask 777 -- apply 80GiB
  expect_rc 0
  [ "$(stat -c '%a %u' "$FIXTURE/journal")" = "755 0" ] || fail "umask 777: journal directory $(stat -c '%a %u' "$FIXTURE/journal")"
  [ "$(stat -c '%a %u' "$JOURNAL")" = "644 0" ] || fail "umask 777: journal $(stat -c '%a %u' "$JOURNAL")"
}

# Everything the helper creates is root's and root's group's, whatever the caller's real group
# (a setuid process creates files with it): the journal's directory, the journal, the boot state.
created_files_belong_to_root() {
  fresh_fixture
  rm -rf "$FIXTURE/journal"
  AS="$NOBODY:$GID:$NOBODY"           # the policy's group as the caller's real (primary) group
  run --umask 000 -- apply 80GiB; expect_rc 0
  run --umask 000 -- persist 80GiB --unconfirmed; expect_rc 0
  local f
  for f in "$FIXTURE/journal" "$JOURNAL" "$FIXTURE/journal/boot.state"; do
    [ "$(stat -c '%u:%g' "$f")" = "0:0" ] || fail "$f is $(stat -c '%U:%G (%u:%g)' "$f"), not root:root"
  done
  note "$(stat -c '%n %U:%G %a' "$FIXTURE/journal" "$JOURNAL" "$FIXTURE/journal/boot.state")"
}

# A group member's call that takes the journal past 1 MiB compacts nothing
# (no caller reaches the compaction); root's wiredcap-system does, at its next run: the new
# journal and the archive are root's (0644), nothing is left half done, and the member's own
# records are in the new journal.
compaction_by_a_member_is_roots() {
  fresh_fixture
  mkdir -p "$FIXTURE/journal" && chmod 755 "$FIXTURE/journal"
  python3 -S - "$JOURNAL" $((1024 * 1024 - 100)) <<'PY' || fail "cannot write the journal"
import sys
path, size = sys.argv[1], int(sys.argv[2])
out, n = "", 0
while len(out) < size - 2000:
    run = "old-%06d" % n
    n += 1
    for ev, extra in (("intent", ""), ("applied", ',"readback_mib":73728')):
        out += ('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"apply","event":"%s",'
                '"run":"%s","step":1,"to_mib":73728%s}\n' % (ev, run, extra))
    out += ('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"apply",'
            '"event":"revert_applied","run":"%s","step":1,"to_mib":0,"readback_mib":0,"reason":"no"}\n' % run)
    out += ('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"end","event":"end",'
            '"run":"%s","readback_mib":0,"reason":"reverted"}\n' % run)
head = '{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"apply","event":"refused","reason":"'
out += head + "x" * (size - len(out) - len(head) - 3) + '"}\n'
open(path, "w").write(out)
PY
  chmod 644 "$JOURNAL"
  [ "$(journal_size)" -eq $((1024 * 1024 - 100)) ] || fail "the journal is $(journal_size) bytes"
  AS=$MEMBER
  run --umask 000 -- apply 80GiB; expect_rc 0; expect_knob 81920
  ! grep -q '"event":"compacted"' "$JOURNAL" || fail "the member's call compacted the journal: that is root's program's"
  [ "$(journal_size)" -gt $((1024 * 1024)) ] || fail "the member's records did not take the journal past 1 MiB"
  system boot-action >/dev/null || fail "wiredcap-system boot-action failed"
  grep -q '"command":"journal","event":"compacted"' "$JOURNAL" || fail "wiredcap-system did not compact the journal"
  [ "$(journal_size)" -lt $((512 * 1024)) ] || fail "the compacted journal is $(journal_size) bytes"
  local f
  for f in "$JOURNAL" "$JOURNAL.1"; do
    [ "$(stat -c '%u:%g %a' "$f")" = "0:0 644" ] || fail "$f is $(stat -c '%U:%G %a' "$f"), not root:root 644"
  done
  for f in "$JOURNAL.compact" "$JOURNAL.1.new"; do [ ! -e "$f" ] || fail "$f was left behind"; done
  grep -q "\"uid\":$NOBODY,\"command\":\"apply\",\"event\":\"applied\",.*\"to_mib\":81920," "$JOURNAL" ||
    fail "the member's apply is not in the compacted journal: $(tail -n 3 "$JOURNAL")"
  note "$(stat -c '%n %U:%G %a %s' "$JOURNAL" "$JOURNAL.1")"
}

# The boot action decides at every run, whatever the journal's size. A journal from before
# compaction (70 MiB: 476,000 records of closed ramps, and a ramp step at 72 GiB that hung an old
# boot) is compacted first (the long part without the helper's lock), then the decision is made
# on what was kept, in the same run: the hang binds, the stored 80 GiB is refused, nothing is
# written and the guard stops (failed). The next run sees the stopped guard; neither waits.
boot_action_decides_on_any_journal() {
  fresh_fixture
  AS="0:0:"
  run -- persist 80GiB --unconfirmed; expect_rc 0
  python3 -S - "$JOURNAL" $((70 * 1024 * 1024)) <<'PY' || fail "cannot write the journal"
import sys
path, size = sys.argv[1], int(sys.argv[2])
now = open(path).read()
head = ('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"apply","event":"applied",'
        '"run":"hung","step":1,"to_mib":73728,"readback_mib":73728}\n')
out, n, total = [head], 0, len(head) + len(now)
while total < size:
    run = "old-%07d" % n
    n += 1
    block = "".join('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"%s","event":"%s",'
                    '"run":"%s"%s}\n' % (c, e, run, x) for c, e, x in (
                        ("apply", "applied", ',"step":1,"to_mib":65536,"readback_mib":65536'),
                        ("apply", "revert_applied", ',"step":1,"to_mib":0,"readback_mib":0,"reason":"no"'),
                        ("end", "end", ',"readback_mib":0,"reason":"reverted"')))
    out.append(block)
    total += len(block)
open(path, "w").write("".join(out) + now)
PY
  sim reboot >/dev/null
  local size; size=$(journal_size)
  OUT=$(system boot-action 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 3; expect_err 'where the machine hung'; expect_history ''
  grep -q '^guard=failed$' "$FIXTURE/journal/boot.state" || fail "the refusal did not stop the guard: $(cat "$FIXTURE/journal/boot.state")"
  OUT=$(system boot-action 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 0; expect_out '"action":"none"'; expect_history ''
  [ "$(stat -c %s "$JOURNAL.1")" -eq "$size" ] || fail "the journal was not compacted before the decision"
  [ "$(journal_size)" -lt $((512 * 1024)) ] || fail "the compacted journal is $(journal_size) bytes"
  grep -q '"run":"hung"' "$JOURNAL" || fail "the hang was lost in the compaction"
  note "legacy journal of $size bytes, compacted to $(journal_size)"
}

# The journal stays bounded whatever a member does. A journal of root's
# records just short of the member bound (1.5 MiB, journal::kMemberBound): the member's apply
# that would cross it is refused (exit 12, nothing written, the journal as it was); root's
# apply through the same setuid helper goes in past it, and root's and the member's reset work;
# once wiredcap-system has compacted the journal the member may act again.
MEMBER_BOUND=$((1536 * 1024))
MEMBER_SHARE=$((MEMBER_BOUND / 4))  # one caller's share of it (helper/include/wiredcap/helper/journal/journal.hpp)
# journal_of_root_records BYTES: root's closed ramps from an earlier boot, BYTES long.
journal_of_root_records() {
  mkdir -p "$FIXTURE/journal" && chmod 755 "$FIXTURE/journal"
  python3 -S - "$JOURNAL" "$1" <<'PY' || fail "cannot write the journal"
import sys
path, size = sys.argv[1], int(sys.argv[2])
out, n = [], 0
written = 0
while True:
    run = "old-%06d" % n
    n += 1
    block = "".join('{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"%s","event":"%s",'
                    '"run":"%s"%s}\n' % (c, e, run, x) for c, e, x in (
                        ("apply", "intent", ',"step":1,"to_mib":73728'),
                        ("apply", "applied", ',"step":1,"to_mib":73728,"readback_mib":73728'),
                        ("apply", "revert_applied", ',"step":1,"to_mib":0,"readback_mib":0,"reason":"no"'),
                        ("end", "end", ',"readback_mib":0,"reason":"reverted"')))
    if written + len(block) > size:
        break
    out.append(block)
    written += len(block)
pad = '{"v":1,"time":"2025-03-01T08:40:00Z","boot":"OLD","uid":0,"command":"apply","event":"refused","reason":"'
out.append(pad + "x" * (size - written - len(pad) - 3) + '"}\n')
open(path, "w").write("".join(out))
PY
  chmod 644 "$JOURNAL"
  [ "$(journal_size)" -eq "$1" ] || fail "the journal is $(journal_size) bytes, not $1"
}
member_writes_stop_at_the_bound() {
  fresh_fixture
  journal_of_root_records $((MEMBER_BOUND - 150))
  cp "$JOURNAL" "$WORK/journal.before"
  AS=$MEMBER
  run -- apply 80GiB
  expect_rc 12; expect_err 'bound'; expect_knob 0; expect_history ''
  cmp -s "$JOURNAL" "$WORK/journal.before" || fail "a member's record went past the bound: $(tail -n 2 "$JOURNAL")"
  AS="0:0:"
  run -- apply 80GiB
  expect_rc 0; expect_knob 81920
  tail -n 1 "$JOURNAL" | grep -q '"uid":0,"command":"apply","event":"applied"' || fail "root's apply is not journaled"
  [ "$(journal_size)" -gt "$MEMBER_BOUND" ] || fail "root's records did not go past the bound"
  AS=$MEMBER
  run -- reset  # a change: journaled past the bound (every change is on record)
  expect_rc 0; expect_knob 0
  tail -n 1 "$JOURNAL" | grep -q '"uid":65534,"command":"reset","event":"applied"' || fail "the member's reset is not journaled"
  local size; size=$(journal_size)
  run -- reset  # no change: nothing past the bound
  expect_rc 0; expect_knob 0; expect_out '"warnings"'
  [ "$(journal_size)" -eq "$size" ] || fail "a reset that changed nothing went past the bound"
  AS="0:0:"
  run -- reset
  expect_rc 0; expect_knob 0
  tail -n 1 "$JOURNAL" | grep -q '"uid":0,"command":"reset"' || fail "root's reset is not journaled"
  system compact >/dev/null || fail "wiredcap-system compact failed"
  [ "$(journal_size)" -lt $((512 * 1024)) ] || fail "the compacted journal is $(journal_size) bytes"
  AS=$MEMBER
  run -- apply 80GiB
  expect_rc 0; expect_knob 81920
  note "member refused at $((MEMBER_BOUND - 150)) bytes; root went on to $(stat -c %s "$JOURNAL.1"); compacted: $(journal_size)"
}

# A member cannot mint run ids. Its refused calls with made-up run ids
# journal no run id, so they open no run that the
# journal (and recover) would keep; its own ramp's records keep theirs.
member_cannot_open_runs_with_refusals() {
  fresh_fixture
  AS=$MEMBER
  local i
  for i in 1 2 3 4 5; do
    run -- apply 190GiB --run "made-up-$i" --step 1; expect_rc 3
  done
  run -- apply 80GiB --run mine --step 1; expect_rc 0
  [ "$(grep -c '"uid":65534,"command":"apply","event":"refused"' "$JOURNAL")" = 5 ] ||
    fail "the member's refusals are not all journaled: $(cat "$JOURNAL")"
  ! grep -q 'made-up' "$JOURNAL" || fail "a member's refusal opened a run: $(grep made-up "$JOURNAL" | head -n 2)"
  grep -q '"uid":65534,"command":"apply","event":"applied","run":"mine"' "$JOURNAL" || fail "the member's own run lost its id"
}

# A member's flood cannot push its own claim out of the record. The member
# applies with an effective cap only it vouches for (--effective, given), reverts and ends the
# run (a closed run, which compaction would drop to the archive); then floods the journal to the
# bound, again and again, with wiredcap-system compacting in between (what it does every
# minute). The flood is written as the member's records (a refusal of the member's, copied from
# the real one: thousands of setuid runs per round would take minutes); the claim is the real
# helper's. It is still in the journal after three rounds.
member_flood_keeps_its_claim() {
  fresh_fixture
  AS=$MEMBER
  run -- apply 80GiB --run lie --step 1 --effective 70GiB --effective-source given; expect_rc 0
  run -- reset --run lie --step 1 --revert no; expect_rc 0
  run -- end --run lie --outcome reverted; expect_rc 0
  run -- apply 190GiB; expect_rc 3
  local template round
  template=$(grep '"uid":65534,"command":"apply","event":"refused"' "$JOURNAL" | tail -n 1)
  [ -n "$template" ] || fail "no refusal of the member's to copy"
  for round in 1 2 3; do
    python3 -S - "$JOURNAL" "$MEMBER_BOUND" "$template" <<'PY' || fail "cannot flood"
import os, sys
path, bound, line = sys.argv[1], int(sys.argv[2]), sys.argv[3] + "\n"
n = max(0, (bound - os.path.getsize(path)) // len(line))
open(path, "a").write(line * n)
PY
    run -- apply 190GiB; expect_rc 3  # refused; at the bound, not even recorded
    [ "$(journal_size)" -le "$MEMBER_BOUND" ] || fail "round $round: a member's record went past the bound"
    system compact >/dev/null || fail "wiredcap-system compact failed in round $round"
    [ "$(journal_size)" -lt $((512 * 1024)) ] || fail "round $round: the compacted journal is $(journal_size) bytes"
  done
  grep -q '"uid":65534,"command":"apply","event":"applied","run":"lie",.*"effective_mib":71680,"effective_source":"given by uid 65534"' \
    "$JOURNAL" || fail "the member's claim was pushed out of the journal: $(grep -c . "$JOURNAL") records left"
  note "after 3 floods to the bound and 3 compactions the claim is in the journal ($(journal_size) bytes)"
}

# One member's records that compaction keeps (writes outside a run, claims)
# fill at most its share of the member bound (a quarter): past it that member is refused (exit
# 12, nothing written), while another member and root still change the cap.
member_share_keeps_other_members_in() {
  fresh_fixture
  AS=$MEMBER
  run -- apply 72GiB; expect_rc 0; expect_knob 73728
  local template
  template=$(grep '"uid":65534,"command":"apply","event":"applied"' "$JOURNAL" | tail -n 1)
  [ -n "$template" ] || fail "no apply of the member's to copy"
  python3 -S - "$JOURNAL" "$MEMBER_SHARE" "$template" <<'PY' || fail "cannot flood"
import sys
path, share, line = sys.argv[1], int(sys.argv[2]), sys.argv[3] + "\n"
open(path, "a").write(line * (share // len(line)))
PY
  [ "$(journal_size)" -lt "$MEMBER_BOUND" ] || fail "the flood reached the whole bound"
  cp "$JOURNAL" "$WORK/journal.before"
  run -- apply 80GiB
  expect_rc 12; expect_err 'share'; expect_knob 73728; expect_history '73728 MiB '
  cmp -s "$JOURNAL" "$WORK/journal.before" || fail "a record past the member's share: $(tail -n 1 "$JOURNAL")"
  AS="65533:65533:$GID"  # another member of the group
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
  AS="0:0:"
  run -- reset; expect_rc 0; expect_knob 0
  note "uid 65534 refused at its share ($(journal_size) bytes in all); uid 65533 and root went on"
}

# Every change is journaled, a member's reset past its share included: with its share full, the
# member's reset of root's raise still writes its intent and outcome (and the removal of root's
# stored value), so the change is on record; a reset that changes nothing stays refused its record.
member_reset_past_its_share_is_journaled() {
  fresh_fixture
  AS=$MEMBER
  run -- apply 72GiB; expect_rc 0
  local template
  template=$(grep '"uid":65534,"command":"apply","event":"applied"' "$JOURNAL" | tail -n 1)
  python3 -S - "$JOURNAL" "$MEMBER_SHARE" "$template" <<'PY' || fail "cannot flood"
import sys
path, share, line = sys.argv[1], int(sys.argv[2]), sys.argv[3] + "\n"
open(path, "a").write(line * (share // len(line)))
PY
  run -- apply 80GiB; expect_rc 12; expect_err 'share'
  AS="0:0:"
  run -- reset; expect_rc 0
  run -- apply 72GiB; expect_rc 0
  run -- persist 72GiB --unconfirmed; expect_rc 0
  AS=$MEMBER
  run -- reset; expect_rc 0; expect_knob 0
  [ ! -e "$FIXTURE/journal/boot.state" ] || fail "the member's reset left root's stored value"
  [[ $ERR != *"could not record"* ]] || fail "the member's reset went unrecorded: $ERR"
  local tail; tail=$(tail -n 4 "$JOURNAL")
  for e in intent applied persist_removed_intent persist_removed; do
    grep -q "\"uid\":65534,\"command\":\"reset\",\"event\":\"$e\"" <<<"$tail" || fail "no '$e' of the member's reset: $tail"
  done
  local size; size=$(journal_size)
  run -- reset; expect_rc 0
  [ "$(journal_size)" -eq "$size" ] || fail "a reset that changed nothing grew the journal past the share: $(tail -n 1 "$JOURNAL")"
}

# Twelve members, each at its share of the journal with its own `set`s (a claim each) in an
# earlier boot: 4.5 MiB, three times the member bound. Compaction keeps of them what still
# decides something (the classifier's in-use records) and each uid's latest claim, so the
# journal comes back under the bound, the boot action decides (applies root's stored value),
# and a member may act again.
members_at_their_share_are_compacted_to_what_decides() {
  fresh_fixture
  AS="0:0:"
  run -- persist 80GiB --unconfirmed; expect_rc 0
  python3 -S - "$JOURNAL" "$MEMBER_SHARE" <<'PY' || fail "cannot write the journal"
import sys
path, share = sys.argv[1], int(sys.argv[2])
now = open(path).read()
rec = ('{"v":1,"time":"2026-12-01T08:40:00Z","boot":"OLD","uid":%d,"command":"apply","event":"%s",'
       '"from_mib":0,"to_mib":%d%s,"effective_mib":65536,"effective_source":"given by uid %d","by":"set"}\n')
out = []
for uid in range(65520, 65532):
    mine, n = 0, 0
    while mine < share - 400:
        to = 73728 + 8192 * (n % 2)
        pair = rec % (uid, "intent", to, "", uid) + rec % (uid, "applied", to, ',"readback_mib":%d' % to, uid)
        out.append(pair); mine += len(pair); n += 1
for event, back in (("intent", ''), ("applied", ',"readback_mib":0')):
    out.append('{"v":1,"time":"2026-12-01T09:00:00Z","boot":"OLD","uid":65531,"command":"reset","event":"%s",'
               '"to_mib":0%s}\n' % (event, back))
open(path, "w").write("".join(out) + now)
PY
  local size; size=$(journal_size)
  [ "$size" -gt $((2 * MEMBER_BOUND)) ] || fail "the members' journal is only $size bytes"
  sim reboot >/dev/null
  OUT=$(system boot-action 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 0; expect_out '"action":"applied"'; expect_history '81920 MiB '
  # What is left: the most recent records (kKeepRecent, 1,000) and each uid's latest claim.
  [ "$(journal_size)" -lt "$MEMBER_SHARE" ] || fail "the compacted journal is $(journal_size) bytes"
  [ "$(grep -c . "$JOURNAL")" -lt 1100 ] || fail "the compaction kept $(grep -c . "$JOURNAL") records"
  local uid
  for uid in $(seq 65520 65531); do
    grep -q "\"uid\":$uid,\"command\":\"apply\",\"event\":\"applied\".*\"effective_mib\":65536" "$JOURNAL" ||
      fail "uid $uid's latest claim was not kept"
  done
  AS=$MEMBER
  run -- apply 72GiB; expect_rc 0; expect_knob 73728
  note "12 members' $size bytes compacted to $(journal_size); the boot action applied, a member applied"
  journal_ok
}

# The share decides whether a command starts, never half of it: a member whose intent fits its
# share and whose outcome would not gets both records (an intent is never left without its
# outcome; the overshoot is one command's records).
member_share_never_cuts_a_command_in_half() {
  fresh_fixture
  AS=$MEMBER
  run -- apply 72GiB; expect_rc 0
  run -- apply 76GiB; expect_rc 0; expect_knob 77824
  local intent
  intent=$(grep '"uid":65534,"command":"apply","event":"intent"' "$JOURNAL" | tail -n 1)
  [ -n "$intent" ] || fail "no intent of the member's"
  # The member's records so far, then one padded record of its own: its bytes end exactly one
  # byte short of room for the next intent (of the same length: 77824 -> 81920) and its outcome.
  python3 -S - "$JOURNAL" "$MEMBER_SHARE" "${#intent}" <<'PY' || fail "cannot pad"
import sys
path, share, intent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) + 1
mine = sum(len(l) for l in open(path, "rb") if b',"uid":65534,' in l)
head = '{"v":1,"time":"2026-12-02T00:00:00Z","boot":"OLD","uid":65534,"command":"apply","event":"refused","reason":"'
pad = share - intent - 1 - mine - len(head) - 3
assert pad > 0
open(path, "a").write(head + "x" * pad + '"}\n')
PY
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
  tail -n 2 "$JOURNAL" | head -n 1 | grep -q '"uid":65534,"command":"apply","event":"intent"' ||
    fail "the intent is not the second last record: $(tail -n 2 "$JOURNAL")"
  tail -n 1 "$JOURNAL" | grep -q '"uid":65534,"command":"apply","event":"applied"' ||
    fail "the intent was left without its outcome: $(tail -n 1 "$JOURNAL")"
  run -- apply 84GiB; expect_rc 12; expect_err 'share'; expect_knob 81920
}

deleted_cwd() {
  fresh_fixture
  run --deleted-cwd "$WORK/gone" -- apply 80GiB
  expect_rc 0; expect_knob 81920
  run --deleted-cwd "$WORK/gone2" -- read
  expect_rc 0; expect_out '"wired_limit_mib":{"value":81920'
  # A cwd full of look-alikes changes nothing either: every path the helper uses is absolute.
  mkdir -p "$WORK/lookalike/etc" "$WORK/lookalike/journal"
  printf '%s\n' "${HOSTILE_BAND[@]}" > "$WORK/lookalike/etc/wiredcap.conf"
  cp "$STATE" "$WORK/lookalike/sim-state"
  run --chdir "$WORK/lookalike" -- apply 96GiB
  expect_rc 0; expect_knob 98304
  [ ! -e "$WORK/lookalike/journal/journal.jsonl" ] || fail "a journal was written relative to the cwd"
}

# Signals at random points of >= 1000 runs. The helper blocks every catchable signal before it
# opens anything, so the interesting window is the one before that; SIGSTOP/SIGCONT land
# anywhere. SIGKILL is out of scope: nothing can survive it (the ramp's crash-point tests cover
# what recover makes of it).
signals_at_random_points() {
  fresh_fixture
  local runs=${HOSTILE_SIGNAL_RUNS:-$(loop_runs 1000)} seed=${HOSTILE_SEED:-$RANDOM}
  note "seed $seed (HOSTILE_SEED=$seed replays it)"
  : > "$JOURNAL"
  "$LOOP" --runs "$runs" --signals --max-delay-us 3000 --seed "$seed" --as "$MEMBER" --state "$STATE" \
    --values 81920MiB,73728MiB -- "$HELPER" apply '{}' --effective 64GiB >"$WORK/loop" 2>&1 || fail "$(cat "$WORK/loop")"
  note "$(cat "$WORK/loop")"
  # Then with the write itself slowed down (2 ms before and after the knob changes), so signals
  # land inside intent -> write -> read back -> applied too.
  sim fault stall-write 2 >/dev/null; sim fault stall-after-write 2 >/dev/null
  "$LOOP" --runs "$(loop_runs 300)" --signals --max-delay-us 8000 --seed "$((seed + 1))" --as "$MEMBER" --state "$STATE" \
    --values 81920MiB,73728MiB -- "$HELPER" apply '{}' --effective 64GiB >"$WORK/loop" 2>&1 || fail "$(cat "$WORK/loop")"
  note "with stalls: $(cat "$WORK/loop")"
  sim fault stall-write off >/dev/null; sim fault stall-after-write off >/dev/null
  local k; k=$(knob)
  [ "$k" = 81920 ] || [ "$k" = 73728 ] || [ "$k" = 0 ] || fail "the knob holds $k"
  journal_ok --allow-interrupted
  grep -q '"event":"applied"' "$JOURNAL" || fail "no run ever got through"
}

# ---------------------------------------------------------------------------------------------
# 5. Journal paths and a full disk. (The helper has no log file: its syslog mirror goes to the
# syslog socket, which no caller names.)

journal_symlink_and_hardlink() {
  fresh_fixture; caller_file
  local victim=$FIXTURE/victim
  printf 'root data\n' > "$victim"; chmod 644 "$victim"
  refused_journal() {  # refused_journal WHY
    run -- apply 80GiB
    expect_rc 12; expect_err "$1"; expect_err 'nothing was changed'; expect_knob 0; expect_history ""
  }
  ln -s /dev/null "$JOURNAL";               refused_journal 'symbolic link'; rm "$JOURNAL"
  ln -s "$victim" "$JOURNAL";               refused_journal 'symbolic link'; rm "$JOURNAL"
  ln -s "$CALLER_FILE" "$JOURNAL";          refused_journal 'symbolic link'; rm "$JOURNAL"
  ln -s "$FIXTURE/created-by-helper" "$JOURNAL"; refused_journal 'symbolic link'; rm "$JOURNAL"
  [ ! -e "$FIXTURE/created-by-helper" ] || fail "a dangling journal symlink's target was created"
  ln "$CALLER_FILE" "$JOURNAL";             refused_journal "owned by uid $NOBODY"; rm "$JOURNAL"
  mkfifo -m 644 "$JOURNAL"
  OUT=$(timeout 10 "$SPAWN" --as "$AS" -- "$HELPER" apply 80GiB --effective 64GiB 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  [ "$RC" -ne 124 ] || fail "the helper hung on a FIFO journal"
  expect_rc 12; expect_err 'not a regular file'; expect_knob 0; rm "$JOURNAL"
  mkdir -m 755 "$JOURNAL";                  refused_journal 'journal'; rmdir "$JOURNAL"
  # The journal directory replaced by a symlink to a caller-owned directory.
  rmdir "$FIXTURE/journal"; mkdir "$WORK/caller/journal"; chown $NOBODY "$WORK/caller/journal"
  ln -s "$WORK/caller/journal" "$FIXTURE/journal"; refused_journal "owned by uid $NOBODY"
  [ -z "$(ls -A "$WORK/caller/journal")" ] || fail "the helper wrote into the caller's directory"
  rm "$FIXTURE/journal"; mkdir -m 755 "$FIXTURE/journal"
  cmp -s "$victim" <(printf 'root data\n') || fail "the victim file changed"
  cmp -s "$CALLER_FILE" <(printf '%s\n' "${HOSTILE_BAND[@]}") || fail "the caller's file changed"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
}

# A full disk under the journal: a tiny tmpfs mounted over the fixture's journal directory in a
# private mount namespace (the compiled-in path stays the same), filled to the last page. The
# setuid helper, run as nobody inside that namespace, must refuse before touching the kernel.
full_disk() {
  fresh_fixture
  if ! private_mount_ns; then
    echo "SKIP: $PRIVATE_NS_WHY; rlimit_fsize_journal_first covers the same failed write"
    exit 77
  fi
  export FIXTURE JOURNAL SPAWN HELPER AS WORK
  "${PRIVATE_NS[@]}" bash -euc '
    mount -t tmpfs -o size=64k,mode=755,uid=0,gid=0 wcap-full "$FIXTURE/journal"
    fill() { dd if=/dev/zero of="$FIXTURE/journal/filler" bs=4096 2>/dev/null || true; sync; }
    # 1: an empty journal, the disk full.
    : > "$JOURNAL"; chmod 644 "$JOURNAL"; fill
    set +e
    "$SPAWN" --as "$AS" -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out1" 2>"$WORK/err1"; echo $? > "$WORK/rc1"
    stat -c %s "$JOURNAL" > "$WORK/size1"
    # 2: a journal that ends mid-page, the disk full: the record'"'"'s first part fits, the rest
    # does not; the part written is taken back (whole or absent).
    set -e; rm -f "$FIXTURE/journal/filler"
    { printf "{\"v\":1,\"note\":\""; head -c 4000 /dev/zero | tr "\0" x; printf "\"}\n"; } | head -c 4095 > "$JOURNAL"
    printf "\n" >> "$JOURNAL"; fill
    set +e
    "$SPAWN" --as "$AS" -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out2" 2>"$WORK/err2"; echo $? > "$WORK/rc2"
    stat -c %s "$JOURNAL" > "$WORK/size2"
    # 3: room again: it works.
    rm -f "$FIXTURE/journal/filler"
    "$SPAWN" --as "$AS" -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out3" 2>"$WORK/err3"; echo $? > "$WORK/rc3"
  ' || fail "the full-disk namespace script failed"
  for n in 1 2; do
    RC=$(cat "$WORK/rc$n"); OUT=$(cat "$WORK/out$n"); ERR=$(cat "$WORK/err$n")
    expect_rc 12; expect_err 'No space left on device'; expect_err 'nothing was changed'
  done
  [ "$(cat "$WORK/size1")" = 0 ] || fail "case 1: the full journal grew to $(cat "$WORK/size1") bytes"
  [ "$(cat "$WORK/size2")" = 4019 ] || fail "case 2: the full journal went from 4019 to $(cat "$WORK/size2") bytes"
  RC=$(cat "$WORK/rc3"); OUT=$(cat "$WORK/out3"); ERR=$(cat "$WORK/err3")
  expect_rc 0
  expect_history "81920 MiB "
}

# Root's reset within 1 s (wall clock, fork and exec included), as root runs it: $HELPER reset.
# Sets OUT ERR RC and MS.
root_reset_timed() {
  local t0 t1
  t0=$(date +%s%N)
  OUT=$("$HELPER" reset 2>"$WORK/stderr"); RC=$?
  t1=$(date +%s%N); ERR=$(cat "$WORK/stderr")
  MS=$(( (t1 - t0) / 1000000 ))
  [ "$MS" -lt 1000 ] || fail "root's reset took $MS ms (exit $RC): $OUT $ERR"
}

# 7. Locks. An outsider holds an exclusive flock on everything under the fixture it can open
# (every directory and file: the journal's directory, the journal, the boot state, the policy,
# the simulator's state, their parents), and a group member's helper sits stalled inside its
# write holding the helper's own lock. Root's reset still ends within 1 s: the knob is 0, the
# stored value is gone, the journal says so, and the helper warns that it went on without the lock.
outsider_holds_every_lock() {
  fresh_fixture
  command -v flock >/dev/null || fail "flock (util-linux) is missing"
  run -- apply 80GiB; expect_rc 0
  run -- persist 80GiB --unconfirmed; expect_rc 0
  local f held=0 refused=0
  while IFS= read -r f; do
    # One process per lock, the holder itself (exec), so the EXIT trap's kill ends it.
    setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- \
      bash -c 'exec 9<"$1" && flock -x -n 9 && exec sleep 60' _ "$f" >/dev/null 2>&1 &
    sleep 0.05
    if kill -0 $! 2>/dev/null; then held=$((held + 1)); else refused=$((refused + 1)); fi
  done < <(find "$FIXTURE" -mindepth 0 ! -path "$HELPER")
  [ "$held" -gt 5 ] || fail "the outsider held only $held locks"
  note "the outsider holds $held locks; $refused objects it cannot open (the helper's lock among them)"
  # Neither the helper's lock directory nor the simulator's lock file is open to the outsider.
  setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- flock -x -n "$FIXTURE/journal/.lock" true 2>/dev/null &&
    fail "the outsider could take the helper's lock"
  setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- flock -x -n "$STATE.lock" true 2>/dev/null &&
    fail "the outsider could take the simulator's lock"
  root_reset_timed
  expect_rc 0; expect_knob 0
  [ ! -e "$FIXTURE/journal/boot.state" ] || fail "the stored value survived the reset"
  expect_journal '"uid":0,"command":"reset","event":"applied"'
  expect_last_event persist_removed
  note "root's reset took $MS ms with every lock an outsider can open held"
  # A member's helper stalled inside its write holds the helper's lock: reset goes on without it.
  sim fault stall-write 4000 >/dev/null
  "$SPAWN" --as "$MEMBER" -- "$HELPER" apply 80GiB --effective 64GiB >/dev/null 2>&1 &
  local stalled=$!
  wait_for_event intent
  sim fault stall-write off >/dev/null
  root_reset_timed
  expect_rc 0; expect_err 'went on without it'; expect_out '"warnings":['
  expect_journal '"uid":0,"command":"reset","event":"unchanged"'
  note "with the helper's lock held by a stalled helper: root's reset took $MS ms and warned"
  kill -KILL "$stalled" 2>/dev/null; wait "$stalled" 2>/dev/null
  expect_knob 0
}

# 8. Hard links to root's files. fs.protected_hardlinks=1 stops this on Linux; macOS has no such
# protection, so the sysctl is turned off for the few seconds the outsider needs (and restored
# by the trap, whatever happens), and nobody links root's policy, journal and boot state into a
# directory of its own. Nothing refuses them for it: a member applies and persists, root's
# reset ends within 1 s, and root's boot action applies the stored value (no latched `failed`).
outsider_hardlinks_root_files() {
  fresh_fixture; caller_file
  run -- persist 80GiB --unconfirmed; expect_rc 0
  local was; was=$(cat /proc/sys/fs/protected_hardlinks)
  trap 'echo "$was" > /proc/sys/fs/protected_hardlinks; kill $(jobs -p) 2>/dev/null' EXIT
  echo 0 > /proc/sys/fs/protected_hardlinks || fail "cannot turn fs.protected_hardlinks off"
  local f n=0
  for f in "$POLICY" "$JOURNAL" "$FIXTURE/journal/boot.state"; do
    n=$((n + 1))
    setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- ln "$f" "$WORK/caller/link$n" ||
      fail "nobody could not link $f"
  done
  echo "$was" > /proc/sys/fs/protected_hardlinks
  note "links by nobody: $(stat -c '%n has %h links' "$POLICY" "$JOURNAL" "$FIXTURE/journal/boot.state" | tr '\n' ' ')"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
  run -- persist 80GiB --unconfirmed; expect_rc 0
  sim reboot >/dev/null
  OUT=$(system boot-action 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 0; expect_out '"action":"applied"'; expect_knob 81920
  root_reset_timed
  expect_rc 0; expect_knob 0
  [ ! -e "$FIXTURE/journal/boot.state" ] || fail "the stored value survived the reset"
  expect_last_event persist_removed
  note "root's reset took $MS ms"
}

# 9. A flood of outsider calls: every command, hundreds of times, with the policy good and with
# it broken (membership then unknown). Root's journal stays byte-identical: an outsider's
# refusals go to the system log only. The bound stated in SECURITY.md is zero bytes.
outsider_flood_does_not_grow_the_journal() {
  fresh_fixture
  run -- apply 80GiB; expect_rc 0
  cp "$JOURNAL" "$WORK/journal.before"
  AS=$OUTSIDER
  local i n=0 cmds=("apply 96GiB" "reset" "persist 80GiB --unconfirmed" "persist --off" "boot"
                     "confirm --run r1 --step 1" "end --run r1 --outcome completed" "apply 80GiB --run r1 --step 2")
  local runs=${HOSTILE_FLOOD_RUNS:-$(loop_runs 640)}
  for ((i = 0; i < runs; i++)); do
    [ "$i" -eq $((runs / 2)) ] && printf 'min = 64GiB\nmax = 1PiB\n' > "$POLICY"  # broken from here on
    # shellcheck disable=SC2086
    "$SPAWN" --as "$AS" -- "$HELPER" ${cmds[i % ${#cmds[@]}]} >/dev/null 2>&1
    [ $? -ne 0 ] || fail "run $i (${cmds[i % ${#cmds[@]}]}): an outsider's call succeeded"
    n=$((n + 1))
  done
  cmp -s "$JOURNAL" "$WORK/journal.before" || fail "root's journal grew: $(tail -n 3 "$JOURNAL")"
  [ ! -e "$FIXTURE/journal/boot.state" ] || fail "an outsider stored a value"
  expect_knob 81920
  note "$n outsider calls: the journal is byte-identical ($(journal_size) bytes)"
}

# 10. A full disk, then root's reset: the journal's directory a full 64 KiB tmpfs (private mount
# namespace) holding the journal and a stored value. Reset ends within 1 s with exit 0: the
# knob is 0, the stored value is gone, every record it could not write is named in its warnings,
# and the journal is whole (no torn line).
full_disk_then_reset() {
  fresh_fixture
  private_mount_ns || { echo "SKIP: $PRIVATE_NS_WHY"; exit 77; }
  run -- apply 80GiB; expect_rc 0
  run -- persist 80GiB --unconfirmed; expect_rc 0
  cp -a "$FIXTURE/journal" "$WORK/journal.saved"
  export FIXTURE WORK HELPER
  "${PRIVATE_NS[@]}" bash -euc '
    mount -t tmpfs -o size=64k,mode=755,uid=0,gid=0 wcap-full "$FIXTURE/journal"
    cp -a "$WORK/journal.saved/." "$FIXTURE/journal/"
    # Padded with one complete record to a page boundary: not one byte of a record fits.
    size=$(stat -c %s "$FIXTURE/journal/journal.jsonl"); pre="{\"v\":1,\"time\":\"2026-01-01T00:00:00Z\",\"boot\":\"pad\",\"uid\":0,\"command\":\"read\",\"event\":\"pad\",\"reason\":\""
    pad=$(( (size / 4096 + 1) * 4096 - size - ${#pre} - 3 ))
    { printf "%s" "$pre"; head -c "$pad" /dev/zero | tr "\0" x; printf "\"}\n"; } >> "$FIXTURE/journal/journal.jsonl"
    [ $(( $(stat -c %s "$FIXTURE/journal/journal.jsonl") % 4096 )) = 0 ] || { echo "padding is off"; exit 1; }
    dd if=/dev/zero of="$FIXTURE/journal/filler" bs=4096 2>/dev/null || true; sync
    set +e
    t0=$(date +%s%N)
    "$HELPER" reset >"$WORK/out" 2>"$WORK/err"; echo $? > "$WORK/rc"
    echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$WORK/ms"
    cp "$FIXTURE/journal/journal.jsonl" "$WORK/journal.after"
    [ -e "$FIXTURE/journal/boot.state" ] && echo present > "$WORK/state" || echo gone > "$WORK/state"
  ' || fail "the full-disk namespace script failed"
  RC=$(cat "$WORK/rc"); OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err"); MS=$(cat "$WORK/ms")
  expect_rc 0; expect_knob 0; expect_one_line
  [ "$MS" -lt 1000 ] || fail "root's reset on a full disk took $MS ms"
  [ "$(cat "$WORK/state")" = gone ] || fail "the stored value survived the reset"
  expect_out '"warnings":['; expect_err 'could not record'; expect_err 'No space left on device'
  "${CHECK[@]}" journal "$WORK/journal.after" >"$WORK/check" 2>&1 || fail "the journal is not whole: $(cat "$WORK/check")"
  note "reset on a full disk: $MS ms, exit 0; $(tr '\n' ' ' <<< "$ERR" | head -c 300)"
}

# 11. Every change to the boot state is journaled before it is made. With the journal unable to
# take one more byte (RLIMIT_FSIZE at its size), persist, persist --off and root's boot action
# change nothing in the boot state; with room, each change's intent record comes first.
boot_state_changes_are_journaled_first() {
  fresh_fixture
  local state=$FIXTURE/journal/boot.state size
  run -- apply 72GiB; expect_rc 0
  size=$(journal_size)
  run --rlimit fsize="$size" -- persist 80GiB --unconfirmed
  expect_rc 12; expect_err 'nothing was stored'
  [ ! -e "$state" ] || fail "persist stored a value it could not journal: $(cat "$state")"
  run -- persist 80GiB --unconfirmed; expect_rc 0
  grep -o '"event":"[a-z_]*"' "$JOURNAL" | tail -n 2 | tr '\n' ' ' | grep -qx '"event":"persist_intent" "event":"persisted" ' ||
    fail "persist's records: $(tail -n 2 "$JOURNAL")"
  cp "$state" "$WORK/state.before"; size=$(journal_size)
  run --rlimit fsize="$size" -- persist --off
  expect_rc 12; cmp -s "$state" "$WORK/state.before" || fail "persist --off removed a value it could not journal"
  sim reboot >/dev/null
  "$SPAWN" --as 0:0: --rlimit fsize="$size" -- "$SYSTEM" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" \
    boot-action >"$WORK/out" 2>"$WORK/err"; RC=$?
  OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
  expect_rc 12; expect_knob 0
  cmp -s "$state" "$WORK/state.before" || fail "the boot action moved the guard without a record: $(cat "$state")"
  run -- persist --off; expect_rc 0
  [ ! -e "$state" ] || fail "persist --off left the value"
  grep -o '"event":"[a-z_]*"' "$JOURNAL" | tail -n 2 | tr '\n' ' ' | grep -qx '"event":"removed_intent" "event":"removed" ' ||
    fail "persist --off's records: $(tail -n 2 "$JOURNAL")"
  run -- persist 80GiB --unconfirmed; expect_rc 0
  OUT=$("$HELPER" reset 2>"$WORK/err"); RC=$?; expect_rc 0
  grep -o '"event":"[a-z_]*"' "$JOURNAL" | tail -n 2 | tr '\n' ' ' | grep -qx '"event":"persist_removed_intent" "event":"persist_removed" ' ||
    fail "reset's records: $(tail -n 2 "$JOURNAL")"
  journal_ok --allow-interrupted
}

# 12. A value stored with --unconfirmed is at most max_step from the OS default (its effective cap
# given with --effective, else the band's floor, as for an apply from the default): persist
# refuses more, and the boot action refuses a stored
# unconfirmed value beyond it (a state root wrote by hand) and applies nothing.
unconfirmed_persist_is_one_step() {
  fresh_fixture
  local state=$FIXTURE/journal/boot.state
  run -- persist 96GiB --unconfirmed          # 64 GiB floor + 16 GiB max_step = 80 GiB
  expect_rc 3; expect_err 'more than max_step'
  [ ! -e "$state" ] || fail "persist --unconfirmed stored a value more than one step up"
  run -- persist 80GiB --unconfirmed; expect_rc 0
  sed -i 's/^value_mib=81920$/value_mib=180224/' "$state"   # 176 GiB: the top of the band
  sim reboot >/dev/null
  OUT=$(system boot-action 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err")
  expect_rc 3; expect_err 'more than max_step'; expect_knob 0; expect_history ""
  run -- persist 80GiB --unconfirmed; expect_rc 0
  sim reboot >/dev/null
  OUT=$(system boot-action 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err")
  expect_rc 0; expect_out '"action":"applied"'; expect_knob 81920
  # That boot becomes healthy: a boot that ended with it applied and unhealthy would be a hang
  # at 80 GiB, binding the stores below (docs/design.md section 6).
  sim advance 11m >/dev/null
  OUT=$(system boot-action 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err")
  expect_rc 0; expect_out '"action":"healthy"'
  # With --effective (the OS default's cap wiredcap read) the step counts from it, and
  # it is stored as the boot action's start: 112 GiB is one step above 96 GiB (from the floor
  # it is three), 80 GiB would lower the cap below the OS default at every boot: not without
  # --lower, and the stored value stays.
  run -- persist 112GiB --unconfirmed --effective 96GiB --effective-source given; expect_rc 0
  grep -qx 'start_mib=98304' "$state" || fail "the start is not stored: $(cat "$state")"
  run -- persist 80GiB --unconfirmed --effective 96GiB; expect_rc 3; expect_err 'add --lower'
  grep -qx 'value_mib=114688' "$state" || fail "a silent lowering was stored: $(cat "$state")"
  run -- persist 80GiB --unconfirmed --lower --effective 96GiB; expect_rc 0
  grep -qx 'value_mib=81920' "$state" || fail "--lower did not store it: $(cat "$state")"
  run -- persist 112GiB --unconfirmed --effective 96GiB; expect_rc 0
  sim reboot >/dev/null
  OUT=$(system boot-action 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err")
  expect_rc 0; expect_out '"action":"applied"'; expect_knob 114688
}

# 13. Every resource limit a caller can lower: a clean answer (the command's own, or exit 1 with
# its JSON line: "nothing was changed"), never a signal, the knob the old or the new value. Below
# about 12 KiB of stack, 3 descriptors or a CPU hard limit of 0 the dynamic loader or the kernel
# ends the process before main() (no program can answer): those are not tried here.
# RLIMIT_AS and RLIMIT_FSIZE have their own scenarios (rlimit_as, rlimit_fsize_journal_first).
each_rlimit_gets_a_clean_answer() {
  # A sanitizer build's runtime needs stack, descriptors and CPU of its own before and after the
  # helper's code (and exits 1 on its own when it cannot have them): under it the answer to a
  # lowered limit is the runtime's, not the helper's. The dev suite runs this scenario.
  [ "$SANITIZED" = 1 ] && { echo "SKIP: a sanitizer runtime's own needs decide the outcome under low limits"; exit 77; }
  fresh_fixture
  local lim cmd results=""
  for lim in stack=16384 stack=24576 stack=32768 stack=65536 stack=98304 stack=131072 stack=262144 \
             cpu=1 cpu=2 nofile=7 nofile=15 nofile=16 nproc=0 nproc=1 \
             as=unlimited fsize=0 fsize=1 core=0; do
    for cmd in "apply 80GiB" "read" "reset"; do
      sim reboot >/dev/null
      # shellcheck disable=SC2086
      run --rlimit "$lim" -- $cmd
      [ "$RC" -lt 128 ] || fail "$lim $cmd: the helper died of signal $((RC - 128))"
      expect_one_line
      case $RC in
        0) ;;
        1) expect_out '"exit":1'; expect_out 'nothing was changed'; expect_knob 0 ;;
        12) [[ $lim == fsize=* ]] || fail "$lim $cmd: exit 12"; expect_knob 0 ;;
        # RLIMIT_NPROC below nobody's process count (other work on the machine runs as nobody
        # too): the kernel refuses the exec itself (EAGAIN), before the helper exists.
        127) [[ $lim == nproc=* ]] || fail "$lim $cmd: exit 127 (not run): $ERR"; expect_knob 0 ;;
        *) fail "$lim $cmd: exit $RC: $OUT" ;;
      esac
      results="$results $lim/${cmd%% *}:$RC"
    done
  done
  note "$results"
  journal_ok --allow-interrupted
}

# 14. Root only where it is needed (strace of the setuid helper run as a member). read gives
# root up (setgid, setuid to the caller, and a setuid(0) that must fail) before it opens
# anything; apply, persist and reset give it up after their last write to root's files, and
# then only write their answer to stdout and stderr.
root_is_given_up() {
  # Under a sanitizer its runtime writes records of its own (16 bytes to an internal descriptor)
  # after the helper's code gave up root, which strace cannot tell from the helper's writes. The
  # dev suite runs this scenario.
  [ "$SANITIZED" = 1 ] && { echo "SKIP: a sanitizer runtime's own writes cannot be told from the helper's"; exit 77; }
  fresh_fixture
  command -v strace >/dev/null || fail "strace is missing"
  traced() {  # traced NAME ARGS...
    local name=$1; shift
    strace -f -qq -e trace=setuid,setgid,openat,write,rename,renameat,unlink,unlinkat,mkdir,mkdirat \
      -o "$WORK/$name.strace" "$SPAWN" --as "$MEMBER" ${TRACED_ENV[@]+"${TRACED_ENV[@]}"} -- "$HELPER" "$@" >/dev/null 2>&1
  }
  # The line number of the helper's setuid(65534), and of its first open / last change of a file.
  line_of() { grep -n "$2" "$WORK/$1.strace" | sed -n "${3:-1}p" | cut -d: -f1; }
  traced read read
  local drop first_open
  drop=$(line_of read 'setuid(65534) *= 0'); first_open=$(line_of read 'openat(.*\(suid-fixture\|wiredcap.conf\|boot.state\)')
  [ -n "$drop" ] || fail "read never gave up root: $(cat "$WORK/read.strace")"
  [ "$drop" -lt "$first_open" ] || fail "read opened a file as root first: $(sed -n "${first_open}p" "$WORK/read.strace")"
  grep -q 'setuid(0) *= -1 EPERM' "$WORK/read.strace" || fail "read did not check that root is gone for good"
  local cmd last_change
  for cmd in "apply 72GiB --effective 64GiB" "persist 72GiB --unconfirmed" "reset"; do
    # shellcheck disable=SC2086
    traced change $cmd
    drop=$(line_of change 'setuid(65534) *= 0')
    [ -n "$drop" ] || fail "$cmd never gave up root"
    last_change=$(grep -n 'openat(.*O_CREAT\|write([3-9]\|write([1-9][0-9]\|rename\|unlink\|mkdir' "$WORK/change.strace" | tail -n 1 | cut -d: -f1)
    [ "$last_change" -lt "$drop" ] || fail "$cmd wrote after giving up root: $(sed -n "${last_change}p" "$WORK/change.strace")"
    tail -n +$((drop + 1)) "$WORK/change.strace" | grep -v 'write([12],\|setuid(0)\|exited\|+++' | grep -q . &&
      fail "$cmd did more than answer after giving up root: $(tail -n +$((drop + 1)) "$WORK/change.strace")"
  done
  note "read drops root before its first open; apply, persist, reset after their last write"
}

# ---------------------------------------------------------------------------------------------
# 6. Identity

spoofed_user_changes_nothing() {
  fresh_fixture
  local spoof=(--env USER=root --env LOGNAME=root --env SUDO_UID=0 --env SUDO_GID=0 --env SUDO_USER=root
               --env HOME=/root --env USERNAME=root --env LOGIN=root)
  AS=$OUTSIDER
  run "${spoof[@]}" -- apply 80GiB
  expect_rc 4; expect_err "uid $NOBODY may not change the cap"; expect_knob 0; expect_not_journaled
  run "${spoof[@]}" -- read
  expect_rc 0; expect_out "\"caller\":{\"uid\":$NOBODY,\"may_change\":false"
  AS=$MEMBER
  run "${spoof[@]}" -- apply 80GiB
  expect_rc 0; expect_knob 81920
  expect_journal "\"uid\":$NOBODY,\"command\":\"apply\",\"event\":\"applied\""
  grep -q '"uid":0' "$JOURNAL" && fail "a spoofed variable made a record claim uid 0"
  true
}

outsider_is_denied() {
  fresh_fixture
  AS=$OUTSIDER
  for cmd in "apply 80GiB" "reset" "confirm --run r1 --step 1" "end --run r1 --outcome completed"; do
    # shellcheck disable=SC2086
    run -- $cmd
    expect_rc 4; expect_err "not a member of group '$GROUP'"; expect_not_journaled
  done
  expect_knob 0
  # Another group the caller is in does not help; the group as primary gid does (membership).
  AS="$NOBODY:$NOBODY:$NOBODY"
  run -- apply 80GiB; expect_rc 4; expect_knob 0
  AS="$NOBODY:$GID:"
  run -- apply 80GiB; expect_rc 0; expect_knob 81920
  # A policy whose group does not exist, or that names none: only root.
  AS=$MEMBER
  write_policy 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' 'group = wcap-no-such-group'
  run -- apply 96GiB; expect_rc 4; expect_err "does not exist"; expect_knob 81920
  write_policy 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB'
  run -- apply 96GiB; expect_rc 4; expect_err "only root may"; expect_knob 81920
}

# `wiredcap fit` as `nobody` (an outsider: no groups) on model files it cannot read: each said
# for what it is (permission denied, a FIFO, a folder it cannot list), exit 2 as wiredcap(1)
# documents ("the model or an option is invalid"), in text and in --json, never a crash or a
# hang (a FIFO is not opened for reading). The same file made readable is sized, so the refusal
# is the file's and nothing else's; fit writes nothing.
fit_unreadable_model_is_said() {
  fresh_fixture
  local m=$WORK/models
  mkdir -p "$m/unlisted" && chmod 755 "$m"
  python3 "$HERE/../golden/make_model.py" gguf "$m/model.gguf" 32 4096 32 8 100
  cp --sparse=always "$m/model.gguf" "$m/unlisted/model.gguf"
  chmod 600 "$m/model.gguf"
  chmod 311 "$m/unlisted"   # can pass through, cannot list
  mkfifo -m 666 "$m/pipe.gguf"
  fit_as() {
    OUT=$(timeout 20 setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- \
          "$WIREDCAP" --helper "$HELPER" fit "$@" 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  }
  fit_as "$m/model.gguf"; expect_rc 2; expect_err "cannot open $m/model.gguf: Permission denied"
  fit_as "$m/model.gguf" --json; expect_rc 2
  printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin)
assert d["schema"] == "wiredcap.error/1" and d["exit"] == 2 and "Permission denied" in d["error"], d' ||
    fail "fit --json did not say permission denied as wiredcap.error/1 with exit 2: $OUT"
  fit_as "$m/pipe.gguf"; expect_rc 2; expect_err "$m/pipe.gguf is a FIFO (a named pipe), not a model file"
  fit_as "$m/unlisted"; expect_rc 2; expect_err "cannot list $m/unlisted: Permission denied"
  chmod 644 "$m/model.gguf"
  fit_as "$m/model.gguf"; expect_rc 0; expect_out "weights"
  expect_history ""
}

not_root_message='is not running as root'
setuid_off_message='setuid bit is not in effect'

no_setuid_bit_is_a_clear_error() {
  fresh_fixture
  # The production build, installed without its setuid bit, run by a user. Its simulated Mac
  # and journal are root's (/var/lib/wiredcap): nothing there may be created or changed.
  mkdir -p "$WORK/bin" && install -o root -g root -m 755 "$PROD_HELPER" "$WORK/bin/wiredcap-helper"
  local before; before=$(stat -c '%i %Y %s' /var/lib/wiredcap /var/lib/wiredcap/* 2>&1)
  local h=$WORK/bin/wiredcap-helper
  for cmd in "apply 80GiB" "reset" "confirm --run r1 --step 1"; do
    # shellcheck disable=SC2086
    OUT=$("$SPAWN" --as "$MEMBER" -- "$h" $cmd 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
    expect_rc 4; expect_err "$not_root_message"; expect_one_line
  done
  [ "$(stat -c '%i %Y %s' /var/lib/wiredcap /var/lib/wiredcap/* 2>&1)" = "$before" ] ||
    fail "an unprivileged run changed /var/lib/wiredcap"
  # The test build with its bit removed: the same clear error, the fixture untouched.
  chmod 755 "$HELPER"
  run -- apply 80GiB
  expect_rc 4; expect_err "$not_root_message"; expect_knob 0
  [ ! -s "$JOURNAL" ] || fail "the journal was written"
}

no_new_privs_is_a_clear_error() {
  fresh_fixture
  run --no-new-privs -- apply 80GiB
  expect_rc 4; expect_err "$setuid_off_message"; expect_one_line; expect_knob 0
  OUT=$(setpriv --no-new-privs --reuid=$NOBODY --regid=$NOBODY --groups="$GID" -- "$HELPER" reset 2>"$WORK/stderr")
  RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 4; expect_err "$setuid_off_message"
  # A nosuid mount says the same, naming the mount (private mount namespace, when this machine
  # allows one).
  if private_mount_ns; then
    export FIXTURE SPAWN HELPER AS WORK
    "${PRIVATE_NS[@]}" bash -c '
      mount --bind "$FIXTURE/bin" "$FIXTURE/bin" && mount -o remount,bind,nosuid "$FIXTURE/bin" || exit 90
      "$SPAWN" --as "$AS" -- "$HELPER" apply 80GiB --effective 64GiB >"$WORK/out" 2>"$WORK/err"; echo $? > "$WORK/rc"'
    if [ $? -ne 90 ]; then
      RC=$(cat "$WORK/rc"); OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
      expect_rc 4; expect_err "$setuid_off_message"
      # ... and names the cause: on a Mac, a helper on an external disk or a disk image.
      expect_err "its volume is mounted nosuid"
    else
      note "cannot remount nosuid here; that variant was not run"
    fi
  else
    note "the nosuid variant was not run: $PRIVATE_NS_WHY"
  fi
  expect_knob 0
  [ ! -s "$JOURNAL" ] || fail "the journal was written"
}

development_options_refused_when_setuid() {
  fresh_fixture; caller_file
  local evil_state=$WORK/caller/sim-state evil_journal=$WORK/caller/journal.jsonl
  "$SIM" --state "$evil_state" init >/dev/null; chown $NOBODY "$evil_state"
  local before; before=$(md5sum "$evil_state" "$CALLER_FILE")
  for opts in "--policy $CALLER_FILE" "--journal $evil_journal" "--sim-state $evil_state" \
              "--policy $CALLER_FILE --journal $evil_journal --sim-state $evil_state" \
              "--sim-state /etc/passwd" "--journal /etc/passwd"; do
    for cmd in "apply ${HOSTILE_VALUE_MIB}MiB" "read" "reset"; do
      # shellcheck disable=SC2086
      run -- $opts $cmd
      expect_rc 4; expect_err 'compiled-in paths'; expect_one_line
    done
  done
  expect_knob 0; [ ! -s "$JOURNAL" ] || fail "the journal was written"
  [ "$(md5sum "$evil_state" "$CALLER_FILE")" = "$before" ] || fail "a caller's file changed"
  [ ! -e "$evil_journal" ] || fail "a journal was created where the caller asked"
}

# ---------------------------------------------------------------------------------------------
# 7. The kernel's integer (the Darwin backend accepts 4 or 8 bytes; so does the simulator)

kernel_width_4_and_8() {
  for w in 4 8; do
    fresh_fixture
    sim width $w >/dev/null || fail "wiredcap-sim width $w failed"
    sim show | grep -qx "value_width=$w" || fail "the simulator did not take width $w"
    run -- apply 80GiB
    expect_rc 0; expect_out '"readback_mib":{"value":81920'; expect_knob 81920
    run -- read
    expect_rc 0; expect_out '"wired_limit_mib":{"value":81920,"source":"kernel"}'
    run -- apply 96GiB; expect_rc 0; expect_knob 98304
    run -- reset
    expect_rc 0; expect_knob 0
    journal_ok
  done
}

# ---------------------------------------------------------------------------------------------
# 8. Persistence: the boot state beside the journal

# A member of the group storing, changing and removing the boot value while being hit by
# signals at random moments (SIGKILL too), with `boot` attempts mixed in: after every run the
# boot state is absent or exactly one of the values stored, armed, root-owned 0644 (never torn,
# never half-written); the journal has only complete records; `boot` never gets through for
# nobody, so the knob is never written.
persist_under_signals() {
  fresh_fixture
  local state=$FIXTURE/journal/boot.state runs=${HOSTILE_PERSIST_RUNS:-$(loop_runs 400)} seed=${HOSTILE_SEED:-$RANDOM}
  local i pid args lines sigs=(INT TERM HUP QUIT USR1 PIPE ALRM KILL)
  note "seed $seed (HOSTILE_SEED=$seed replays it)"
  RANDOM=$seed
  : > "$JOURNAL"
  for ((i = 0; i < runs; i++)); do
    case $((i % 4)) in
      0) args=(persist 80GiB --unconfirmed --lower) ;;  # --lower: no start lines, as before
      1) args=(persist 72GiB --unconfirmed --lower) ;;
      2) args=(persist --off) ;;
      3) args=(boot) ;;
    esac
    setpriv --reuid=$NOBODY --regid=$NOBODY --groups="$GID" -- "$HELPER" "${args[@]}" >/dev/null 2>&1 &
    pid=$!
    sleep "0.00$((RANDOM % 6))"
    kill -s "${sigs[RANDOM % ${#sigs[@]}]}" "$pid" 2>/dev/null
    wait "$pid"
    [ -e "$state" ] || [ -L "$state" ] || continue
    if [ -L "$state" ] || [ ! -f "$state" ] || [ "$(stat -c '%u %a %h' "$state")" != "0 644 1" ]; then
      fail "run $i (${args[*]}): the boot state is not a root-owned 0644 file: $(ls -l "$state")"
    fi
    mapfile -t lines < "$state"
    if [ "${#lines[@]}" -ne 9 ] || [[ ! ${lines[1]} =~ ^value_mib=(81920|73728)$ ]] || [ "${lines[4]}" != guard=armed ]; then
      fail "run $i (${args[*]}): the boot state is not one that was stored: $(cat "$state")"
    fi
  done
  expect_knob 0; expect_history ""
  journal_ok --allow-interrupted
  grep -q '"uid":65534,"command":"persist","event":"persisted"' "$JOURNAL" || fail "no persist ever got through"
  # boot is root's own program's: the helper refuses a member's attempts (exit 2), journals nothing.
  if grep -q '"command":"boot"' "$JOURNAL"; then
    fail "a boot record from a member's attempt: $(grep '"command":"boot"' "$JOURNAL" | head -n 1)"
  fi
  # Whatever the signals left behind, root's boot action reads the state cleanly.
  sim reboot >/dev/null || fail "cannot reboot"
  OUT=$(system boot-action 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr")
  expect_rc 0; expect_one_line
  [[ $OUT == *'"action":"applied"'* || $OUT == *'"action":"none"'* ]] || fail "root's boot action: $OUT"
}

# 12. Many helpers at once: four group members and four root loops apply and reset as fast as
# they can, every call under the same file-size limit (RLIMIT_FSIZE, which the journal reaches
# part-way through). The helper's lock makes each command's size check, append and undo one
# step: the journal never passes the limit, every line is one whole record, each call left
# exactly the records its answer says, and the records of every call that held the lock are
# adjacent (intent, then its outcome). A reset that went on without the lock (after 0.3 s) is
# named by its warning; its records are whole too. An apply that held the lock while such a
# reset went on backs off (exit 4, "the reset stands"): refused before its write, or reverted
# after it. An apply while another loop's step is open is refused (exit 10: each loop is its
# own run, and journal::open_step binds the helper). A member's refusal names no run, so those
# are counted, not matched by run.
# Each loop is one run, each call one step of it (a group member holds at most 4 runs open in a
# boot: helper/include/wiredcap/helper/journal/run_bound.hpp; the four member loops hold exactly that).
concurrent_call() {  # concurrent_call AS LOOP I: one call; appends "RUN/STEP COMMAND EXIT FLAGS" to the log
  local as=$1 loop=$2 i=$3 run="L$2" step=$(($3 + 1)) args flags=() rc
  case $((i % 3)) in
    0) args=(apply 72GiB --run "$run" --step "$step" --effective 64GiB) ;;
    1) args=(apply 80GiB --run "$run" --step "$step" --effective 64GiB) ;;
    2) args=(reset --run "$run" --step "$step") ;;
  esac
  "$SPAWN" --as "$as" --rlimit fsize="$BOUND" -- "$HELPER" "${args[@]}" >"$WORK/out.$loop" 2>"$WORK/err.$loop"
  rc=$?
  grep -q 'went on without it' "$WORK/err.$loop" && flags+=(unlocked)
  grep -q 'the value was applied' "$WORK/err.$loop" && flags+=(applied-unrecorded)
  grep -q 'the reset stands' "$WORK/err.$loop" && flags+=(reset-stands)
  grep -q 'is open in this boot' "$WORK/err.$loop" && flags+=(open-step)
  local e
  for e in intent applied unchanged; do
    grep -q "could not record '$e'" "$WORK/err.$loop" && flags+=("lost-$e")
  done
  local IFS=,
  echo "$run/$step ${args[0]} $rc ${flags[*]:--}" >> "$WORK/calls.$loop"
  case $rc in 0|4|10|12) ;; *) cp "$WORK/err.$loop" "$WORK/unexpected.$run.$step" ;; esac
}

concurrent_helpers_keep_the_journal_whole() {
  fresh_fixture
  local loops=8 calls=${HOSTILE_CONCURRENT_CALLS:-30} loop pids=()
  # About half the calls fit: a record is ~200 bytes, and a call leaves one or two.
  BOUND=$(( loops * calls * 150 ))
  : > "$JOURNAL"
  for ((loop = 0; loop < loops; loop++)); do
    local as=$MEMBER; [ "$loop" -ge 4 ] && as=0:0:
    ( for ((i = 0; i < calls; i++)); do concurrent_call "$as" "$loop" "$i"; done ) &
    pids+=($!)
  done
  for loop in "${pids[@]}"; do wait "$loop"; done
  cat "$WORK"/calls.* > "$WORK/calls"
  "${CHECK[@]}" concurrent "$JOURNAL" "$WORK/calls" "$BOUND" >"$WORK/check" 2>&1 || fail "$(cat "$WORK/check")"
  note "$(cat "$WORK/check")"
  grep -q ' 12 ' "$WORK/calls" || fail "no call reached the file-size limit: the bound was never tested"
  # A third of the calls are resets (they always go); an apply goes when no other loop's step is open.
  [ "$(grep -c ' 0 ' "$WORK/calls")" -gt $((loops * calls / 4)) ] || fail "too few calls got through: $(grep -c ' 0 ' "$WORK/calls")"
}

# shellcheck source=member_scenarios.sh
. "$HERE/member_scenarios.sh"

declare -F "$scenario" >/dev/null || fail "no scenario '$scenario'"
"$scenario"
echo "PASS: $scenario"
