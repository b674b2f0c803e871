#!/usr/bin/env python3
"""Writes test models with known contents for the golden scenarios of `wiredcap fit`.

  make_model.py gguf PATH LAYERS EMBEDDING HEADS KV_HEADS WEIGHTS_MIB [VERSION]
      a llama GGUF whose one f16 tensor declares WEIGHTS_MIB of data; the data is a hole
      (a sparse file), so a 140 GiB model costs nothing on disk.
  make_model.py safetensors DIR LAYERS HIDDEN HEADS KV_HEADS WEIGHTS_MIB
      config.json and one .safetensors file in DIR (the data a hole too).
"""
import json
import os
import struct
import sys


def gguf_string(s):
    b = s.encode()
    return struct.pack('<Q', len(b)) + b


def gguf(path, layers, embd, heads, kv_heads, weights_mib, version=3):
    meta = [('general.architecture', 8, gguf_string('llama'))]
    for key, value in (('block_count', layers), ('embedding_length', embd), ('attention.head_count', heads),
                       ('attention.head_count_kv', kv_heads), ('context_length', 131072)):
        meta.append(('llama.' + key, 4, struct.pack('<I', value)))
    out = b'GGUF' + struct.pack('<IQQ', version, 1, len(meta))
    for key, kind, value in meta:
        out += gguf_string(key) + struct.pack('<I', kind) + value
    rows = weights_mib * 1024 * 1024 // (1024 * 2)  # f16 rows of 1024 values
    out += gguf_string('weights') + struct.pack('<IQQIQ', 2, 1024, rows, 1, 0)
    out += b'\0' * (-len(out) % 32)
    with open(path, 'wb') as f:
        f.write(out)
    os.truncate(path, len(out) + rows * 2048)


def safetensors(directory, layers, hidden, heads, kv_heads, weights_mib):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, 'config.json'), 'w') as f:
        json.dump({'model_type': 'llama', 'num_hidden_layers': layers, 'hidden_size': hidden,
                   'num_attention_heads': heads, 'num_key_value_heads': kv_heads,
                   'max_position_embeddings': 131072, 'quantization': {'group_size': 64, 'bits': 4}}, f)
    n = weights_mib * 1024 * 1024
    header = json.dumps({'w': {'dtype': 'U8', 'shape': [n], 'data_offsets': [0, n]}}).encode()
    path = os.path.join(directory, 'model.safetensors')
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(header)) + header)
    os.truncate(path, 8 + len(header) + n)


if __name__ == '__main__':
    kind, where, *numbers = sys.argv[1:]
    {'gguf': gguf, 'safetensors': safetensors}[kind](where, *map(int, numbers))
