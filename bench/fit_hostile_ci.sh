#!/usr/bin/env bash
# CI's check of fit's bound (bench/fit_hostile.sh --ci runs this): the 100 MB safetensors header
# (the issue's case: 4.9 s and 396 MB before the header was streamed), three runs, with the
# release wiredcap CI built; each run's wall time (date, in ms) and peak RSS (GNU time's %M, KiB)
# printed, and exit 1 if the mean time or any run's peak RSS is over the bound. The 32 MiB index
# stays in the full bench: at 0.6 to 0.95 s on a loaded 2-core box it is too near the bound for
# a check that must not flake.
#
# Usage: bench/fit_hostile_ci.sh MAX_MS MAX_KIB
set -euo pipefail
cd "$(dirname "$0")/.."
max_ms=$1 max_kib=$2 runs=3
bin=$PWD/build/release/bin helper=$PWD/build/dev/bin/wiredcap-helper
for f in "$bin/wiredcap" "$helper"; do
  [ -x "$f" ] || { echo "fit_hostile_ci: $f is not built (the release and developer builds come first)" >&2; exit 2; }
done

work=$PWD/build/release/bench-hostile-ci
models=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo /tmp )/wiredcap-hostile-ci.XXXXXX")
trap 'rm -rf "$models"' EXIT
rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n' > "$work/etc/wiredcap.conf"
state=(--policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl" --sim-state "$work/sim-state")
fit=("$bin/wiredcap" --helper "$helper" "${state[@]}" fit)
"$helper" "${state[@]}" read >/dev/null

over=0
printf '%-10s %-24s %-30s %s\n' file 'time (ms)' 'peak RSS (KiB)' answer
for kind in st-string; do
  python3 bench/fit_hostile_models.py "$kind" "$models/$kind"
  if out=$("${fit[@]}" "$models/$kind" 2>&1); then out=$(grep '^weights' <<<"$out"); fi
  answer=$(tr -s ' \n' ' ' <<<"$out" | sed "s|wiredcap fit: ||; s|$models/||g" | cut -c1-60)
  ms=() kib=() total=0 peak=0
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    # fit refuses some files (exit 2): the measurement stands either way; %M is time's last line.
    k=$( { /usr/bin/time -f '%M' "${fit[@]}" "$models/$kind" 2>&1 >/dev/null || true; } | tail -n 1)
    t=$(( ($(date +%s%N) - start) / 1000000 ))
    ms+=("$t") kib+=("$k") total=$((total + t))
    [ "$k" -gt "$peak" ] && peak=$k
  done
  mean=$((total / runs))
  printf '%-10s %-24s %-30s %s\n' "$kind" "mean $mean (${ms[*]})" "peak $peak (${kib[*]})" "$answer"
  [ "$mean" -lt "$max_ms" ] && [ "$peak" -lt "$max_kib" ] || over=1
  rm -rf "${models:?}/$kind"
done
echo "bound (mean under $max_ms ms, peak RSS under $max_kib KiB, release build): $([ "$over" = 0 ] && echo met || echo NOT MET)"
exit "$over"
