#!/usr/bin/env bash
# Benchmark: `wiredcap fit` against other readers of the same headers, as ratios from ONE
# hyperfine run on the release build:
#   a Llama-3.1-70B-shaped GGUF (128256-token vocabulary, 280147 merges, 724 tensors): wiredcap
#     against @huggingface/gguf (npm), which reads the metadata and tensor table and nothing
#     else; target: well ahead.
#   DeepSeek-V3's safetensors layout (163 shards, 91,991 tensors, the index and config.json):
#     wiredcap against a plain Python header reader (bench/safetensors_reader.py); target: no
#     slower.
# The files are header-only copies (bench/fit_speed_models.py), the data a hole. wiredcap's
# time includes what `fit` adds (config.json, the KV rule, reading the simulated machine through
# the helper); each reader's byte count is checked against wiredcap's before any time counts.
#
# Usage: bench/fit_speed.sh [RUNS]   (needs hyperfine, python3, node and npm: not installed by
# tools/install-deps, as benches do not run in CI; `apt-get install nodejs npm`)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
for tool in hyperfine python3 node npm; do
  command -v "$tool" >/dev/null || { echo "fit_speed: needs $tool" >&2; exit 1; }
done

cmake --preset release -DWIREDCAP_HELPER_DEV_OPTIONS=ON >/dev/null
cmake --build --preset release --target wiredcap wiredcap-helper >/dev/null
bin=$PWD/build/release/bin
work=$PWD/build/release/bench-speed
npm_dir=$work/npm
gguf_version=0.4.6
rm -rf "$work/models" && mkdir -p "$work/etc" "$work/models" && chmod 755 "$work" "$work/etc"
if [ ! -f "$npm_dir/node_modules/@huggingface/gguf/package.json" ]; then
  npm install --silent --no-save --no-audit --no-fund --prefix "$npm_dir" "@huggingface/gguf@$gguf_version" >/dev/null
fi
printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n' > "$work/etc/wiredcap.conf"
python3 bench/fit_speed_models.py gguf "$work/models/llama-70b.gguf"
python3 bench/fit_speed_models.py deepseek-v3 "$work/models/DeepSeek-V3" >/dev/null
fit=("$bin/wiredcap" --helper "$bin/wiredcap-helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl"
     --sim-state "$work/sim-state" fit)
"$bin/wiredcap-helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl" --sim-state "$work/sim-state" read >/dev/null
gguf=$work/models/llama-70b.gguf st=$work/models/DeepSeek-V3
node_cmd=(node bench/gguf_reader.mjs "$npm_dir/node_modules" "$gguf")
py_cmd=(python3 bench/safetensors_reader.py "$st")

# The same bytes, or the times compare nothing.
weights() { "${fit[@]}" "$1" | sed -n 's/^weights .*(\([0-9]*\) B).*/\1/p'; }
[ "$(weights "$gguf")" = "$("${node_cmd[@]}" | sed -n 's/.*tensors, \([0-9]*\) B$/\1/p')" ] ||
  { echo "fit_speed: wiredcap and @huggingface/gguf disagree on the GGUF's bytes" >&2; exit 1; }
[ "$(weights "$st")" = "$("${py_cmd[@]}" | sed -n 's/.*tensors, \([0-9]*\) B$/\1/p')" ] ||
  { echo "fit_speed: wiredcap and the Python reader disagree on DeepSeek-V3's bytes" >&2; exit 1; }

hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/hyperfine.json" \
  -n wiredcap-gguf "${fit[*]} $gguf" -n huggingface-gguf "${node_cmd[*]}" \
  -n wiredcap-safetensors "${fit[*]} $st" -n python-safetensors "${py_cmd[*]}" >"$work/hyperfine.txt"
python3 - "$work/hyperfine.json" "$gguf_version" <<'PY'
import json, sys
r = {x['command']: x for x in json.load(open(sys.argv[1]))['results']}
def line(name):
    x = r[name]
    return '%-22s mean %7.1f ms  median %7.1f ms  user %7.1f ms' % (
        name, x['mean'] * 1e3, x['median'] * 1e3, x['user'] * 1e3)
for n in ('wiredcap-gguf', 'huggingface-gguf', 'wiredcap-safetensors', 'python-safetensors'):
    print(line(n))
ratio = lambda a, b, k: r[a][k] / r[b][k]
print('GGUF, Llama-3.1-70B shape: wiredcap is %.1fx faster than @huggingface/gguf %s (mean; %.1fx by user time)'
      % (ratio('huggingface-gguf', 'wiredcap-gguf', 'mean'), sys.argv[2], ratio('huggingface-gguf', 'wiredcap-gguf', 'user')))
print('safetensors, DeepSeek-V3 (163 shards): wiredcap is %.2fx the speed of a plain Python reader (mean; %.2fx by user time)'
      % (ratio('python-safetensors', 'wiredcap-safetensors', 'mean'), ratio('python-safetensors', 'wiredcap-safetensors', 'user')))
PY
