#!/usr/bin/env bash
# Without a band, every command that needs one tells the cause by its exit code, the same for
# set, ramp and persist (docs/scripting.md): 14 a Mac too small for the built-in band and no
# policy file, 16 a policy file that cannot be read, 11 one that is malformed. The helper
# answers 11 for all three; wiredcap judges the file. Asserted on the exit codes, the JSON
# answers (their `exit`, and their schema) and the machine: nothing written, nothing stored.
#   no_band_cause_test.sh WIREDCAP HELPER SIM WORK SCHEMA_DIR VALIDATOR
WIREDCAP=$1 HELPER=$2 SIM=$3 WORK=$4 SCHEMA_DIR=$5 VALIDATOR=$6
. "$(dirname "$0")/lib.sh"

# wc ARGS...: wiredcap --json against this tree; sets RC and OUT (the JSON answer).
wc() {
  OUT=$("$WIREDCAP" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" "$@" --json 2>"$WORK/err" </dev/null)
  RC=$?
}

# The answers, kept for one run of the schema validator at the end (outside each tree).
ANSWERS=$WORK.answers
rm -rf "$ANSWERS" && mkdir -p "$ANSWERS"
answers=0

# expect_cause CODE ARGS...: the command exits CODE and its JSON says CODE; the answer is kept
# for the validator.
expect_cause() {
  local code=$1
  shift
  wc "$@"
  [ "$RC" = "$code" ] || fail "$*: exit $RC, expected $code: $(cat "$WORK/err")"
  [[ $OUT == *"\"exit\":$code,"* ]] || fail "$*: the JSON does not say exit $code: $OUT"
  answers=$((answers + 1))
  printf '%s\n' "$OUT" >"$ANSWERS/$answers.json"
}

# cause PROFILE SETUP CODE SIZE: a fresh Mac of PROFILE, the policy file as SETUP leaves it
# (none, directory, malformed); each command that needs the band exits CODE, and nothing is
# written or stored.
cause() {
  local profile=$1 setup=$2 code=$3 size=$4
  new_tree "$profile"
  mkdir -p "$WORK/journal"
  case $setup in
    none) ;;
    directory) mkdir "$POLICY" ;;
    malformed) write_policy 'min = 64GiB' 'max = lots' ;;
  esac
  expect_cause "$code" set "$size" --yes
  expect_cause "$code" ramp --to "$size" --dry-run
  expect_cause "$code" persist "$size"
  expect_cause "$code" persist "$size" --unconfirmed
  [ -z "$(sim history)" ] || fail "$profile, policy $setup: something was written: $(sim history)"
  [ ! -e "$WORK/journal/boot.state" ] || fail "$profile, policy $setup: a value was stored: $(cat "$WORK/journal/boot.state")"
  note "$profile, policy file $setup: set, ramp and persist exit $code; nothing written or stored"
}

cause m4-16 none 14 12GiB
cause m4-16 directory 16 12GiB
cause m2ultra-192 directory 16 170GiB
cause m2ultra-192 malformed 11 170GiB
python3 "$VALIDATOR" "$SCHEMA_DIR" "$ANSWERS"/*.json >"$ANSWERS/validation" ||
  fail "an answer is not one its schema accepts: $(cat "$ANSWERS/validation")"
note "$answers JSON answers, each accepted by its schema"
