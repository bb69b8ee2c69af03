#!/usr/bin/env python3
"""Writes the tiny pipeline test model (tests/plugins/tiny_pipeline.cpp, architecture
"tiny_denoiser") with random weights from a fixed seed, and the image its loop must make for
one request, computed here in numpy (float64) from the same seeded noise:

    python3 tools/make_tiny_pipeline.py tests/data/models/tiny_pipeline
"""
import json
import math
import sys
from pathlib import Path

import gguf
import numpy as np

C = 4
REQUEST = {"prompt": "a red fox in the snow", "width": 8, "height": 6, "steps": 3, "seed": 42}
MASK = (1 << 64) - 1


def seeded_noise(seed, n):
    """splitmix64 uniforms, two per pair of normals (Box-Muller), as the plugin draws them."""
    state = seed

    def uniform():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return ((z ^ (z >> 31)) >> 11) * 2.0 ** -53

    out = np.empty(n, dtype=np.float32)
    for i in range(0, n, 2):
        u1, u2 = 1.0 - uniform(), uniform()
        r, a = math.sqrt(-2.0 * math.log(u1)), 2.0 * math.pi * u2
        out[i] = r * math.cos(a)
        if i + 1 < n:
            out[i + 1] = r * math.sin(a)
    return out


def conv(x, w, b, pad):
    """x [Cin, H, W], w [Cout, Cin, K, K] (torch layout), stride 1."""
    k = w.shape[2]
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    h, wd = x.shape[1], x.shape[2]
    out = np.zeros((w.shape[0], h, wd))
    for ky in range(k):
        for kx in range(k):
            out += np.einsum("oi,ihw->ohw", w[:, :, ky, kx], xp[:, ky:ky + h, kx:kx + wd])
    return out + b[:, None, None]


def main(out_dir):
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1234)
    w = {"txt.byte_embd.weight": rng.standard_normal((256, C)) * 0.5,
         "den.conv.weight": rng.standard_normal((C, C, 3, 3)) * 0.2,
         "den.conv.bias": rng.standard_normal(C) * 0.1,
         "dec.conv.weight": rng.standard_normal((3, C, 1, 1)) * 0.5,
         "dec.conv.bias": rng.standard_normal(3) * 0.1}
    w = {k: v.astype(np.float32) for k, v in w.items()}
    writer = gguf.GGUFWriter(str(out_dir / "tiny_denoiser.gguf"), "tiny_denoiser")
    writer.add_uint32("tiny_denoiser.channels", C)
    for name, value in w.items():
        writer.add_tensor(name, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    r = REQUEST
    width, height, steps = r["width"], r["height"], r["steps"]
    cond = w["txt.byte_embd.weight"][list(r["prompt"].encode())].astype(np.float64).mean(axis=0)
    x = seeded_noise(r["seed"], C * height * width).reshape(C, height, width).astype(np.float64)
    for _ in range(steps):
        v = conv(x, w["den.conv.weight"], w["den.conv.bias"], 1) + cond[:, None, None]
        v = 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
        x = x - v / steps
    planes = conv(x, w["dec.conv.weight"], w["dec.conv.bias"], 0)  # [3, H, W]
    rgb = np.floor(np.clip((planes + 1) * 0.5, 0, 1) * 255 + 0.5).astype(int)
    reference = dict(r, rgb=rgb.transpose(1, 2, 0).reshape(-1).tolist())  # rows, top first
    (out_dir / "reference.json").write_text(json.dumps(reference) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/models/tiny_pipeline")
