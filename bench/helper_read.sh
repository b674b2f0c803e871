#!/usr/bin/env bash
# Benchmark: `wiredcap-helper read` against the system's `sysctl -n` reading one value.
# Reports the time ratio (hyperfine, many runs, warm caches) and peak memory (/usr/bin/time -v).
# Target: at most 1.5x the time of `sysctl -n`, comparable memory.
#
# Usage: bench/helper_read.sh [RUNS]   (builds the release preset first; needs hyperfine)
# On Linux the helper reads the simulated Mac (a state file) and `sysctl -n kernel.ostype`
# is the baseline; on a Mac, the real kernel and `sysctl -n iogpu.wired_limit_mb`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2000}

# On Linux the helper reads a simulated Mac named by --sim-state: a development option, which
# release builds leave out unless asked for.
cmake --preset release -DWIREDCAP_HELPER_DEV_OPTIONS=ON >/dev/null
cmake --build --preset release --target wiredcap-helper >/dev/null
helper=$PWD/build/release/bin/wiredcap-helper

work=$PWD/build/release/bench
rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n' > "$work/etc/wiredcap.conf"
if [ "$(uname -s)" = Darwin ]; then
  subject=("$helper" read)
  baseline=(sysctl -n iogpu.wired_limit_mb)
else
  subject=("$helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl" --sim-state "$work/sim-state" read)
  baseline=(sysctl -n kernel.ostype)
fi
"${subject[@]}" >/dev/null  # creates the simulated Mac's state on first use

hyperfine -N --warmup 50 --runs "$runs" --export-json "$work/hyperfine.json" \
  -n helper "${subject[*]}" -n sysctl "${baseline[*]}" >"$work/hyperfine.txt"
mean() { python3 -c "import json,sys; r={x['command']:x for x in json.load(open('$work/hyperfine.json'))['results']}; print('%.3f' % (r['$1']['mean']*1000))"; }
median() { python3 -c "import json,sys; r={x['command']:x for x in json.load(open('$work/hyperfine.json'))['results']}; print('%.3f' % (r['$1']['median']*1000))"; }
peak_kib() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }

h_mean=$(mean helper) s_mean=$(mean sysctl) h_med=$(median helper) s_med=$(median sysctl)
echo "wiredcap-helper read: mean ${h_mean} ms, median ${h_med} ms, peak RSS $(peak_kib "${subject[@]}") KiB"
echo "sysctl -n (baseline): mean ${s_mean} ms, median ${s_med} ms, peak RSS $(peak_kib "${baseline[@]}") KiB"
python3 -c "print('ratio (helper/sysctl): mean %.2fx, median %.2fx' % ($h_mean/$s_mean, $h_med/$s_med))"
