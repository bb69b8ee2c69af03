"""zen-engine pull / list / rm against the real binary: local files, a loopback HTTP(S)
server written here (http.server in a thread) standing in for plain URLs, the Hugging Face
Hub and an Ollama registry. The expected digests and file types come from
tests/data/models/tiny/manifest.json (written when the fixtures were made), not from the
code under test."""
import hashlib
import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ENGINE = os.environ.get("ZEN_ENGINE", "zen-engine")
SOURCE = Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[2]))
TINY = SOURCE / "tests" / "data" / "models" / "tiny"
MANIFEST = {m["name"]: m for m in json.loads((TINY / "manifest.json").read_text())["models"]}

LLAMA = (TINY / "llama.gguf").read_bytes()
LLAMA_SHA = MANIFEST["llama"]["sha256"]
QWEN = (TINY / "qwen3.gguf").read_bytes()
QWEN_SHA = MANIFEST["qwen3"]["sha256"]


# ---- the loopback server ----------------------------------------------------------------

class Route:
    """What the server answers on one path."""

    def __init__(self, body=b"", status=200, headers=None, cut_first=False, ranges=True):
        self.body, self.status, self.headers = body, status, dict(headers or {})
        self.cut_first = cut_first  # first GET: announce the full length, send half, hang up
        self.ranges = ranges
        self.hits = 0


class Server:
    def __init__(self, tls_context=None):
        self.routes = {}
        self.requests = []  # (path, {header: value}) in arrival order
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                route = server.routes.get(self.path)
                if route is None:
                    return self.reply(404, b"no such file\n")
                route.hits += 1
                if route.status != 200:
                    return self.reply(route.status, route.body, route.headers)
                body = route.body
                if route.cut_first and route.hits == 1:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[: len(body) // 2])
                    self.close_connection = True  # the socket closes when this returns
                    return
                wanted = self.headers.get("Range")
                if wanted and route.ranges:
                    start = int(wanted.removeprefix("bytes=").split("-")[0])
                    if start >= len(body):
                        return self.reply(416, b"", {"Content-Range": f"bytes */{len(body)}"})
                    headers = dict(route.headers)
                    headers["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
                    return self.reply(206, body[start:], headers)
                self.reply(200, body, route.headers)

            def reply(self, status, body, headers=None):
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if tls_context:
            self.httpd.socket = tls_context.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path, host="127.0.0.1"):
        return f"{self.scheme}://{host}:{self.port}{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture
def store(tmp_path):
    d = tmp_path / "models"
    return d


def env_for(store, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ZEN_") and k not in ("HF_TOKEN", "SSL_CERT_FILE", "SSL_CERT_DIR")}
    env["ZEN_MODELS_DIR"] = str(store)
    env.update(extra)
    return env


def zen(store, *args, **env):
    return subprocess.run([ENGINE, *map(str, args)], capture_output=True, text=True,
                          env=env_for(store, **env), timeout=120)


def files_in(store):
    return sorted(p.name for p in store.iterdir()) if store.exists() else []


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ---- local files, list, rm --------------------------------------------------------------

def test_local_pull_list_and_rm(store):
    r = zen(store, "pull", TINY / "llama_f16.gguf", "--name", "tiny-llama",
            "--sha256", MANIFEST["llama_f16"]["sha256"].upper())
    assert r.returncode == 0, r.stderr
    assert MANIFEST["llama_f16"]["sha256"] in r.stdout and "verified" in r.stdout
    assert files_in(store) == ["tiny-llama.gguf"]
    assert sha256_of(store / "tiny-llama.gguf") == MANIFEST["llama_f16"]["sha256"]

    zen(store, "pull", TINY / "qwen3.gguf")  # default name: the file stem
    ran = zen(store, "run", "-m", "qwen3", "-p", "Hi", "-n", "2", "--temp", "0", "-t", "2")
    assert ran.returncode == 0, ran.stderr  # a store name works wherever a path does
    listing = zen(store, "list")
    assert listing.returncode == 0, listing.stderr
    rows = [line.split() for line in listing.stdout.splitlines()]
    assert rows[0] == ["NAME", "SIZE", "ARCH", "QUANT"]
    assert rows[1][0] == "qwen3" and rows[1][-2:] == ["qwen3", MANIFEST["qwen3"]["file_type"]]
    assert rows[2][0] == "tiny-llama" and rows[2][-2:] == ["llama", "F16"]

    j = json.loads(zen(store, "list", "--json").stdout)
    assert j["models_dir"] == str(store)
    by_name = {m["name"]: m for m in j["models"]}
    assert by_name["tiny-llama"] == {
        "name": "tiny-llama", "path": str(store / "tiny-llama.gguf"),
        "size": MANIFEST["llama_f16"]["bytes"], "valid": True, "architecture": "llama",
        "quant": "F16"}

    again = zen(store, "pull", TINY / "llama_f16.gguf", "--name", "tiny-llama")
    assert again.returncode == 0 and "already in the store" in again.stdout

    r = zen(store, "rm", "tiny-llama")
    assert r.returncode == 0, r.stderr
    assert files_in(store) == ["qwen3.gguf"]
    r = zen(store, "rm", "tiny-llama")
    assert r.returncode == 1
    assert f"model 'tiny-llama' is not in {store}" in r.stderr


def test_list_shows_a_file_that_is_not_gguf_as_invalid(store):
    store.mkdir()
    (store / "page.gguf").write_text("<html>sign in</html>")
    shutil.copy(TINY / "llama.gguf", store / "good.gguf")
    r = zen(store, "list")
    assert r.returncode == 0, r.stderr
    line = next(line for line in r.stdout.splitlines() if line.startswith("page"))
    assert "invalid: bad magic" in line
    assert any(line.split()[0] == "good" and "llama" in line for line in r.stdout.splitlines())
    j = json.loads(zen(store, "list", "--json").stdout)
    page = next(m for m in j["models"] if m["name"] == "page")
    assert page["valid"] is False and "not a GGUF file" in page["error"]


def test_an_empty_store_says_how_to_fill_it(store):
    r = zen(store, "list")
    assert r.returncode == 0
    assert "no models in" in r.stdout and "zen-engine pull" in r.stdout


@pytest.mark.parametrize("name", ["..", "../evil", "a/b", "/tmp/evil", ".hidden", ""])
def test_names_that_are_paths_are_refused(store, tmp_path, name):
    r = zen(store, "pull", TINY / "llama.gguf", "--name", name)
    assert r.returncode == 1
    assert "invalid model name" in r.stderr
    assert files_in(store) == []
    assert not (tmp_path / "evil.gguf").exists() and not Path("/tmp/evil.gguf").exists()
    r = zen(store, "rm", name)
    assert r.returncode == 1 and "invalid model name" in r.stderr


def test_a_missing_local_file_is_a_clear_error(store):
    r = zen(store, "pull", "no/such/model.gguf")
    assert r.returncode == 1
    assert "no such file 'no/such/model.gguf'" in r.stderr


# ---- http(s) ----------------------------------------------------------------------------

def test_url_pull_follows_a_relative_redirect_and_verifies(store, server):
    server.routes["/dl/llama.gguf"] = Route(status=302, headers={"Location": "../files/x"})
    server.routes["/files/x"] = Route(LLAMA)
    r = zen(store, "pull", server.url("/dl/llama.gguf"), "--sha256", LLAMA_SHA)
    assert r.returncode == 0, r.stderr
    assert files_in(store) == ["llama.gguf"]
    assert sha256_of(store / "llama.gguf") == LLAMA_SHA
    # stderr is not a TTY: plain progress lines, the last one at 100%
    progress = [line for line in r.stderr.splitlines() if "%" in line]
    assert progress and "100%" in progress[-1] and len(progress) <= 11
    assert [p for p, _ in server.requests] == ["/dl/llama.gguf", "/files/x"]


def test_interrupted_download_resumes_with_a_range_request(store, server):
    server.routes["/m/qwen.gguf"] = Route(QWEN, cut_first=True)
    url = server.url("/m/qwen.gguf")
    first = zen(store, "pull", url)
    assert first.returncode == 1
    assert "connection closed" in first.stderr and "run the same pull again" in first.stderr
    half = len(QWEN) // 2
    assert (store / "qwen.partial").stat().st_size == half
    assert not (store / "qwen.gguf").exists()
    assert "incomplete download: qwen" in zen(store, "list").stdout

    second = zen(store, "pull", url)
    assert second.returncode == 0, second.stderr
    assert f"resuming at" in second.stderr
    assert server.requests[-1][1].get("range") == f"bytes={half}-"
    assert QWEN_SHA in second.stdout
    assert files_in(store) == ["qwen.gguf"]
    assert sha256_of(store / "qwen.gguf") == QWEN_SHA


def test_a_server_without_ranges_restarts_from_zero(store, server):
    server.routes["/m/qwen.gguf"] = Route(QWEN, cut_first=True, ranges=False)
    assert zen(store, "pull", server.url("/m/qwen.gguf")).returncode == 1
    r = zen(store, "pull", server.url("/m/qwen.gguf"), "--sha256", QWEN_SHA)
    assert r.returncode == 0, r.stderr
    assert sha256_of(store / "qwen.gguf") == QWEN_SHA


def test_a_partial_of_another_source_is_not_continued(store, server):
    server.routes["/a/m.gguf"] = Route(QWEN, cut_first=True)
    server.routes["/b/m.gguf"] = Route(LLAMA)
    assert zen(store, "pull", server.url("/a/m.gguf")).returncode == 1
    r = zen(store, "pull", server.url("/b/m.gguf"))
    assert r.returncode == 0, r.stderr
    assert "range" not in server.requests[-1][1]
    assert sha256_of(store / "m.gguf") == LLAMA_SHA


def test_a_wrong_sha256_is_refused_and_nothing_is_kept(store, server):
    server.routes["/llama.gguf"] = Route(LLAMA)
    wrong = "0" * 64
    r = zen(store, "pull", server.url("/llama.gguf"), "--sha256", wrong)
    assert r.returncode == 1
    assert "sha256 mismatch" in r.stderr and wrong in r.stderr and LLAMA_SHA in r.stderr
    assert files_in(store) == []
    bad = zen(store, "pull", server.url("/llama.gguf"), "--sha256", "abc")
    assert bad.returncode == 1 and "64 hex digits" in bad.stderr


def test_404_names_the_status_and_url(store, server):
    url = server.url("/nope/model.gguf")
    r = zen(store, "pull", url)
    assert r.returncode == 1
    assert f"HTTP 404 Not Found from {url}" in r.stderr
    assert files_in(store) == []


def test_a_download_that_is_not_gguf_is_refused(store, server):
    server.routes["/login.gguf"] = Route(b"<html>please sign in</html>")
    r = zen(store, "pull", server.url("/login.gguf"))
    assert r.returncode == 1
    assert "not a usable GGUF file" in r.stderr and "bad magic" in r.stderr
    assert files_in(store) == []


def test_too_many_redirects(store, server):
    for i in range(12):
        server.routes[f"/r{i}"] = Route(status=302, headers={"Location": f"/r{i + 1}"})
    r = zen(store, "pull", server.url("/r0"), "--name", "loop")
    assert r.returncode == 1 and "too many redirects (more than 10)" in r.stderr
    assert len(server.requests) == 11


def test_connection_refused_and_dns_failure_are_named(store):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens once closed
    r = zen(store, "pull", f"http://127.0.0.1:{port}/m.gguf")
    assert r.returncode == 1 and f"cannot connect to 127.0.0.1:{port}" in r.stderr
    # .invalid never resolves (RFC 6761)
    r = zen(store, "pull", "http://zen-engine-test.invalid/m.gguf")
    assert r.returncode == 1 and "cannot resolve host 'zen-engine-test.invalid'" in r.stderr


# ---- hf:// ------------------------------------------------------------------------------

def test_hugging_face_pull_with_token_digest_and_revision(store, server):
    # The Hub answers /resolve/ with a redirect to its CDN carrying X-Linked-Etag (the LFS
    # sha256); here the "CDN" is the same server under another host name, so the token must
    # not follow the redirect.
    cdn = server.url("/cdn/blob1", host="localhost")
    server.routes["/hf/acme/tiny-GGUF/resolve/main/sub/tiny-llama.gguf"] = Route(
        status=302, headers={"Location": cdn, "X-Linked-Etag": f'"{LLAMA_SHA}"'})
    server.routes["/cdn/blob1"] = Route(LLAMA)
    server.routes["/hf/acme/tiny-GGUF/resolve/v1.0/qwen.gguf"] = Route(QWEN)
    hf = {"ZEN_HF_ENDPOINT": server.url("/hf"), "HF_TOKEN": "hf_secret"}

    r = zen(store, "pull", "hf://acme/tiny-GGUF/sub/tiny-llama.gguf", **hf)
    assert r.returncode == 0, r.stderr
    assert "verified" in r.stdout
    assert sha256_of(store / "tiny-llama.gguf") == LLAMA_SHA
    (hub_path, hub_headers), (cdn_path, cdn_headers) = server.requests
    assert hub_headers["authorization"] == "Bearer hf_secret"
    assert cdn_path == "/cdn/blob1" and "authorization" not in cdn_headers

    r = zen(store, "pull", "hf://acme/tiny-GGUF/qwen.gguf@v1.0", **hf)
    assert r.returncode == 0, r.stderr
    assert files_in(store) == ["qwen.gguf", "tiny-llama.gguf"]


def test_hugging_face_digest_mismatch_is_refused(store, server):
    server.routes["/hf/acme/r/resolve/main/m.gguf"] = Route(
        LLAMA, headers={"X-Linked-Etag": f'"{QWEN_SHA}"'})
    r = zen(store, "pull", "hf://acme/r/m.gguf", ZEN_HF_ENDPOINT=server.url("/hf"))
    assert r.returncode == 1
    assert "sha256 mismatch" in r.stderr and QWEN_SHA in r.stderr and LLAMA_SHA in r.stderr
    assert files_in(store) == []


# ---- hf://owner/repo: a safetensors repository --------------------------------------------

TINY_HF = SOURCE / "tests" / "data" / "models" / "tiny_hf" / "qwen3"
LFS_NAMES = {"model.safetensors"}


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def hub_repo(server, repo="acme/tiny-qwen3", revision="main", tamper=None, cut=None):
    """Serves TINY_HF as the Hub would: /api/models/REPO/tree/REV lists the top-level files
    (LFS sha256 for weights, git blob ids for the rest) and /REPO/resolve/REV/FILE serves each
    weight file with the X-Linked-Etag the Hub sends. Files a model does not need are listed
    too (and must never be fetched)."""
    files = {p.name: p.read_bytes() for p in sorted(TINY_HF.iterdir())}
    files["README.md"] = b"# tiny\n"
    files["pytorch_model.bin"] = b"\0" * 64
    listing = [{"type": "directory", "oid": "0" * 40, "size": 0, "path": "onnx"}]
    for name, data in files.items():
        entry = {"type": "file", "oid": git_blob_id(data), "size": len(data), "path": name}
        if name in LFS_NAMES:
            entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data),
                            "pointerSize": 134}
        listing.append(entry)
    server.routes[f"/hf/api/models/{repo}/tree/{revision}"] = Route(json.dumps(listing).encode())
    for name, data in files.items():
        headers = {"X-Linked-Etag": f'"{hashlib.sha256(data).hexdigest()}"'} \
            if name in LFS_NAMES else {}
        body = tamper(name, data) if tamper else data
        server.routes[f"/hf/{repo}/resolve/{revision}/{name}"] = Route(
            body, headers=headers, cut_first=(name == cut))
    return files


def fetched(server):
    return sorted(p.rsplit("/", 1)[1] for p, _ in server.requests if "/resolve/" in p)


def test_a_hugging_face_repository_is_pulled_as_a_directory_and_loads(store, server):
    files = hub_repo(server)
    hf = {"ZEN_HF_ENDPOINT": server.url("/hf")}
    r = zen(store, "pull", "hf://acme/tiny-qwen3", **hf)
    assert r.returncode == 0, r.stderr
    assert "pulled tiny-qwen3" in r.stdout and "verified" in r.stdout
    wanted = sorted(p.name for p in TINY_HF.iterdir())
    assert fetched(server) == wanted  # no README, no pytorch_model.bin
    assert files_in(store) == ["tiny-qwen3"]
    for name in wanted:
        assert (store / "tiny-qwen3" / name).read_bytes() == files[name], name

    rows = [line.split() for line in zen(store, "list").stdout.splitlines()]
    assert rows[1][0] == "tiny-qwen3" and rows[1][-2:] == ["Qwen3ForCausalLM", "F32"]
    # The store name runs, as a GGUF's does.
    b = zen(store, "bench", "-m", "tiny-qwen3", "-p", "8", "-n", "2", "-r", "1", "-t", "2")
    assert b.returncode == 0, b.stderr
    assert "tg2" in b.stdout

    again = zen(store, "pull", "hf://acme/tiny-qwen3", **hf)
    assert again.returncode == 0 and "already in the store" in again.stdout
    r = zen(store, "rm", "tiny-qwen3")
    assert r.returncode == 0, r.stderr
    assert files_in(store) == []


def test_an_interrupted_repository_pull_resumes_where_it_stopped(store, server):
    hub_repo(server, revision="v2", cut="model.safetensors")
    hf = {"ZEN_HF_ENDPOINT": server.url("/hf")}
    first = zen(store, "pull", "hf://acme/tiny-qwen3@v2", **hf)
    assert first.returncode == 1
    assert "run the same pull again to resume" in first.stderr
    assert files_in(store) == ["tiny-qwen3.partial"]
    server.requests.clear()
    second = zen(store, "pull", "hf://acme/tiny-qwen3@v2", **hf)
    assert second.returncode == 0, second.stderr
    weights = [h for p, h in server.requests if p.endswith("/model.safetensors")]
    assert len(weights) == 1 and weights[0]["range"].startswith("bytes=")  # continued
    assert files_in(store) == ["tiny-qwen3"]


@pytest.mark.parametrize("name", ["model.safetensors", "config.json"])
def test_a_repository_file_that_does_not_match_the_listing_is_refused(store, server, name):
    def tamper(file, data):
        return data[:-1] + bytes([data[-1] ^ 1]) if file == name else data
    hub_repo(server, tamper=tamper)
    r = zen(store, "pull", "hf://acme/tiny-qwen3", ZEN_HF_ENDPOINT=server.url("/hf"))
    assert r.returncode == 1
    assert name in r.stderr and "the download was deleted" in r.stderr, r.stderr
    assert "tiny-qwen3" not in files_in(store)


def test_a_repository_without_safetensors_is_refused_with_the_gguf_form(store, server):
    listing = [{"type": "file", "oid": "1" * 40, "size": 3, "path": "config.json"},
               {"type": "file", "oid": "2" * 40, "size": 9, "path": "m.gguf",
                "lfs": {"oid": "3" * 64, "size": 9}}]
    server.routes["/hf/api/models/acme/g/tree/main"] = Route(json.dumps(listing).encode())
    r = zen(store, "pull", "hf://acme/g", ZEN_HF_ENDPOINT=server.url("/hf"))
    assert r.returncode == 1
    assert "no .safetensors weights" in r.stderr and "hf://owner/repo/file.gguf" in r.stderr


# ---- ollama:// --------------------------------------------------------------------------

def ollama_manifest(digest, size):
    return json.dumps({
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                   "digest": "sha256:" + "1" * 64, "size": 10},
        "layers": [
            {"mediaType": "application/vnd.ollama.image.template",
             "digest": "sha256:" + "2" * 64, "size": 5},
            {"mediaType": "application/vnd.ollama.image.model",
             "digest": "sha256:" + digest, "size": size},
        ]}).encode()


def test_ollama_pull_fetches_the_model_layer(store, server):
    server.routes["/v2/library/tiny/manifests/latest"] = Route(
        ollama_manifest(LLAMA_SHA, len(LLAMA)))
    server.routes[f"/v2/library/tiny/blobs/sha256:{LLAMA_SHA}"] = Route(LLAMA)
    r = zen(store, "pull", "ollama://tiny", ZEN_OLLAMA_ENDPOINT=server.url(""))
    assert r.returncode == 0, r.stderr
    assert files_in(store) == ["tiny-latest.gguf"]
    assert sha256_of(store / "tiny-latest.gguf") == LLAMA_SHA
    manifest_headers = server.requests[0][1]
    assert manifest_headers["accept"] == "application/vnd.docker.distribution.manifest.v2+json"


def test_ollama_blob_that_does_not_match_its_digest_is_refused(store, server):
    server.routes["/v2/someone/tiny/manifests/q4"] = Route(ollama_manifest(QWEN_SHA, len(LLAMA)))
    server.routes[f"/v2/someone/tiny/blobs/sha256:{QWEN_SHA}"] = Route(LLAMA)
    r = zen(store, "pull", "ollama://someone/tiny:q4", ZEN_OLLAMA_ENDPOINT=server.url(""))
    assert r.returncode == 1
    assert "sha256 mismatch" in r.stderr and QWEN_SHA in r.stderr and LLAMA_SHA in r.stderr
    assert files_in(store) == []


def test_ollama_unknown_model_is_a_404(store, server):
    r = zen(store, "pull", "ollama://absent", ZEN_OLLAMA_ENDPOINT=server.url(""))
    assert r.returncode == 1
    assert "HTTP 404" in r.stderr and "/v2/library/absent/manifests/latest" in r.stderr


# ---- https ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    openssl = shutil.which("openssl")
    if not openssl:
        pytest.skip("the openssl command is not installed: cannot make a test certificate")
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=zen-engine test", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


@pytest.fixture
def tls_server(certificate):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    s = Server(context)
    yield s
    s.close()


def test_https_verifies_the_certificate(store, tls_server, certificate):
    tls_server.routes["/llama.gguf"] = Route(LLAMA)
    untrusted = zen(store, "pull", tls_server.url("/llama.gguf"))
    assert untrusted.returncode == 1
    assert "TLS certificate verification failed for 127.0.0.1: self-signed certificate" in \
        untrusted.stderr
    assert files_in(store) == []

    trusted = zen(store, "pull", tls_server.url("/llama.gguf"), SSL_CERT_FILE=str(certificate[0]))
    assert trusted.returncode == 0, trusted.stderr
    assert sha256_of(store / "llama.gguf") == LLAMA_SHA

    # Trusted, but issued for 127.0.0.1, not for "localhost".
    wrong_name = zen(store, "pull", tls_server.url("/llama.gguf", host="localhost"), "--name",
                     "other", SSL_CERT_FILE=str(certificate[0]))
    assert wrong_name.returncode == 1
    assert "TLS certificate verification failed for localhost: hostname mismatch" in \
        wrong_name.stderr
