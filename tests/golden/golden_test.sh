#!/usr/bin/env bash
# Golden tests of what a person and a script see: wiredcap's output (stdout, stderr, exit code)
# for one scenario on a simulated Mac, normalised (paths, boot ids, times, run ids) and
# compared with tests/golden/expected/SCENARIO.txt.
#   golden_test.sh WIREDCAP SIM WORKDIR SCENARIO
# WIREDCAP_UPDATE_GOLDEN=1 rewrites the expected file instead (review the diff before committing).
set -uo pipefail
WIREDCAP=$1 SIM=$2 WORK=$3 scenario=$4
here=$(cd "$(dirname "$0")" && pwd)
expected=$here/expected/$scenario.txt

rm -rf "$WORK" && mkdir -p "$WORK/etc" && chmod 755 "$WORK" "$WORK/etc"
POLICY=$WORK/etc/wiredcap.conf
sim() { "$SIM" --state "$WORK/sim-state" "$@" >/dev/null || { echo "sim $* failed" >&2; exit 1; }; }
policy() { printf '%s\n' "$@" > "$POLICY"; chmod 644 "$POLICY"; }
band_192() { policy 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB'; }
# Runs wiredcap on this tree and appends what it printed, and its exit code, to the transcript.
wc() {
  echo "\$ wiredcap $*"
  "$WIREDCAP" --policy "$POLICY" --journal "$WORK/journal/journal.jsonl" --sim-state "$WORK/sim-state" "$@" \
    >"$WORK/out" 2>"$WORK/err" </dev/null
  echo "[exit $?]"
  sed 's/^/out| /' "$WORK/out"
  sed 's/^/err| /' "$WORK/err"
}

case $scenario in
  status_m4_16_builtin_too_small) sim init --profile m4-16; wc status; wc status --json ;;
  status_m1max_64)     sim init --profile m1max-64
                       policy 'min = 24GiB' 'max = 52GiB' 'reserve = 12GiB' 'max_step = 8GiB' 'group = daemon'
                       wc status; wc status --json ;;
  status_m2ultra_192)  sim init --profile m2ultra-192; band_192; wc set 96GiB --yes; wc status; wc status --json ;;
  status_m3ultra_512)  sim init --profile m3ultra-512
                       policy 'min = 256GiB' 'max = 480GiB' 'reserve = 32GiB' 'max_step = 32GiB'
                       wc status; wc status --json ;;
  status_key_missing)  sim init --profile ventura-64; wc status; wc status --json; wc set 40GiB --yes ;;
  set_and_reset)       sim init --profile m2ultra-192; band_192
                       wc set 80GiB --yes; wc set 81920MiB --yes; wc set 80GiB --yes --json
                       wc set 232000MB --yes; wc set 200GiB --yes; wc set 0MiB --yes; wc set 96GiB
                       wc reset; wc reset --json; wc set default ;;
  set_readback_differs) sim init --profile m2ultra-192; band_192; sim fault readback-offset 1MiB
                       wc set 80GiB --yes; wc set 80GiB --yes --json ;;
  set_write_refused)   sim init --profile m2ultra-192; band_192; sim fault write-refused on
                       wc set 80GiB --yes; wc reset ;;
  policy_check)        sim init --profile m2ultra-192; band_192
                       wc policy check; wc policy check --json
                       policy 'min = 64GiB' 'max = 170000MiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check
                       policy 'min = 64GiB' 'max = 232000MiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check
                       policy 'min = 64GiB' 'max = 232000MB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check; wc policy check --json
                       chmod 666 "$POLICY"; wc policy check
                       cp "$POLICY" "$WORK/candidate.conf"; chmod 666 "$WORK/candidate.conf"
                       policy 'min = 64GiB' 'max = 190GiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check "$WORK/candidate.conf"; wc policy check ;;
  ramp_refusals)       sim init --profile m2ultra-192; band_192
                       wc ramp --to 232000MB --dry-run; wc ramp --to 200GiB --dry-run; wc ramp --to 32GiB --dry-run
                       wc ramp --to 96GiB --step 32GiB --dry-run; wc ramp --to 96GiB --step 0MiB --dry-run
                       wc ramp --to 96GiB --timeout 60 --dry-run; wc ramp --to 96GiB --timeout 0s --dry-run
                       wc ramp --to 96GiB --timeout 25h --dry-run; wc ramp --to 96GiB --probe-timeout 1e3s --dry-run
                       wc ramp --to 96GiB --unattended; wc ramp --to 96GiB --check true
                       wc ramp --to 96GiB
                       wc set 80GiB --yes; wc ramp --to 64GiB --dry-run ;;
  ramp_unattended)     sim init --profile m2ultra-192; band_192
                       wc ramp --to 96GiB --step 16GiB --dry-run --json
                       wc ramp --to 96GiB --step 16GiB --unattended --check true
                       wc status
                       wc ramp --to 112GiB --step 16GiB --unattended --check false --json
                       wc recover ;;
  *) echo "no scenario '$scenario'" >&2; exit 2 ;;
esac > "$WORK/transcript.raw" 2>&1

# Normalise what differs between runs: the work directory, boot ids, times, run ids.
sed -e "s|$WORK|<WORK>|g" \
    -e 's/[0-9A-F]\{8\}-[0-9A-F]\{4\}-[0-9A-F]\{4\}-[0-9A-F]\{4\}-[0-9A-F]\{12\}/<BOOT>/g' \
    -e 's/[0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}T[0-9:]\{8\}Z/<TIME>/g' \
    -e 's/r-[0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{4\}/<RUN>/g' \
    -e 's/ in [0-9]*\.[0-9]* s/ in <T> s/g' \
    "$WORK/transcript.raw" > "$WORK/transcript"

if [ "${WIREDCAP_UPDATE_GOLDEN:-}" = 1 ]; then
  mkdir -p "$here/expected" && cp "$WORK/transcript" "$expected"
  echo "updated $expected"
  exit 0
fi
[ -f "$expected" ] || { echo "FAIL: no expected output $expected (run with WIREDCAP_UPDATE_GOLDEN=1)"; exit 1; }
if ! diff -u "$expected" "$WORK/transcript"; then
  echo "FAIL: $scenario differs from $expected"
  exit 1
fi
echo "PASS: $scenario"
