"""Denial of service against the real server (zen-engine serve + http and mcp frontends + tiny
qwen3 model), with raw sockets: what one client can do must not take the server away from the
others, and settings that cannot work are refused at start with a clear error."""
import json
import socket
import subprocess
import threading
import time

import pytest

from conftest import (ZenServer, clean_env, engine_path, http_request, model_id, read_until_quiet,
                      status_of)


@pytest.fixture(scope="module")
def server(tiny_model):
    s = ZenServer(["-m", tiny_model, "--threads", "1"])
    yield s
    s.stop()


def chat_request(server, body):
    data = json.dumps(body).encode()
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
    return head.encode() + data


# ---- pipelining -------------------------------------------------------------------------------

def test_pipelining_still_answers_in_order(server):
    """The server reads ahead while it answers (to see a client leave even when bytes of a
    next request arrived: tests/mcp/client/test_mcp_client_loop.py); the pipelined requests
    are still answered, in order."""
    short = {"model": model_id(server), "max_tokens": 1,
             "messages": [{"role": "user", "content": "Tell me about ships."}]}
    with server.connect() as s:
        s.sendall(chat_request(server, short) + chat_request(server, short))
        raw = read_until_quiet(s, timeout=30, quiet=2)
    assert raw.count(b"HTTP/1.1 200 OK") == 2, raw[:300]


# ---- settings that cannot work -------------------------------------------------------------

def test_queue_0_is_refused_at_start(tiny_model, tmp_path):
    proc = subprocess.run([engine_path(), "serve", "-m", tiny_model, "--port", "0", "--queue",
                           "0"], capture_output=True, text=True, timeout=60, env=clean_env())
    assert proc.returncode != 0
    assert "--queue must be at least 1" in proc.stderr, proc.stderr
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"serve": {"queue": 0}}))
    proc = subprocess.run([engine_path(), "--config", config, "serve", "-m", tiny_model,
                           "--port", "0"], capture_output=True, text=True, timeout=60,
                          env=clean_env())
    assert proc.returncode != 0
    assert "'serve.queue' must be at least 1" in proc.stderr, proc.stderr


# ---- /ready with a model that failed ---------------------------------------------------------

def test_ready_once_loading_is_over_even_when_one_model_failed(tiny_model, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF but not really")
    s = ZenServer(["-m", tiny_model, "-m", broken, "--threads", "1"], ready_timeout=60)
    try:
        status, _, raw = http_request(s, "GET", "/ready")
        assert status == 200, raw
        models = {m["id"]: m for m in json.loads(raw)["models"]}
        assert models["qwen3"]["state"] == "ready"
        assert models["broken"]["state"] == "failed" and models["broken"]["error"]
        status, _, raw = http_request(s, "POST", "/v1/chat/completions", {
            "model": "broken", "messages": [{"role": "user", "content": "Hi"}]})
        assert status == 503 and json.loads(raw)["error"]["code"] == "model_failed"
        status, _, raw = http_request(s, "POST", "/v1/chat/completions", {
            "model": "qwen3", "max_tokens": 2, "messages": [{"role": "user", "content": "Hi"}]})
        assert status == 200, raw
    finally:
        s.stop()


# ---- connections ---------------------------------------------------------------------------

def refused_at_once(sock):
    """Whether the server already sent something on this idle connection (its 503)."""
    sock.setblocking(False)
    try:
        return bool(sock.recv(1, socket.MSG_PEEK))
    except BlockingIOError:
        return False
    finally:
        sock.setblocking(True)


def test_connections_beyond_the_cap_get_503_and_the_others_keep_being_served(tiny_model):
    s = ZenServer(["-m", tiny_model, "--threads", "1"], http_config={"max_connections": 4})
    held = []
    try:
        for _ in range(5):
            held = [s.connect() for _ in range(4)]  # idle: they send nothing
            time.sleep(0.3)
            with s.connect() as extra:
                raw = read_until_quiet(extra, timeout=5)
            # The connection ZenServer polled /ready on may still count for a moment: then the
            # fourth held one was the refused one. The server accepts in order, so its 503 is
            # here by now; start again once that connection is gone.
            if not any(refused_at_once(c) for c in held):
                break
            for c in held:
                c.close()
            time.sleep(0.5)
        assert status_of(raw) == 503, raw
        assert b"too_many_connections" in raw and b"Retry-After: 1" in raw
        held.pop().close()
        time.sleep(0.3)  # the server sees the close and frees the place
        assert http_request(s, "GET", "/health")[0] == 200
    finally:
        for c in held:
            c.close()
        s.stop()


# ---- the MCP port ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def keyed_mcp(tiny_model, tmp_path_factory):
    config = tmp_path_factory.mktemp("mcp") / "config.json"
    config.write_text(json.dumps({"frontend": {"mcp": {"max_sessions": 4}}}))
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--mcp-port", "0", "--api-key", "sesame"],
                  env=clean_env(ZEN_CONFIG=str(config)))
    line = s.wait_for_log(r"serving on http://\S+/mcp")
    s.mcp_port = int(line.rsplit(":", 1)[1].split("/")[0])
    yield s
    s.stop()


def mcp_head(server, length, key=None):
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.mcp_port}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"{auth}Content-Length: {length}\r\n\r\n").encode()


def test_mcp_port_refuses_a_missing_key_before_reading_the_body(keyed_mcp):
    with socket.create_connection(("127.0.0.1", keyed_mcp.mcp_port), timeout=10) as s:
        s.sendall(mcp_head(keyed_mcp, 3_000_000))  # a body that never comes
        begun = time.monotonic()
        raw = read_until_quiet(s, timeout=5)
    assert status_of(raw) == 401, raw
    assert time.monotonic() - begun < 3


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}).encode()


def mcp_initialize(server):
    with socket.create_connection(("127.0.0.1", server.mcp_port), timeout=10) as s:
        s.sendall(mcp_head(server, len(INITIALIZE), key="sesame") + INITIALIZE)
        raw = read_until_quiet(s, timeout=10)
    session = [line.split(b":", 1)[1].strip().decode() for line in raw.split(b"\r\n")
               if line.lower().startswith(b"mcp-session-id:")]
    return status_of(raw), session[0] if session else None


def test_mcp_sessions_never_lock_new_clients_out(keyed_mcp):
    """max_sessions is 4 here (1024 by default): more initialize calls end the least recently
    used sessions instead of refusing everyone after."""
    opened = []
    for _ in range(10):
        status, session = mcp_initialize(keyed_mcp)
        assert status == 200 and session
        opened.append(session)
    assert len(set(opened)) == 10

    # The oldest were ended: their client gets 404 and, as the protocol says, starts again.
    ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
    with socket.create_connection(("127.0.0.1", keyed_mcp.mcp_port), timeout=10) as s:
        head = mcp_head(keyed_mcp, len(ping), key="sesame")
        s.sendall(head[:-2] + f"Mcp-Session-Id: {opened[0]}\r\n\r\n".encode() + ping)
        assert status_of(read_until_quiet(s, timeout=10)) == 404


# ---- huge prompts ------------------------------------------------------------------------------

def test_a_huge_prompt_is_prepared_off_the_io_thread(tiny_model):
    """An 8 MiB prompt takes the chat template and the tokenizer most of a second or more. With
    one I/O thread, a /health sent meanwhile used to wait for all of it; now the longest wait of
    the /health requests sent while the prompt is handled is a fraction of its time (the I/O
    thread still reads and checks the JSON body). The big request ends 400
    context_length_exceeded: the tiny model has 256 tokens of context."""
    s = ZenServer(["-m", tiny_model, "--threads", "1"], http_config={"io_threads": 1})
    try:
        words = "ships and harbours " * 420_000  # 7.98 MB
        body = json.dumps({"model": model_id(s), "max_tokens": 1,
                           "messages": [{"role": "user", "content": words}]}).encode()
        result = {}

        def big():
            with s.connect(timeout=120) as c:
                begun = time.monotonic()
                c.sendall(chat_request_bytes(s, body))
                raw = read_until_quiet(c, timeout=120, quiet=30)
                result["took"] = time.monotonic() - begun
                result["status"] = status_of(raw)

        t = threading.Thread(target=big)
        t.start()
        waits = []
        while t.is_alive():
            sent = time.monotonic()
            assert http_request(s, "GET", "/health", timeout=60)[0] == 200
            waits.append(time.monotonic() - sent)
            time.sleep(0.02)
        t.join()
        assert result["status"] == 400
        assert max(waits) < 0.5 * result["took"], (max(waits), result["took"])
    finally:
        s.stop()


def chat_request_bytes(server, data):
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            "Connection: close\r\n\r\n")
    return head.encode() + data


# ---- huge tokenize requests ------------------------------------------------------------------

def post_bytes(port, path, data, extra_headers=""):
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\n{extra_headers}Content-Length: {len(data)}\r\n"
            "Connection: close\r\n\r\n")
    return head.encode() + data


def first_byte_then_rest(sock, timeout):
    """(when the answer's first byte arrived, the whole answer): the moment the server began
    to answer, whatever the size of the answer. The answer ends when the server closes
    (Connection: close)."""
    sock.settimeout(timeout)
    first = sock.recv(65536)
    at = time.monotonic()
    return at, first + read_until_quiet(sock, timeout=timeout, quiet=timeout)


def small_answered_before_big(port, big_request, small_request, n_big=3, delay=0.25):
    """Sends `big_request` on `n_big` connections at once and, `delay` s after the first of
    them was sent whole (the server is working on it by then), `small_request` on another
    connection. Returns (when the small one's answer began, its raw answer, [(when each big
    one's answer began, its raw answer)])."""
    bigs = [None] * n_big
    first_sent = threading.Event()

    def big(i):
        with socket.create_connection(("127.0.0.1", port), timeout=180) as c:
            c.sendall(big_request)
            first_sent.set()
            bigs[i] = first_byte_then_rest(c, timeout=180)

    threads = [threading.Thread(target=big, args=(i,)) for i in range(n_big)]
    for t in threads:
        t.start()
    assert first_sent.wait(120)
    time.sleep(delay)
    with socket.create_connection(("127.0.0.1", port), timeout=180) as c:
        c.sendall(small_request)
        small_at, small_raw = first_byte_then_rest(c, timeout=180)
    for t in threads:
        t.join()
    return small_at, small_raw, bigs


# Just under the 8 MiB body limit: the tokenizer takes a second or more over it here.
HUGE_TEXT = "ships and harbours " * 420_000


def test_huge_tokenize_requests_do_not_hold_up_the_io_thread(tiny_model):
    """Three 8 MiB /tokenize requests, then a /health on a fourth connection, all to one I/O
    thread. The tokenizer used to run on that thread: /health waited behind at least one
    whole tokenization and was answered after it. Now the tokenizer runs on the service's
    preparation threads and /health is answered before any tokenize answer begins (the I/O
    thread still reads and parses the bodies: tenths of a second against seconds)."""
    s = ZenServer(["-m", tiny_model, "--threads", "1"], http_config={"io_threads": 1})
    try:
        body = json.dumps({"model": model_id(s), "content": HUGE_TEXT}).encode()
        health = (f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\n"
                  "Connection: close\r\n\r\n").encode()
        health_at, health_raw, bigs = small_answered_before_big(
            s.port, post_bytes(s.port, "/tokenize", body), health)
        assert status_of(health_raw) == 200, health_raw[:300]
        counts = set()
        for _, raw in bigs:
            assert status_of(raw) == 200, raw[:300]
            counts.add(len(json.loads(raw.split(b"\r\n\r\n", 1)[1])["tokens"]))
        assert len(counts) == 1 and counts.pop() > 400_000  # the same whole text, each time
        first_big = min(at for at, _ in bigs)
        assert health_at < first_big, (
            f"/health began {health_at - first_big:+.3f} s after the first tokenize answer")
    finally:
        s.stop()


def test_huge_mcp_tokenize_calls_do_not_hold_up_the_io_thread(tiny_model, tmp_path):
    """The MCP port's `tokenize` tool, the same way: three calls on the same 8 MB of text (the
    body limit raised to let it in), then a ping on a fourth connection, one I/O thread. The
    tool used to tokenize on that thread; now the ping is answered before any of the tool
    results begins."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"frontend": {"mcp": {"io_threads": 1,
                                                       "max_body_bytes": 16 << 20}}}))
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--mcp-port", "0"],
                  env=clean_env(ZEN_CONFIG=str(config)))
    try:
        line = s.wait_for_log(r"serving on http://\S+/mcp")
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
        call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            **meta, "name": "tokenize", "arguments": {"text": HUGE_TEXT}}}).encode()
        ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping",
                           "params": meta}).encode()
        accept = "Accept: application/json, text/event-stream\r\n"
        ping_at, ping_raw, bigs = small_answered_before_big(
            port, post_bytes(port, "/mcp", call, accept), post_bytes(port, "/mcp", ping, accept))
        assert status_of(ping_raw) == 200 and b'"id":2' in ping_raw, ping_raw[:300]
        for _, raw in bigs:
            assert status_of(raw) == 200, raw[:300]
            result = json.loads(raw.split(b"\r\n\r\n", 1)[1])["result"]
            assert not result["isError"] and result["structuredContent"]["count"] > 400_000
        first_big = min(at for at, _ in bigs)
        assert ping_at < first_big, (
            f"the ping began {ping_at - first_big:+.3f} s after the first tokenize result")
    finally:
        s.stop()
