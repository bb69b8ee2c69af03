"""The scripted test model (tests/data/models/scripted, tests/plugins/scripted_arch.cpp) through
the real zen-engine binary: prompts rendered with Python jinja2 from the model's own chat
template must make it print the scripted tool call, and after a tool result the scripted
answer. Expected texts are the script of tools/make_scripted_model.py, written out by hand."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "pylib"))
from zen_testing import clean_env, zen_engine  # noqa: E402,F401 (zen_engine: a fixture)

SOURCE = Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[3]))
MODEL = SOURCE / "tests" / "data" / "models" / "scripted" / "scripted.gguf"

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
ANSWER = "The weather in Paris is sunny today."
REFUSAL = "I can only tell you about the weather."
WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
ASK = {"role": "user", "content": "What's the weather in Paris?"}
CALLED = {"role": "assistant", "content": "", "tool_calls": [{
    "id": "call_1", "type": "function",
    "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 21}'}


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory):
    """An environment whose plugin path holds the scripted plugin alone (not the other test
    plugins next to it, such as the partial test device)."""
    built = Path(os.environ.get("ZEN_TEST_PLUGIN_DIR", "")) / "zen-arch-scripted.so"
    if not built.exists():
        pytest.skip(f"{built} was not built (static-plugin builds have no test plugins)")
    plugins = tmp_path_factory.mktemp("plugins")
    shutil.copy(built, plugins)
    return clean_env(ZEN_PLUGIN_PATH=str(plugins))


def chat_template():
    from gguf import GGUFReader  # noqa: PLC0415 (only needed here)
    field = GGUFReader(str(MODEL)).fields["tokenizer.chat_template"]
    return bytes(field.parts[field.data[0]]).decode()


def render(messages, tools=None):
    """The model's template rendered as transformers does (trim/lstrip blocks, its tojson)."""
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda x: json.dumps(x, ensure_ascii=False)
    return env.from_string(chat_template()).render(
        messages=messages, tools=tools, add_generation_prompt=True)


def run(engine, env, *args):
    proc = subprocess.run([engine, "run", "-m", str(MODEL), "--temp", "0", "-n", "40", *args],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_weather_question_gives_the_tool_call(zen_engine, plugin_env):
    prompt = render([ASK], [WEATHER_TOOL])
    assert prompt.endswith("What's the weather in Paris?<|im_end|>\n<|im_start|>assistant\n")
    assert run(zen_engine, plugin_env, "--raw", "-p", prompt) == CALL + "\n"


def test_tool_result_gives_the_answer(zen_engine, plugin_env):
    prompt = render([ASK, CALLED, RESULT], [WEATHER_TOOL])
    assert CALL + "<|im_end|>" in prompt  # the call is rendered back as the model wrote it
    assert run(zen_engine, plugin_env, "--raw", "-p", prompt) == ANSWER + "\n"


def test_chat_mode_uses_the_model_template(zen_engine, plugin_env):
    assert run(zen_engine, plugin_env, "-p", "What's the weather in Paris?") == CALL + "\n"
    assert run(zen_engine, plugin_env, "-p", "Hello!") == REFUSAL + "\n"


def test_forced_prefixes_continue_the_call(zen_engine, plugin_env):
    prompt = render([{"role": "user", "content": "Hi"}], [WEATHER_TOOL])
    named = '<tool_call>\n{"name": "get_weather", "arguments": '
    assert run(zen_engine, plugin_env, "--raw", "-p", prompt + named) == (
        '{"city": "Paris"}}\n</tool_call>\n')
    required = '<tool_call>\n{"name": "'
    assert run(zen_engine, plugin_env, "--raw", "-p", prompt + required) == (
        'get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n')


def test_committed_model_matches_its_generator():
    pytest.importorskip("gguf", reason="the gguf Python package regenerates the model")
    proc = subprocess.run([sys.executable, str(SOURCE / "tools" / "make_scripted_model.py"),
                           "--check"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
