#!/usr/bin/env python3
"""Writes tests/data/models/scripted/scripted.gguf: a model whose greedy output is a script, so
the server's tool-call loop can be tested end to end without a model that happens to call tools.

Architecture "scripted" (tests/plugins/scripted_arch.cpp): logits = next_token.weight row of the
last input token x scripted.logit_scale. Row t is one-hot at SCRIPT[t] (end of turn for tokens
not in the script), so greedy decoding, and any sampling at a sane temperature, follows a fixed
transition per token.

The tokenizer (byte-level BPE, every byte a token) holds whole strings as user-defined tokens,
which the tokenizer always matches, longest first. The one that ends the rendered prompt decides
the answer, because the chat template below (Hermes / Qwen 2.5 style) renders different text
before the assistant turn opens:

  a user turn ending "weather in Paris?"  -> the get_weather tool call, then end of turn
  a tool response (other endings)         -> "The weather in Paris is sunny today.", end of turn
  any other user turn                     -> "I can only tell you about the weather.", end
  a forced "<tool_call>\\n{"name": "" (tool_choice required) or the named-function prefix
                                          -> the rest of the same call

and for the MCP client's tool loop (docs/MCP-CLIENT.md; the tool of the test MCP server
tests/mcp/servers/weather_server.py, exposed as weather__get_weather):

  a user turn ending "weather in Rome?"   -> the weather__get_weather call for Rome
  a tool response "...rain"               -> "Rome will see rain today.", end of turn
  a tool response "...sun"                -> "Rome will be sunny today.", end of turn
  a user turn ending "crash the weather server."
                                          -> the weather__crash call (no arguments)
  a user turn ending "wait for the weather."
                                          -> the weather__slow call for 30 seconds

    tools/make_scripted_model.py            # rewrite the file
    tools/make_scripted_model.py --check    # exit 1 if the committed file differs

Needs numpy and gguf only.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from gguf import GGUFWriter, GGMLQuantizationType, TokenType

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "models" / "scripted" / "scripted.gguf"
LOGIT_SCALE = 50.0

END_OF_TURN = "<|im_end|>"
OPEN_ASSISTANT = "<|im_end|>\n<|im_start|>assistant\n"

# Tokens the answers are made of (user-defined: whole strings), and what follows each.
WEATHER_QUESTION = "weather in Paris?" + OPEN_ASSISTANT
TOOL_RESULT_END = "\n</tool_response>" + OPEN_ASSISTANT
CALL = ["<tool_call>", '\n{"name": "get_weather", "arguments": ', '{"city": "Paris"}',
        "}\n</tool_call>"]
FORCED_REQUIRED = ['\n{"name": "', 'get_weather", "arguments": ']  # after "<tool_call>"
ANSWER = ["The weather in Paris", " is sunny", " today."]
REFUSAL = ["I can only tell you about the weather."]

# The MCP case: the answer depends on the text the external tool returned.
ROME_QUESTION = "weather in Rome?" + OPEN_ASSISTANT
ROME_CALL = ['<tool_call>\n{"name": "weather__get_weather", "arguments": ', '{"city": "Rome"}']
RAIN_RESULT_END = "rain" + TOOL_RESULT_END
RAIN_ANSWER = ["Rome will see", " rain today."]
SUN_RESULT_END = "sun" + TOOL_RESULT_END
SUN_ANSWER = ["Rome will be", " sunny today."]
CRASH_REQUEST = "crash the weather server." + OPEN_ASSISTANT
CRASH_CALL = ['<tool_call>\n{"name": "weather__crash", "arguments": ', "{}"]
SLOW_REQUEST = "wait for the weather." + OPEN_ASSISTANT
SLOW_CALL = ['<tool_call>\n{"name": "weather__slow", "arguments": ', '{"seconds": 30}']

SCRIPT = {
    WEATHER_QUESTION: CALL[0],
    CALL[0]: CALL[1],
    CALL[1]: CALL[2],
    CALL[2]: CALL[3],
    CALL[3]: END_OF_TURN,
    FORCED_REQUIRED[0]: FORCED_REQUIRED[1],
    FORCED_REQUIRED[1]: CALL[2],
    TOOL_RESULT_END: ANSWER[0],
    ANSWER[0]: ANSWER[1],
    ANSWER[1]: ANSWER[2],
    ANSWER[2]: END_OF_TURN,
    OPEN_ASSISTANT: REFUSAL[0],
    REFUSAL[0]: END_OF_TURN,
    ROME_QUESTION: ROME_CALL[0],
    ROME_CALL[0]: ROME_CALL[1],
    ROME_CALL[1]: CALL[3],
    RAIN_RESULT_END: RAIN_ANSWER[0],
    RAIN_ANSWER[0]: RAIN_ANSWER[1],
    RAIN_ANSWER[1]: END_OF_TURN,
    SUN_RESULT_END: SUN_ANSWER[0],
    SUN_ANSWER[0]: SUN_ANSWER[1],
    SUN_ANSWER[1]: END_OF_TURN,
    CRASH_REQUEST: CRASH_CALL[0],
    CRASH_CALL[0]: CRASH_CALL[1],
    CRASH_CALL[1]: CALL[3],
    SLOW_REQUEST: SLOW_CALL[0],
    SLOW_CALL[0]: SLOW_CALL[1],
    SLOW_CALL[1]: CALL[3],
}

CHAT_TEMPLATE = """\
{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\\n\\n' }}
    {%- endif %}
    {{- '# Tools\\n\\nYou may call these functions, described inside <tools></tools>:\\n<tools>' }}
    {%- for tool in tools %}
        {{- '\\n' + (tool | tojson) }}
    {%- endfor %}
    {{- '\\n</tools>\\n\\nTo call one, answer with a JSON object inside <tool_call></tool_call> tags:\\n' }}
    {{- '<tool_call>\\n{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}
{%- elif messages[0].role == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'system' and loop.first %}
    {%- elif message.role == 'assistant' %}
        {{- '<|im_start|>assistant' }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for call in message.tool_calls or [] %}
            {{- '\\n<tool_call>\\n{"name": "' + call.function.name + '", "arguments": ' }}
            {{- call.function.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == 'tool' %}
        {%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- else %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""


def byte_alphabet():
    """GPT-2's printable spelling of each byte (byte-level BPE token texts)."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
                 + list(range(ord("®"), ord("ÿ") + 1)))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def vocabulary():
    tokens = byte_alphabet()
    types = [TokenType.NORMAL] * 256
    # One merge (the BPE loader wants a merges array, and a merge needs its result token).
    tokens.append("ĠĠ")
    types.append(TokenType.NORMAL)
    for control in ["<|endoftext|>", "<|im_start|>", END_OF_TURN]:
        tokens.append(control)
        types.append(TokenType.CONTROL)
    for text in dict.fromkeys(list(SCRIPT) + list(SCRIPT.values())):
        if text not in tokens:
            tokens.append(text)
            types.append(TokenType.USER_DEFINED)
    return tokens, types


def write(path: Path):
    tokens, types = vocabulary()
    index = {t: i for i, t in enumerate(tokens)}
    eot = index[END_OF_TURN]
    table = np.zeros((len(tokens), len(tokens)), dtype=np.float16)  # [row = token, next]
    for t in range(len(tokens)):
        table[t, index[SCRIPT.get(tokens[t], END_OF_TURN)]] = 1.0
    table[eot, eot] = 1.0

    path.parent.mkdir(parents=True, exist_ok=True)
    w = GGUFWriter(str(path), "scripted")
    w.add_name("scripted")
    w.add_description("Test model whose greedy output is a fixed script (tools/make_scripted_model.py)")
    w.add_context_length(4096)
    w.add_float32("scripted.logit_scale", LOGIT_SCALE)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_types([int(t) for t in types])
    w.add_token_merges(["Ġ Ġ"])
    w.add_bos_token_id(index["<|endoftext|>"])
    w.add_eos_token_id(eot)
    w.add_add_bos_token(False)
    w.add_add_eos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)
    w.add_tensor("next_token.weight", table, raw_dtype=GGMLQuantizationType.F16)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed file")
    args = ap.parse_args()
    if not args.check:
        write(OUT)
        print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "scripted.gguf"
        write(fresh)
        if not OUT.exists() or OUT.read_bytes() != fresh.read_bytes():
            print(f"{OUT} is stale: run tools/make_scripted_model.py", file=sys.stderr)
            return 1
    print(f"{OUT} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
