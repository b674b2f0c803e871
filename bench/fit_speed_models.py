#!/usr/bin/env python3
"""Header-only copies of two published models' files, for bench/fit_speed.sh (the data is a
hole: sparse files, so 700 GB declared cost a few MB on disk).

  fit_speed_models.py gguf PATH
      a Llama-3.1-70B-shaped GGUF v3: its metadata (a 128256-token vocabulary with scores and
      types, merges) and its 724 tensors (80 layers of 9, and 4 more), Q4_K and f32.
  fit_speed_models.py deepseek-v3 DIR
      DeepSeek-V3's safetensors layout: config.json, model.safetensors.index.json and 163
      shards holding its 91,991 tensors (61 layers and the MTP layer; 256 routed experts per
      MoE layer; F8_E4M3 weights with F32 weight_scale_inv blocks of 128), in the shard order
      the published index gives them.
"""
import json
import os
import struct
import sys

GGUF_U32, GGUF_F32, GGUF_STR, GGUF_ARR = 4, 6, 8, 9


def gstr(s):
    b = s.encode()
    return struct.pack('<Q', len(b)) + b


def gguf(path):
    vocab = 128256
    meta = [gstr('general.architecture') + struct.pack('<I', GGUF_STR) + gstr('llama')]
    for k, v in (('block_count', 80), ('context_length', 131072), ('embedding_length', 8192),
                 ('feed_forward_length', 28672), ('attention.head_count', 64),
                 ('attention.head_count_kv', 8), ('rope.dimension_count', 128), ('vocab_size', vocab)):
        meta.append(gstr('llama.' + k) + struct.pack('<II', GGUF_U32, v))
    meta.append(gstr('tokenizer.ggml.model') + struct.pack('<I', GGUF_STR) + gstr('gpt2'))
    meta.append(gstr('tokenizer.ggml.tokens') + struct.pack('<IIQ', GGUF_ARR, GGUF_STR, vocab) +
                b''.join(gstr('tok%06d' % i) for i in range(vocab)))
    meta.append(gstr('tokenizer.ggml.token_type') + struct.pack('<IIQ', GGUF_ARR, 5, vocab) +
                struct.pack('<%di' % vocab, *([1] * vocab)))
    merges = 280147
    meta.append(gstr('tokenizer.ggml.merges') + struct.pack('<IIQ', GGUF_ARR, GGUF_STR, merges) +
                b''.join(gstr('m%d n%d' % (i, i)) for i in range(merges)))
    q4k = 12  # ggml type Q4_K: 144 bytes per 256 values
    tensors = [('token_embd.weight', (8192, vocab), q4k), ('output_norm.weight', (8192,), 0),
               ('output.weight', (8192, vocab), q4k), ('rope_freqs.weight', (64,), 0)]
    for i in range(80):
        p = 'blk.%d.' % i
        tensors += [(p + 'attn_norm.weight', (8192,), 0), (p + 'ffn_norm.weight', (8192,), 0),
                    (p + 'attn_q.weight', (8192, 8192), q4k), (p + 'attn_k.weight', (8192, 1024), q4k),
                    (p + 'attn_v.weight', (8192, 1024), q4k), (p + 'attn_output.weight', (8192, 8192), q4k),
                    (p + 'ffn_gate.weight', (8192, 28672), q4k), (p + 'ffn_up.weight', (8192, 28672), q4k),
                    (p + 'ffn_down.weight', (28672, 8192), q4k)]
    infos, offset = b'', 0
    for name, dims, t in tensors:
        n = 1
        for d in dims:
            n *= d
        size = n * 4 if t == 0 else n // 256 * 144
        infos += gstr(name) + struct.pack('<I', len(dims)) + struct.pack('<%dQ' % len(dims), *dims)
        infos += struct.pack('<IQ', t, offset)
        offset += (size + 31) // 32 * 32
    out = b'GGUF' + struct.pack('<IQQ', 3, len(tensors), len(meta)) + b''.join(meta) + infos
    out += b'\0' * (-len(out) % 32)
    with open(path, 'wb') as f:
        f.write(out)
    os.truncate(path, len(out) + offset)


# DeepSeek-V3 (config.json): hidden 7168, 61 layers (3 dense), 256 routed experts of 2048, one
# shared expert, dense intermediate 18432, q_lora 1536, kv_lora 512, 128 heads of 128 + 64 rope,
# v 128, vocab 129280, one MTP layer (model.layers.61).
H, VOCAB, HEADS = 7168, 129280, 128


def fp8(name, rows, cols):
    """An F8_E4M3 weight and its F32 scale per 128 x 128 block."""
    return [(name + '.weight', 'F8_E4M3', [rows, cols]),
            (name + '.weight_scale_inv', 'F32', [(rows + 127) // 128, (cols + 127) // 128])]


def layer(i):
    p = 'model.layers.%d.' % i
    t = [(p + 'input_layernorm.weight', 'BF16', [H]), (p + 'post_attention_layernorm.weight', 'BF16', [H]),
         (p + 'self_attn.q_a_layernorm.weight', 'BF16', [1536]),
         (p + 'self_attn.kv_a_layernorm.weight', 'BF16', [512])]
    t += fp8(p + 'self_attn.q_a_proj', 1536, H) + fp8(p + 'self_attn.q_b_proj', HEADS * 192, 1536)
    t += fp8(p + 'self_attn.kv_a_proj_with_mqa', 576, H) + fp8(p + 'self_attn.kv_b_proj', HEADS * 256, 512)
    t += fp8(p + 'self_attn.o_proj', H, HEADS * 128)
    if i < 3:
        return t + fp8(p + 'mlp.gate_proj', 18432, H) + fp8(p + 'mlp.up_proj', 18432, H) + \
            fp8(p + 'mlp.down_proj', H, 18432)
    t += [(p + 'mlp.gate.weight', 'BF16', [256, H]), (p + 'mlp.gate.e_score_correction_bias', 'F32', [256])]
    for e in ['experts.%d' % j for j in range(256)] + ['shared_experts']:
        q = p + 'mlp.' + e + '.'
        t += fp8(q + 'gate_proj', 2048, H) + fp8(q + 'up_proj', 2048, H) + fp8(q + 'down_proj', H, 2048)
    if i == 61:
        t += [(p + 'embed_tokens.weight', 'BF16', [VOCAB, H]), (p + 'enorm.weight', 'BF16', [H]),
              (p + 'hnorm.weight', 'BF16', [H]), (p + 'eh_proj.weight', 'BF16', [H, 2 * H]),
              (p + 'shared_head.norm.weight', 'BF16', [H]), (p + 'shared_head.head.weight', 'BF16', [VOCAB, H])]
    return t


def deepseek_v3(directory):
    os.makedirs(directory, exist_ok=True)
    tensors = [('model.embed_tokens.weight', 'BF16', [VOCAB, H])]
    for i in range(62):
        tensors += layer(i)
    tensors += [('model.norm.weight', 'BF16', [H]), ('lm_head.weight', 'BF16', [VOCAB, H])]
    size = {'F8_E4M3': 1, 'BF16': 2, 'F32': 4}
    shards, per = 163, (len(tensors) + 162) // 163
    weight_map, total = {}, 0
    for s in range(shards):
        name = 'model-%05d-of-%06d.safetensors' % (s + 1, shards)
        header, offset = {}, 0
        for tname, dtype, shape in tensors[s * per:(s + 1) * per]:
            n = size[dtype]
            for d in shape:
                n *= d
            header[tname] = {'dtype': dtype, 'shape': shape, 'data_offsets': [offset, offset + n]}
            weight_map[tname] = name
            offset += n
        header['__metadata__'] = {'format': 'pt'}
        h = json.dumps(header, separators=(',', ':')).encode()
        h += b' ' * (-len(h) % 8)
        path = os.path.join(directory, name)
        with open(path, 'wb') as f:
            f.write(struct.pack('<Q', len(h)) + h)
        os.truncate(path, 8 + len(h) + offset)
        total += offset
    with open(os.path.join(directory, 'model.safetensors.index.json'), 'w') as f:
        json.dump({'metadata': {'total_size': total}, 'weight_map': weight_map}, f, indent=2)
    with open(os.path.join(directory, 'config.json'), 'w') as f:
        json.dump({'architectures': ['DeepseekV3ForCausalLM'], 'model_type': 'deepseek_v3', 'hidden_size': H,
                   'num_hidden_layers': 61, 'num_attention_heads': HEADS, 'num_key_value_heads': HEADS,
                   'kv_lora_rank': 512, 'q_lora_rank': 1536, 'qk_nope_head_dim': 128, 'qk_rope_head_dim': 64,
                   'v_head_dim': 128, 'vocab_size': VOCAB, 'max_position_embeddings': 163840,
                   'num_nextn_predict_layers': 1, 'n_routed_experts': 256, 'moe_intermediate_size': 2048,
                   'intermediate_size': 18432, 'first_k_dense_replace': 3}, f, indent=2)
    return len(tensors)


if __name__ == '__main__':
    kind, where = sys.argv[1:3]
    if kind == 'gguf':
        gguf(where)
    elif kind == 'deepseek-v3':
        print('%d tensors' % deepseek_v3(where))
    else:
        sys.exit('unknown kind ' + kind)
