#!/usr/bin/env bash
# Benchmark: `wiredcap status`, `wiredcap recover` and `wiredcap persist` on a journal of many
# records (issue 13: a long-lived machine), against the system's `sysctl -n` as the baseline.
# Reports hyperfine's mean and median per command and the ratio to sysctl, and the peak memory
# (/usr/bin/time -v).
#
# Usage: bench/journal_scale.sh [RECORDS] [RUNS]   (default 1000000 records, 5 runs; builds the
# release preset first; needs hyperfine and python3)
#
# The journal is generated in the helper's own record format (helper/journal/journal.hpp):
# RECORDS records of completed two-step ramps (intent, applied, confirmed for each step, an
# `end`, then a reset), 20 ramps per boot, so every earlier boot is settled and recover has
# nothing to record. Each run of a command starts from the same journal (hyperfine --prepare).
#
# Figures (2026-12-01, 2 shared cores under load ~14, release build; noisy):
#   1,000,000 records (154 MiB): the CLI refuses a journal past 64 MiB: status answers in
#     62 ms (2x sysctl) with the journal "unreadable"; recover and persist exit 1.
#   400,000 records (61 MiB): status 78 s mean (1722x sysctl), recover 57 s; persist 54 s
#     (exit 3: 80GiB is more than max_step above this simulated Mac's OS default). The
#     journal is not yet compacted: these are the figures compaction must bring down.
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-1000000}
runs=${2:-5}

cmake --preset release -DWIREDCAP_HELPER_DEV_OPTIONS=ON >/dev/null
cmake --build --preset release --target wiredcap wiredcap-helper >/dev/null
bin=$PWD/build/release/bin

work=$PWD/build/release/bench-journal
rm -rf "$work" && mkdir -p "$work/etc" "$work/journal" && chmod 755 "$work" "$work/etc" "$work/journal"
printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n' > "$work/etc/wiredcap.conf"

python3 - "$work/journal.gen" "$records" <<'EOF'
import sys
path, n = sys.argv[1], int(sys.argv[2])
lines = []
run_no = 0
def rec(boot, command, event, run=None, step=None, frm=None, to=None, back=None, reason=None):
    s = '{"v":1,"time":"2026-11-29T08:40:00Z","boot":"%s","uid":501,"command":"%s","event":"%s"' % (boot, command, event)
    if run is not None: s += ',"run":"%s"' % run
    if step is not None: s += ',"step":%d' % step
    if frm is not None: s += ',"from_mib":%d' % frm
    if to is not None: s += ',"to_mib":%d' % to
    if back is not None: s += ',"readback_mib":%d' % back
    if reason is not None: s += ',"reason":"%s"' % reason
    return s + '}\n'
with open(path, "w") as f:
    written = 0
    while written < n:
        boot = "BOOT-%08d" % (run_no // 20)
        run = "r%08d" % run_no
        run_no += 1
        out = []
        prev = 0
        for step, value in ((1, 73728), (2, 81920)):
            out.append(rec(boot, "apply", "intent", run, step, prev, value))
            out.append(rec(boot, "apply", "applied", run, step, prev, value, value))
            out.append(rec(boot, "confirm", "confirmed", run, step, back=value))
            prev = value
        out.append(rec(boot, "end", "end", run, back=prev, reason="completed"))
        out.append(rec(boot, "reset", "intent", frm=prev, to=0))
        out.append(rec(boot, "reset", "applied", frm=prev, to=0, back=0))
        out = out[: n - written]
        f.writelines(out)
        written += len(out)
EOF

cli=("$bin/wiredcap" --helper "$bin/wiredcap-helper" --policy "$work/etc/wiredcap.conf"
     --journal "$work/journal/journal.jsonl" --sim-state "$work/sim-state")
restore="cp $work/journal.gen $work/journal/journal.jsonl && rm -f $work/journal/boot.state"
eval "$restore"
"${cli[@]}" status >/dev/null  # creates the simulated Mac's state on first use
size=$(stat -c %s "$work/journal.gen")
echo "journal: $records records, $((size / 1024 / 1024)) MiB"
# What status made of it (a journal it refuses to read is fast and wrong: the figures below
# then measure a refusal; hyperfine's exit codes show recover's and persist's).
"${cli[@]}" status 2>&1 | grep -E '^journal ' | cut -c1-160 || true

hyperfine -i --runs "$runs" --prepare "$restore" --export-json "$work/hyperfine.json" \
  -n status "${cli[*]} status" -n recover "${cli[*]} recover" -n persist "${cli[*]} persist 80GiB" \
  -n sysctl "sysctl -n kernel.ostype" >"$work/hyperfine.txt" || true
python3 - "$work/hyperfine.json" <<'EOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["sysctl"]["mean"]
for name in ("status", "recover", "persist", "sysctl"):
    x = r[name]
    codes = sorted(set(x.get("exit_codes", [0])))
    print("%-8s mean %9.1f ms, median %9.1f ms, %8.0fx sysctl; exit codes %s" %
          (name, x["mean"] * 1000, x["median"] * 1000, x["mean"] / base, codes))
EOF
peak_kib() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }
eval "$restore"
echo "peak RSS: status $(peak_kib "${cli[@]}" status) KiB, recover $(peak_kib "${cli[@]}" recover) KiB"
