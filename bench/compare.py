#!/usr/bin/env python3
"""Zen Engine next to llama.cpp on the same GGUF files, threads and lengths, in one run.

For each model: prompt processing (ppP: one batch of P tokens into an empty KV cache) and
generation (tgN: N single-token decodes from an empty cache), the tests of llama-bench and of
`zen-engine bench`. Each repetition runs `zen-engine bench -r 1 --json` and one timed run of
llama.cpp (llama-cpp-python's low-level API, in this process, model loaded once), alternating
which goes first, so machine noise and thermal drift hit both alike. Prints mean +- stddev of
tokens/s and the zen/llama.cpp ratio; the ratio taken in one run is the figure that counts on
shared machines (docs/BENCHMARKS.md).

With --lora FILE (a GGUF LoRA adapter), both engines run with it applied at scale 1 (llama.cpp:
llama_adapter_lora_init + llama_set_adapter_lora; zen-engine: --lora).

usage: bench/compare.py MODEL.gguf [MODEL.gguf ...] [-t 2] [-p 512] [-n 128] [-r 3] [--json F]
                        [--lora ADAPTER.gguf]
"""
import argparse
import ctypes
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


# ---- llama.cpp through llama-cpp-python ----

class LlamaCpp:
    """One model and context, kept for all repetitions; names of the low-level API differ
    across llama-cpp-python releases, so each is looked up with its older spelling as a
    fallback."""

    def __init__(self, path, threads, n_prompt, n_gen, lora=None):
        import llama_cpp as L
        self.L = L
        self._silence_logs()
        L.llama_backend_init()
        mp = L.llama_model_default_params()
        mp.use_mmap = True  # as zen-engine: weights are mapped, not read
        load = getattr(L, "llama_model_load_from_file", None) or L.llama_load_model_from_file
        self.model = load(str(path).encode(), mp)
        if not self.model:
            raise RuntimeError(f"llama.cpp cannot load {path}")
        cp = L.llama_context_default_params()
        cp.n_ctx = max(n_prompt, n_gen) + 32
        cp.n_batch = cp.n_ubatch = max(n_prompt, 1)
        cp.n_threads = cp.n_threads_batch = threads
        new_ctx = getattr(L, "llama_init_from_model", None) or L.llama_new_context_with_model
        self.ctx = new_ctx(self.model, cp)
        if not self.ctx:
            raise RuntimeError(f"llama.cpp cannot create a context for {path}")
        if lora:
            self.adapter = L.llama_adapter_lora_init(self.model, str(lora).encode())
            if not self.adapter or L.llama_set_adapter_lora(self.ctx, self.adapter, 1.0) != 0:
                raise RuntimeError(f"llama.cpp cannot apply the LoRA adapter {lora}")
        vocab_of = getattr(L, "llama_model_get_vocab", None)
        n_vocab = (L.llama_vocab_n_tokens(vocab_of(self.model)) if vocab_of
                   else L.llama_n_vocab(self.model))
        rng = random.Random(1)
        self.prompt = [rng.randrange(n_vocab) for _ in range(n_prompt)]
        self.gen = [rng.randrange(n_vocab) for _ in range(n_gen)]
        self.batch = L.llama_batch_init(max(n_prompt, 1), 0, 1)
        self.settings = {"n_ctx": cp.n_ctx, "n_batch": cp.n_batch, "n_ubatch": cp.n_ubatch,
                         "n_threads": threads, "n_threads_batch": threads, "use_mmap": True,
                         "llama_cpp_python": getattr(L, "__version__", "?"),
                         "system_info": L.llama_print_system_info().decode().strip()}

    def _silence_logs(self):
        L = self.L
        if hasattr(L, "llama_log_set"):
            self._log_cb = L.llama_log_callback(lambda level, text, user: None)
            L.llama_log_set(self._log_cb, ctypes.c_void_p(0))

    def _clear_kv(self):
        L = self.L
        if hasattr(L, "llama_memory_clear") and hasattr(L, "llama_get_memory"):
            L.llama_memory_clear(L.llama_get_memory(self.ctx), True)
        elif hasattr(L, "llama_kv_self_clear"):
            L.llama_kv_self_clear(self.ctx)
        else:
            L.llama_kv_cache_clear(self.ctx)

    def _decode(self, ids, pos0):
        b = self.batch
        b.n_tokens = len(ids)
        for i, tok in enumerate(ids):
            b.token[i] = tok
            b.pos[i] = pos0 + i
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = 0
            b.logits[i] = i == len(ids) - 1
        rc = self.L.llama_decode(self.ctx, b)
        if rc != 0:
            raise RuntimeError(f"llama_decode returned {rc}")

    def prompt_ts(self):
        self._clear_kv()
        t0 = time.perf_counter()
        self._decode(self.prompt, 0)
        self.L.llama_synchronize(self.ctx)
        return len(self.prompt) / (time.perf_counter() - t0)

    def gen_ts(self):
        self._clear_kv()
        t0 = time.perf_counter()
        for i, tok in enumerate(self.gen):
            self._decode([tok], i)
        self.L.llama_synchronize(self.ctx)
        return len(self.gen) / (time.perf_counter() - t0)

    def close(self):
        L = self.L
        L.llama_batch_free(self.batch)
        L.llama_free(self.ctx)
        (getattr(L, "llama_model_free", None) or L.llama_free_model)(self.model)


# ---- zen-engine ----

def zen_bench(zen_engine, path, threads, n_prompt, n_gen, lora=None):
    """One `zen-engine bench -r 1 --json` run (it warms up before timing): {test: t/s}."""
    cmd = [str(zen_engine), "bench", "-m", str(path), "-p", str(n_prompt), "-n", str(n_gen),
           "-t", str(threads), "-r", "1", "--json"] + (["--lora", str(lora)] if lora else [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    return parse_zen_json(json.loads(proc.stdout))


def parse_zen_json(doc):
    """{test: [samples]} from a `zen-engine bench --json` object."""
    return {r["test"]: list(r.get("samples_ts") or [r["avg_ts"]]) for r in doc["results"]}


# ---- the comparison ----

def mean_sd(xs):
    if not xs:
        return None, None
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def measure(path, args, zen_recorded):
    """Samples {engine: {test: [t/s]}} for one model, engines alternating per repetition."""
    pp, tg = f"pp{args.n_prompt}", f"tg{args.n_gen}"
    samples = {"zen": {pp: [], tg: []}, "llama.cpp": {pp: [], tg: []}}
    llama = None if args.skip_llama else LlamaCpp(path, args.threads, args.n_prompt, args.n_gen,
                                                   args.lora)
    if llama:  # warm-up, as zen-engine bench does: page in the weights, build the graph
        llama.prompt_ts()
        llama.gen_ts()

    zen_failed = []

    def run_zen():
        if zen_recorded is not None or args.skip_zen or zen_failed:
            return
        try:
            measured = zen_bench(args.zen_engine, path, args.threads, args.n_prompt, args.n_gen,
                                 args.lora)
        except RuntimeError as e:  # e.g. an architecture zen-engine does not run yet
            print(f"  {Path(path).name}: zen-engine failed, its column stays empty: {e}",
                  file=sys.stderr)
            zen_failed.append(e)
            return
        for test, xs in measured.items():
            samples["zen"].setdefault(test, []).extend(xs)

    def run_llama():
        if llama:
            samples["llama.cpp"][pp].append(llama.prompt_ts())
            samples["llama.cpp"][tg].append(llama.gen_ts())

    for rep in range(args.repetitions):
        order = (run_zen, run_llama) if rep % 2 == 0 else (run_llama, run_zen)
        for run in order:
            run()
        print(f"  {Path(path).name}: repetition {rep + 1}/{args.repetitions} done",
              file=sys.stderr)
    if llama:
        settings = llama.settings
        llama.close()
    else:
        settings = None
    if zen_recorded is not None:
        samples["zen"] = zen_recorded
    return samples, settings


def rows_for(path, samples):
    rows = []
    tests = sorted({t for eng in samples.values() for t in eng if eng[t]},
                   key=lambda t: (not t.startswith("pp"), t))
    for test in tests:
        z = mean_sd(samples["zen"].get(test, []))
        l = mean_sd(samples["llama.cpp"].get(test, []))
        ratio = z[0] / l[0] if z[0] and l[0] else None
        rows.append({"model": Path(path).name, "test": test,
                     "zen_ts": z[0], "zen_sd": z[1], "llama_ts": l[0], "llama_sd": l[1],
                     "ratio": ratio,
                     "zen_samples": samples["zen"].get(test, []),
                     "llama_samples": samples["llama.cpp"].get(test, [])})
    return rows


def format_table(rows):
    def ts(m, s):
        return "-" if m is None else f"{m:8.2f} ± {s:5.2f}"

    head = ["model", "test", "zen t/s", "llama.cpp t/s", "zen/llama.cpp"]
    body = [[r["model"], r["test"], ts(r["zen_ts"], r["zen_sd"]),
             ts(r["llama_ts"], r["llama_sd"]),
             "-" if r["ratio"] is None else f"{r['ratio']:.2f}"] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(b) for b in body]
    return "\n".join(out)


def write_json(args, rows, settings, load_average):
    doc = {"threads": args.threads, "n_prompt": args.n_prompt, "n_gen": args.n_gen,
           "repetitions": args.repetitions, "llama_cpp": settings,
           "zen_source": args.zen_json or "measured", "cpu": cpu_name(),
           "load_average": load_average, "rows": rows}
    Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")


def cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return os.uname().machine


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+", help="GGUF files")
    ap.add_argument("-t", "--threads", type=int, default=2)
    ap.add_argument("-p", "--n-prompt", type=int, default=512)
    ap.add_argument("-n", "--n-gen", type=int, default=128)
    ap.add_argument("-r", "--repetitions", type=int, default=3)
    ap.add_argument("--zen-engine", default=str(REPO / "build" / "bin" / "zen-engine"))
    ap.add_argument("--json", metavar="FILE", help="also write rows and settings as JSON")
    ap.add_argument("--lora", metavar="ADAPTER", help="a GGUF LoRA adapter both engines apply")
    ap.add_argument("--skip-zen", action="store_true", help="measure llama.cpp only")
    ap.add_argument("--skip-llama", action="store_true", help="measure zen-engine only")
    ap.add_argument("--zen-json", metavar="FILE",
                    help="take zen's figures from a saved `zen-engine bench --json` output "
                         "instead of running it (one model only; for checking this script)")
    args = ap.parse_args(argv)
    if args.n_prompt < 1 or args.n_gen < 1 or args.repetitions < 1 or args.threads < 1:
        ap.error("-p, -n, -r and -t must be >= 1")
    if args.zen_json and len(args.models) != 1:
        ap.error("--zen-json goes with exactly one model")
    zen_recorded = None
    if args.zen_json:
        zen_recorded = parse_zen_json(json.loads(Path(args.zen_json).read_text()))
    elif not args.skip_zen and not Path(args.zen_engine).exists():
        ap.error(f"{args.zen_engine} not found (build it, pass --zen-engine, or --skip-zen)")
    if not args.skip_llama:
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            ap.error("llama-cpp-python is not installed (pip install llama-cpp-python), "
                     "or pass --skip-llama")
    for m in args.models:
        if not Path(m).is_file():
            ap.error(f"{m}: no such file")

    load_before = os.getloadavg()[0]
    rows, settings = [], None
    for m in args.models:
        samples, s = measure(m, args, zen_recorded)
        settings = settings or s
        rows += rows_for(m, samples)
        # Rows so far, so a long run that is interrupted still leaves its results.
        print(format_table(rows_for(m, samples)), file=sys.stderr)
        if args.json:
            write_json(args, rows, settings, [load_before, os.getloadavg()[0]])
    load_after = os.getloadavg()[0]
    print(f"threads {args.threads}, pp{args.n_prompt}, tg{args.n_gen}, "
          f"{args.repetitions} repetitions" +
          (f"; zen figures read from {args.zen_json}, not measured in this run"
           if args.zen_json else ""))
    print(format_table(rows))
    # The run itself adds about `threads` to the load average; more means competition.
    if load_before > 0.5 or load_after > args.threads + 0.5:
        print(f"warning: load average {load_before:.1f} before, {load_after:.1f} after: other "
              "processes competed for the cores (docs/BENCHMARKS.md)")


if __name__ == "__main__":
    main()
