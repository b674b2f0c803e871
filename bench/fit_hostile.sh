#!/usr/bin/env bash
# Benchmark: `wiredcap fit` on a crafted GGUF (issue 27): a 1 GiB sparse file whose metadata is
# 2048 arrays of 65536 64-bit integers each (every array under the per-array limit; 1 GiB in
# all, which the old parser read and kept, 38 s and 2.1 GB). The parser's total budgets (kept
# bytes, array elements, metadata bytes: fit/include/wiredcap/fit/gguf_header.hpp) refuse it
# after a few MiB. Reports hyperfine's mean and max and the peak RSS (/usr/bin/time -v); the
# refusal is printed so the run shows what was refused.
#
# Measured on the 2-core dev box (shared), release build, 10 runs: refused ("the metadata keeps
# more than a real model's", at byte 7864894) in mean 59.0 ms, max 90.3 ms, peak RSS 12280 KiB.
#
# Usage: bench/fit_hostile.sh [RUNS]   (builds the release preset first; needs hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}

cmake --preset release -DWIREDCAP_HELPER_DEV_OPTIONS=ON >/dev/null
cmake --build --preset release --target wiredcap wiredcap-helper >/dev/null
bin=$PWD/build/release/bin

work=$PWD/build/release/bench-hostile
rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n' > "$work/etc/wiredcap.conf"
python3 - "$work/crafted.gguf" <<'PY'
import struct, sys
path = sys.argv[1]
def s(x):
    b = x.encode(); return struct.pack('<Q', len(b)) + b
entries, n = 2048, 65536
with open(path, 'wb') as f:
    f.write(b'GGUF' + struct.pack('<IQQ', 3, 0, entries))
    for i in range(entries):
        f.write(s('crafted.k%d' % i) + struct.pack('<IIQ', 9, 11, n))
        f.seek(n * 8, 1)  # the array's zeros: a hole
    f.truncate(max(f.tell(), 1 << 30))
PY
fit=("$bin/wiredcap" --helper "$bin/wiredcap-helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl"
     --sim-state "$work/sim-state" fit "$work/crafted.gguf")
"$bin/wiredcap-helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl" --sim-state "$work/sim-state" read >/dev/null
echo "refusal: $("${fit[@]}" 2>&1 >/dev/null || true)"
hyperfine -N -i --warmup 3 --runs "$runs" --export-json "$work/hyperfine.json" -n crafted "${fit[*]}" >"$work/hyperfine.txt"
stat() { python3 -c "import json; r=json.load(open('$work/hyperfine.json'))['results'][0]; print('mean %.1f ms, median %.1f ms, max %.1f ms' % (r['mean']*1000, r['median']*1000, r['max']*1000))"; }
peak_kib() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }
echo "wiredcap fit, crafted GGUF (1 GiB, 2048 x 65536 metadata integers): $(stat), peak RSS $(peak_kib "${fit[@]}") KiB"
