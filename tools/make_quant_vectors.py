#!/usr/bin/env python3
"""Generate the block-format test vectors in tests/data/quant/ from gguf-py's numpy reference.

For every type: a few rows of random blocks (random bytes, with the scale fields forced to
finite, sane halves / exponents) and the floats gguf.quants.dequantize returns for them, in
<TYPE>.deq. For the types gguf-py also quantizes: random Gaussian rows and gguf-py's bytes for
them, in <TYPE>.qnt. Output is deterministic (fixed seeds). Run from anywhere:
    python3 tools/make_quant_vectors.py [--ggml-src DIR] [out_dir]

With --ggml-src DIR (the ggml/ directory of a llama.cpp checkout) it also writes
<TYPE>.ggml.qnt for every type ggml quantizes: Gaussian rows and the blocks ggml's reference
quantizers (DIR/src/ggml-quants.c, compiled here with tools/ggml_quant_oracle.cpp; no
importance matrix) produce for them, and <TYPE>.ggml-imatrix.qnt for the types with an
importance variant (same, plus n_per_row importance weights shared by every row, which make
ggml run its imatrix algorithms). Without it, existing ggml files are left alone.

File layout (little-endian):
  .deq: "ZQD1", u32 type, u32 n_rows, u32 n_per_row, u32 row_bytes,
        n_rows * row_bytes block bytes, then n_rows * n_per_row float32.
  .qnt: "ZQQ1", u32 type, u32 n_rows, u32 n_per_row, u32 row_bytes,
        n_rows * n_per_row float32 inputs, then n_rows * row_bytes expected block bytes;
        "ZQW1": the same with n_per_row float32 importance weights before the block bytes.
"""
import os
import struct
import sys

import numpy as np
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T
import gguf.quants as Q

# Byte offsets of the half-precision scale fields in each block.
HALF_FIELDS = {
    T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
    T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208],
    T.IQ4_NL: [0], T.IQ4_XS: [0],
}
DEQ_TYPES = [T.F16, T.BF16, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q2_K, T.Q3_K, T.Q4_K,
             T.Q5_K, T.Q6_K, T.IQ4_NL, T.IQ4_XS, T.MXFP4]
QNT_TYPES = [T.BF16, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.MXFP4]


def sane_half(rng, n, allow_subnormal):
    """Random finite halves: random sign, exponent giving |x| in [2^-10, 2^4) and mantissa;
    the first one is subnormal when allow_subnormal."""
    sign = rng.integers(0, 2, n, dtype=np.uint16) << 15
    exp = rng.integers(5, 19, n, dtype=np.uint16) << 10
    man = rng.integers(0, 1024, n, dtype=np.uint16)
    h = sign | exp | man
    if allow_subnormal:
        h[0] = (h[0] & 0x8000) | (man[0] | 1)  # exponent 0, nonzero mantissa
    return h


def random_rows(rng, qtype, n_rows, blocks_per_row):
    block_size, type_size = GGML_QUANT_SIZES[qtype]
    n_blocks = n_rows * blocks_per_row
    if qtype == T.F16:
        data = sane_half(rng, n_blocks, True).view(np.uint8)
    elif qtype == T.BF16:
        # bf16: random sign and mantissa, exponent in a sane range (|x| in [2^-20, 2^20)).
        sign = rng.integers(0, 2, n_blocks, dtype=np.uint16) << 15
        exp = rng.integers(107, 147, n_blocks, dtype=np.uint16) << 7
        man = rng.integers(0, 128, n_blocks, dtype=np.uint16)
        data = (sign | exp | man).view(np.uint8)
    else:
        blocks = rng.integers(0, 256, (n_blocks, type_size), dtype=np.uint8)
        if qtype == T.MXFP4:
            # E8M0 exponents over the whole finite range, including the subnormal 0 and 1.
            blocks[:, 0] = rng.integers(0, 255, n_blocks, dtype=np.uint8)
            blocks[0, 0], blocks[1, 0] = 0, 1
        for off in HALF_FIELDS.get(qtype, []):
            h = sane_half(rng, n_blocks, off == HALF_FIELDS[qtype][0])
            blocks[:, off:off + 2] = h.view(np.uint8).reshape(n_blocks, 2)
        data = blocks
    return data.reshape(n_rows, -1)


def write_deq(out_dir, qtype, rng):
    block_size, type_size = GGML_QUANT_SIZES[qtype]
    blocks_per_row = 3 if block_size == 256 else (40 if block_size == 1 else 5)
    n_rows = 3
    raw = random_rows(rng, qtype, n_rows, blocks_per_row)
    deq = Q.dequantize(raw, qtype).astype(np.float32).reshape(n_rows, -1)
    n_per_row = blocks_per_row * block_size
    assert deq.shape == (n_rows, n_per_row)
    with open(os.path.join(out_dir, f"{qtype.name}.deq"), "wb") as f:
        f.write(b"ZQD1" + struct.pack("<4I", int(qtype), n_rows, n_per_row, raw.shape[1]))
        f.write(raw.tobytes())
        f.write(deq.astype("<f4").tobytes())


def write_qnt(out_dir, qtype, rng):
    block_size, type_size = GGML_QUANT_SIZES[qtype]
    n_rows, n_per_row = 4, 8 * max(block_size, 32)
    x = rng.standard_normal((n_rows, n_per_row)).astype(np.float32)
    x[1] *= 0.01  # small magnitudes
    x[2, : n_per_row // 2] = -np.abs(x[2, : n_per_row // 2])  # negative-only blocks
    x[3, :32] = 0.0  # an all-zero block
    x[3, 40] = 1000.0  # one huge value in a block
    raw = Q.quantize(x, qtype)
    raw = np.ascontiguousarray(raw).view(np.uint8).reshape(n_rows, -1)
    with open(os.path.join(out_dir, f"{qtype.name}.qnt"), "wb") as f:
        f.write(b"ZQQ1" + struct.pack("<4I", int(qtype), n_rows, n_per_row, raw.shape[1]))
        f.write(x.astype("<f4").tobytes())
        f.write(raw.tobytes())


GGML_TYPES = [T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q8_1, T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K,
              T.Q6_K, T.Q8_K, T.IQ4_NL, T.IQ4_XS, T.MXFP4]


def ggml_inputs(rng, n_rows, n_per_row):
    """Gaussian rows at several scales, a negative-only row, and a row with a zero block and an
    outlier: the cases where the reference searches branch."""
    x = rng.standard_normal((n_rows, n_per_row)).astype(np.float32)
    x[1] *= 0.02
    x[2] *= 30.0
    x[3] = -np.abs(x[3])
    x[4, :32] = 0.0  # a zero block (a zero sub-block of a K-quant super-block)
    x[4, 100] = 50.0
    return x


def write_ggml(out_dir, ggml_src):
    import subprocess
    import tempfile
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "oracle")
        inc = ["-I" + os.path.join(ggml_src, d) for d in ("include", "src")]
        # No contraction: the reference is plain IEEE float arithmetic.
        subprocess.run(["gcc", "-O2", "-ffp-contract=off", "-std=gnu11", *inc, "-c",
                        os.path.join(ggml_src, "src", "ggml-quants.c"), "-o",
                        os.path.join(tmp, "q.o")], check=True)
        subprocess.run(["g++", "-O2", "-std=c++17", os.path.join(here, "ggml_quant_oracle.cpp"),
                        os.path.join(tmp, "q.o"), "-o", exe, "-lm"], check=True)
        for i, qtype in enumerate(GGML_TYPES):
            block_size, type_size = GGML_QUANT_SIZES[qtype]
            if qtype == T.Q8_1:
                type_size = 36  # ggml's layout (half d, half s); gguf-py still lists 2 floats
            n_rows, n_per_row = 5, 256
            x = ggml_inputs(np.random.default_rng(3000 + i), n_rows, n_per_row)
            fin, fout = os.path.join(tmp, "in.f32"), os.path.join(tmp, "out.bin")
            x.astype("<f4").tofile(fin)
            subprocess.run([exe, str(int(qtype)), str(n_rows), str(n_per_row), fin, fout], check=True)
            raw = np.fromfile(fout, dtype=np.uint8)
            row_bytes = n_per_row // block_size * type_size
            assert raw.size == n_rows * row_bytes, qtype.name
            with open(os.path.join(out_dir, f"{qtype.name}.ggml.qnt"), "wb") as f:
                f.write(b"ZQQ1" + struct.pack("<4I", int(qtype), n_rows, n_per_row, row_bytes))
                f.write(x.astype("<f4").tobytes())
                f.write(raw.tobytes())
            if qtype in (T.Q8_1, T.Q8_K, T.MXFP4):
                continue  # no importance variant in ggml
            rng = np.random.default_rng(4000 + i)
            n_rows = 3
            x = ggml_inputs(rng, 5, n_per_row)[[0, 2, 4]]
            imat = np.exp(rng.standard_normal(n_per_row)).astype(np.float32)
            x.astype("<f4").tofile(fin)
            fim = os.path.join(tmp, "imat.f32")
            imat.astype("<f4").tofile(fim)
            subprocess.run([exe, str(int(qtype)), str(n_rows), str(n_per_row), fin, fout, fim],
                           check=True)
            raw = np.fromfile(fout, dtype=np.uint8)
            assert raw.size == n_rows * row_bytes, qtype.name
            with open(os.path.join(out_dir, f"{qtype.name}.ggml-imatrix.qnt"), "wb") as f:
                f.write(b"ZQW1" + struct.pack("<4I", int(qtype), n_rows, n_per_row, row_bytes))
                f.write(x.astype("<f4").tobytes())
                f.write(imat.astype("<f4").tobytes())
                f.write(raw.tobytes())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    ggml_src = None
    if len(args) >= 2 and args[0] == "--ggml-src":
        ggml_src, args = args[1], args[2:]
    out_dir = args[0] if args else os.path.join(here, "..", "tests", "data", "quant")
    os.makedirs(out_dir, exist_ok=True)
    for i, qtype in enumerate(DEQ_TYPES):
        write_deq(out_dir, qtype, np.random.default_rng(1000 + i))
    for i, qtype in enumerate(QNT_TYPES):
        write_qnt(out_dir, qtype, np.random.default_rng(2000 + i))
    if ggml_src:
        write_ggml(out_dir, ggml_src)


if __name__ == "__main__":
    main()
