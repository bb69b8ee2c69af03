#!/usr/bin/env python3
"""Writes the safetensors test fixtures with the reference writer (the `safetensors` package,
numpy API): one file of several dtypes and shapes with metadata, and a checkpoint sharded the
way Hugging Face publishes one (two shards and model.safetensors.index.json), plus
expected.json with each tensor's dtype, shape and values for tests/unit/safetensors.

    python3 tools/make_safetensors_fixtures.py tests/data/safetensors
"""
import json
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file


def describe(tensors):
    names = {np.float32: "F32", np.float16: "F16", np.int8: "I8", np.uint8: "U8",
             np.int32: "I32", np.int64: "I64", np.float64: "F64", np.bool_: "BOOL"}
    return {k: {"dtype": names[v.dtype.type], "shape": list(v.shape),
                "values": v.astype(np.float64).reshape(-1).tolist()} for k, v in tensors.items()}


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    single = {
        "model.embed.weight": rng.standard_normal((4, 3)).astype(np.float32),
        "model.norm.weight": rng.standard_normal(5).astype(np.float16),
        "model.q.scales": np.arange(-3, 3, dtype=np.int8).reshape(2, 3),
        "model.mask": np.array([[True, False], [False, True]]),
        "model.positions": np.arange(6, dtype=np.int64),
        "model.empty": np.zeros((0, 4), dtype=np.float32),
    }
    save_file(single, str(out / "tiny.safetensors"), metadata={"format": "pt"})

    sharded = out / "sharded"
    sharded.mkdir(exist_ok=True)
    shards = {
        "model-00001-of-00002.safetensors": {
            "layers.0.weight": rng.standard_normal((2, 2)).astype(np.float32),
            "layers.0.bias": rng.standard_normal(2).astype(np.float32)},
        "model-00002-of-00002.safetensors": {
            "layers.1.weight": rng.standard_normal((2, 2)).astype(np.float16),
            "lm_head.weight": rng.standard_normal((3, 2)).astype(np.float32)},
    }
    weight_map, total = {}, 0
    for name, tensors in shards.items():
        save_file(tensors, str(sharded / name), metadata={"format": "pt"})
        for t, v in tensors.items():
            weight_map[t] = name
            total += v.nbytes
    (sharded / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2) + "\n")

    expected = {"tiny.safetensors": describe(single),
                "sharded": describe({k: v for s in shards.values() for k, v in s.items()})}
    (out / "expected.json").write_text(json.dumps(expected) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/safetensors")
