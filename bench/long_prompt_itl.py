#!/usr/bin/env python3
"""Inter-token latency of running streams while a long prompt is admitted.

Against a running server (`zen-engine serve`, or any OpenAI-compatible peer): --clients
streaming chat clients generate back to back (bench/load.py's clients); after --settle seconds
one more client sends a completion whose prompt is --prompt-tokens tokens long (a text of
distinct numbered words, ~4 tokens each on a byte-level BPE; the usage it returns says
how many it really was) with max_tokens 1. Printed: the long prompt's time to its answer, and
the streams' inter-token latency p50/p99/max before it, while it is being prefilled, and over
the whole run. A scheduler that computes the whole prompt in one step stalls every stream for
that long; one that chunks it beside them keeps their latency near a decode step's.

  bench/long_prompt_itl.py --url http://127.0.0.1:3690 --model qwen3-0.6b-shape-q4_k_m \\
      --clients 16 --prompt-tokens 4000
"""
import argparse
import http.client
import json
import threading
import time
import urllib.parse

import load  # bench/load.py


def long_prompt(n):
    return " ".join(f"w{i}" for i in range(n // 4))  # " w1234": ~4 tokens on a byte-level BPE


def send_long(args, out):
    u = urllib.parse.urlsplit(args.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=args.timeout)
    body = {"model": args.model, "prompt": long_prompt(args.prompt_tokens), "max_tokens": 1,
            "temperature": 0}
    out["start"] = time.perf_counter()
    conn.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    out["end"] = time.perf_counter()
    out["status"] = r.status
    if r.status == 200:
        out["prompt_tokens"] = json.loads(data).get("usage", {}).get("prompt_tokens")
    else:
        out["error"] = data[:300].decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:3690")
    ap.add_argument("--model", required=True)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--prompt-tokens", type=int, default=4000)
    ap.add_argument("--settle", type=float, default=15, help="seconds of streams before it")
    ap.add_argument("--window", type=float, default=60,
                    help="seconds the streams go on after the long prompt is sent")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--prompt", default="Write a short story about a lighthouse keeper.")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    client_args = argparse.Namespace(url=args.url, model=args.model, temperature=0.0,
                                     ignore_eos=True, endpoint="chat", prompt=args.prompt,
                                     api_key=None, timeout=args.timeout)
    long = {}
    results = []
    t = threading.Thread(target=lambda: results.extend(load.run_clients(
        client_args, args.clients, args.settle + args.window, args.max_tokens)[0]))
    t.start()
    time.sleep(args.settle)
    send_long(args, long)
    t.join()

    ok = [r for r in results if r.ok]
    pairs = [(g, e) for r in ok for g, e in zip(r.gaps, r.ends)]
    before = [g for g, e in pairs if e < long["start"]]
    during = [g for g, e in pairs if long["start"] <= e <= long["end"]]
    q = lambda v: "/".join(f"{load.percentile(v, p) * 1000:.0f}" for p in (50, 99)) + \
        f"/{max(v) * 1000:.0f}" if v else "-"  # noqa: E731
    print(f"long prompt: HTTP {long.get('status')}, {long.get('prompt_tokens')} prompt tokens, "
          f"answered in {long['end'] - long['start']:.1f} s {long.get('error', '')}")
    print(f"{args.clients} streams, ITL p50/p99/max ms: before {q(before)}, while it was "
          f"prefilled {q(during)}, whole run {q([g for g, _ in pairs])}; "
          f"{sum(1 for r in results if not r.ok)} errors")


if __name__ == "__main__":
    main()
