#!/usr/bin/env bash
# Benchmark: `wiredcap fit` on models whose weights are 100 GiB and more (sparse files: the
# bytes are a hole, so only a program that reads the weights would be slow). Target:
# well under a second, because only the headers are read.
#   a GGUF split into 3 parts, 3 x 40 GiB, with a 128000-entry tokenizer vocabulary;
#   a safetensors directory of 30 shards, 4 GiB each, with config.json.
# Reports hyperfine's mean and median and the peak RSS (/usr/bin/time -v).
#
# Usage: bench/fit_model.sh [RUNS]   (builds the release preset first; needs hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}

cmake --preset release -DWIREDCAP_HELPER_DEV_OPTIONS=ON >/dev/null
cmake --build --preset release --target wiredcap wiredcap-helper >/dev/null
bin=$PWD/build/release/bin

work=$PWD/build/release/bench-fit
rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
printf 'min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n' > "$work/etc/wiredcap.conf"
python3 - "$work" <<'PY'
import json, os, struct, sys
work = sys.argv[1]
def s(x):
    b = x.encode(); return struct.pack('<Q', len(b)) + b
def part(path, no, vocab):
    meta = [s('split.no') + struct.pack('<IH', 2, no), s('split.count') + struct.pack('<IH', 2, 3)]
    if no == 0:
        meta += [s('general.architecture') + struct.pack('<I', 8) + s('llama')]
        for k, v in (('block_count', 80), ('embedding_length', 8192), ('attention.head_count', 64),
                     ('attention.head_count_kv', 8), ('context_length', 131072)):
            meta.append(s('llama.' + k) + struct.pack('<II', 4, v))
        meta.append(s('tokenizer.ggml.tokens') + struct.pack('<IIQ', 9, 8, vocab) +
                    b''.join(s('token%d' % i) for i in range(vocab)))
    rows = 40 * 1024**3 // 16384  # f16 rows of 8192 values: 40 GiB per part
    out = b'GGUF' + struct.pack('<IQQ', 3, 1, len(meta)) + b''.join(meta)
    out += s('w') + struct.pack('<IQQIQ', 2, 8192, rows, 1, 0)
    out += b'\0' * (-len(out) % 32)
    with open(path, 'wb') as f: f.write(out)
    os.truncate(path, len(out) + rows * 16384)
for i in range(3):
    part(os.path.join(work, 'big-%05d-of-00003.gguf' % (i + 1)), i, 128000)
st = os.path.join(work, 'st')
os.makedirs(st)
json.dump({'model_type': 'llama', 'num_hidden_layers': 80, 'num_attention_heads': 64,
           'num_key_value_heads': 8, 'hidden_size': 8192}, open(os.path.join(st, 'config.json'), 'w'))
n = 4 * 1024**3
for i in range(30):
    h = json.dumps({'w%d' % i: {'dtype': 'U8', 'shape': [n], 'data_offsets': [0, n]}}).encode()
    p = os.path.join(st, 'model-%05d-of-00030.safetensors' % (i + 1))
    with open(p, 'wb') as f: f.write(struct.pack('<Q', len(h)) + h)
    os.truncate(p, 8 + len(h) + n)
PY
fit=("$bin/wiredcap" --helper "$bin/wiredcap-helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl"
     --sim-state "$work/sim-state" fit)
"$bin/wiredcap-helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal.jsonl" --sim-state "$work/sim-state" read >/dev/null
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/hyperfine.json" \
  -n gguf-120GiB "${fit[*]} $work/big-00001-of-00003.gguf" -n safetensors-120GiB "${fit[*]} $work/st" >"$work/hyperfine.txt"
stat() { python3 -c "import json; r={x['command']:x for x in json.load(open('$work/hyperfine.json'))['results']}; print('mean %.1f ms, median %.1f ms, max %.1f ms' % (r['$1']['mean']*1000, r['$1']['median']*1000, r['$1']['max']*1000))"; }
peak_kib() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }
echo "wiredcap fit, GGUF 3 parts, 120 GiB declared: $(stat gguf-120GiB), peak RSS $(peak_kib "${fit[@]}" "$work/big-00001-of-00003.gguf") KiB"
echo "wiredcap fit, safetensors 30 shards, 120 GiB declared: $(stat safetensors-120GiB), peak RSS $(peak_kib "${fit[@]}" "$work/st") KiB"
