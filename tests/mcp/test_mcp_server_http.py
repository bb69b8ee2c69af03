"""Zen Engine as an MCP server over streamable HTTP (`zen-engine serve --mcp-port 0`), driven by
the official `mcp` SDK client against the real binary and the tiny random-weight Qwen3 model:
both protocol eras (2026-07-28 discover, 2025-11-25 initialize with a session), tools/list,
the chat tool against the same request through the OpenAI frontend (identical greedy text),
complete, tokenize, list_models, engine errors as tool errors, progress notifications,
cancellation of an in-flight call, and hostile raw HTTP (parse errors, unknown methods, bad
arguments, sessions, batches, origins, GET/DELETE), after which the server still answers."""
import asyncio
import json
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from mcp_calls import cancel_chat_after_first_progress  # noqa: E402
from zen_server import ZenServer  # noqa: E402


TINY = Path(__file__).resolve().parents[1] / "data" / "models" / "tiny" / "qwen3.gguf"
MODEL = "qwen3"
HELLO = [{"role": "user", "content": "Tell me about ships."}]
TOOLS = {"chat", "complete", "list_models", "tokenize"}


@pytest.fixture(scope="module")
def server():
    s = ZenServer(["-m", TINY, "--mcp-port", "0", "--deterministic", "--threads", "2"])
    line = s.wait_for_log(r"serving on http://\S+/mcp")
    s.mcp_url = re.search(r"(http://\S+/mcp)", line).group(1)
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


def run(coro):
    return asyncio.run(coro)


async def call(url, name, arguments, mode="auto", **kw):
    async with Client(url, mode=mode) as client:
        return await client.call_tool(name, arguments, **kw)


def post(server, body, headers=None, raw=None):
    """A raw POST to the MCP endpoint: (status, headers, parsed JSON body or None)."""
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(server.mcp_url, data=data, method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "application/json, text/event-stream")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, hdrs, payload = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, payload = e.code, dict(e.headers), e.read()
    text = payload.decode()
    if text.startswith("event:"):  # an SSE answer: its last message
        text = [ln[6:] for ln in text.splitlines() if ln.startswith("data: ")][-1]
    return status, {k.lower(): v for k, v in hdrs.items()}, json.loads(text) if text else None


MODERN = {"Mcp-Protocol-Version": "2026-07-28"}
META = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}


def request(method, params=None, id=1):
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {**META, **(params or {})}}


def openai_chat(server, **body):
    req = urllib.request.Request(server.url("/v1/chat/completions"),
                                 data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def test_the_address_is_printed_and_both_eras_connect(server):
    async def main():
        async with Client(server.mcp_url) as modern:  # discover
            assert modern.protocol_version == "2026-07-28"
            assert modern.server_info.name == "zen-engine"
            assert modern.server_capabilities.tools.list_changed is False
        async with Client(server.mcp_url, mode="legacy") as legacy:  # initialize + session
            assert legacy.protocol_version == "2025-11-25"
            assert legacy.server_info.name == "zen-engine"
            assert legacy.server_capabilities.tools is not None
            assert (await legacy.list_tools()).tools
    run(main())


def test_initialize_answers_the_clients_revision_when_supported(server):
    for asked, answered in [("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"),
                            ("2024-01-01", "2025-11-25")]:
        status, headers, body = post(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                              "params": {"protocolVersion": asked,
                                                         "capabilities": {},
                                                         "clientInfo": {"name": "t",
                                                                        "version": "1"}}})
        assert status == 200 and body["result"]["protocolVersion"] == answered, body
        assert body["result"]["serverInfo"]["name"] == "zen-engine"
        assert re.fullmatch(r"[0-9a-f]{32}", headers["mcp-session-id"])


def test_tools_list_has_every_tool_with_an_input_schema(server):
    async def main():
        async with Client(server.mcp_url) as client:
            return (await client.list_tools()).tools
    tools = run(main())
    assert {t.name for t in tools} == TOOLS  # no embed: no served model makes embeddings
    for t in tools:
        assert t.input_schema["type"] == "object", t
        assert t.description
    chat = next(t for t in tools if t.name == "chat")
    assert chat.input_schema["required"] == ["messages"]
    assert set(chat.output_schema["required"]) == {"content", "finish_reason", "usage"}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_chat_equals_the_openai_endpoint_greedy(server, mode):
    result = run(call(server.mcp_url, "chat",
                      {"messages": HELLO, "max_tokens": 12, "temperature": 0}, mode=mode))
    reference = openai_chat(server, model=MODEL, messages=HELLO, max_tokens=12, temperature=0)
    expected = reference["choices"][0]["message"]["content"]
    assert not result.is_error, result
    assert result.content[0].text == expected
    s = result.structured_content
    assert s["content"] == expected
    assert s["finish_reason"] == reference["choices"][0]["finish_reason"]
    assert s["usage"]["completion_tokens"] == reference["usage"]["completion_tokens"]
    assert s["usage"]["prompt_tokens"] == reference["usage"]["prompt_tokens"]


def test_complete_tokenize_and_list_models(server):
    async def main():
        async with Client(server.mcp_url) as c:
            done = await c.call_tool("complete", {"prompt": "Once upon a time", "max_tokens": 5,
                                                  "temperature": 0})
            tok = await c.call_tool("tokenize", {"text": "hello world"})
            models = await c.call_tool("list_models", {})
            return done, tok, models
    done, tok, models = run(main())
    assert not done.is_error and done.structured_content["usage"]["completion_tokens"] <= 5
    req = urllib.request.Request(server.url("/tokenize"), method="POST",
                                 data=json.dumps({"content": "hello world"}).encode())
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        reference = json.loads(r.read())["tokens"]
    assert tok.structured_content == {"tokens": reference, "count": len(reference)}
    assert [m["id"] for m in models.structured_content["models"]] == [MODEL]
    assert models.content[0].text == MODEL


def test_engine_errors_are_tool_errors(server):
    unknown = run(call(server.mcp_url, "chat", {"messages": HELLO, "model": "no-such-model"}))
    assert unknown.is_error and "no-such-model" in unknown.content[0].text
    too_long = run(call(server.mcp_url, "chat", {"messages": HELLO, "max_tokens": 100000}))
    assert too_long.is_error and "context" in too_long.content[0].text.lower()


def test_progress_notifications_arrive_during_a_generation(server):
    seen = []

    async def progress(p, total, message):
        seen.append(p)

    result = run(call(server.mcp_url, "chat", {"messages": HELLO, "max_tokens": 200,
                                               "temperature": 0}, progress_callback=progress))
    assert not result.is_error
    tokens = result.structured_content["usage"]["completion_tokens"]
    assert seen and seen[0] >= 1, seen
    assert all(a < b for a, b in zip(seen, seen[1:])), seen  # strictly increasing
    assert seen[-1] <= tokens


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_cancelling_an_in_flight_call_frees_the_sequence(server, mode):
    start = len(server.lines)

    async def main():
        async with Client(server.mcp_url, mode=mode) as client:
            await cancel_chat_after_first_progress(client, HELLO)
            # the same client goes on
            # Greedy: a sampled first token may be the end of the answer (0 tokens).
            return await client.call_tool("chat", {"messages": HELLO, "max_tokens": 2,
                                                   "temperature": 0})
    after = run(main())
    server.wait_for_log(r"chatcmpl-\S+ cancelled: sequence freed", timeout=30, start=start)
    assert not after.is_error and after.structured_content["usage"]["completion_tokens"] == 2


def test_malformed_input_gets_json_rpc_errors_and_the_server_goes_on(server):
    status, _, body = post(server, None, raw=b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert status == 400 and body["error"]["code"] == -32700
    status, _, body = post(server, None, raw=b"[" * 100000)
    assert status == 400 and body["error"]["code"] == -32600  # nesting cap, no parse
    status, _, body = post(server, [request("ping")], headers=MODERN)
    assert status == 400 and body["error"]["code"] == -32600  # batch
    status, _, body = post(server, request("no/such/method"), headers=MODERN)
    assert body["error"]["code"] == -32601 and body["id"] == 1
    status, _, body = post(server, request("tools/call", {"name": "nope", "arguments": {}}),
                           headers=MODERN)
    assert body["error"]["code"] == -32602
    status, _, body = post(server, request("tools/call", {"name": "chat", "arguments": {
        "messages": HELLO, "max_tokens": "ten"}}), headers=MODERN)
    assert body["error"]["code"] == -32602 and "max_tokens" in body["error"]["message"]
    status, _, body = post(server, request("tools/call", {"name": "chat", "arguments": {
        "messages": [{"content": "no role"}]}}), headers=MODERN)
    assert body["error"]["code"] == -32602 and "messages[0].role" in body["error"]["message"]
    # the SDK surfaces the same as an MCPError
    async def refused():
        async with Client(server.mcp_url) as client:
            with pytest.raises(MCPError) as e:
                await client.call_tool("chat", {"messages": HELLO, "temperature": 7})
            return e.value
    error = run(refused())
    assert error.code == -32602 and "arguments.temperature" in str(error)

    # handshake-era requests need the session initialize opened
    legacy = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    status, _, body = post(server, legacy)
    assert status == 400 and body["error"]["code"] == -32600
    status, _, _ = post(server, legacy, headers={"Mcp-Session-Id": "0" * 32})
    assert status == 404
    status, _, _ = post(server, request("ping"), headers={"Origin": "http://evil.example"})
    assert status == 403
    status, _, _ = post(server, request("ping"), headers={"Origin": "http://localhost:5173"})
    assert status == 200
    status, _, body = post(server, request("ping"),
                           headers={**MODERN, "Mcp-Method": "tools/list"})
    assert status == 400 and body["error"]["code"] == -32020
    assert _status(server.mcp_url, "GET") == 405  # no server-initiated stream

    # a whole session: initialize, the session id, then DELETE ends it
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}
    status, headers, _ = post(server, init)
    sid = {"Mcp-Session-Id": headers["mcp-session-id"]}
    assert post(server, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers=sid)[0] == 202
    status, _, body = post(server, legacy, headers=sid)
    assert status == 200 and {t["name"] for t in body["result"]["tools"]} == TOOLS
    assert _status(server.mcp_url, "DELETE", sid) == 204
    assert post(server, legacy, headers=sid)[0] == 404

    # and the server still answers a normal call
    ok = run(call(server.mcp_url, "chat", {"messages": HELLO, "max_tokens": 3}))
    assert not ok.is_error and ok.structured_content["usage"]["completion_tokens"] == 3


def _status(url, method, headers=None):
    req = urllib.request.Request(url, method=method)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_api_key_of_serve_guards_the_mcp_port_too():
    s = ZenServer(["-m", TINY, "--mcp-port", "0", "--api-key", "sekret", "--threads", "2"])
    try:
        line = s.wait_for_log(r"serving on http://\S+/mcp")
        s.mcp_url = re.search(r"(http://\S+/mcp)", line).group(1)
        status, headers, body = post(s, request("ping"))
        assert status == 401 and headers["www-authenticate"] == "Bearer"
        status, _, body = post(s, request("ping"), headers={"Authorization": "Bearer sekret"})
        assert status == 200 and body["result"] == {"resultType": "complete"}
        assert post(s, request("ping"), headers={"x-api-key": "wrong"})[0] == 401
    finally:
        assert s.stop() == 0
