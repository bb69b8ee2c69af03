#!/usr/bin/env python3
"""A benchmark-size LoRA adapter for the Qwen3-0.6B-shape models of make_bench_models.py, in
llama.cpp's GGUF adapter layout: rank R (default 16) on every attention and MLP projection of
all 28 layers (what PEFT users target with target_modules="all-linear"), F16 as
convert_lora_to_gguf.py writes by default, random weights from a fixed seed.

usage: tools/make_bench_lora.py [OUT.gguf] [--rank 16] [--alpha 32]
"""
import argparse
import sys

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("make_bench_lora.py needs the gguf package (pip install gguf)")

N_LAYER, HIDDEN, N_HEAD, N_KV, HEAD_DIM, FFN = 28, 1024, 16, 8, 128, 3072
# GGUF weight -> (in, out) of the projection.
PROJECTIONS = {
    "attn_q": (HIDDEN, N_HEAD * HEAD_DIM), "attn_k": (HIDDEN, N_KV * HEAD_DIM),
    "attn_v": (HIDDEN, N_KV * HEAD_DIM), "attn_output": (N_HEAD * HEAD_DIM, HIDDEN),
    "ffn_gate": (HIDDEN, FFN), "ffn_up": (HIDDEN, FFN), "ffn_down": (FFN, HIDDEN),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="/tmp/zen-bench-models/qwen3-0.6b-shape-lora-r16.gguf")
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=32.0)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    w = gguf.GGUFWriter(args.out, "qwen3")
    w.add_string("general.type", "adapter")
    w.add_string("adapter.type", "lora")
    w.add_float32("adapter.lora.alpha", args.alpha)
    n = 0
    for layer in range(N_LAYER):
        for name, (n_in, n_out) in PROJECTIONS.items():
            a = rng.standard_normal((args.rank, n_in), dtype=np.float32) / np.sqrt(n_in)
            b = rng.standard_normal((n_out, args.rank), dtype=np.float32) * 0.01
            w.add_tensor(f"blk.{layer}.{name}.weight.lora_a", a.astype(np.float16))
            w.add_tensor(f"blk.{layer}.{name}.weight.lora_b", b.astype(np.float16))
            n += a.size + b.size
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {args.out}: rank {args.rank}, {N_LAYER * len(PROJECTIONS)} matrices, "
          f"{n / 1e6:.1f} M parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
