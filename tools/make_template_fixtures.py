#!/usr/bin/env python3
"""Renders real chat templates with Python jinja2 exactly as transformers does, and writes the
fixtures tests/unit/template checks the C++ interpreter against, byte for byte.

For every template in TEMPLATES (files under tests/data/templates/) and every conversation in
SCENARIOS, the rendering goes through transformers' own render_jinja_template (the code behind
apply_chat_template: its sandboxed environment, globals, tojson and message preprocessing), with
strftime_now pinned to FIXED_NOW so the output does not depend on the day. A render that raises
is recorded as an expected error (raise_exception's message, or the Python exception type).

    tools/make_template_fixtures.py            # rewrite tests/data/templates/fixtures/*.json
    tools/make_template_fixtures.py --check    # exit 1 if the committed fixtures are stale
    tools/make_template_fixtures.py --all DIR --out OUT  # every *.jinja in DIR (local checks)

Needs transformers (any 4.4x or 5.x) and jinja2 >= 3.1.6; the C++ test needs neither.

Where the templates come from: llama.cpp's models/templates/ (MIT; copies of the models' own
tokenizer_config.json chat_template), the template strings of llama.cpp's
tests/test-chat-template.cpp, and for Gemma 3, Llama 2 and SmolLM2 the chat_template of the
models' tokenizer_config.json on the Hugging Face hub (google/gemma-3-270m-it,
meta-llama/Llama-2-7b-chat-hf, HuggingFaceTB/SmolLM2-1.7B-Instruct).
"""

import argparse
import copy
import datetime
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEMPLATE_DIR = ROOT / "tests" / "data" / "templates"
FIXTURE_DIR = TEMPLATE_DIR / "fixtures"

# strftime_now() reports this local time in every fixture (the C++ test passes the same).
FIXED_NOW = datetime.datetime(2024, 7, 26, 9, 30, 0)

# Template file -> the special tokens its tokenizer passes (None: the tokenizer has none, so the
# variable is undefined in the template).
LLAMA3 = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
QWEN = {"bos_token": None, "eos_token": "<|im_end|>"}
MISTRAL = {"bos_token": "<s>", "eos_token": "</s>"}
GEMMA = {"bos_token": "<bos>", "eos_token": "<eos>"}
DEEPSEEK = {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"}
TEMPLATES = {
    "google-gemma-3-270m-it.jinja": GEMMA,
    "google-gemma-2-2b-it.jinja": GEMMA,
    "google-gemma-7b-it.jinja": GEMMA,
    "meta-llama-Llama-2-7b-chat-hf.jinja": MISTRAL,
    "meta-llama-Llama-3.1-8B-Instruct.jinja": LLAMA3,
    "meta-llama-Llama-3.2-3B-Instruct.jinja": LLAMA3,
    "meta-llama-Llama-3.3-70B-Instruct.jinja": LLAMA3,
    "Qwen-Qwen2.5-7B-Instruct.jinja": QWEN,
    "Qwen-Qwen3-0.6B.jinja": QWEN,
    "Qwen-QwQ-32B.jinja": QWEN,
    "Qwen3-Coder.jinja": QWEN,
    "mistralai-Mistral-7B-Instruct-v0.2.jinja": MISTRAL,
    "mistralai-Mistral-Nemo-Instruct-2407.jinja": MISTRAL,
    "mistralai-Mistral-Large-Instruct-2411.jinja": MISTRAL,
    "Mistral-Small-3.2-24B-Instruct-2506.jinja": MISTRAL,
    "microsoft-Phi-3-mini-4k-instruct.jinja": {"bos_token": "<s>", "eos_token": "<|endoftext|>"},
    "microsoft-Phi-3.5-mini-instruct.jinja": {"bos_token": "<s>", "eos_token": "<|endoftext|>"},
    "microsoft-phi-4.jinja": {"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>"},
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja": DEEPSEEK,
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja": DEEPSEEK,
    "deepseek-ai-DeepSeek-V3.1.jinja": DEEPSEEK,
    "HuggingFaceTB-SmolLM2-1.7B-Instruct.jinja": {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"},
    "HuggingFaceTB-SmolLM3-3B.jinja": {"bos_token": None, "eos_token": "<|im_end|>"},
    "teknium-OpenHermes-2.5-Mistral-7B.jinja": {"bos_token": "<s>", "eos_token": "<|im_end|>"},
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja": LLAMA3,
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": {"bos_token": "<BOS_TOKEN>", "eos_token": "<|END_OF_TURN_TOKEN|>"},
    "ibm-granite-granite-3.3-2B-Instruct.jinja": {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>"},
    "openai-gpt-oss-120b.jinja": {"bos_token": "<|startoftext|>", "eos_token": "<|return|>"},
    "meetkai-functionary-medium-v3.2.jinja": LLAMA3,
    "fireworks-ai-llama-3-firefunction-v2.jinja": LLAMA3,
    "moonshotai-Kimi-K2.jinja": {"bos_token": "[BOS]", "eos_token": "[EOS]"},
    "GLM-4.6.jinja": {"bos_token": None, "eos_token": "<|endoftext|>"},
    "NVIDIA-Nemotron-Nano-v2.jinja": {"bos_token": "<s>", "eos_token": "</s>"},
    "yandex-YandexGPT-5-Lite-8B-instruct.jinja": {"bos_token": "<s>", "eos_token": "</s>"},
}

# ---- conversations ----

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the web.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "max_results": {"type": "integer", "default": 5}},
            "required": ["query"],
        },
    },
}
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
USER = {"role": "user", "content": "Hello! How are you?"}
ASSISTANT = {"role": "assistant", "content": "I'm fine, thanks. How can I help?"}
FOLLOW_UP = {"role": "user", "content": "What is 2 + 2?"}
CALL_ID = "call12345"  # Mistral templates insist on 9 alphanumeric characters


def tool_call(arguments):
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": CALL_ID, "type": "function",
                        "function": {"name": "get_weather", "arguments": arguments}}],
    }


TOOL_RESULT = {"role": "tool", "tool_call_id": CALL_ID, "name": "get_weather",
               "content": "{\"temperature\": 21.5, \"condition\": \"sunny\"}"}
WEATHER_ASK = {"role": "user", "content": "What's the weather in Paris?"}

# name -> inputs (messages, tools, add_generation_prompt, extra variables)
SCENARIOS = {
    "user_only": dict(messages=[USER], add_generation_prompt=True),
    "system_user": dict(messages=[SYSTEM, USER], add_generation_prompt=True),
    "multi_turn": dict(messages=[SYSTEM, USER, ASSISTANT, FOLLOW_UP], add_generation_prompt=True),
    "multi_turn_no_prompt": dict(messages=[USER, ASSISTANT], add_generation_prompt=False),
    "whitespace_unicode": dict(
        messages=[{"role": "user", "content": "  Héllo wörld 🌍\n\tindented\n\n  "},
                  {"role": "assistant", "content": "\nRéponse — «ok» 你好\n"},
                  {"role": "user", "content": "quote ' \" back\\slash {{ not jinja }}"}],
        add_generation_prompt=True),
    "content_parts": dict(
        messages=[{"role": "user", "content": [{"type": "text", "text": "Describe this image."},
                                               {"type": "image"},
                                               {"type": "text", "text": "Be brief."}]}],
        add_generation_prompt=True),
    "tools_available": dict(messages=[SYSTEM, WEATHER_ASK], tools=[WEATHER_TOOL, SEARCH_TOOL],
                            add_generation_prompt=True),
    "tool_call_and_result": dict(
        messages=[SYSTEM, WEATHER_ASK, tool_call({"city": "Paris", "unit": "celsius"}), TOOL_RESULT],
        tools=[WEATHER_TOOL], add_generation_prompt=True),
    "tool_round_trip": dict(
        messages=[WEATHER_ASK, tool_call({"city": "Paris"}), TOOL_RESULT,
                  {"role": "assistant", "content": "It is 21.5 °C and sunny in Paris."}],
        tools=[WEATHER_TOOL], add_generation_prompt=False),
    "tool_call_string_arguments": dict(
        messages=[WEATHER_ASK, tool_call("{\"city\": \"Paris\"}"), TOOL_RESULT],
        tools=[WEATHER_TOOL], add_generation_prompt=True),
    "reasoning": dict(
        messages=[USER, {"role": "assistant", "content": "The answer is 4.",
                         "reasoning_content": "2 + 2 is 4."}, FOLLOW_UP],
        add_generation_prompt=True),
    "thinking_disabled": dict(messages=[USER], add_generation_prompt=True,
                              extra={"enable_thinking": False}),
    "empty": dict(messages=[], add_generation_prompt=True),
}

# Variables some templates read; passed to every render, like a server does.
COMMON_EXTRA = {"date_string": "26 Jul 2024"}


def render(source, tokens, scenario):
    """Renders through transformers' apply_chat_template code path; returns a fixture case."""
    import jinja2
    from transformers.utils import chat_template_utils as ctu

    compiled = ctu._compile_jinja_template(source)
    compiled.environment.globals["strftime_now"] = lambda fmt: FIXED_NOW.strftime(fmt)
    kwargs = dict(COMMON_EXTRA)
    kwargs.update(scenario.get("extra", {}))
    kwargs.update({k: v for k, v in tokens.items() if v is not None})
    inputs = {"messages": scenario["messages"]}
    if scenario.get("tools") is not None:
        inputs["tools"] = scenario["tools"]
    inputs["add_generation_prompt"] = scenario["add_generation_prompt"]
    for k, v in tokens.items():
        if v is not None:
            inputs[k] = v
    extra = dict(COMMON_EXTRA)
    extra.update(scenario.get("extra", {}))
    inputs["extra"] = extra
    case = {"inputs": inputs}
    try:
        rendered, _ = ctu.render_jinja_template(
            conversations=[copy.deepcopy(scenario["messages"])],
            tools=copy.deepcopy(scenario.get("tools")),
            chat_template=source,
            add_generation_prompt=scenario["add_generation_prompt"],
            **kwargs)
        case["expected"] = rendered[0]
    except jinja2.exceptions.TemplateError as e:
        # raise_exception raises the TemplateError base class itself.
        case["error"] = {"raised": type(e) is jinja2.exceptions.TemplateError,
                         "type": type(e).__name__, "message": str(e)}
    except Exception as e:  # TypeError, ValueError, ... from inside the template
        case["error"] = {"raised": False, "type": type(e).__name__, "message": str(e)}
    return case


def fixture_for(path, tokens):
    source = path.read_text(encoding="utf-8")
    cases = []
    for name, scenario in SCENARIOS.items():
        case = {"name": name}
        case.update(render(source, tokens, scenario))
        cases.append(case)
    return {"template": path.name, "now": FIXED_NOW.isoformat(), "cases": cases}


def dump(obj):
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if committed fixtures differ")
    ap.add_argument("--all", type=pathlib.Path, help="render every *.jinja in this directory")
    ap.add_argument("--out", type=pathlib.Path, help="output directory for --all")
    args = ap.parse_args()

    if args.all:
        args.out.mkdir(parents=True, exist_ok=True)
        for path in sorted(args.all.glob("*.jinja")):
            tokens = TEMPLATES.get(path.name, {"bos_token": "<s>", "eos_token": "</s>"})
            (args.out / (path.stem + ".json")).write_text(dump(fixture_for(path, tokens)),
                                                          encoding="utf-8")
        return 0

    FIXTURE_DIR.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, tokens in TEMPLATES.items():
        path = TEMPLATE_DIR / name
        out = FIXTURE_DIR / (path.stem + ".json")
        text = dump(fixture_for(path, tokens))
        if args.check:
            if not out.exists() or out.read_text(encoding="utf-8") != text:
                stale.append(out.name)
        else:
            out.write_text(text, encoding="utf-8")
    if stale:
        print("stale fixtures:", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
