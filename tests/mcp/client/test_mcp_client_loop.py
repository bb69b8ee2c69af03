"""The MCP client's tool loop end to end (docs/MCP-CLIENT.md, "The tool loop"): the real
`zen-engine serve --mcp-config` with the scripted test model (tools/make_scripted_model.py),
the real test MCP server tests/mcp/servers/weather_server.py (official SDK) over stdio and over
streamable HTTP, driven by the official openai client and by raw HTTP.

What the scripted model does is written out by hand from its script: "What is the weather in
Rome?" -> the call weather__get_weather({"city": "Rome"}) (3 tokens), then, after a tool
result ending "rain", "Rome will see rain today." (2 tokens); after "sun", "Rome will be sunny
today."; "Paris" -> the client's own get_weather call; "crash the weather server." ->
weather__crash(); "wait for the weather." -> weather__slow({"seconds": 30})."""
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("mcp", reason="the mcp package runs the test MCP server (pip install mcp)")

TESTS = Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[3])) / "tests"


sys.path.insert(0, str(TESTS / "pylib"))
from zen_server import ZenServer, http_request  # noqa: E402
from zen_testing import clean_env  # noqa: E402

MODEL_FILE = TESTS / "data" / "models" / "scripted" / "scripted.gguf"
WEATHER_SERVER = TESTS / "mcp" / "servers" / "weather_server.py"
MODEL = "scripted"
ROME = [{"role": "user", "content": "What is the weather in Rome?"}]
RAIN_ANSWER = "Rome will see rain today."
SUN_ANSWER = "Rome will be sunny today."
ROUND1_TOKENS, ROUND2_TOKENS = 3, 2  # the call's tokens, the answer's (the script's pieces)
CLIENT_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
# "<id> scripted: prompt P (cached C), completion K, REASON, S s" (services/serving/request_sink.cpp)
ROUND_LOG = r"{id} scripted: prompt (\d+) \(cached (\d+)\), completion (\d+), (\w+),"


class McpSetup:
    """A running `serve --mcp-config` and the call log its weather server writes."""

    def __init__(self, server, call_log):
        self.server, self.call_log = server, call_log
        self.client = server.client()

    def calls(self):
        """Every call the weather server logged so far ({"tool", "arguments"} or cancelled)."""
        if not self.call_log.exists():
            return []
        return [json.loads(line) for line in self.call_log.read_text().splitlines() if line]

    def wait_for_call(self, record, start=0, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if record in self.calls()[start:]:
                return
            time.sleep(0.05)
        pytest.fail(f"the weather server never logged {record}; it logged {self.calls()}")


@pytest.fixture(scope="module")
def serve_env(tmp_path_factory):
    plugin_dir = Path(os.environ.get("ZEN_BUILD_DIR", "")) / "tests" / "plugins"
    if not MODEL_FILE.exists():
        pytest.skip(f"{MODEL_FILE} is missing (tools/make_scripted_model.py writes it)")
    if not any(plugin_dir.glob("*scripted*")):
        pytest.skip(f"the scripted architecture plugin is not built in {plugin_dir}")
    # Only the real CPU device: the test plugin directory also holds a partial test device.
    config = tmp_path_factory.mktemp("devices") / "config.json"
    config.write_text(json.dumps({"devices": ["cpu"]}))
    return clean_env(ZEN_PLUGIN_PATH=str(plugin_dir), ZEN_CONFIG=str(config))


def stdio_entry(forecast, call_log):
    return {"command": sys.executable, "args": [str(WEATHER_SERVER)], "models": [MODEL],
            "env": {"WEATHER_FORECAST": forecast, "WEATHER_CALL_LOG": str(call_log)}}


def start_serve(directory, servers, env, models=("-m", MODEL_FILE), **settings):
    config = directory / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers, **settings}))
    return ZenServer([*models, "--threads", "1", "--mcp-config", config], env=env)


@pytest.fixture(scope="module")
def rain(serve_env, tmp_path_factory):
    """serve with the weather server over stdio, forecasting rain."""
    directory = tmp_path_factory.mktemp("rain")
    call_log = directory / "calls.jsonl"
    server = start_serve(directory, {"weather": stdio_entry("rain", call_log)}, serve_env)
    yield McpSetup(server, call_log)
    assert server.stop() == 0, "\n".join(server.lines)


@pytest.fixture(scope="module")
def sun_over_http(serve_env, tmp_path_factory):
    """The weather server on its own over streamable HTTP (forecasting sun), serve using it as
    a url entry."""
    directory = tmp_path_factory.mktemp("sun")
    call_log = directory / "calls.jsonl"
    weather = subprocess.Popen(
        [sys.executable, str(WEATHER_SERVER), "--http", "0"], stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, WEATHER_FORECAST="sun", WEATHER_CALL_LOG=str(call_log)))
    try:
        port = _announced_port(weather)
        server = start_serve(directory, {"weather": {"url": f"http://127.0.0.1:{port}/mcp",
                                             "models": ["*"]}},
                             serve_env)
        yield McpSetup(server, call_log)
        assert server.stop() == 0, "\n".join(server.lines)
    finally:
        weather.terminate()
        weather.wait(timeout=10)


def _announced_port(proc, timeout=30):
    """The port of the "listening on PORT" line, read on a thread (a pipe read cannot time out);
    the rest of its stderr keeps draining there."""
    found, lines = [], []
    ready = threading.Event()

    def read():
        for line in proc.stderr:
            lines.append(line)
            m = re.search(r"listening on (\d+)", line)
            if m and not found:
                found.append(int(m.group(1)))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(timeout) or not found:
        proc.kill()
        pytest.fail("weather_server.py --http 0 did not announce its port:\n" + "".join(lines))
    return found[0]


def rounds_of(server, request_id, start):
    """(prompt, cached, completion, finish reason) of each engine round the request ran, from
    the log lines (the last round's line comes just after the response, hence the wait)."""
    pattern = ROUND_LOG.format(id=re.escape(request_id))
    server.wait_for_log(rf"{re.escape(request_id)} scripted: .*, stop, ", start=start)
    return [tuple(int(g) if g.isdigit() else g for g in re.search(pattern, line).groups())
            for line in server.lines[start:] if re.search(pattern, line)]


def sse_events(raw):
    """The data fields of an SSE body, in order."""
    return [line[len("data: "):] for line in raw.decode().split("\n") if line.startswith("data: ")]


# ---- stdio --------------------------------------------------------------------------------


def test_the_tool_result_reaches_the_answer_and_usage_sums_both_rounds(rain):
    start, calls_before = len(rain.server.lines), len(rain.calls())
    r = rain.client.chat.completions.create(model=MODEL, messages=ROME, temperature=0)
    choice = r.choices[0]
    assert choice.message.content == RAIN_ANSWER
    assert choice.finish_reason == "stop"
    assert not choice.message.tool_calls  # the MCP call stays inside the server
    # The tool ran once, with the arguments the model wrote.
    assert rain.calls()[calls_before:] == [{"tool": "get_weather",
                                            "arguments": {"city": "Rome"}}]
    rain.server.wait_for_log(rf"{re.escape(r.id)} mcp weather__get_weather \d+\.\d+ s ok",
                             start=start)
    # Two engine rounds under the client's id: the call, then the answer after the result.
    (p1, c1, k1, why1), (p2, c2, k2, why2) = rounds_of(rain.server, r.id, start)
    assert (why1, why2) == ("tool_calls", "stop")
    assert (k1, k2) == (ROUND1_TOKENS, ROUND2_TOKENS)
    assert p2 > p1  # round 2 reads the call and its result too
    assert r.usage.prompt_tokens == p1 + p2
    assert r.usage.completion_tokens == ROUND1_TOKENS + ROUND2_TOKENS
    assert r.usage.total_tokens == p1 + p2 + ROUND1_TOKENS + ROUND2_TOKENS
    assert r.usage.prompt_tokens_details.cached_tokens == c1 + c2


def test_streamed_answer_has_the_text_no_tool_call_deltas_and_one_done(rain):
    calls_before = len(rain.calls())
    status, headers, raw = http_request(
        rain.server, "POST", "/v1/chat/completions",
        {"model": MODEL, "messages": ROME, "temperature": 0, "stream": True,
         "stream_options": {"include_usage": True}})
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    events = sse_events(raw)
    assert events.count("[DONE]") == 1 and events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert len({c["id"] for c in chunks}) == 1  # both rounds under one id
    deltas = [c["choices"][0] for c in chunks if c["choices"]]
    assert "".join(d["delta"].get("content") or "" for d in deltas) == RAIN_ANSWER
    assert not any("tool_calls" in d["delta"] for d in deltas)
    assert [d["finish_reason"] for d in deltas if d["finish_reason"]] == ["stop"]
    assert chunks[-1]["usage"]["completion_tokens"] == ROUND1_TOKENS + ROUND2_TOKENS
    assert rain.calls()[calls_before:] == [{"tool": "get_weather",
                                            "arguments": {"city": "Rome"}}]

    # The same through the openai client's stream reader.
    text, tool_deltas = "", 0
    for chunk in rain.client.chat.completions.create(model=MODEL, messages=ROME,
                                                     temperature=0, stream=True):
        for c in chunk.choices:
            text += c.delta.content or ""
            tool_deltas += len(c.delta.tool_calls or [])
    assert text == RAIN_ANSWER and tool_deltas == 0


def test_the_clients_own_tool_still_comes_back_as_a_tool_call(rain):
    calls_before = len(rain.calls())
    r = rain.client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        tools=CLIENT_TOOLS, temperature=0)
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert rain.calls()[calls_before:] == []  # not an MCP tool: the server did not run it

    indexes = []
    for chunk in rain.client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "What is the weather in Paris?"}],
            tools=CLIENT_TOOLS, temperature=0, stream=True):
        for c in chunk.choices:
            indexes += [d.index for d in c.delta.tool_calls or []]
    assert indexes and set(indexes) == {0}


def test_requests_the_loop_cannot_serve_are_400(rain):
    status, _, body = http_request(rain.server, "POST", "/v1/chat/completions",
                                   {"model": MODEL, "messages": ROME, "n": 2})
    assert status == 400 and json.loads(body)["error"]["param"] == "n"
    shadowing = [{"type": "function", "function": {"name": "weather__get_weather",
                                                   "parameters": {"type": "object"}}}]
    status, _, body = http_request(rain.server, "POST", "/v1/chat/completions",
                                   {"model": MODEL, "messages": ROME, "tools": shadowing})
    assert status == 400 and json.loads(body)["error"]["param"] == "tools"
    assert rain.client.chat.completions.create(
        model=MODEL, messages=ROME, temperature=0).choices[0].message.content == RAIN_ANSWER


def test_a_client_that_goes_away_cancels_the_tool_call(rain):
    calls_before, start = len(rain.calls()), len(rain.server.lines)
    conn = http.client.HTTPConnection(rain.server.host, rain.server.port, timeout=30)
    conn.request("POST", "/v1/chat/completions", json.dumps(
        {"model": MODEL, "stream": True,
         "messages": [{"role": "user", "content": "Now wait for the weather."}]}),
        {"Content-Type": "application/json"})
    assert conn.getresponse().status == 200  # the head goes out with the first round
    rain.wait_for_call({"tool": "slow", "arguments": {"seconds": 30}}, start=calls_before)
    began = time.monotonic()
    conn.close()
    rain.server.wait_for_log(r"cancelled: during MCP tool calls", start=start, timeout=10)
    rain.wait_for_call({"tool": "slow", "cancelled": True}, start=calls_before, timeout=10)
    assert time.monotonic() - began < 10  # long before the 30 s call would have ended
    assert rain.client.chat.completions.create(
        model=MODEL, messages=ROME, temperature=0).choices[0].message.content == RAIN_ANSWER


def test_a_client_that_sends_one_byte_more_and_leaves_still_cancels(rain):
    """Bytes after the request (a stray CRLF, the start of a pipelined one) used to stop the
    server watching the socket: a non-streamed answer, which writes nothing until it is done,
    then ran its 30 s tool call for nobody."""
    calls_before, start = len(rain.calls()), len(rain.server.lines)
    body = json.dumps({"model": MODEL, "messages": [
        {"role": "user", "content": "Now wait for the weather."}]}).encode()
    with rain.server.connect() as s:
        s.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                  .encode() + body + b"\r\n")
        rain.wait_for_call({"tool": "slow", "arguments": {"seconds": 30}}, start=calls_before)
    rain.server.wait_for_log(r"cancelled: during MCP tool calls", start=start, timeout=10)
    rain.wait_for_call({"tool": "slow", "cancelled": True}, start=calls_before, timeout=10)


# ---- streamable HTTP ----------------------------------------------------------------------


def test_over_http_the_sun_forecast_gives_the_other_answer(sun_over_http):
    setup = sun_over_http
    r = setup.client.chat.completions.create(model=MODEL, messages=ROME, temperature=0)
    assert r.choices[0].message.content == SUN_ANSWER
    assert r.choices[0].finish_reason == "stop" and not r.choices[0].message.tool_calls
    assert r.usage.completion_tokens == ROUND1_TOKENS + ROUND2_TOKENS
    assert setup.calls() == [{"tool": "get_weather", "arguments": {"city": "Rome"}}]

    text, tool_deltas, finishes = "", 0, []
    for chunk in setup.client.chat.completions.create(model=MODEL, messages=ROME,
                                                      temperature=0, stream=True):
        for c in chunk.choices:
            text += c.delta.content or ""
            tool_deltas += len(c.delta.tool_calls or [])
            finishes += [c.finish_reason] if c.finish_reason else []
    assert (text, tool_deltas, finishes) == (SUN_ANSWER, 0, ["stop"])


# ---- which models get the tools --------------------------------------------------------------


def test_only_the_models_the_config_names_get_the_servers_tools(serve_env, tmp_path):
    """The same scripted model served twice: "scripted" is named in the weather server's
    "models", "guest" is not. The guest's request carries no MCP tool and runs none: the
    model's call to weather__get_weather comes back to the client as an ordinary tool call."""
    call_log = tmp_path / "calls.jsonl"
    server = start_serve(tmp_path, {"weather": stdio_entry("rain", call_log)}, serve_env,
                         models=("-m", MODEL_FILE, "--alias", MODEL, "-m", MODEL_FILE,
                                 "--alias", "guest"))
    try:
        setup = McpSetup(server, call_log)
        server.wait_for_log(r"mcp server 'weather' ready: .*for model 'scripted'")
        r = setup.client.chat.completions.create(model="guest", messages=ROME, temperature=0)
        assert r.choices[0].message.content != RAIN_ANSWER
        calls = r.choices[0].message.tool_calls or []
        assert [c.function.name for c in calls] in ([], ["weather__get_weather"])
        assert setup.calls() == []  # the MCP server ran nothing for the guest
        r = setup.client.chat.completions.create(model=MODEL, messages=ROME, temperature=0)
        assert r.choices[0].message.content == RAIN_ANSWER
        assert setup.calls() == [{"tool": "get_weather", "arguments": {"city": "Rome"}}]
    finally:
        assert server.stop() == 0, "\n".join(server.lines)


def test_a_server_entry_without_models_is_a_startup_error(serve_env, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"weather": {"command": sys.executable}}}))
    proc = subprocess.run([os.environ["ZEN_ENGINE"], "serve", "-m", MODEL_FILE, "--port", "0",
                           "--mcp-config", config], env=serve_env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode != 0
    assert "'mcpServers.weather.models' is missing" in proc.stderr, proc.stderr


# ---- failures -----------------------------------------------------------------------------


def test_a_crashing_tool_is_an_error_result_and_the_server_keeps_serving(serve_env, tmp_path):
    call_log = tmp_path / "calls.jsonl"
    server = start_serve(tmp_path, {"weather": stdio_entry("rain", call_log)}, serve_env)
    try:
        setup = McpSetup(server, call_log)
        start = len(server.lines)
        r = setup.client.chat.completions.create(
            model=MODEL, temperature=0,
            messages=[{"role": "user", "content": "Please crash the weather server."}])
        assert r.choices[0].finish_reason == "stop" and not r.choices[0].message.tool_calls
        assert {"tool": "crash", "arguments": {}} in setup.calls()
        line = server.wait_for_log(rf"{re.escape(r.id)} mcp weather__crash \d+\.\d+ s error: ",
                                   start=start)
        assert "weather" in line.split(" error: ", 1)[1]  # the reason names the server
        # Still serving: the next request is answered.
        r2 = setup.client.chat.completions.create(model=MODEL, messages=ROME, temperature=0)
        assert r2.choices[0].finish_reason == "stop"
    finally:
        assert server.stop() == 0, "\n".join(server.lines)


def test_shutdown_during_a_tool_call_ends_the_request_and_exits_0(serve_env, tmp_path):
    call_log = tmp_path / "calls.jsonl"
    server = start_serve(tmp_path, {"weather": stdio_entry("rain", call_log)}, serve_env)
    setup = McpSetup(server, call_log)
    outcome = []

    def ask():
        try:
            outcome.append(http_request(server, "POST", "/v1/chat/completions", {
                "model": MODEL,
                "messages": [{"role": "user", "content": "Now wait for the weather."}]},
                timeout=60)[0])
        except OSError as e:  # the server may close the connection instead of answering
            outcome.append(repr(e))

    asker = threading.Thread(target=ask)
    asker.start()
    try:
        setup.wait_for_call({"tool": "slow", "arguments": {"seconds": 30}})
        began = time.monotonic()
        assert server.stop(timeout=20) == 0, "\n".join(server.lines)
        assert time.monotonic() - began < 15  # not waiting for the 30 s call
    finally:
        asker.join(timeout=30)
    assert any("cancelled: during MCP tool calls" in line for line in server.lines)
    assert outcome and outcome[0] != 200  # the request ended without an answer
