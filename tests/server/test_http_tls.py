"""serve --ssl-cert/--ssl-key: the real server speaks HTTPS (TLS 1.2+ through Boost.Beast and
OpenSSL) with a self-signed certificate made here by the openssl command, on the OpenAI port and
on the MCP port (--mcp-port); Python's ssl module (urllib, raw sockets) and the official `mcp`
SDK talk to it."""
import asyncio
import json
import re
import shutil
import socket
import ssl
import subprocess

import pytest

from conftest import ZenServer, clean_env, engine_path, http_request, model_id


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl command is not installed (it makes the test certificate)")
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


@pytest.fixture(scope="module")
def server(tiny_model, certificate):
    cert, key = certificate
    context = ssl.create_default_context(cafile=str(cert))
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--ssl-cert", cert, "--ssl-key", key],
                  ssl_context=context)
    yield s
    s.stop()


def test_https_serves_chat_and_a_stream_and_announces_https(server):
    assert any("serving on https://" in line for line in server.lines), server.lines
    chat = {"model": model_id(server), "max_tokens": 2,
            "messages": [{"role": "user", "content": "Hi"}]}
    status, _, body = http_request(server, "POST", "/v1/chat/completions", chat)
    assert status == 200, body
    assert json.loads(body)["object"] == "chat.completion"
    status, headers, body = http_request(server, "POST", "/v1/chat/completions",
                                         dict(chat, stream=True))
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert body.rstrip().endswith(b"data: [DONE]")


def test_plain_http_to_the_tls_port_gets_no_answer_and_the_server_goes_on(server):
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        s.settimeout(10)
        try:
            data = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            data = b""
    assert not data.startswith(b"HTTP/1.1 200")
    assert http_request(server, "GET", "/health")[0] == 200


def test_a_client_that_does_not_trust_the_certificate_is_refused(server):
    with pytest.raises(ssl.SSLCertVerificationError):
        with socket.create_connection((server.host, server.port), timeout=10) as raw:
            with ssl.create_default_context().wrap_socket(raw, server_hostname="localhost"):
                pass


def test_a_missing_key_file_is_a_clear_start_error(tiny_model, certificate, tmp_path):
    cert, _ = certificate
    proc = subprocess.run([engine_path(), "serve", "-m", tiny_model, "--port", "0",
                           "--ssl-cert", cert, "--ssl-key", tmp_path / "missing.pem"],
                          capture_output=True, text=True, timeout=60, env=clean_env())
    assert proc.returncode != 0
    assert "cannot use the TLS key" in proc.stderr, proc.stderr
    proc = subprocess.run([engine_path(), "serve", "-m", tiny_model, "--port", "0",
                           "--ssl-cert", cert], capture_output=True, text=True, timeout=60,
                          env=clean_env())
    assert proc.returncode != 0
    assert "ssl_key" in proc.stderr, proc.stderr


# ---- the MCP port (--mcp-port) is served over TLS with the same certificate ---------------------

@pytest.fixture(scope="module")
def mcp_server(tiny_model, certificate):
    cert, key = certificate
    context = ssl.create_default_context(cafile=str(cert))
    s = ZenServer(["-m", tiny_model, "--threads", "1", "--ssl-cert", cert, "--ssl-key", key,
                   "--mcp-port", "0"], ssl_context=context)
    line = s.wait_for_log(r"serving on \S+/mcp")
    s.mcp_url = re.search(r"serving on (\S+/mcp)", line).group(1)
    s.mcp_port = int(s.mcp_url.rsplit(":", 1)[1].split("/")[0])
    s.https_url = f"https://127.0.0.1:{s.mcp_port}/mcp"  # whatever the line says
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


def mcp_initialize_bytes(port):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}).encode()
    return (f"POST /mcp HTTP/1.1\r\nHost: localhost:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode() + body


def test_the_mcp_port_announces_https(mcp_server):
    assert mcp_server.mcp_url == mcp_server.https_url, mcp_server.lines


def test_the_mcp_sdk_calls_tools_over_tls(mcp_server):
    mcp = pytest.importorskip("mcp")
    httpx2 = pytest.importorskip("httpx2")
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(verify=mcp_server.ssl_context, timeout=60) as http:
            transport = streamable_http_client(mcp_server.https_url, http_client=http)
            async with mcp.Client(transport) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                tokens = await client.call_tool("tokenize", {"text": "hello world"})
                return tools, tokens
    tools, tokens = asyncio.run(main())
    assert {"chat", "tokenize"} <= tools
    assert not tokens.is_error and tokens.structured_content["count"] > 0


def test_an_mcp_initialize_over_a_raw_tls_socket_opens_a_session(mcp_server):
    with socket.create_connection(("127.0.0.1", mcp_server.mcp_port), timeout=10) as raw:
        with mcp_server.ssl_context.wrap_socket(raw, server_hostname="localhost") as s:
            assert s.version() in ("TLSv1.2", "TLSv1.3")
            s.sendall(mcp_initialize_bytes(mcp_server.mcp_port))
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    assert b"mcp-session-id:" in answer.lower() and b'"protocolVersion"' in answer


def test_plain_http_to_the_mcp_tls_port_gets_no_answer_and_the_port_goes_on(mcp_server):
    with socket.create_connection(("127.0.0.1", mcp_server.mcp_port), timeout=10) as s:
        s.sendall(mcp_initialize_bytes(mcp_server.mcp_port))
        s.settimeout(10)
        try:
            data = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            data = b""
    assert not data.startswith(b"HTTP/1.1"), data[:300]
    with socket.create_connection(("127.0.0.1", mcp_server.mcp_port), timeout=10) as raw:
        with mcp_server.ssl_context.wrap_socket(raw, server_hostname="localhost") as s:
            s.sendall(mcp_initialize_bytes(mcp_server.mcp_port))
            assert s.recv(4096).startswith(b"HTTP/1.1 200")


def test_an_mcp_client_that_does_not_trust_the_certificate_is_refused(mcp_server):
    with pytest.raises(ssl.SSLCertVerificationError):
        with socket.create_connection(("127.0.0.1", mcp_server.mcp_port), timeout=10) as raw:
            with ssl.create_default_context().wrap_socket(raw, server_hostname="localhost"):
                pass


def test_an_mcp_section_with_half_a_tls_pair_is_a_clear_start_error(tiny_model, certificate,
                                                                    tmp_path):
    cert, _ = certificate
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"frontend": {"mcp": {"ssl_cert": str(cert)}}}))
    proc = subprocess.run([engine_path(), "--config", config, "serve", "-m", tiny_model,
                           "--port", "0", "--mcp-port", "0"], capture_output=True, text=True,
                          timeout=60, env=clean_env())
    assert proc.returncode != 0
    assert "frontend.mcp.ssl_key" in proc.stderr, proc.stderr
