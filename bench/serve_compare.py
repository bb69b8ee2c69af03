#!/usr/bin/env python3
"""Serving benchmark, side by side: `zen-engine serve` and llama.cpp's `llama-server` on one GGUF.

Starts each server in turn on the same model file, thread count and KV context size (never
both at once: they would share the cores), waits until it is ready (zen: GET /ready, the peer:
GET /health), warms it up with one request, then runs bench/load.py's streaming clients at each
client count (--clients 1,4,16,64) for --seconds each, and stops it (SIGTERM). Every request is
a streaming chat completion at temperature 0 with `ignore_eos` and a fixed --max-tokens, so
both servers generate the same number of tokens. For a file without a chat template of its
own (Gemma 3 GGUFs often have none) llama-server gets zen's built-in template for the
architecture instead of its ChatML fallback, so both see the same prompt. It prints one table:
aggregate generated tokens/s, zen/peer ratio, time to first token and inter-token latency
p50/p99 per server, and errors; --json writes every figure and the command lines used.

The peer is built from the llama-cpp-python sdist at benchmark time
(bench/build_peer_server.sh, cached) unless --peer names a llama-server binary. It gets one
slot per client of the largest client count (`-np`, or --parallel), and llama-server splits
`-c` among its slots: each slot holds --ctx / slots tokens, which must fit the prompt and
--max-tokens (the script warns when it does not). Zen gets --parallel only when given (its
default: as many sequences as the KV cache holds). Continuous batching and flash attention are
left at llama-server's defaults (on, auto).

  bench/serve_compare.py --model gemma-3-270m-q4_k_m.gguf --clients 1,4,16,64 --seconds 30 \\
      --max-tokens 128 --json /tmp/serve.json
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import gguf

import load  # bench/load.py: Client, run_clients, summarize

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_tail(path, lines=20):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


class Server:
    """One server process with its output in a log file; a context manager that stops it."""

    def __init__(self, name, argv, port, ready_path, log_path):
        self.name, self.argv = name, argv
        self.url = f"http://127.0.0.1:{port}"
        self.ready_url = self.url + ready_path
        self.log_path = log_path
        self.proc = None

    def __enter__(self):
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT)
        return self

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"serve_compare: {self.name} exited with {self.proc.returncode} before "
                         f"it was ready; {self.log_path}:\n{log_tail(self.log_path)}")
            try:
                with urllib.request.urlopen(self.ready_url, timeout=5) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass  # not listening yet, or 503 while the model loads
            time.sleep(0.25)
        sys.exit(f"serve_compare: {self.name} not ready after {timeout:g} s; {self.log_path}:\n"
                 f"{log_tail(self.log_path)}")

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def zen_argv(args, port):
    argv = [args.zen, "serve", "-m", args.model, "--port", str(port),
            "--threads", str(args.threads), "--ctx", str(args.ctx)]
    if args.parallel:
        argv += ["--parallel", str(args.parallel)]
    return argv


def peer_argv(args, port, slots):
    argv = [args.peer, "-m", args.model, "--host", "127.0.0.1", "--port", str(port),
            "-t", str(args.threads), "-c", str(args.ctx), "-np", str(slots)]
    template = zen_builtin_template(args.model)
    if template:
        argv += ["--chat-template-file", str(template)]
    return argv


def zen_builtin_template(model):
    """The template zen renders chats with when the file carries none and zen embeds one for
    its architecture (zen::tmpl::builtin_template; llama-server would fall back to ChatML):
    given to llama-server too, so both see the same prompt. None otherwise."""
    fields = gguf.GGUFReader(model).fields
    if "tokenizer.chat_template" in fields:
        return None
    name = {"gemma3": "gemma3", "gemma3_text": "gemma3"}.get(
        fields["general.architecture"].contents())
    return ROOT / "core/template/builtin" / f"{name}.jinja" if name else None


def peer_binary():
    """Build (or find in its cache) llama-server; the script's last line is the binary."""
    run = subprocess.run([str(BENCH / "build_peer_server.sh")], stdout=subprocess.PIPE,
                         text=True)
    if run.returncode != 0 or not run.stdout.strip():
        sys.exit("serve_compare: bench/build_peer_server.sh failed (--peer names a binary)")
    return run.stdout.strip().splitlines()[-1]


def client_settings(args, url):
    """What load.Client reads from its argparse namespace."""
    return SimpleNamespace(url=url, model=Path(args.model).stem, endpoint="chat",
                           prompt=args.prompt, temperature=0.0, ignore_eos=True, api_key=None,
                           timeout=args.timeout)


def bench_server(args, name, argv, port, ready_path, slots, log_dir):
    """Start one server, run every client count against it, stop it; its report. `slots`: how
    many parts the server splits --ctx into (llama-server), None where its requests share it."""
    log_path = os.path.join(log_dir, f"{name}.log")
    print(f"{name}: {' '.join(argv)}  (log {log_path})", flush=True)
    report = {"argv": argv, "log": log_path, "runs": []}
    with Server(name, argv, port, ready_path, log_path) as server:
        server.wait_ready(args.ready_timeout)
        settings = client_settings(args, server.url)
        warm = load.Client(settings).request(args.max_tokens)
        if not warm.ok:
            sys.exit(f"serve_compare: {name}: warm-up request failed: {warm.error}")
        report["prompt_tokens"] = warm.prompt_tokens
        if slots and args.ctx // slots < warm.prompt_tokens + args.max_tokens:
            print(f"warning: {name}: a slot holds {args.ctx // slots} tokens (--ctx {args.ctx} / "
                  f"{slots} slots), less than the prompt ({warm.prompt_tokens}) + --max-tokens "
                  f"({args.max_tokens}): raise --ctx", file=sys.stderr)
        for n in args.client_counts:
            load_before = os.getloadavg()[0]
            results, elapsed = load.run_clients(settings, n, args.seconds, args.max_tokens)
            s = load.summarize(results, elapsed)
            s["clients"] = n
            s["short_requests"] = sum(1 for r in results if r.ok and r.tokens != args.max_tokens)
            s["loadavg_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
            report["runs"].append(s)
            print(f"{name}: {n:>3} clients: {s['tokens_per_s']:8.1f} tok/s, {s['requests']} "
                  f"requests, {s['errors']} errors, {s['generated_tokens']} tokens in "
                  f"{s['token_events']} events, load average {load_before:.1f} -> "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
            for e in s["first_errors"]:
                print(f"{name}:   error: {e}", flush=True)
            if s["short_requests"]:
                print(f"{name}:   {s['short_requests']} requests generated other than "
                      f"{args.max_tokens} tokens", flush=True)
        report["peak_rss_bytes"] = load.read_status(server.proc.pid).get("VmHWM")
    return report


def print_table(args, reports):
    zen, peer = reports.get("zen"), reports.get("peer")
    pair = lambda q: f"{q[50]:.1f} / {q[99]:.1f}"  # noqa: E731
    print(f"\nstreaming chat, max_tokens {args.max_tokens} (ignore_eos), {args.seconds:g} s per "
          f"client count, {args.threads} threads, ctx {args.ctx}, {Path(args.model).name}\n")
    print("| clients | zen tok/s | peer tok/s | zen/peer | zen TTFT p50 / p99 ms "
          "| peer TTFT p50 / p99 ms | zen ITL p50 / p99 ms | peer ITL p50 / p99 ms "
          "| errors zen / peer |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, n in enumerate(args.client_counts):
        z = zen["runs"][i] if zen else None
        p = peer["runs"][i] if peer else None
        ratio = (f"{z['tokens_per_s'] / p['tokens_per_s']:.2f}"
                 if z and p and p["tokens_per_s"] else "-")
        cells = [str(n), f"{z['tokens_per_s']:.1f}" if z else "-",
                 f"{p['tokens_per_s']:.1f}" if p else "-", ratio,
                 pair(z["ttft_ms"]) if z else "-", pair(p["ttft_ms"]) if p else "-",
                 pair(z["itl_ms"]) if z else "-", pair(p["itl_ms"]) if p else "-",
                 f"{z['errors'] if z else '-'} / {p['errors'] if p else '-'}"]
        print("| " + " | ".join(cells) + " |")
    print()
    for name, r in reports.items():
        print(f"{name}: peak RSS {r['peak_rss_bytes'] / 2**20:.1f} MiB, prompt "
              f"{r['prompt_tokens']} tokens")
    if zen and peer and zen["prompt_tokens"] != peer["prompt_tokens"]:
        print("warning: the servers rendered the chat prompt into different token counts "
              "(different chat templates?)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="GGUF file both servers load")
    ap.add_argument("--zen", default=str(ROOT / "build/bin/zen-engine"), help="zen-engine binary")
    ap.add_argument("--peer", help="llama-server binary (default: bench/build_peer_server.sh)")
    ap.add_argument("--threads", "-t", type=int, default=2, help="CPU threads, both servers")
    ap.add_argument("--ctx", type=int, default=16384,
                    help="KV cache tokens, both servers (llama-server splits it among slots)")
    ap.add_argument("--parallel", type=int,
                    help="sequences decoding together, both servers (default: zen's own; "
                         "llama-server: the largest client count)")
    ap.add_argument("--clients", default="1,4,16,64", help="comma-separated client counts")
    ap.add_argument("--seconds", type=float, default=30, help="duration per client count")
    ap.add_argument("--max-tokens", type=int, default=128, help="tokens generated per request")
    ap.add_argument("--prompt", default="Write a short story about a lighthouse keeper.")
    ap.add_argument("--zen-port", type=int, help="default: a free port")
    ap.add_argument("--peer-port", type=int, help="default: a free port")
    ap.add_argument("--only", choices=["zen", "peer"], help="run one server only")
    ap.add_argument("--timeout", type=float, default=300, help="per-request socket timeout (s)")
    ap.add_argument("--ready-timeout", type=float, default=300,
                    help="seconds to wait for a server to load the model")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    args.client_counts = [int(c) for c in args.clients.split(",") if c.strip()]
    if not Path(args.model).is_file():
        sys.exit(f"serve_compare: no such model file: {args.model}")
    run_zen, run_peer = args.only in (None, "zen"), args.only in (None, "peer")
    if run_zen and not os.access(args.zen, os.X_OK):
        sys.exit(f"serve_compare: no zen-engine binary at {args.zen} (--zen)")
    if run_peer and not args.peer:
        args.peer = peer_binary()

    log_dir = tempfile.mkdtemp(prefix="serve_compare-")
    reports = {}
    if run_zen:
        port = args.zen_port or free_port()
        reports["zen"] = bench_server(args, "zen", zen_argv(args, port), port, "/ready", None,
                                      log_dir)
    if run_peer:
        slots = args.parallel or max(args.client_counts)
        port = args.peer_port or free_port()
        reports["peer"] = bench_server(args, "peer", peer_argv(args, port, slots), port,
                                       "/health", slots, log_dir)
    print_table(args, reports)
    if args.json:
        settings = {k: v for k, v in vars(args).items() if k != "client_counts"}
        with open(args.json, "w") as f:
            json.dump({"settings": settings, "servers": reports}, f, indent=2, default=str)


if __name__ == "__main__":
    main()
