#!/usr/bin/env bash
# Every command wiredcap-system's lines suggest is one the tool accepts, complete: sudo, the
# program's absolute path (it is in libexec, on no PATH), a test build's --journal and the
# verb's --root. ttm-trial's "after the trial boot" and ttm-after-boot's "confirm with" name
# ttm-confirm; a refusal at the hang ceiling names ttm-forget-hang. Each is run as printed
# (the test runs as root: sudo dropped) and must do what it says.
# usage: hints_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3  # system: lib.sh's sys
base=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-hints.XXXXXX")
trap 'rm -rf "$base"' EXIT
root=$base/m
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
# The command after "TEXT" in the JSON lines of a wiredcap-system answer.
hint() { python3 -c 'import json,sys
for l in json.loads(sys.stdin.readline())["lines"]:
    if sys.argv[1] in l: print(l.split(sys.argv[1], 1)[1].strip().rstrip(")"))' "$1"; }
# Runs a suggested command as given; sudo dropped, as the tests run as root.
run_hint() {
  local words
  read -ra words <<<"$1"
  [ "${words[0]}" = sudo ] || fail "not a sudo command: $1"
  [ "${words[1]}" = "$(readlink -f "$system")" ] || fail "not wiredcap-system by its absolute path: $1"
  "${words[@]:1}" >/dev/null
}

"$sim" init --root "$root" --profile strix-64 >/dev/null
confirm=$(sys trial 40GiB | hint "After the trial boot:")
[ -n "$confirm" ] || fail "ttm-trial names no confirm command"
"$sim" reboot --root "$root" >/dev/null
confirm2=$(sys after-boot | hint "confirm with:")
[ "$confirm2" = "$confirm" ] || fail "after-boot's confirm command '$confirm2' is not ttm-trial's '$confirm'"
run_hint "$confirm" || fail "the suggested confirm failed: $confirm"
grep -q '"command":"ttm-confirm","event":"made-default"' "$(journal)" || fail "the suggested confirm made nothing default"

# A hang, then a trial at its ceiling: the refusal names the forget command, which works.
"$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
"$sim" hang-above --root "$root" 10485760
sys trial 44GiB >/dev/null
"$sim" reboot --root "$root" >/dev/null; "$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null 2>&1 || true
forget=$(sys trial 44GiB 2>/dev/null | hint "forget it if it was not a hang:" || true)
[ -n "$forget" ] || fail "the refusal at the hang ceiling names no forget command"
run_hint "$forget" || fail "the suggested forget failed: $forget"
grep -q '"command":"ttm-forget-hang","event":"forgotten"' "$(journal)" || fail "the suggested forget forgot nothing"
# recover exits 10 while a trial is not settled, and names how to settle it: on the trial
# boot, ttm-confirm (complete, as above) keeps it; before it, `wiredcap reset` cancels it.
wrecover() { "$wiredcap" --journal "$(journal)" recover --linux-root "$root"; }
root=$base/r; "$sim" init --root "$root" --profile strix-64 >/dev/null
sys trial 40GiB >/dev/null
rc=0; out=$(wrecover) || rc=$?
[ "$rc" = 10 ] || fail "recover with a trial scheduled exited $rc, not 10"
[[ $(tr -s ' \n' ' ' <<<"$out") == *"cancel it: wiredcap reset --linux-root $root "* ]] ||
  fail "recover does not say how to cancel the scheduled trial: $out"
"$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
rc=0; out=$(wrecover) || rc=$?
[ "$rc" = 10 ] || fail "recover on the trial boot exited $rc, not 10"
keep=$(sed -n '/keep it/,/^[^ ]/p' <<<"$out" | sed -n '/^ /p' | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
[ -n "$keep" ] || fail "recover on the trial boot names no confirm command: $out"
run_hint "$keep" || fail "recover's confirm command failed: $keep"
rc=0; out=$(wrecover) || rc=$?
[ "$rc" = 0 ] || fail "recover after the confirm exited $rc: $out"
echo "hints: ok"
