"""MCP servers are peers we do not trust (docs/MCP-CLIENT.md, "Hostile servers"): the real
`zen-engine serve --mcp-config` with the tiny qwen3 model against the raw-JSON-RPC misbehaving
server tests/mcp/servers/hostile_server.py. Whatever the server sends, the process keeps
serving: the server is left out with a clear reason, the models answer, and SIGINT still stops
everything."""
import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[3])) / "tests"
sys.path.insert(0, str(TESTS / "pylib"))
from zen_server import ZenServer, http_request  # noqa: E402
from zen_testing import clean_env  # noqa: E402

TINY = TESTS / "data" / "models" / "tiny" / "qwen3.gguf"
HOSTILE = TESTS / "mcp" / "servers" / "hostile_server.py"


def start_serve(tmp_path, mode_args, serve_env=None, **entry):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"hostile": {
        "command": sys.executable, "args": [str(HOSTILE), *mode_args], "models": ["*"],
        **entry}}, "connect_timeout_s": 10}))
    return ZenServer(["-m", TINY, "--threads", "1", "--mcp-config", config],
                     env=serve_env or clean_env())


def assert_models_serve(server):
    status, _, body = http_request(server, "POST", "/v1/chat/completions", {
        "max_tokens": 2, "messages": [{"role": "user", "content": "Hi"}]})
    assert status == 200, body
    assert json.loads(body)["object"] == "chat.completion"


def test_json_nested_200000_deep_leaves_the_server_out_not_the_process(tmp_path):
    server = start_serve(tmp_path, ["deep"])
    try:
        line = server.wait_for_log(r"mcp server 'hostile' left out")
        assert "nested deeper than" in line, line
        assert_models_serve(server)  # without the server's tools
    finally:
        assert server.stop() == 0, "\n".join(server.lines)


def test_a_100kb_stderr_line_is_logged_cut(tmp_path):
    server = start_serve(tmp_path, ["stderr"])
    try:
        server.wait_for_log(r"mcp server 'hostile' ready")
        server.wait_for_log(r"mcp\[hostile\]: E")
        logged = [line for line in server.lines if "mcp[hostile]: E" in line]
        assert len(logged) == 1, [len(line) for line in logged]
        assert len(logged[0]) < 2000
        assert re.search(r"\(\d+ more bytes not shown\)$", logged[0]), logged[0][-80:]
        assert_models_serve(server)
    finally:
        assert server.stop() == 0


def test_a_server_that_stops_reading_cannot_wedge_shutdown(tmp_path):
    """The server floods ping requests and never reads: our answers fill its stdin pipe. The
    write must give up (the server is marked failed) and SIGINT must still stop serve."""
    server = start_serve(tmp_path, ["ping-flood"])
    server.wait_for_log(r"mcp server 'hostile' ready")
    assert_models_serve(server)
    time.sleep(1)  # the pipes fill up
    begun = time.monotonic()
    assert server.stop(timeout=20) == 0, "\n".join(server.lines[-20:])
    assert time.monotonic() - begun < 20


def test_the_child_gets_a_minimal_environment_plus_what_the_config_names(tmp_path):
    dump = tmp_path / "env.json"
    env = clean_env(ZEN_TEST_SECRET="sk-do-not-leak", OPENAI_API_KEY="sk-nor-this",
                    PASSED_THROUGH="yes")
    server = start_serve(tmp_path, ["env", str(dump)], serve_env=env, env={"SET_HERE": "1"},
                         inherit_env=["PASSED_THROUGH"])
    try:
        server.wait_for_log(r"mcp server 'hostile' ready")
        child = json.loads(dump.read_text())
        assert "ZEN_TEST_SECRET" not in child and "OPENAI_API_KEY" not in child
        assert child["SET_HERE"] == "1" and child["PASSED_THROUGH"] == "yes"
        assert child["PATH"] == env["PATH"]
        allowed = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL",
                   "LC_CTYPE", "TMPDIR", "TZ", "SET_HERE", "PASSED_THROUGH"}
        # Python itself may add LC_CTYPE; anything else came from us.
        assert set(child) <= allowed, set(child) - allowed
    finally:
        assert server.stop() == 0
