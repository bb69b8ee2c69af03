#!/usr/bin/env python3
"""Writes the GGUF test fixtures and the fuzz seed corpus.

  tests/data/gguf/tiny_llama.gguf   written by the `gguf` package (pip install gguf), the
                                    same writer llama.cpp's converters use; the gtest checks
                                    the values below are read back.
  tests/fuzz/corpus/gguf/*          small valid and deliberately broken files, hand-packed
                                    with struct so each is broken in exactly one way.

Run from anywhere: python3 tools/make_gguf_fixtures.py. Outputs are deterministic and tiny.
"""
import struct
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "gguf"
CORPUS = ROOT / "tests" / "fuzz" / "corpus" / "gguf"

# ---- the real-world-like file -------------------------------------------------------------

# Values the gtest (tests/unit/gguf/gguf_pyfile_test.cpp) expects; keep both in sync.
TOKENS = ["<unk>", "<s>", "</s>", "a", "b", "ab", "\u0120the", "\u00e9"]
SCORES = [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -4.0, -5.0]
TOKEN_TYPES = [2, 3, 3, 1, 1, 1, 1, 1]
MERGES = ["a b", "\u0120 t"]
CHAT_TEMPLATE = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
N_EMBD = 32


def write_tiny_llama(path: Path) -> None:
    import gguf

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny-llama-fixture")
    w.add_context_length(128)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(1)
    w.add_feed_forward_length(64)
    w.add_head_count(4)
    w.add_head_count_kv(2)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(1)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(TOKENS)
    w.add_token_scores(SCORES)
    w.add_token_types(TOKEN_TYPES)
    w.add_token_merges(MERGES)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)
    w.add_chat_template(CHAT_TEMPLATE)
    # numpy shapes are outermost-first; GGUF stores ne[0] innermost.
    w.add_tensor("token_embd.weight",
                 (np.arange(len(TOKENS) * N_EMBD, dtype=np.float32) * 0.5).reshape(len(TOKENS), N_EMBD))
    w.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    w.add_tensor("blk.0.attn_q.weight",
                 (np.arange(N_EMBD * N_EMBD) % 7).astype(np.float16).reshape(N_EMBD, N_EMBD))
    # Q8_0 given as raw blocks: 4 rows of one 34-byte block (32 elements) each.
    q8 = (np.arange(4 * 34) % 251).astype(np.uint8).reshape(4, 34)
    w.add_tensor("blk.0.ffn_down.weight", q8, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


# ---- hand-packed corpus files -------------------------------------------------------------

T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STRING, T_ARRAY, T_U64, T_I64, T_F64 = range(13)


def gstr(s) -> bytes:
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype: int, payload: bytes) -> bytes:
    return gstr(key) + struct.pack("<I", vtype) + payload


def arr(etype: int, n: int, elems: bytes) -> bytes:
    return struct.pack("<IQ", etype, n) + elems


def tinfo(name, ne, ttype: int, offset: int) -> bytes:
    return gstr(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne) + \
        struct.pack("<IQ", ttype, offset)


def gguf_file(kvs=(), tensors=(), data=b"", version=3, n_kv=None, n_tensors=None, align=32,
              magic=b"GGUF") -> bytes:
    body = b"".join(kvs) + b"".join(tensors)
    head = magic + struct.pack("<IQQ", version, len(tensors) if n_tensors is None else n_tensors,
                               len(kvs) if n_kv is None else n_kv)
    out = head + body
    if data:
        out += b"\0" * (-len(out) % align) + data
    return out


def corpus() -> dict:
    f32 = lambda *v: b"".join(struct.pack("<f", x) for x in v)
    i32 = lambda *v: b"".join(struct.pack("<i", x) for x in v)
    toks = arr(T_STRING, 3, gstr("a") + gstr("b") + gstr("c"))
    every = [
        kv("t.u8", T_U8, b"\xc8"), kv("t.i8", T_I8, b"\xfb"), kv("t.u16", T_U16, b"\x60\xea"),
        kv("t.i16", T_I16, b"\xd4\xfe"), kv("t.u32", T_U32, struct.pack("<I", 7)),
        kv("t.i32", T_I32, i32(-7)), kv("t.f32", T_F32, f32(1.5)), kv("t.bool", T_BOOL, b"\x01"),
        kv("t.str", T_STRING, gstr("h\u00e9llo")), kv("t.u64", T_U64, struct.pack("<Q", 1 << 40)),
        kv("t.i64", T_I64, struct.pack("<q", -5)), kv("t.f64", T_F64, struct.pack("<d", 0.25)),
        kv("a.f32", T_ARRAY, arr(T_F32, 2, f32(1, 2))),
        kv("a.nested", T_ARRAY, arr(T_ARRAY, 2, arr(T_I32, 1, i32(1)) + arr(T_STRING, 1, gstr("x")))),
        kv("general.architecture", T_STRING, gstr("llama")),
        kv("tokenizer.ggml.tokens", T_ARRAY, toks),
        kv("tokenizer.ggml.scores", T_ARRAY, arr(T_F32, 3, f32(0, -1, -2))),
        kv("tokenizer.ggml.token_type", T_ARRAY, arr(T_I32, 3, i32(1, 1, 1))),
    ]
    two_tensors = [tinfo("a", [8], 0, 0), tinfo("q", [32, 2], 8, 32)]
    data2 = bytes(range(32)) + bytes(68)
    one = lambda t, data=b"\1" * 64, **k: gguf_file(tensors=[t], data=data, **k)
    deep = arr(T_U8, 1, b"\x09")
    for _ in range(20):
        deep = arr(T_ARRAY, 1, deep)
    files = {
        "valid_header_only.gguf": gguf_file(),
        "valid_every_type.gguf": gguf_file(every, two_tensors, data2),
        "valid_v2.gguf": gguf_file(every[:4], two_tensors, data2, version=2),
        "valid_alignment_64.gguf": gguf_file([kv("general.alignment", T_U32, struct.pack("<I", 64))],
                                             [tinfo("a", [4], 0, 0), tinfo("b", [4], 0, 64)],
                                             bytes(80), align=64),
        "bad_magic.gguf": gguf_file(magic=b"GGML"),
        "bad_version_1.gguf": gguf_file(version=1),
        "bad_version_swapped.gguf": gguf_file(version=0x03000000),
        "huge_kv_count.gguf": gguf_file(n_kv=1 << 62),
        "huge_tensor_count.gguf": gguf_file(n_tensors=(1 << 64) - 1),
        "huge_string_length.gguf": gguf_file([kv("k", T_STRING, struct.pack("<Q", 1 << 62))]),
        "huge_array_length.gguf": gguf_file([kv("k", T_ARRAY, struct.pack("<IQ", T_U32, 1 << 40))]),
        "string_array_past_eof.gguf": gguf_file([kv("k", T_ARRAY, arr(T_STRING, 100000, gstr("a")))]),
        "bad_kv_type.gguf": gguf_file([kv("k", 13, b"\0" * 8)]),
        "bad_array_type.gguf": gguf_file([kv("k", T_ARRAY, arr(99, 1, b"\0" * 8))]),
        "bool_2.gguf": gguf_file([kv("k", T_BOOL, b"\x02")]),
        "deep_nesting.gguf": gguf_file([kv("k", T_ARRAY, deep)]),
        "dup_key.gguf": gguf_file([kv("k", T_U8, b"\1"), kv("k", T_U8, b"\2")]),
        "empty_key.gguf": gguf_file([kv("", T_U8, b"\1")]),
        "too_many_dims.gguf": one(tinfo("t", [1, 1, 1, 1, 1], 0, 0)),
        "dims_overflow.gguf": one(tinfo("t", [1 << 32, 1 << 32], 0, 0)),
        "bytes_overflow.gguf": one(tinfo("t", [1 << 31, 1 << 31], 0, 0)),
        "zero_dim.gguf": one(tinfo("t", [4, 0], 0, 0)),
        "offset_past_eof.gguf": one(tinfo("t", [4], 0, 1 << 20)),
        "offset_wraps.gguf": one(tinfo("t", [4], 0, (1 << 64) - 32)),
        "data_past_eof.gguf": one(tinfo("t", [32], 0, 0)),
        "misaligned_offset.gguf": one(tinfo("t", [4], 0, 4)),
        "unknown_type_4.gguf": one(tinfo("t", [32], 4, 0)),
        "unknown_type_1000.gguf": one(tinfo("t", [32], 1000, 0)),
        "q4k_misaligned.gguf": one(tinfo("t", [100, 2], 12, 0)),
        "dup_tensor.gguf": gguf_file(tensors=[tinfo("a", [4], 0, 0), tinfo("a", [4], 0, 32)], data=bytes(48)),
        "overlap.gguf": gguf_file(tensors=[tinfo("a", [16], 0, 0), tinfo("b", [16], 0, 32)], data=bytes(96)),
        "alignment_0.gguf": gguf_file([kv("general.alignment", T_U32, struct.pack("<I", 0))]),
        "alignment_3.gguf": gguf_file([kv("general.alignment", T_U32, struct.pack("<I", 3))]),
        "alignment_huge.gguf": gguf_file([kv("general.alignment", T_U32, struct.pack("<I", 1 << 31))]),
        "alignment_u64.gguf": gguf_file([kv("general.alignment", T_U64, struct.pack("<Q", 32))]),
        "tokens_i32.gguf": gguf_file([kv("tokenizer.ggml.tokens", T_ARRAY, arr(T_I32, 2, i32(1, 2)))]),
        "scores_string.gguf": gguf_file([kv("tokenizer.ggml.scores", T_ARRAY, arr(T_STRING, 1, gstr("x")))]),
        "token_type_len.gguf": gguf_file([kv("tokenizer.ggml.tokens", T_ARRAY, toks),
                                          kv("tokenizer.ggml.token_type", T_ARRAY, arr(T_I32, 2, i32(1, 1)))]),
        "invalid_utf8.gguf": gguf_file([kv("k", T_STRING, gstr(b"\xff\xfe\n\x00")),
                                        kv("tokenizer.ggml.tokens", T_ARRAY, arr(T_STRING, 1, gstr(b"\xc0\xaf")))],
                                       [tinfo(b"t\xe2\x82", [4], 0, 0)], bytes(16)),
    }
    full = files["valid_every_type.gguf"]
    files["truncated_mid_kv.gguf"] = full[:100]
    files["truncated_mid_tensors.gguf"] = full[:len(full) - len(data2) - 20]
    return files


def main() -> int:
    DATA.mkdir(parents=True, exist_ok=True)
    CORPUS.mkdir(parents=True, exist_ok=True)
    write_tiny_llama(DATA / "tiny_llama.gguf")
    files = corpus()
    files["valid_tiny_llama.gguf"] = (DATA / "tiny_llama.gguf").read_bytes()
    for name, blob in sorted(files.items()):
        (CORPUS / name).write_bytes(blob)
    total = sum(len(b) for b in files.values())
    print(f"wrote {DATA / 'tiny_llama.gguf'} and {len(files)} corpus files ({total} bytes) in {CORPUS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
