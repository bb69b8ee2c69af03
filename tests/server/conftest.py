"""Fixtures for the real server: `zen-engine serve` with the real plugins and model files,
started on an ephemeral port (the port is read from the "http: listening on HOST:PORT" line
the http frontend prints on stderr)."""
import json
import os
import re
import queue
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

# ======== http frontend fixtures: servers, raw HTTP and JSON helpers ====================


@pytest.fixture(scope="session")
def zen_engine():
    path = os.environ.get("ZEN_ENGINE")
    if not path or not Path(path).exists():
        pytest.fail("ZEN_ENGINE must point at the built zen-engine (run through ctest)")
    return path


@pytest.fixture(scope="session")
def source_dir():
    return Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def clean_env(**extra):
    """The environment without any ZEN_* setting the developer may have, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEN_")}
    env["XDG_CONFIG_HOME"] = "/nonexistent-zen-test-config"
    env.update(extra)
    return env


LISTENING = re.compile(r"http: listening on (\S+):(\d+)")
START_TIMEOUT_S = 60


class Server:
    """A running `zen-engine serve`; stop() ends it (SIGTERM, then SIGKILL)."""

    def __init__(self, proc, host, port):
        self.proc = proc
        self.host = host.strip("[]")
        self.port = port
        self.base_url = f"http://{host}:{port}"
        self.stderr_lines = []

    def url(self, path):
        return self.base_url + path

    def connect(self, timeout=10):
        return socket.create_connection((self.host, self.port), timeout=timeout)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_server(zen_engine, model, *args, http_config=None, tmp_path=None):
    """Starts `serve -m model --port 0 args...`; http_config (a dict) goes into a --config
    file as the frontend.http section."""
    config = []
    if http_config is not None:
        path = Path(tmp_path) / f"http-config-{len(os.listdir(tmp_path))}.json"
        path.write_text(json.dumps({"frontend": {"http": http_config}}))
        config = ["--config", str(path)]  # a global option: before the command
    cmd = [zen_engine, *config, "serve", "-m", str(model), "--port", "0", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=clean_env())
    lines = queue.Queue()
    # One reader for the whole life of the process: the server never blocks on a full pipe.
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stderr] + [lines.put(None)],
                     daemon=True).start()
    seen = []
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            break  # the process ended
        seen.append(line)
        m = LISTENING.search(line)
        if m:
            server = Server(proc, m.group(1), int(m.group(2)))
            server.stderr_lines = seen
            wait_ready(server)
            return server
    proc.kill()
    pytest.fail(f"{' '.join(cmd)} did not start listening:\n{''.join(seen)}")


def wait_ready(server, timeout=START_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _, _ = http_request(server, "GET", "/ready")
        if status == 200:
            return
        time.sleep(0.1)
    pytest.fail("the server never became ready")


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
        with urllib.request.urlopen(req, timeout=timeout) as resp:
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


@pytest.fixture(scope="session")
def tiny_model(source_dir):
    return source_dir / "tests" / "data" / "models" / "tiny" / "qwen3.gguf"


@pytest.fixture(scope="session")
def openai_module():
    try:
        import openai
    except ImportError:
        pytest.skip("the openai package is not installed (pip install openai)")
    return openai

# ======== end of http frontend fixtures ========


# ---- openai-package tests: a real `zen-engine serve` process for the openai-package tests ----------
import re as _h3_re
import signal as _h3_signal
import subprocess as _h3_subprocess
import threading as _h3_threading
import time as _h3_time
import urllib.error as _h3_urlerror
import urllib.request as _h3_urlrequest


class ZenServer:
    """`zen-engine serve ARGS --port 0` in the background: its URL (from the "serving on" line),
    every stderr line kept (request logs), /ready awaited, stopped with SIGINT."""

    def __init__(self, args, env=None, ready_timeout=120):
        engine = os.environ.get("ZEN_ENGINE")
        if not engine or not Path(engine).exists():
            pytest.fail("ZEN_ENGINE must point at the built zen-engine (run through ctest)")
        self.lines = []
        self._cond = _h3_threading.Condition()
        self.proc = _h3_subprocess.Popen(
            [engine, "serve", *map(str, args), "--port", "0"], stdin=_h3_subprocess.DEVNULL,
            stdout=_h3_subprocess.DEVNULL, stderr=_h3_subprocess.PIPE, text=True,
            env=env or clean_env())
        self._reader = _h3_threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        line = self.wait_for_log(r"serving on (http://\S+)", timeout=60)
        self.url = _h3_re.search(r"serving on (http://\S+)", line).group(1)
        self._wait_ready(ready_timeout)

    def _read(self):
        for line in self.proc.stderr:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_for_log(self, pattern, timeout=30, start=0):
        """The first stderr line from index `start` on matching `pattern` (fails on timeout or
        when the process exits first)."""
        deadline = _h3_time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[start:]:
                    if _h3_re.search(pattern, line):
                        return line
                if self.proc.poll() is not None and not self._reader.is_alive():
                    pytest.fail(f"zen-engine serve exited {self.proc.returncode} before "
                                f"logging /{pattern}/:\n" + "\n".join(self.lines))
                left = deadline - _h3_time.monotonic()
                if left <= 0:
                    pytest.fail(f"no log line /{pattern}/ within {timeout} s:\n" +
                                "\n".join(self.lines))
                self._cond.wait(min(left, 0.2))

    def _wait_ready(self, timeout):
        deadline = _h3_time.monotonic() + timeout
        while _h3_time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"zen-engine serve exited {self.proc.returncode}:\n" +
                            "\n".join(self.lines))
            try:
                with _h3_urlrequest.urlopen(self.url + "/ready", timeout=5) as r:
                    if r.status == 200:
                        return
            except (_h3_urlerror.URLError, ConnectionError, OSError):
                pass
            _h3_time.sleep(0.05)
        pytest.fail(f"/ready not 200 within {timeout} s:\n" + "\n".join(self.lines))

    def client(self, **kw):
        import openai
        return openai.OpenAI(base_url=self.url + "/v1", api_key=kw.pop("api_key", "unused"),
                             max_retries=0, timeout=kw.pop("timeout", 60), **kw)

    def stop(self, timeout=30):
        """SIGINT, then the exit code (the server must stop by itself within `timeout`)."""
        if self.proc.poll() is None:
            self.proc.send_signal(_h3_signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout)
            except _h3_subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                pytest.fail("zen-engine serve did not stop within %d s of SIGINT" % timeout)
        self._reader.join(timeout=5)
        return self.proc.returncode


@pytest.fixture(scope="session")
def tiny_models_dir():
    return Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[2])) / \
        "tests" / "data" / "models" / "tiny"
# ---- end of openai-package fixtures ----
