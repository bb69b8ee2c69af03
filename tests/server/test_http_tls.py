"""serve --ssl-cert/--ssl-key: the real server speaks HTTPS (TLS 1.2+ through Boost.Beast and
OpenSSL) with a self-signed certificate made here by the openssl command; Python's ssl module
(urllib, raw sockets) talks to it."""
import json
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
