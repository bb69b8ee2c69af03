"""Tool calling end to end through the openai package: `zen-engine serve` with the scripted
test model (tools/make_scripted_model.py; its architecture plugin tests/plugins/
scripted_arch.cpp), whose greedy output is a fixed script: a question about the weather in
Paris gets the call get_weather({"city": "Paris"}), and the tool's answer gets a fixed
sentence. The client sees the call as OpenAI shapes it, sends the result back, and the server
renders it through the template and answers; streamed call deltas reassemble to the same call."""
import json
import os
from pathlib import Path

import pytest

openai = pytest.importorskip("openai")

from conftest import ZenServer, clean_env  # noqa: E402

MODEL = "scripted"
ANSWER = "The weather in Paris is sunny today."
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]


@pytest.fixture(scope="module")
def server(source_dir, tmp_path_factory):
    model = source_dir / "tests" / "data" / "models" / "scripted" / "scripted.gguf"
    plugin_dir = Path(os.environ.get("ZEN_BUILD_DIR", "")) / "tests" / "plugins"
    if not model.exists():
        pytest.skip(f"{model} is missing (tools/make_scripted_model.py writes it)")
    if not any(plugin_dir.glob("*scripted*")):
        pytest.skip(f"the scripted architecture plugin is not built in {plugin_dir}")
    # Only the real CPU device: the test plugin directory also holds a partial test device.
    config = tmp_path_factory.mktemp("scripted") / "config.json"
    config.write_text(json.dumps({"devices": ["cpu"]}))
    s = ZenServer(["-m", model, "--threads", "1"],
                  env=clean_env(ZEN_PLUGIN_PATH=str(plugin_dir), ZEN_CONFIG=str(config)))
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


@pytest.fixture(scope="module")
def client(server):
    return server.client()


def test_tool_call_round_trip(client):
    r = client.chat.completions.create(model=MODEL, messages=QUESTION, tools=TOOLS,
                                       temperature=0)
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert not choice.message.content
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert call.id.startswith("call_") and len(call.id) > len("call_")

    messages = QUESTION + [
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": call.id, "type": "function",
                         "function": {"name": "get_weather",
                                      "arguments": call.function.arguments}}]},
        {"role": "tool", "tool_call_id": call.id, "content": "sunny, 24 C"}]
    r2 = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS,
                                        temperature=0)
    assert r2.choices[0].finish_reason == "stop"
    assert r2.choices[0].message.content == ANSWER
    assert not r2.choices[0].message.tool_calls


def test_streamed_tool_call_deltas_reassemble_to_the_same_call(client):
    calls, finish, content = {}, None, ""
    for chunk in client.chat.completions.create(model=MODEL, messages=QUESTION, tools=TOOLS,
                                                temperature=0, stream=True):
        if not chunk.choices:
            continue
        c = chunk.choices[0]
        content += c.delta.content or ""
        for d in c.delta.tool_calls or []:
            if d.index not in calls:  # the first delta of a call carries id, type and name
                assert d.id and d.type == "function" and d.function.name
                calls[d.index] = {"id": d.id, "name": d.function.name, "arguments": ""}
            calls[d.index]["arguments"] += d.function.arguments or ""
        finish = c.finish_reason or finish
    assert finish == "tool_calls" and content == ""
    assert list(calls) == [0]
    assert calls[0]["name"] == "get_weather"
    assert json.loads(calls[0]["arguments"]) == {"city": "Paris"}


def test_without_tools_the_call_is_plain_text_and_other_questions_get_the_refusal(client):
    r = client.chat.completions.create(model=MODEL, messages=QUESTION, temperature=0)
    assert r.choices[0].finish_reason == "stop"
    assert not r.choices[0].message.tool_calls
    assert '"get_weather"' in r.choices[0].message.content  # the script, unparsed
    r = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Hello there"}], tools=TOOLS,
        temperature=0)
    assert r.choices[0].message.content == "I can only tell you about the weather."
    assert r.choices[0].finish_reason == "stop"


def test_tool_choice_required_forces_a_call(client):
    r = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Hello there"}], tools=TOOLS,
        tool_choice="required", temperature=0)
    assert r.choices[0].finish_reason == "tool_calls"
    (call,) = r.choices[0].message.tool_calls
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    r = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Hello there"}], tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_weather"}}, temperature=0)
    assert r.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert json.loads(r.choices[0].message.tool_calls[0].function.arguments) == {"city": "Paris"}
