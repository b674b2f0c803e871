#!/usr/bin/env python3
"""fit.gguf_crosscheck: the same generated GGUF files read by `wiredcap fit --json` and by
@huggingface/gguf (npm, pinned by package-lock.json here), a reader written apart from
wiredcap's. For each file, what fit rests on must agree: the architecture, the trained context,
the layer count (fit's layers of every kind), the head counts and head sizes (through the KV
bytes per token they give, by the rule each family's cache follows in llama.cpp), and the
tensor table's bytes, to the byte.

  crosscheck.py WIREDCAP WIREDCAP_HELPER WORK_DIR

Skips (exit 77) only when node or npm is absent; the package is installed from the npm registry
with `npm ci` (exact version and integrity from the lock file) into WORK_DIR once.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# ggml's types as the files here use them: (id, values per block, bytes per block) (ggml.c's
# type_traits).
F32, F16, Q4_0, Q8_0, Q4_K, Q6_K = (0, 1, 4), (1, 1, 2), (2, 32, 18), (8, 32, 34), (12, 256, 144), (14, 256, 210)


def gstr(s):
    b = s.encode()
    return struct.pack('<Q', len(b)) + b


def value(v):
    if isinstance(v, str):
        return struct.pack('<I', 8) + gstr(v)
    return struct.pack('<II', 4, v)


def write_gguf(path, meta, tensors, version=3):
    """meta: [(key, str or u32)]; tensors: [(name, [ne0, ne1, ...], type)]. The data is a hole."""
    align = next((v for k, v in meta if k == 'general.alignment'), 32)
    out = b'GGUF' + struct.pack('<IQQ', version, len(tensors), len(meta))
    for k, v in meta:
        out += gstr(k) + value(v)
    offset = 0
    for name, ne, (type_id, per_block, block_bytes) in tensors:
        n = 1
        for d in ne:
            n *= d
        size = n // per_block * block_bytes
        assert ne[0] % per_block == 0 and size % align == 0, (name, size)
        out += gstr(name) + struct.pack('<I', len(ne)) + b''.join(struct.pack('<Q', d) for d in ne)
        out += struct.pack('<IQ', type_id, offset)
        offset += size
    out += b'\0' * (-len(out) % align)
    with open(path, 'wb') as f:
        f.write(out)
    os.truncate(path, len(out) + offset)


def layers(n, per_layer):
    return [t for i in range(n) for t in per_layer(i)]


def u32s(prefix, pairs):
    return [(prefix + k, v) for k, v in pairs]


# Each family: (file, metadata, tensors, KV bytes per token by llama.cpp's rule for it, f16 K
# and V, flash attention on as llama.cpp's default is).
def families():
    out = []
    # Dense, no key_length (the head size is embedding / heads), default alignment, GGUF v2.
    meta = [('general.architecture', 'llama')] + u32s('llama.', [
        ('block_count', 4), ('context_length', 131072), ('embedding_length', 4096), ('attention.head_count', 32),
        ('attention.head_count_kv', 8)])
    tens = [('token_embd.weight', [4096, 256], Q4_K), ('output.weight', [4096, 256], Q6_K)] + layers(4, lambda i: [
        (f'blk.{i}.attn_q.weight', [4096, 4096], Q4_0), (f'blk.{i}.attn_k.weight', [4096, 1024], Q8_0),
        (f'blk.{i}.attn_norm.weight', [4096], F32), (f'blk.{i}.ffn_up.weight', [4096, 1024], F16)])
    out.append(('llama-v2.gguf', meta, tens, 2, lambda m: kv_std(m, 'llama')))
    # MoE with its own head size and a 64-byte alignment.
    meta = [('general.architecture', 'qwen3moe'), ('general.alignment', 64)] + u32s('qwen3moe.', [
        ('block_count', 6), ('context_length', 40960), ('embedding_length', 2048), ('attention.head_count', 32),
        ('attention.head_count_kv', 4), ('attention.key_length', 128), ('attention.value_length', 128),
        ('expert_count', 128), ('expert_used_count', 8), ('expert_feed_forward_length', 768)])
    tens = [('token_embd.weight', [2048, 512], Q8_0)] + layers(6, lambda i: [
        (f'blk.{i}.attn_q.weight', [2048, 4096], Q4_K), (f'blk.{i}.ffn_gate_exps.weight', [2048, 768, 128], Q4_K),
        (f'blk.{i}.ffn_down_exps.weight', [768, 2048, 128], Q6_K)])
    out.append(('qwen3moe.gguf', meta, tens, 3, lambda m: kv_std(m, 'qwen3moe')))
    # MLA: the cache keeps the latent and the rope key, no V (llama.cpp's MLA path).
    meta = [('general.architecture', 'deepseek2')] + u32s('deepseek2.', [
        ('block_count', 3), ('context_length', 163840), ('embedding_length', 7168), ('attention.head_count', 128),
        ('attention.head_count_kv', 1), ('attention.key_length', 576), ('attention.value_length', 512),
        ('attention.key_length_mla', 192), ('attention.value_length_mla', 128), ('attention.kv_lora_rank', 512),
        ('rope.dimension_count', 64), ('expert_count', 256), ('expert_used_count', 8), ('leading_dense_block_count', 1)])
    tens = layers(3, lambda i: [(f'blk.{i}.attn_kv_a_mqa.weight', [7168, 576], Q8_0),
                                (f'blk.{i}.ffn_up_exps.weight', [7168, 2048, 256], Q4_0)])
    out.append(('deepseek2.gguf', meta, tens, 3,
                lambda m: m['deepseek2.block_count'] * (m['deepseek2.attention.kv_lora_rank'] + m['deepseek2.rope.dimension_count']) * 2))
    # Sliding window on alternate layers, MoE (gpt-oss).
    meta = [('general.architecture', 'gpt-oss')] + u32s('gpt-oss.', [
        ('block_count', 4), ('context_length', 131072), ('embedding_length', 2880), ('attention.head_count', 64),
        ('attention.head_count_kv', 8), ('attention.key_length', 64), ('attention.value_length', 64),
        ('attention.sliding_window', 128), ('expert_count', 32), ('expert_used_count', 4)])
    tens = layers(4, lambda i: [(f'blk.{i}.attn_q.weight', [2880, 4096], F16), (f'blk.{i}.attn_sinks.weight', [64], F32)])
    # Per token only the full layers grow; every other layer slides (llama.cpp's gpt-oss:
    # hparams.set_swa_pattern(2)), its cache bounded by the window.
    out.append(('gpt-oss.gguf', meta, tens, 3, lambda m: kv_std(m, 'gpt-oss') // 2))
    return out


def kv_std(m, arch):
    """llama.cpp's cache for standard attention: K and V rows of KV heads x head size a layer."""
    p = arch + '.'
    head = m[p + 'embedding_length'] // m[p + 'attention.head_count']
    k, v = m.get(p + 'attention.key_length', head), m.get(p + 'attention.value_length', head)
    return m[p + 'block_count'] * m[p + 'attention.head_count_kv'] * (k + v) * 2


def install(work):
    modules = os.path.join(work, 'npm', 'node_modules')
    if os.path.isfile(os.path.join(modules, '@huggingface', 'gguf', 'package.json')):
        return modules
    npm = os.path.join(work, 'npm')
    shutil.rmtree(npm, ignore_errors=True)
    os.makedirs(npm)
    for f in ('package.json', 'package-lock.json'):
        shutil.copy(os.path.join(HERE, f), npm)
    subprocess.run(['npm', 'ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], cwd=npm, check=True)
    return modules


def main():
    wiredcap, helper, work = sys.argv[1:4]
    for tool in ('node', 'npm'):
        if shutil.which(tool) is None:
            print(f'SKIP: {tool} is not installed (tools/install-deps installs nodejs and npm); '
                  '@huggingface/gguf, the reader fit is checked against, runs on it')
            return 77
    os.makedirs(work, exist_ok=True)
    modules = install(work)
    os.makedirs(os.path.join(work, 'etc'), exist_ok=True)
    os.chmod(work, 0o755)
    os.chmod(os.path.join(work, 'etc'), 0o755)
    policy = os.path.join(work, 'etc', 'wiredcap.conf')
    with open(policy, 'w') as f:
        f.write('min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n')
    state = ['--policy', policy, '--journal', os.path.join(work, 'journal.jsonl'), '--sim-state', os.path.join(work, 'sim-state')]
    subprocess.run([helper] + state + ['read'], check=True, stdout=subprocess.DEVNULL)
    failures = 0
    for name, meta, tens, version, kv_rule in families():
        path = os.path.join(work, name)
        write_gguf(path, meta, tens, version)
        js = json.loads(subprocess.run(['node', os.path.join(HERE, 'read_gguf.mjs'), modules, path], check=True,
                                       capture_output=True, text=True).stdout)
        fit = json.loads(subprocess.run([wiredcap, '--helper', helper] + state + ['fit', '--json', path], check=True,
                                        capture_output=True, text=True).stdout)
        m = js['metadata']
        arch = m['general.architecture']
        kv = fit['kv_cache']
        pairs = [
            ('architecture', fit['model']['architecture'], arch),
            ('GGUF version', fit['model']['format'], 'GGUF v%d' % m['version']),
            ('trained context', fit['model']['trained_context'], m[arch + '.context_length']),
            ('layers', kv['full_layers'] + kv['window_layers'] + kv['recurrent_layers'] + kv['uncached_layers'], m[arch + '.block_count']),
            ('KV bytes per token (head counts and sizes)', fit['kv_bytes_per_token']['value'], kv_rule(m)),
            ('tensor bytes', fit['weights']['bytes'], int(js['tensor_bytes'])),
        ]
        for what, ours, theirs in pairs:
            ok = ours == theirs
            failures += not ok
            print(f"{'ok ' if ok else 'BAD'} {name}: {what}: wiredcap {ours}, @huggingface/gguf {theirs}")
    print(f'{failures} disagreement(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
