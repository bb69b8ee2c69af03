"""Hostile and unlucky clients against the real server (zen-engine serve + http frontend +
tiny qwen3 model): every case gets its documented answer (or a closed connection), and the
server answers a normal chat request afterwards."""
import json
import random
import re
import select
import socket
import threading
import time

import pytest

from conftest import (ZenServer, http_request, metric, model_id, raw_exchange, read_until_quiet,
                      status_of)

HEADER_TIMEOUT_S = 2
IDLE_TIMEOUT_S = 3
MAX_BODY = 8 << 20  # the default limit
ALLOWED_ORIGIN = "https://allowed.example"
API_KEY = "sk-test-0123456789"


@pytest.fixture(scope="module")
def server(tiny_model):
    s = ZenServer(["-m", tiny_model],
                  http_config={"header_timeout_s": HEADER_TIMEOUT_S, "body_timeout_s": 2,
                               "idle_timeout_s": IDLE_TIMEOUT_S,
                               "cors_origins": [ALLOWED_ORIGIN]})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def keyed_server(tiny_model):
    s = ZenServer(["-m", tiny_model, "--api-key", API_KEY])
    yield s
    s.stop()


@pytest.fixture(scope="module")
def busy_server(tiny_model):
    s = ZenServer(["-m", tiny_model, "--parallel", "1", "--queue", "1"])
    yield s
    s.stop()


def chat_body(server, headers=None, **extra):
    return {"model": model_id(server, headers), "max_tokens": 4,
            "messages": [{"role": "user", "content": "Hello"}], **extra}


def assert_serves(server, headers=None):
    """The server is alive and answers a normal chat request correctly."""
    assert server.alive(), "\n".join(server.lines)
    status, _, body = http_request(server, "POST", "/v1/chat/completions",
                                   chat_body(server, headers), headers=headers)
    assert status == 200, body
    answer = json.loads(body)
    assert answer["object"] == "chat.completion"
    assert answer["choices"][0]["message"]["role"] == "assistant"
    assert isinstance(answer["choices"][0]["message"]["content"], str)
    assert answer["usage"]["completion_tokens"] <= 4


def error_of(body):
    """The OpenAI error object of a response body (all four fields present)."""
    error = json.loads(body)["error"]
    assert set(error) >= {"message", "type", "param", "code"}, error
    assert error["message"]
    return error


def request_head(path, extra="", method="POST"):
    return (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"{extra}\r\n").encode()


# ---- bodies -------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [b"{not json", b'{"model": "x",', b"[1, 2, 3]", b'"text"',
                                  b"", b"\xff\xfe\x00garbage", b"[" * 100000 + b"]" * 100000])
def test_malformed_or_non_object_json_is_400(server, body):
    status, _, raw = http_request(server, "POST", "/v1/chat/completions", body)
    assert status == 400
    assert error_of(raw)["type"] == "invalid_request_error"
    assert_serves(server)


@pytest.mark.parametrize("param,value", [("temperature", "hot"), ("max_tokens", "ten"),
                                         ("messages", "hello"), ("top_p", [1]),
                                         ("stream", "yes"), ("n", 0), ("max_tokens", -5)])
def test_wrong_types_and_ranges_are_400_naming_the_param(server, param, value):
    status, _, raw = http_request(server, "POST", "/v1/chat/completions",
                                  chat_body(server, **{param: value}))
    assert status == 400, raw
    error = error_of(raw)
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param


def test_context_overflow_is_context_length_exceeded(server):
    # The tiny models have a 256-token context; 3000 words cannot fit.
    prompt = "ships and harbours " * 1000
    for path, body in [("/v1/completions", {"model": model_id(server), "prompt": prompt}),
                       ("/v1/chat/completions",
                        chat_body(server, messages=[{"role": "user", "content": prompt}]))]:
        status, _, raw = http_request(server, "POST", path, body)
        assert status == 400, raw
        assert error_of(raw)["code"] == "context_length_exceeded"
    assert_serves(server)


def test_100mb_body_is_413_before_it_is_read(server):
    with server.connect() as s:
        s.sendall(request_head("/v1/chat/completions", "Content-Length: 104857600\r\n"))
        start = time.monotonic()
        # Nothing of the body was sent: the answer can only come from the header check.
        raw = read_until_quiet(s, timeout=5)
        assert time.monotonic() - start < 3
    assert status_of(raw) == 413
    assert error_of(raw.split(b"\r\n\r\n", 1)[1])["type"] == "invalid_request_error"
    assert_serves(server)


def test_100mb_body_upload_gets_413_quickly(server):
    """A client that pushes the whole 100 MB regardless still reads the 413."""
    with server.connect() as s:
        s.sendall(request_head("/v1/chat/completions", "Content-Length: 104857600\r\n"))

        def push():
            block = b"x" * (1 << 20)
            try:
                for _ in range(100):
                    s.sendall(block)
            except OSError:
                pass  # the server closed after answering
        pusher = threading.Thread(target=push, daemon=True)
        start = time.monotonic()
        pusher.start()
        raw = read_until_quiet(s, timeout=10)
        assert time.monotonic() - start < 5
    pusher.join(timeout=10)
    assert status_of(raw) == 413
    assert_serves(server)


def test_chunked_body_over_limit_is_413_as_soon_as_it_passes(server):
    sent = 0
    raw = b""
    with server.connect() as s:
        s.sendall(request_head("/v1/chat/completions", "Transfer-Encoding: chunked\r\n"))
        block = b"x" * (1 << 20)
        frame = b"%x\r\n" % len(block) + block + b"\r\n"
        try:
            while sent < 100 * len(block):
                s.sendall(frame)
                sent += len(block)
                if select.select([s], [], [], 0.05)[0]:
                    break
        except OSError:
            pass
        raw = read_until_quiet(s, timeout=5)
    assert status_of(raw) == 413
    # Stopped near the limit, not after 100 MB (socket buffers hold a few MiB in flight).
    assert sent <= MAX_BODY + (16 << 20)
    assert_serves(server)


# ---- deadlines ------------------------------------------------------------------------------

def test_headers_one_byte_at_a_time_are_dropped_at_the_deadline(server):
    head = b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"z" * 200 + b"\r\n\r\n"
    with server.connect() as s:
        start = time.monotonic()
        closed_at = None
        for i, byte in enumerate(head):
            try:
                s.sendall(bytes([byte]))
            except OSError:
                closed_at = time.monotonic()
                break
            if select.select([s], [], [], 0.25)[0]:
                data = s.recv(4096)
                assert data == b"" or status_of(data) is None, data  # no answer, a close
                closed_at = time.monotonic()
                break
            if i == 3:
                # A slow client holds one connection, not the server.
                assert_serves(server)
    assert closed_at is not None, "the slow client was never dropped"
    elapsed = closed_at - start
    assert HEADER_TIMEOUT_S - 0.5 <= elapsed <= HEADER_TIMEOUT_S + 2.0, elapsed
    assert_serves(server)


def test_slow_body_is_dropped_at_the_deadline(server):
    with server.connect() as s:
        s.sendall(request_head("/v1/chat/completions", "Content-Length: 1000\r\n"))
        s.sendall(b'{"model": ')
        start = time.monotonic()
        data = read_until_quiet(s, timeout=10, quiet=10)
        elapsed = time.monotonic() - start
    assert data == b"" or status_of(data) is None
    assert elapsed <= 2 + 2.0, elapsed
    assert_serves(server)


def test_idle_keep_alive_connection_is_closed(server):
    with server.connect() as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        first = read_until_quiet(s, timeout=5, quiet=0.5)
        assert status_of(first) == 200
        start = time.monotonic()
        rest = read_until_quiet(s, timeout=IDLE_TIMEOUT_S + 5, quiet=IDLE_TIMEOUT_S + 5)
        elapsed = time.monotonic() - start
    assert rest == b""
    assert IDLE_TIMEOUT_S - 1 <= elapsed <= IDLE_TIMEOUT_S + 2, elapsed


# ---- disconnects and load ---------------------------------------------------------------------

def test_disconnect_mid_stream_frees_the_sequence(server):
    kv_before = metric(server, "zen_kv_blocks_used")
    body = json.dumps(chat_body(server, max_tokens=200, stream=True, ignore_eos=True)).encode()
    with server.connect() as s:
        s.sendall(request_head("/v1/chat/completions", f"Content-Length: {len(body)}\r\n") + body)
        got = b""
        while b"data: " not in got:
            chunk = s.recv(4096)
            assert chunk, got
            got += chunk
        assert b"text/event-stream" in got
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if (metric(server, "zen_running_sequences") == 0
                and metric(server, "zen_kv_blocks_used") == kv_before):
            break
        time.sleep(0.05)
    # The server's own account (the request's log lines) says which step did not happen.
    log_tail = "\n".join(server.lines[-20:])
    assert metric(server, "zen_running_sequences") == 0, log_tail
    assert metric(server, "zen_kv_blocks_used") == kv_before, log_tail
    assert_serves(server)


def test_queue_full_is_429_with_retry_after(busy_server):
    body = json.dumps(chat_body(busy_server, max_tokens=200, stream=True,
                                ignore_eos=True)).encode()
    request = request_head("/v1/chat/completions",
                           f"Content-Length: {len(body)}\r\nConnection: close\r\n") + body
    sockets = [busy_server.connect() for _ in range(8)]
    for s in sockets:  # all at once: one runs, one waits, the rest find the queue full
        s.sendall(request)
    answers = [read_until_quiet(s, timeout=30, quiet=30) for s in sockets]
    for s in sockets:
        s.close()
    statuses = [status_of(a) for a in answers]
    assert 429 in statuses and 200 in statuses, statuses
    for a in answers:
        if status_of(a) == 429:
            head, payload = a.split(b"\r\n\r\n", 1)
            retry = [line for line in head.split(b"\r\n") if line.lower().startswith(b"retry-after:")]
            assert retry and int(retry[0].split(b":")[1]) >= 1, head
            assert error_of(payload)["type"] == "server_overloaded"
    assert_serves(busy_server)


# ---- access control ---------------------------------------------------------------------------

def test_api_key_is_required_where_it_should_be(keyed_server):
    s = keyed_server
    for headers in [{}, {"Authorization": "Bearer wrong"}, {"x-api-key": API_KEY[:-1]},
                    {"Authorization": API_KEY}]:
        status, resp_headers, raw = http_request(s, "GET", "/v1/models", headers=headers)
        assert status == 401, headers
        assert error_of(raw)["code"] == "invalid_api_key"
    for path in ["/metrics", "/v1/models"]:
        assert http_request(s, "GET", path)[0] == 401
    status, _, _ = http_request(s, "POST", "/tokenize", {"content": "hi"})
    assert status == 401
    for path in ["/health", "/ready"]:
        assert http_request(s, "GET", path)[0] == 200
    assert http_request(s, "GET", "/metrics", headers={"x-api-key": API_KEY})[0] == 200
    assert_serves(s, headers={"Authorization": f"Bearer {API_KEY}"})
    assert_serves(s, headers={"x-api-key": API_KEY})


def test_cors_preflight_and_allow_origin(server):
    preflight = {"Origin": ALLOWED_ORIGIN, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"}
    status, headers, _ = http_request(server, "OPTIONS", "/v1/chat/completions",
                                      headers=preflight)
    assert status == 204
    assert headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    assert "POST" in headers["access-control-allow-methods"]
    assert "authorization" in headers["access-control-allow-headers"].lower()
    assert int(headers["access-control-max-age"]) > 0

    denied = dict(preflight, Origin="https://evil.example")
    status, headers, _ = http_request(server, "OPTIONS", "/v1/chat/completions", headers=denied)
    assert status == 403
    assert "access-control-allow-origin" not in headers

    status, headers, _ = http_request(server, "GET", "/v1/models",
                                      headers={"Origin": ALLOWED_ORIGIN})
    assert status == 200 and headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    # A foreign origin is refused outright (tests/server/test_http_security.py has the rest).
    status, headers, _ = http_request(server, "GET", "/v1/models",
                                      headers={"Origin": "https://evil.example"})
    assert status == 403 and "access-control-allow-origin" not in headers


# ---- probes and routing -------------------------------------------------------------------------

def test_health_ready_and_metrics(server):
    status, headers, raw = http_request(server, "GET", "/health")
    assert status == 200 and json.loads(raw) == {"status": "ok"}
    status, _, raw = http_request(server, "GET", "/ready")
    assert status == 200 and json.loads(raw)["ready"] is True
    status, headers, raw = http_request(server, "GET", "/metrics")
    assert status == 200
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    text = raw.decode()
    for name in ["zen_queue_depth", "zen_running_sequences", "zen_kv_blocks_used",
                 "zen_kv_blocks_total", "zen_prefix_cache_hit_tokens_total",
                 "zen_time_to_first_token_seconds_bucket"]:
        assert f"\n{name}" in text or text.startswith(name), name
    assert "# TYPE zen_time_to_first_token_seconds histogram" in text


def test_unknown_path_is_404_and_wrong_method_405(server):
    status, _, raw = http_request(server, "GET", "/v1/nothing-here")
    assert status == 404
    error = error_of(raw)
    assert error["type"] == "invalid_request_error" and "/v1/nothing-here" in error["message"]
    status, headers, raw = http_request(server, "GET", "/v1/chat/completions")
    assert status == 405 and headers["allow"] == "POST"
    assert error_of(raw)["code"] == "method_not_allowed"
    status, headers, _ = http_request(server, "POST", "/health", {})
    assert status == 405 and headers["allow"] == "GET"
    status, _, raw = http_request(server, "GET", "/v1/models/no-such-model")
    assert status == 404 and error_of(raw)["code"] == "model_not_found"


# ---- the wire itself --------------------------------------------------------------------------

GARBAGE = random.Random(5).randbytes(4096)


@pytest.mark.parametrize("data,expected", [
    (GARBAGE, {400, None}),
    (b"\r\n\r\n\r\n", {400, None}),
    (b"GET /health HTTP/9.9\r\nHost: localhost\r\n\r\n", {400, None}),
    (b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n",
     {431, None}),
    (b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n\r\n", {431, None}),
    (b"POST /tokenize HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n{}", {400, None}),
    (b"POST /tokenize HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
     b"Content-Length: 3\r\n\r\n{}", {400, None}),
    (b"POST /tokenize HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", {400, None}),
    (b"GET /health HTTP/1.1\r\nHost: localhost\r\nBad\x00Header: x\r\n\r\n", {400, None}),
])
def test_hostile_bytes_get_400_or_a_close(server, data, expected):
    raw = raw_exchange(server, data)
    assert status_of(raw) in expected, raw[:200]
    assert_serves(server)


def test_http10_and_absolute_uri_are_served(server):
    raw = raw_exchange(server, b"GET /health HTTP/1.0\r\n\r\n")
    assert status_of(raw) == 200 and raw.endswith(b'{"status":"ok"}')  # then closed
    host = f"{server.host}:{server.port}".encode()
    raw = raw_exchange(server, b"GET http://" + host + b"/health?x=1 HTTP/1.1\r\nHost: " + host +
                       b"\r\nConnection: close\r\n\r\n")
    assert status_of(raw) == 200


def test_pipelined_requests_are_answered_in_order(server):
    raw = raw_exchange(server, b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
                               b"GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n"
                               b"GET /health HTTP/1.1\r\nHost: localhost\r\n"
                               b"Connection: close\r\n\r\n")
    # Bodies are not newline-terminated: the next status line follows the previous body.
    statuses = [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", raw)]
    assert statuses == [200, 404, 200]
