#!/usr/bin/env python3
"""Writes test models with known contents for the golden scenarios of `wiredcap fit`.

  make_model.py gguf PATH LAYERS EMBEDDING HEADS KV_HEADS WEIGHTS_MIB [VERSION]
      a llama GGUF whose one f16 tensor declares WEIGHTS_MIB of data; the data is a hole
      (a sparse file), so a 140 GiB model costs nothing on disk.
  make_model.py safetensors DIR LAYERS HIDDEN HEADS KV_HEADS WEIGHTS_MIB
      config.json and one .safetensors file in DIR (the data a hole too).
  make_model.py ollama STORE NAME TAG WEIGHTS_MIB
      an Ollama store (manifests/registry.ollama.ai/library/NAME/TAG and its blob, a llama
      GGUF of 80 layers with no file extension), as `ollama pull NAME:TAG` leaves it.
  make_model.py family PATH NAME WEIGHTS_MIB
      a GGUF with the attention metadata llama.cpp's converter writes for a published model
      (NAME: deepseek-r1, qwen35-27b, llama4-scout, glm45, gpt-oss-20b), the weights a hole.
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
                       ('attention.head_count_kv', kv_heads), ('context_length', 131072),
                       ('vocab_size', 128256)):
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


# Each family's metadata: (key suffix, value) under its architecture's prefix, u32 values.
FAMILIES = {
    'deepseek-r1': ('deepseek2', [('block_count', 61), ('context_length', 163840), ('embedding_length', 7168),
                                  ('attention.head_count', 128), ('attention.head_count_kv', 1),
                                  ('attention.key_length', 576), ('attention.value_length', 512),
                                  ('attention.key_length_mla', 192), ('attention.value_length_mla', 128),
                                  ('attention.kv_lora_rank', 512), ('rope.dimension_count', 64), ('vocab_size', 129280)]),
    'qwen35-27b': ('qwen35', [('block_count', 65), ('nextn_predict_layers', 1), ('context_length', 262144),
                              ('embedding_length', 5120), ('attention.head_count', 24),
                              ('attention.head_count_kv', 4), ('attention.key_length', 256),
                              ('attention.value_length', 256), ('full_attention_interval', 4),
                              ('ssm.conv_kernel', 4), ('ssm.inner_size', 6144), ('ssm.state_size', 128),
                              ('ssm.group_count', 16), ('vocab_size', 248320)]),
    'llama4-scout': ('llama4', [('block_count', 48), ('context_length', 10485760), ('embedding_length', 5120),
                                ('attention.head_count', 40), ('attention.head_count_kv', 8), ('vocab_size', 202048)]),
    'glm45': ('glm4moe', [('block_count', 93), ('nextn_predict_layers', 1), ('context_length', 131072),
                          ('embedding_length', 5120), ('attention.head_count', 96), ('attention.head_count_kv', 8),
                          ('attention.key_length', 128), ('attention.value_length', 128), ('vocab_size', 151552)]),
    'gpt-oss-20b': ('gpt-oss', [('block_count', 24), ('context_length', 131072), ('embedding_length', 2880),
                                ('attention.head_count', 64), ('attention.head_count_kv', 8),
                                ('attention.key_length', 64), ('attention.value_length', 64),
                                ('attention.sliding_window', 128), ('vocab_size', 201088)]),
}


def family(path, name, weights_mib):
    arch, keys = FAMILIES[name]
    meta = [('general.architecture', 8, gguf_string(arch))]
    meta += [(arch + '.' + k, 4, struct.pack('<I', v)) for k, v in keys]
    out = b'GGUF' + struct.pack('<IQQ', 3, 1, len(meta))
    for key, kind, value in meta:
        out += gguf_string(key) + struct.pack('<I', kind) + value
    rows = int(weights_mib) * 1024 * 1024 // (1024 * 2)
    out += gguf_string('weights') + struct.pack('<IQQIQ', 2, 1024, rows, 1, 0)
    out += b'\0' * (-len(out) % 32)
    with open(path, 'wb') as f:
        f.write(out)
    os.truncate(path, len(out) + rows * 2048)


def ollama(store, name, tag, weights_mib):
    digest = '0' * 63 + '1'
    os.makedirs(os.path.join(store, 'blobs'), exist_ok=True)
    manifests = os.path.join(store, 'manifests', 'registry.ollama.ai', 'library', name)
    os.makedirs(manifests, exist_ok=True)
    gguf(os.path.join(store, 'blobs', 'sha256-' + digest), 80, 8192, 64, 8, int(weights_mib))
    with open(os.path.join(manifests, tag), 'w') as f:
        json.dump({'schemaVersion': 2, 'layers': [
            {'mediaType': 'application/vnd.ollama.image.model', 'digest': 'sha256:' + digest, 'size': 0}]}, f)


def safetensors(directory, layers, hidden, heads, kv_heads, weights_mib):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, 'config.json'), 'w') as f:
        json.dump({'model_type': 'llama', 'num_hidden_layers': layers, 'hidden_size': hidden,
                   'num_attention_heads': heads, 'num_key_value_heads': kv_heads,
                   'max_position_embeddings': 131072, 'vocab_size': 128256, 'quantization': {'group_size': 64, 'bits': 4}}, f)
    n = weights_mib * 1024 * 1024
    header = json.dumps({'w': {'dtype': 'U8', 'shape': [n], 'data_offsets': [0, n]}}).encode()
    path = os.path.join(directory, 'model.safetensors')
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(header)) + header)
    os.truncate(path, 8 + len(header) + n)


if __name__ == '__main__':
    kind, where, *rest = sys.argv[1:]
    if kind == 'family':
        family(where, rest[0], rest[1])
    elif kind == 'ollama':
        ollama(where, *rest)
    else:
        {'gguf': gguf, 'safetensors': safetensors}[kind](where, *map(int, rest))
