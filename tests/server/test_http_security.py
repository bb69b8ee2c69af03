"""What a web page (or anyone who can reach the port) must not be able to make the real server
do (zen-engine serve + http frontend + tiny qwen3 model), sent as raw bytes on a socket so the
test controls every header a browser could send: cross-site "simple" requests (text/plain or
form bodies, which a browser sends without a CORS preflight), foreign Origins, and DNS
rebinding (a page whose own host name now resolves to 127.0.0.1, so its requests carry
`Host: evil.example`)."""
import json
import subprocess

import pytest

from conftest import ZenServer, clean_env, engine_path, model_id, raw_exchange, status_of

EVIL = "http://evil.example"


@pytest.fixture(scope="module")
def server(tiny_model):
    s = ZenServer(["-m", tiny_model, "--threads", "1"])
    yield s
    s.stop()


def raw_request(server, method, path, body=b"", headers=None, host=None):
    """One HTTP/1.1 request as bytes; `host` None means the server's own address."""
    lines = [f"{method} {path} HTTP/1.1",
             f"Host: {host if host is not None else f'127.0.0.1:{server.port}'}",
             "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def exchange(server, method, path, body=b"", headers=None, host=None):
    """(status, response head text, body bytes) of one raw request."""
    raw = raw_exchange(server, raw_request(server, method, path, body, headers, host))
    head, _, rest = raw.partition(b"\r\n\r\n")
    return status_of(raw), head.decode(errors="replace").lower(), rest


def chat_bytes(server):
    return json.dumps({"model": model_id(server), "max_tokens": 2,
                       "messages": [{"role": "user", "content": "Hi"}]}).encode()


def error_code(body):
    return json.loads(body)["error"]["code"]


# ---- content types: a browser sends these cross-site without asking ------------------------

@pytest.mark.parametrize("content_type", [None, "text/plain", "text/plain;charset=UTF-8",
                                          "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
def test_a_body_that_is_not_declared_json_is_415(server, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    for path in ["/v1/chat/completions", "/v1/completions", "/tokenize"]:
        status, _, body = exchange(server, "POST", path, chat_bytes(server), headers)
        assert status == 415, (path, body)
        assert error_code(body) == "unsupported_media_type"


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "Application/JSON", "application/vnd.api+json"])
def test_json_content_types_are_served(server, content_type):
    status, _, body = exchange(server, "POST", "/v1/chat/completions", chat_bytes(server),
                               {"Content-Type": content_type})
    assert status == 200, body
    assert json.loads(body)["object"] == "chat.completion"


# ---- origins ------------------------------------------------------------------------------

def test_a_foreign_origin_is_403_on_every_endpoint(server):
    for method, path, body in [("POST", "/v1/chat/completions", chat_bytes(server)),
                               ("GET", "/v1/models", b""), ("GET", "/metrics", b""),
                               ("OPTIONS", "/v1/chat/completions", b"")]:
        status, head, raw = exchange(server, method, path, body,
                                     {"Origin": EVIL, "Content-Type": "application/json"})
        assert status == 403, (method, path, raw)
        assert error_code(raw) == "origin_not_allowed"
        assert "access-control-allow-origin" not in head


def test_a_localhost_origin_is_served_with_cors_headers(server):
    origin = "http://localhost:5173"
    status, head, body = exchange(server, "POST", "/v1/chat/completions", chat_bytes(server),
                                  {"Origin": origin, "Content-Type": "application/json"})
    assert status == 200, body
    assert f"access-control-allow-origin: {origin}" in head


# ---- DNS rebinding: Host must name the loopback address this server listens on ---------------

@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.nip.io",
                                  "localhost.evil.example:{port}", "10.0.0.1:{port}",
                                  "localhost:x"])
def test_a_foreign_host_is_403(server, host):
    status, _, body = exchange(server, "POST", "/v1/chat/completions", chat_bytes(server),
                               {"Content-Type": "application/json"},
                               host=host.format(port=server.port))
    assert status == 403, body
    assert error_code(body) == "host_not_allowed"
    status, _, body = exchange(server, "GET", "/v1/models", host=host.format(port=server.port))
    assert status == 403


@pytest.mark.parametrize("host", ["localhost", "localhost:{port}", "LOCALHOST:{port}",
                                  "127.0.0.1:{port}", "[::1]:{port}", "127.0.0.1"])
def test_loopback_hosts_are_served(server, host):
    status, _, body = exchange(server, "GET", "/v1/models", host=host.format(port=server.port))
    assert status == 200, body


def test_an_http10_request_without_host_is_served(server):
    raw = raw_exchange(server, b"GET /health HTTP/1.0\r\n\r\n")
    assert status_of(raw) == 200


def test_a_server_on_every_interface_takes_any_host(tiny_model):
    """The Host check guards loopback servers only: one bound to 0.0.0.0 is reached by names
    it cannot know."""
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--host", "0.0.0.0"])
    try:
        s.host = "127.0.0.1"
        status, _, body = exchange(s, "GET", "/v1/models", host="inference.example.com")
        assert status == 200, body
    finally:
        s.stop()


# ---- the MCP port (serve --mcp-port) gets the same guards -----------------------------------

@pytest.fixture(scope="module")
def mcp_port(tiny_model):
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--mcp-port", "0"])
    line = s.wait_for_log(r"serving on http://\S+/mcp")
    s.port = int(line.rsplit(":", 1)[1].split("/")[0])  # raw requests go to the MCP port
    yield s
    s.stop()


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}).encode()
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def test_mcp_port_refuses_a_rebound_host_and_non_json_bodies(mcp_port):
    json_headers = dict(MCP_HEADERS, **{"Content-Type": "application/json"})
    status, _, body = exchange(mcp_port, "POST", "/mcp", INITIALIZE, json_headers,
                               host=f"evil.example:{mcp_port.port}")
    assert status == 403, body
    assert "Host" in json.loads(body)["error"]["message"]
    status, _, body = exchange(mcp_port, "POST", "/mcp", INITIALIZE,
                               dict(MCP_HEADERS, **{"Content-Type": "text/plain"}))
    assert status == 415, body
    status, _, body = exchange(mcp_port, "POST", "/mcp", INITIALIZE, json_headers)
    assert status == 200, body


# ---- exposure ---------------------------------------------------------------------------------

def test_v1_models_shows_no_file_paths(server, tiny_model):
    status, _, body = exchange(server, "GET", "/v1/models")
    assert status == 200
    assert str(tiny_model.parent).encode() not in body
    (model,) = json.loads(body)["data"]
    assert model["meta"]["file"] == tiny_model.name
    assert "path" not in model["meta"]


def test_every_interface_without_a_key_warns_loudly(tiny_model):
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--host", "0.0.0.0", "--mcp-port", "0"])
    try:
        warnings = [line for line in s.lines if "WARNING" in line]
        assert any("http" in w and "no API key" in w for w in warnings), s.lines
        assert any("mcp" in w and "no API key" in w for w in warnings), s.lines
    finally:
        s.stop()
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--host", "0.0.0.0", "--api-key", "k"])
    try:
        assert not [line for line in s.lines if "WARNING" in line], s.lines
    finally:
        s.stop()
    s = ZenServer(["-m", tiny_model, "--threads", "1"])  # loopback: no warning needed
    try:
        assert not [line for line in s.lines if "WARNING" in line], s.lines
    finally:
        s.stop()


def test_api_key_file(tiny_model, tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text("  sesame-from-a-file \n")
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--api-key-file", key_file])
    try:
        assert exchange(s, "GET", "/v1/models")[0] == 401
        status, _, body = exchange(s, "GET", "/v1/models",
                                   headers={"Authorization": "Bearer sesame-from-a-file"})
        assert status == 200, body
    finally:
        s.stop()
    proc = subprocess.run([engine_path(), "serve", "-m", tiny_model, "--port", "0",
                           "--api-key-file", tmp_path / "missing"], capture_output=True,
                          text=True, timeout=60, env=clean_env())
    assert proc.returncode != 0
    assert "--api-key-file" in proc.stderr and "cannot be read" in proc.stderr, proc.stderr
