#!/usr/bin/env python3
"""The Python side of bench/fit_speed.sh: a plain safetensors header reader, as a person would
write it. For a folder with model.safetensors.index.json, every shard the index names: its
8-byte header length, its JSON header, and the sum of its tensors' data_offsets extents.
Usage: safetensors_reader.py DIR"""
import json
import os
import struct
import sys

folder = sys.argv[1]
with open(os.path.join(folder, 'model.safetensors.index.json')) as f:
    shards = sorted(set(json.load(f)['weight_map'].values()))
tensors = total = 0
for shard in shards:
    with open(os.path.join(folder, shard), 'rb') as f:
        (n,) = struct.unpack('<Q', f.read(8))
        header = json.loads(f.read(n))
    for name, t in header.items():
        if name != '__metadata__':
            tensors += 1
            total += t['data_offsets'][1] - t['data_offsets'][0]
print('%d shards, %d tensors, %d B' % (len(shards), tensors, total))
