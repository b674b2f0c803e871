#!/usr/bin/env python3
"""Crafted model files for bench/fit_hostile.sh: each at the size limit wiredcap's readers
allow (or claims far more), built to cost a reader the most. Written sparse where the data is a
hole, so a 1 GiB file takes a few MiB of disk.

  fit_hostile_models.py KIND PATH

KIND (PATH is a file for GGUF kinds, a folder for safetensors ones):
  gguf-arrays        1 GiB of metadata arrays (2048 x 65536 integers)
  gguf-counts        2^63 tensors and 2^63 metadata entries claimed in a 64-byte file
  gguf-string        a key whose string claims 2^62 bytes
  st-string          a 100 MB safetensors header: one __metadata__ string of 100 MB
  st-strings         a 100 MB header: __metadata__ strings of just under 4 MiB each
  st-medium          a 100 MB header: __metadata__ strings of 8,000 bytes (all seen by the parser)
  st-metadata        a 100 MB header: 12 million short __metadata__ strings
  st-tensors         a 100 MB header: 1.8 million tiny tensors
  st-shape           a 100 MB header: one tensor whose shape is 50 million 1s
  st-nesting         a 100 MB header: 50 million nested arrays
  st-index           a 32 MiB model.safetensors.index.json of long names (all seen by the parser)
  config             a 1 MiB config.json of 350,000 empty objects (read as a tree)
"""
import json
import os
import struct
import sys

HEADER = 100_000_000
CONFIG = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
          "num_key_value_heads": 4, "intermediate_size": 128, "vocab_size": 256}


def s(x):
    b = x.encode()
    return struct.pack('<Q', len(b)) + b


def gguf_arrays(path):
    entries, n = 2048, 65536
    with open(path, 'wb') as f:
        f.write(b'GGUF' + struct.pack('<IQQ', 3, 0, entries))
        for i in range(entries):
            f.write(s('crafted.k%d' % i) + struct.pack('<IIQ', 9, 11, n))
            f.seek(n * 8, 1)  # the array's zeros: a hole
        f.truncate(max(f.tell(), 1 << 30))


def gguf_counts(path):
    with open(path, 'wb') as f:
        f.write(b'GGUF' + struct.pack('<IQQ', 3, 1 << 63, 1 << 63) + bytes(40))


def gguf_string(path):
    with open(path, 'wb') as f:
        f.write(b'GGUF' + struct.pack('<IQQ', 3, 0, 1) + struct.pack('<Q', 1 << 62) + b'general.name')
        f.truncate(1 << 20)


def safetensors(folder, body):
    """A one-file model: config.json and model.safetensors whose header is `body` padded with
    spaces to exactly HEADER bytes, then no data."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'config.json'), 'w') as f:
        json.dump(CONFIG, f)
    assert len(body) <= HEADER
    with open(os.path.join(folder, 'model.safetensors'), 'wb') as f:
        f.write(struct.pack('<Q', HEADER) + body + b' ' * (HEADER - len(body)))


def fill(prefix, item, suffix, budget=HEADER):
    """prefix, then item as many times as fit in budget bytes (comma-separated), then suffix.
    Repeated keys are valid JSON (the last one wins), and cost a reader the same."""
    n = (budget - len(prefix) - len(suffix) + 1) // (len(item) + 1)
    return prefix + (item + b',') * (n - 1) + item + suffix


def st_string(folder):
    pre, post = b'{"__metadata__":{"x":"', b'"}}'
    safetensors(folder, pre + b'a' * (HEADER - len(pre) - len(post)) + post)


def st_strings(folder):
    v = b'a' * ((4 << 20) - 16)
    safetensors(folder, fill(b'{"__metadata__":{', b'"k":"%s"' % v, b'}}'))


def st_medium(folder):
    v = b'a' * 8000
    safetensors(folder, fill(b'{"__metadata__":{', b'"k":"%s"' % v, b'}}'))


def st_metadata(folder):
    safetensors(folder, fill(b'{"__metadata__":{', b'"k":"v"', b'}}'))


def st_tensors(folder):
    safetensors(folder, fill(b'{', b'"t":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}', b'}'))


def st_shape(folder):
    pre, post = b'{"a":{"dtype":"U8","data_offsets":[0,1],"shape":[', b']}}'
    n = (HEADER - len(pre) - len(post) + 1) // 2
    safetensors(folder, pre + (b'1,' * n)[:-1] + post)


def st_nesting(folder):
    n = (HEADER - 2) // 2
    safetensors(folder, b'[' * n + b']' * n)


def st_index(folder):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'config.json'), 'w') as f:
        json.dump(CONFIG, f)
    name = b'"%s":"%s.safetensors"' % (b't' * 100, b'x' * 200)
    body = fill(b'{"metadata":{},"weight_map":{', name, b'}}', budget=32 << 20)
    with open(os.path.join(folder, 'model.safetensors.index.json'), 'wb') as f:
        f.write(body)


def config(folder):
    os.makedirs(folder, exist_ok=True)
    body = json.dumps(CONFIG)[:-1].encode() + b','
    body = fill(body + b'"x":[', b'{}', b']}', budget=(1 << 20))
    with open(os.path.join(folder, 'config.json'), 'wb') as f:
        f.write(body)
    with open(os.path.join(folder, 'model.safetensors'), 'wb') as f:
        f.write(struct.pack('<Q', 2) + b'{}')


KINDS = {'gguf-arrays': gguf_arrays, 'gguf-counts': gguf_counts, 'gguf-string': gguf_string,
         'st-string': st_string, 'st-strings': st_strings, 'st-medium': st_medium, 'st-metadata': st_metadata, 'st-tensors': st_tensors,
         'st-shape': st_shape, 'st-nesting': st_nesting, 'st-index': st_index, 'config': config}

if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    KINDS[sys.argv[1]](sys.argv[2])
