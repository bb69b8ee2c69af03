#!/usr/bin/env python3
"""The Qwen3-0.6B-shape benchmark model as a Hugging Face directory in BF16, as Qwen publishes
its models: config.json, two safetensors shards with model.safetensors.index.json,
tokenizer.json, tokenizer_config.json and generation_config.json.

It is made from OUTDIR/qwen3-0.6b-shape-f16.gguf (tools/make_bench_models.py): the same random
weights rounded to BF16 under Hugging Face's tensor names, and the same byte-level BPE
vocabulary written as tokenizer.json. The ISQ benchmark loads it with `--isq Q4_K_M` and
compares with loading the Q4_K_M GGUF (docs/BENCHMARKS.md). ~1.2 GB, so never in the repository.

usage: tools/make_bench_hf_dir.py [OUTDIR]   (default /tmp/zen-bench-models)
"""
import json
import sys
from pathlib import Path

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("make_bench_hf_dir.py needs the gguf package (pip install gguf)")

QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
               r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
HF_NAMES = {  # GGUF name -> Hugging Face name (qwen3: no rope reordering)
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight",
    "attn_output.weight": "self_attn.o_proj.weight",
    "attn_q_norm.weight": "self_attn.q_norm.weight",
    "attn_k_norm.weight": "self_attn.k_norm.weight",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}


def hf_name(name: str) -> str:
    if name.startswith("blk."):
        _, layer, rest = name.split(".", 2)
        return f"model.layers.{layer}.{HF_NAMES[rest]}"
    return HF_NAMES[name]


def bf16_bytes(values: np.ndarray) -> bytes:
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
    return rounded.astype("<u2").tobytes()


def write_shard(path: Path, tensors: list) -> int:
    header, offset = {}, 0
    for name, shape, data in tensors:
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for _, _, data in tensors:
            f.write(data)
    return offset


def field(reader, key):
    f = reader.fields[key]
    return f.contents()


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/zen-bench-models")
    src = out / "qwen3-0.6b-shape-f16.gguf"
    if not src.exists():
        sys.exit(f"{src} is missing: run tools/make_bench_models.py {out} first")
    dst = out / "qwen3-0.6b-shape-bf16-hf"
    dst.mkdir(parents=True, exist_ok=True)
    r = gguf.GGUFReader(str(src))

    tensors = [(hf_name(t.name), [int(d) for d in reversed(t.shape)],
                bf16_bytes(np.asarray(t.data, dtype=np.float32))) for t in r.tensors]
    half = len(tensors) // 2
    shards = [tensors[:half], tensors[half:]]
    weight_map, total = {}, 0
    for i, shard in enumerate(shards):
        name = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        total += write_shard(dst / name, shard)
        weight_map.update({t[0]: name for t in shard})
    (dst / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))

    config = {
        "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "torch_dtype": "bfloat16",
        "hidden_size": int(field(r, "qwen3.embedding_length")),
        "num_hidden_layers": int(field(r, "qwen3.block_count")),
        "num_attention_heads": int(field(r, "qwen3.attention.head_count")),
        "num_key_value_heads": int(field(r, "qwen3.attention.head_count_kv")),
        "head_dim": int(field(r, "qwen3.attention.key_length")),
        "intermediate_size": int(field(r, "qwen3.feed_forward_length")),
        "max_position_embeddings": int(field(r, "qwen3.context_length")),
        "rms_norm_eps": float(field(r, "qwen3.attention.layer_norm_rms_epsilon")),
        "rope_theta": float(field(r, "qwen3.rope.freq_base")),
        "vocab_size": int(r.tensors[0].shape[1]) if r.tensors[0].name == "token_embd.weight"
        else None,
        "tie_word_embeddings": "output.weight" not in {t.name for t in r.tensors},
        "hidden_act": "silu", "attention_bias": False,
    }
    emb = next(t for t in r.tensors if t.name == "token_embd.weight")
    config["vocab_size"] = int(emb.shape[1])
    (dst / "config.json").write_text(json.dumps(config, indent=2))

    tokens = field(r, "tokenizer.ggml.tokens")
    types = field(r, "tokenizer.ggml.token_type")
    merges = field(r, "tokenizer.ggml.merges")
    vocab = {t: i for i, t in enumerate(tokens) if types[i] == 1}
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": types[i] != 3, "special": types[i] == 3}
             for i, t in enumerate(tokens) if types[i] in (3, 4)]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_SPLIT}, "behavior": "Isolated",
             "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
             "use_regex": False}]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                    "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": False,
                  "byte_fallback": False, "ignore_merges": False, "vocab": vocab,
                  "merges": [m.split(" ") for m in merges]},
    }
    (dst / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False))
    (dst / "tokenizer_config.json").write_text(json.dumps({
        "add_bos_token": False, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
        "chat_template": str(field(r, "tokenizer.chat_template"))}, indent=2))
    (dst / "generation_config.json").write_text(json.dumps(
        {"do_sample": True, "temperature": 0.6, "top_k": 20, "top_p": 0.95}, indent=2))
    print(f"wrote {dst} ({total / 2**20:.1f} MiB of BF16 tensors in {len(shards)} shards)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
