#!/usr/bin/env python3
"""Load test for a running OpenAI-compatible server (`zen-engine serve`, or any peer).

For each client count (--clients 1,4,16) it runs that many concurrent clients for --seconds;
each client sends streaming requests back to back. It prints, per client count: aggregate
generated tokens/s, time to first token (TTFT) and inter-token latency (ITL) percentiles,
requests and errors. With --server-pid it also reads the server's VmRSS/VmHWM from
/proc/PID/status around each run, and around a final run of --requests short requests (the
"does memory grow across thousands of requests" check).

Raw HTTP (http.client + threads), so the figures include nothing but the server and the
loopback: no client library parses JSON schemas on the hot path.

  bench/load.py --url http://127.0.0.1:8080 --model gemma-3-270m --clients 1,4,16 \\
      --seconds 20 --max-tokens 64 --server-pid $(pgrep -n zen-engine) --json /tmp/load.json
"""
import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field


@dataclass
class RequestResult:
    ok: bool
    ttft: float = 0.0  # seconds from sending to the first generated token
    gaps: list = field(default_factory=list)  # seconds between successive token events
    ends: list = field(default_factory=list)  # perf_counter() at the end of each gap
    tokens: int = 0  # completion tokens: the stream's usage, else the token-bearing events
    events: int = 0  # token-bearing events (a server may send more than one token per event)
    prompt_tokens: int = 0  # from the stream's usage, 0 when the server sent none
    error: str = ""


def percentile(values, p):
    """Linear interpolation between closest ranks (numpy's default), p in [0, 100]."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def read_status(pid):
    """VmRSS and VmHWM of a process in bytes (Linux /proc)."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(rest.split()[0]) * 1024
    return out


class Client:
    """One keep-alive connection sending streaming requests."""

    def __init__(self, args):
        u = urllib.parse.urlsplit(args.url)
        self.host, self.port = u.hostname, u.port or (443 if u.scheme == "https" else 80)
        self.https = u.scheme == "https"
        self.prefix = u.path.rstrip("/")
        self.args = args
        self.conn = None

    def connect(self):
        cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        self.conn = cls(self.host, self.port, timeout=self.args.timeout)

    def body(self, max_tokens):
        a = self.args
        common = {"model": a.model, "max_tokens": max_tokens, "stream": True,
                  "temperature": a.temperature, "stream_options": {"include_usage": True}}
        if a.ignore_eos:
            common["ignore_eos"] = True
        if a.endpoint == "chat":
            return "/v1/chat/completions", {**common,
                                            "messages": [{"role": "user", "content": a.prompt}]}
        return "/v1/completions", {**common, "prompt": a.prompt}

    def request(self, max_tokens):
        path, body = self.body(max_tokens)
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self.args.api_key:
            headers["Authorization"] = f"Bearer {self.args.api_key}"
        for attempt in range(2):  # a keep-alive connection the server closed: reconnect once
            if self.conn is None:
                self.connect()
            start = time.perf_counter()
            try:
                self.conn.request("POST", self.prefix + path, json.dumps(body), headers)
                response = self.conn.getresponse()
                break
            except (http.client.HTTPException, BrokenPipeError, ConnectionResetError) as e:
                self.conn.close()
                self.conn = None
                if attempt == 1:
                    return RequestResult(False, error=f"{type(e).__name__}: {e}")
            except OSError as e:
                self.conn.close()
                self.conn = None
                return RequestResult(False, error=f"{type(e).__name__}: {e}")
        if response.will_close:
            self.conn = None  # the server ends this connection after the response
        if response.status != 200:
            text = response.read()[:300].decode(errors="replace")
            return RequestResult(False, error=f"HTTP {response.status}: {text}")
        result = RequestResult(True)
        last = None
        events = 0
        usage_tokens = None
        try:
            for raw in response:
                line = raw.strip()
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    response.read()  # the rest of the chunked body: the connection is reused
                    break
                event = json.loads(data)
                if "error" in event:
                    result.ok, result.error = False, json.dumps(event["error"])[:300]
                    continue
                if event.get("usage"):
                    usage_tokens = event["usage"].get("completion_tokens")
                    result.prompt_tokens = event["usage"].get("prompt_tokens") or 0
                if not any(token_bearing(c) for c in event.get("choices", [])):
                    continue
                now = time.perf_counter()
                if last is None:
                    result.ttft = now - start
                else:
                    result.gaps.append(now - last)
                    result.ends.append(now)
                last = now
                events += 1
        except (OSError, http.client.HTTPException, ValueError) as e:
            if self.conn:
                self.conn.close()
            self.conn = None
            return RequestResult(False, error=f"{type(e).__name__}: {e}")
        result.events = events
        result.tokens = usage_tokens if usage_tokens is not None else events
        if last is None and result.ok:
            result.ttft = time.perf_counter() - start
        return result


def token_bearing(choice):
    delta = choice.get("delta") or {}
    return bool(delta.get("content") or delta.get("reasoning_content") or delta.get("tool_calls")
                or choice.get("text"))


def run_clients(args, n_clients, seconds, max_tokens, max_requests=None):
    """n_clients threads sending requests until `seconds` pass (or max_requests in total);
    requests in flight at the deadline finish and count."""
    results = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    sent = [0]

    def worker():
        client = Client(args)
        while time.perf_counter() < deadline:
            with lock:
                if max_requests is not None and sent[0] >= max_requests:
                    return
                sent[0] += 1
            r = client.request(max_tokens)
            with lock:
                results.append(r)

    start = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(n_clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, time.perf_counter() - start


def summarize(results, elapsed):
    ok = [r for r in results if r.ok]
    ttft = [r.ttft for r in ok]
    gaps = [g for r in ok for g in r.gaps]
    tokens = sum(r.tokens for r in ok)
    ms = lambda v: round(v * 1000, 2)  # noqa: E731
    return {
        "requests": len(results), "errors": len(results) - len(ok),
        "elapsed_s": round(elapsed, 3), "generated_tokens": tokens,
        "token_events": sum(r.events for r in ok),
        "tokens_per_s": round(tokens / elapsed, 2) if elapsed > 0 else 0.0,
        "ttft_ms": {p: ms(percentile(ttft, p)) for p in (50, 90, 99)},
        "itl_ms": {p: ms(percentile(gaps, p)) for p in (50, 90, 99)},
        "first_errors": sorted({r.error for r in results if not r.ok})[:3],
    }


def mib(b):
    return f"{b / 2**20:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8080", help="server base URL")
    ap.add_argument("--model", required=True, help="model id as the server lists it")
    ap.add_argument("--clients", default="1,4,16", help="comma-separated client counts")
    ap.add_argument("--seconds", type=float, default=20, help="duration per client count")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--prompt", default="Write a short story about a lighthouse keeper.")
    ap.add_argument("--endpoint", choices=["chat", "completion"], default="chat")
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--ignore-eos", action="store_true",
                    help="ask for exactly --max-tokens tokens (server extension)")
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--timeout", type=float, default=300, help="per-request socket timeout (s)")
    ap.add_argument("--server-pid", type=int, help="read this process's RSS around the runs")
    ap.add_argument("--requests", type=int, default=2000,
                    help="short requests in the memory run (with --server-pid)")
    ap.add_argument("--short-max-tokens", type=int, default=4)
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    counts = [int(c) for c in args.clients.split(",") if c.strip()]

    warm = Client(args).request(min(args.max_tokens, 8))
    if not warm.ok:
        sys.exit(f"load.py: warm-up request failed: {warm.error}")

    report = {"settings": {k: v for k, v in vars(args).items() if k != "api_key"}, "runs": []}
    print(f"{args.endpoint} streaming, max_tokens {args.max_tokens}, {args.seconds:g} s per "
          f"client count, model {args.model} at {args.url}")
    header = (f"{'clients':>7} {'requests':>8} {'errors':>6} {'gen tok/s':>10} "
              f"{'TTFT p50/p90/p99 ms':>22} {'ITL p50/p90/p99 ms':>20}")
    if args.server_pid:
        header += f" {'RSS MiB':>8} {'peak MiB':>8}"
    print(header)
    triple = lambda q: f"{q[50]:.1f}/{q[90]:.1f}/{q[99]:.1f}"  # noqa: E731
    for n in counts:
        results, elapsed = run_clients(args, n, args.seconds, args.max_tokens)
        s = summarize(results, elapsed)
        s["clients"] = n
        line = (f"{n:>7} {s['requests']:>8} {s['errors']:>6} {s['tokens_per_s']:>10.1f} "
                f"{triple(s['ttft_ms']):>22} {triple(s['itl_ms']):>20}")
        if args.server_pid:
            st = read_status(args.server_pid)
            s["rss_bytes"], s["hwm_bytes"] = st.get("VmRSS"), st.get("VmHWM")
            line += f" {mib(s['rss_bytes']):>8} {mib(s['hwm_bytes']):>8}"
        print(line)
        for e in s["first_errors"]:
            print(f"        error: {e}")
        report["runs"].append(s)

    if args.server_pid:
        before = read_status(args.server_pid)
        results, elapsed = run_clients(args, 4, float("inf"), args.short_max_tokens,
                                       max_requests=args.requests)
        after = read_status(args.server_pid)
        errors = sum(1 for r in results if not r.ok)
        report["memory"] = {"requests": len(results), "errors": errors,
                            "elapsed_s": round(elapsed, 2), "rss_before_bytes": before["VmRSS"],
                            "rss_after_bytes": after["VmRSS"], "peak_bytes": after["VmHWM"]}
        print(f"memory: {len(results)} requests of {args.short_max_tokens} tokens "
              f"({errors} errors, {elapsed:.1f} s): RSS {mib(before['VmRSS'])} -> "
              f"{mib(after['VmRSS'])} MiB, peak {mib(after['VmHWM'])} MiB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2, default=str)


if __name__ == "__main__":
    main()
