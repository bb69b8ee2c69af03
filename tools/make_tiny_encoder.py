#!/usr/bin/env python3
"""Makes the tiny encoder in tests/data/models/tiny_encoder/ (see docs/TINY-MODELS.md).

transformers' own BertModel with fixed-seed random weights (drawn so that every norm weight,
bias and embedding table matters), written as GGUF with llama.cpp's converter conventions for
BERT (gguf-py's own HF -> GGUF name map, general.architecture "bert", mean pooling), and
transformers' outputs on three token sequences as the reference: each sequence's mean-pooled
last hidden state and its hidden states after the embeddings and after every layer (the
engine's named tensors "embd_norm" and "l_out-<layer>"). Needs torch, transformers and gguf;
CI only reads the committed outputs.

    python3 tools/make_tiny_encoder.py [--out DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
from importlib.metadata import version
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "data" / "models" / "tiny_encoder"
SEED = 11
CONFIG = dict(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=64, max_position_embeddings=64, type_vocab_size=2,
              layer_norm_eps=1e-12, hidden_act="gelu")
LENGTHS = (5, 9, 16)


def build():
    import torch
    import transformers

    config = transformers.BertConfig(**CONFIG)
    config._attn_implementation = "eager"
    torch.manual_seed(SEED)
    model = transformers.BertModel(config, add_pooling_layer=False)
    gen = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32)
            if p.ndim == 1:  # LayerNorm weights around 1, every bias around 0
                p.copy_((1.0 if name.endswith("LayerNorm.weight") else 0.0) + 0.2 * noise)
            elif "embeddings" in name:
                p.copy_(0.5 * noise)
            else:
                p.copy_(noise / math.sqrt(p.shape[-1]))
    return model.eval()


def export(path: Path, model) -> None:
    import gguf

    hp = model.config
    w = gguf.GGUFWriter(str(path), "bert")
    w.add_type(gguf.GGUFType.MODEL)
    w.add_name("zen tiny bert")
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_context_length(hp.max_position_embeddings)
    w.add_embedding_length(hp.hidden_size)
    w.add_feed_forward_length(hp.intermediate_size)
    w.add_block_count(hp.num_hidden_layers)
    w.add_head_count(hp.num_attention_heads)
    w.add_layer_norm_eps(hp.layer_norm_eps)
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.MEAN)
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, hp.num_hidden_layers)
    for hf_name, p in model.state_dict().items():
        if hf_name.endswith("position_ids") or hf_name.endswith("token_type_ids"):
            continue  # buffers, not weights
        name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if name is None:
            raise SystemExit(f"no GGUF name for {hf_name}")
        w.add_tensor(name, p.detach().numpy().astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def reference(model) -> list[dict]:
    import torch

    rng = np.random.default_rng(SEED)
    out = []
    for n in LENGTHS:
        ids = rng.integers(0, CONFIG["vocab_size"], size=n).tolist()
        with torch.no_grad():
            r = model(torch.tensor([ids]), output_hidden_states=True)
        states = [h[0].numpy() for h in r.hidden_states]  # [T, D] each
        tensors = {"embd_norm": states[0].tolist()}
        for il in range(1, len(states)):
            tensors[f"l_out-{il - 1}"] = states[il].tolist()
        out.append({"ids": ids, "mean_pooled": states[-1].mean(axis=0).tolist(),
                    "hidden_states": tensors})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    model = build()
    gguf_path = args.out / "bert.gguf"
    export(gguf_path, model)
    import torch
    import transformers

    manifest = {
        "format": 1,
        "generator": "tools/make_tiny_encoder.py",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                     "gguf": version("gguf"), "numpy": np.__version__},
        "gguf": gguf_path.name,
        "sha256": hashlib.sha256(gguf_path.read_bytes()).hexdigest(),
        "hf_class": "BertModel", "seed": SEED, "config": CONFIG, "pooling": "mean",
        "layout": "hidden_states[name] is [n_tokens][n_embd] (the engine's ne [n_embd, n_tokens])",
        "sequences": reference(model),
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {gguf_path} ({gguf_path.stat().st_size} bytes) and manifest.json")


if __name__ == "__main__":
    main()
