#!/usr/bin/env python3
"""Benchmark model files: a Qwen3-0.6B-shaped model with random weights, then quantized.

Writes OUTDIR/qwen3-0.6b-shape-f16.gguf (arch qwen3: 28 layers, hidden 1024, 16 query heads,
8 KV heads of 128, FFN 3072, vocabulary 151936, rope theta 1e6, RMS eps 1e-6, tied
embeddings, q/k norms; weights N(0, 0.02) from a fixed seed; a synthetic byte-level BPE
vocabulary of 151936 tokens that llama.cpp loads like Qwen's), then quantizes it with
`zen-engine quantize` to Q8_0, Q4_K_M and Q4_0, and checks that llama-cpp-python loads every
file and computes finite logits with it.

The files are ~2.6 GB together, so they are never written inside the repository
(default /tmp/zen-bench-models). Existing files are kept unless --force. The tensor data is
streamed to disk one tensor at a time; the run takes a few minutes on 2 cores.

usage: tools/make_bench_models.py [OUTDIR] [--zen-engine PATH] [--types Q8_0,Q4_K_M,Q4_0]
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("make_bench_models.py needs the gguf package (pip install gguf)")

REPO = Path(__file__).resolve().parents[1]
NAME = "qwen3-0.6b-shape"

# Qwen3-0.6B's hyperparameters (config.json of Qwen/Qwen3-0.6B).
N_LAYER = 28
N_EMBD = 1024
N_HEAD = 16
N_HEAD_KV = 8
HEAD_DIM = 128
N_FF = 3072
N_VOCAB = 151936
N_CTX_TRAIN = 40960
ROPE_THETA = 1e6
RMS_EPS = 1e-6
WEIGHT_STD = 0.02

# Qwen's added tokens follow its 151643 BPE tokens; the rest of the embedding rows are padding.
N_BPE = 151643
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>",
           "<|object_ref_end|>", "<|box_start|>", "<|box_end|>", "<|quad_start|>",
           "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
           "<|image_pad|>", "<|video_pad|>"]
USER_DEFINED = ["<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>",
                "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>",
                "<tool_response>", "</tool_response>", "<think>", "</think>"]
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")


def byte_alphabet():
    """The byte-level BPE alphabet: byte b as one printable character. Printable Latin-1
    bytes stand for themselves; the others (controls, space, ...) take code points from 256
    up, in byte order, so no token ever contains a raw space or control character."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return [table[b] for b in range(256)]


# Common English words: the first merges are learnt from them, as BPE training would, so
# English text tokenizes into word-sized pieces as with a real vocabulary.
WORDS = """the of and to in is was for that on as with by he at from his it an were are which
this be or has had but not they first one their its new after who also two have her she been
other when there all during into school time may years more most only over city some world
would where later up such used many can state about national out known university united then
made however de film between under season united being three well team war these american
series both while part game following several called number year people because first music
hello model models language benchmark token tokens text data engine fast speed test run code
system work make good each see way could people than look write like him into time has two
more go no most number who over know water than call first down day did get come made may
part""".split()


def learned_merges(alphabet):
    """Byte-pair merges learnt from WORDS (each with and without a leading space), most
    frequent pair first, until every word is one token."""
    enc = {b: alphabet[b] for b in range(256)}
    words = {}
    for rank, w in enumerate(WORDS):
        for text in (w, " " + w):
            symbols = tuple(enc[b] for b in text.encode())
            words[symbols] = words.get(symbols, 0) + 1000 // (rank + 10)
    merges = []
    while True:
        pairs = {}
        for symbols, n in words.items():
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            return merges
        best = max(pairs, key=lambda p: (pairs[p], p))
        merges.append(best)
        merged = {}
        for symbols, n in words.items():
            out, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                    out.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged


def synthetic_bpe(rng):
    """151643 byte-level tokens and the merges that build them: the 256 byte tokens, the
    merges learnt from common English words, then each new token the concatenation of two
    earlier ones (short, low-id tokens preferred, as in a real merge list), so every merge
    is consistent with the vocabulary."""
    tokens = byte_alphabet()
    seen = set(tokens)
    merges = []
    for a, b in learned_merges(tokens):
        if a + b not in seen:
            seen.add(a + b)
            tokens.append(a + b)
            merges.append(f"{a} {b}")
    batch = 1 << 16
    while len(tokens) < N_BPE:
        a_u, b_u = rng.random(batch) ** 3, rng.random(batch) ** 3
        for ua, ub in zip(a_u, b_u):
            n = len(tokens)
            a, b = tokens[int(ua * n)], tokens[int(ub * n)]
            t = a + b
            if len(t) > 16 or t in seen:
                continue
            seen.add(t)
            tokens.append(t)
            merges.append(f"{a} {b}")
            if len(tokens) == N_BPE:
                break
    return tokens, merges


def vocabulary(rng):
    tokens, merges = synthetic_bpe(rng)
    types = [gguf.TokenType.NORMAL] * len(tokens)
    tokens += SPECIAL + USER_DEFINED
    types += [gguf.TokenType.CONTROL] * len(SPECIAL) + [gguf.TokenType.USER_DEFINED] * len(
        USER_DEFINED)
    for i in range(len(tokens), N_VOCAB):
        tokens.append(f"[PAD{i}]")
        types.append(gguf.TokenType.UNUSED)
    assert len(tokens) == N_VOCAB and len(set(tokens)) == N_VOCAB
    return tokens, types, merges


def tensor_shapes():
    """(name, numpy shape) in the order llama.cpp's converter writes them; numpy shape is
    (rows, columns) = (ne[1], ne[0])."""
    yield "token_embd.weight", (N_VOCAB, N_EMBD)
    for i in range(N_LAYER):
        p = f"blk.{i}."
        yield p + "attn_norm.weight", (N_EMBD,)
        yield p + "attn_q.weight", (N_HEAD * HEAD_DIM, N_EMBD)
        yield p + "attn_k.weight", (N_HEAD_KV * HEAD_DIM, N_EMBD)
        yield p + "attn_v.weight", (N_HEAD_KV * HEAD_DIM, N_EMBD)
        yield p + "attn_q_norm.weight", (HEAD_DIM,)
        yield p + "attn_k_norm.weight", (HEAD_DIM,)
        yield p + "attn_output.weight", (N_EMBD, N_HEAD * HEAD_DIM)
        yield p + "ffn_norm.weight", (N_EMBD,)
        yield p + "ffn_gate.weight", (N_FF, N_EMBD)
        yield p + "ffn_up.weight", (N_FF, N_EMBD)
        yield p + "ffn_down.weight", (N_EMBD, N_FF)
    yield "output_norm.weight", (N_EMBD,)


def to_bf16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even (numpy has no bfloat16 dtype)."""
    u = x.view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def weights(name, shape, rng, base):
    """Norm weights near 1 (float32, as converters store 1-D tensors); matrices N(0, std)."""
    if len(shape) == 1:
        return (1.0 + 0.1 * rng.standard_normal(shape, dtype=np.float32)).astype(np.float32)
    x = rng.standard_normal(shape, dtype=np.float32)
    x *= WEIGHT_STD
    return x.astype(np.float16) if base == "f16" else to_bf16_bits(x)


def write_base_model(path, base, seed):
    rng = np.random.default_rng(seed)
    tokens, types, merges = vocabulary(rng)
    tmp = path.with_name(path.name + ".partial")
    w = gguf.GGUFWriter(str(tmp), "qwen3")
    w.add_name("Qwen3-0.6B-shaped random benchmark model")
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if base == "f16" else
                    gguf.LlamaFileType.MOSTLY_BF16)
    w.add_block_count(N_LAYER)
    w.add_context_length(N_CTX_TRAIN)
    w.add_embedding_length(N_EMBD)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_key_length(HEAD_DIM)
    w.add_value_length(HEAD_DIM)
    w.add_rope_freq_base(ROPE_THETA)
    w.add_layer_norm_rms_eps(RMS_EPS)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_pad_token_id(tokens.index("<|endoftext|>"))
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_add_bos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)

    shapes = list(tensor_shapes())
    for name, shape in shapes:
        if len(shape) == 1:
            w.add_tensor_info(name, shape, np.dtype(np.float32), 4 * shape[0])
        elif base == "f16":
            w.add_tensor_info(name, shape, np.dtype(np.float16), 2 * shape[0] * shape[1])
        else:
            w.add_tensor_info(name, shape, np.dtype(np.uint16), 2 * shape[0] * shape[1],
                              raw_dtype=gguf.GGMLQuantizationType.BF16)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    for name, shape in shapes:
        w.write_tensor_data(weights(name, shape, rng, base))
    w.close()
    tmp.rename(path)


def quantize(zen_engine, src, dst, qtype, threads):
    cmd = [str(zen_engine), "quantize", str(src), str(dst), qtype]
    if threads:
        cmd += ["--threads", str(threads)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.strip()}")
    print("  " + proc.stdout.strip().splitlines()[-1])


def check_loads(path):
    """llama.cpp loads the file, tokenizes with its vocabulary and computes finite logits."""
    try:
        import llama_cpp
    except ImportError:
        print(f"  not checked with llama.cpp: llama-cpp-python is not installed ({path.name})")
        return
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=64, n_batch=16, n_threads=2,
                          logits_all=True, verbose=False)
    ids = llm.tokenize(b"Hello world, this is a benchmark model.", add_bos=False)
    assert ids and all(0 <= i < N_VOCAB for i in ids), ids
    llm.eval(ids[:8])
    logits = np.asarray(llm.scores[llm.n_tokens - 1])
    if logits.shape != (N_VOCAB,) or not np.all(np.isfinite(logits)) or not logits.any():
        sys.exit(f"{path}: llama.cpp computed bad logits (shape {logits.shape})")
    print(f"  llama.cpp loads {path.name}: {len(ids)} tokens, logits finite")
    del llm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", nargs="?", default="/tmp/zen-bench-models")
    ap.add_argument("--zen-engine", default=str(REPO / "build" / "bin" / "zen-engine"),
                    help="zen-engine binary used to quantize (default: build/bin/zen-engine)")
    ap.add_argument("--types", default="Q8_0,Q4_K_M,Q4_0",
                    help="comma-separated quantize targets (default: Q8_0,Q4_K_M,Q4_0)")
    ap.add_argument("--base", choices=["f16", "bf16"], default="f16",
                    help="type of the unquantized file's matrices (default f16)")
    ap.add_argument("--seed", type=int, default=20240604)
    ap.add_argument("--threads", type=int, default=0, help="quantize threads (default: all)")
    ap.add_argument("--force", action="store_true", help="rewrite files that already exist")
    ap.add_argument("--no-check", action="store_true", help="skip the llama-cpp-python check")
    args = ap.parse_args()

    outdir = Path(args.outdir).resolve()
    if outdir == REPO or REPO in outdir.parents:
        sys.exit(f"{outdir} is inside the repository; benchmark models are ~2.6 GB, put them "
                 "elsewhere (default /tmp/zen-bench-models)")
    zen_engine = Path(args.zen_engine)
    if not zen_engine.exists():
        sys.exit(f"{zen_engine} not found: build it (tools/build.sh) or pass --zen-engine")
    outdir.mkdir(parents=True, exist_ok=True)

    base = outdir / f"{NAME}-{args.base}.gguf"
    files = [base]
    if base.exists() and not args.force:
        print(f"{base}: exists, kept (--force rewrites it)")
    else:
        t0 = time.time()
        print(f"writing {base} ...")
        write_base_model(base, args.base, args.seed)
        print(f"  {base.stat().st_size / 2**20:.0f} MiB in {time.time() - t0:.0f} s")
    for qtype in filter(None, args.types.split(",")):
        dst = outdir / f"{NAME}-{qtype.lower()}.gguf"
        files.append(dst)
        if dst.exists() and not args.force and dst.stat().st_mtime >= base.stat().st_mtime:
            print(f"{dst}: exists, kept")
            continue
        print(f"quantizing to {qtype} ...")
        quantize(zen_engine, base, dst, qtype, args.threads)
    if not args.no_check:
        print("checking with llama-cpp-python ...")
        for f in files:
            check_loads(f)
    for f in files:
        print(f"{f}  {f.stat().st_size / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
