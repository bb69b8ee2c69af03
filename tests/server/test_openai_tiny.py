"""The OpenAI API of `zen-engine serve`, driven by the official openai package against the real
server on the tiny random-weight Qwen3 model (tests/data/models/tiny): chat and completions,
streamed and not, usage, stop strings, n, logprobs, seeds, errors, cancellation and 16
concurrent streams in deterministic mode. Expected values come from the API's own contract
(a streamed answer equals the non-streamed one, a stop string cuts the unstopped text at its
first occurrence, choice i of n equals a single request seeded seed + i), never from the
server's internals."""
import json
import math
import subprocess
import threading
import urllib.error
import urllib.request

import pytest

openai = pytest.importorskip("openai")

from conftest import ZenServer, clean_env  # noqa: E402

MODEL = "qwen3"
HELLO = [{"role": "user", "content": "Tell me about ships."}]


@pytest.fixture(scope="module")
def server(tiny_model):
    s = ZenServer(["-m", tiny_model, "--deterministic", "--parallel", "16",
                   "--ctx", "8192", "--threads", "2"])
    yield s
    assert s.stop() == 0, "\n".join(s.lines)
    assert any("stopped" in line for line in s.lines)


@pytest.fixture(scope="module")
def client(server):
    return server.client()


def chat(client, **kw):
    kw.setdefault("model", MODEL)
    kw.setdefault("messages", HELLO)
    return client.chat.completions.create(**kw)


def stream_chat(client, **kw):
    """(text per choice, finish_reason per choice, usage or None, chunks) of a streamed chat."""
    text, finish, usage, chunks = {}, {}, None, []
    for chunk in chat(client, stream=True, **kw):
        chunks.append(chunk)
        if chunk.usage is not None:
            usage = chunk.usage
        for c in chunk.choices:
            text[c.index] = text.get(c.index, "") + (c.delta.content or "")
            if c.finish_reason:
                finish[c.index] = c.finish_reason
    return text, finish, usage, chunks


# Random weights rarely say EOS, but may: ignore_eos keeps lengths exact.
LONG = {"ignore_eos": True}


def test_models_lists_the_served_model(client):
    models = client.models.list()
    assert [m.id for m in models.data] == [MODEL]
    meta = models.data[0].model_extra["meta"]
    assert meta["architecture"] == "qwen3"
    assert meta["n_ctx"] == 256  # the tiny model's training context
    assert meta["quant"] == "F32"


def test_chat_stream_equals_non_stream_with_usage_chunk(client):
    full = chat(client, temperature=0, max_tokens=24, extra_body=LONG)
    choice = full.choices[0]
    assert choice.message.role == "assistant"
    assert choice.finish_reason == "length"
    assert full.usage.completion_tokens == 24
    assert full.usage.total_tokens == full.usage.prompt_tokens + 24
    assert full.id.startswith("chatcmpl-") and full.model == MODEL

    text, finish, usage, chunks = stream_chat(client, temperature=0, max_tokens=24,
                                              stream_options={"include_usage": True},
                                              extra_body=LONG)
    assert text[0] == choice.message.content
    assert finish == {0: "length"}
    assert chunks[-1].choices == [] and usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (full.usage.prompt_tokens, 24)
    assert len({c.id for c in chunks}) == 1


def test_completion_default_max_tokens_is_16_and_stream_agrees(client):
    full = client.completions.create(model=MODEL, prompt="She counted 12 ships.", temperature=0,
                                     extra_body=LONG)
    assert full.choices[0].finish_reason == "length"
    assert full.usage.completion_tokens == 16
    assert full.id.startswith("cmpl-")
    streamed = "".join(c.choices[0].text for c in client.completions.create(
        model=MODEL, prompt="She counted 12 ships.", temperature=0, stream=True, extra_body=LONG)
        if c.choices)
    assert streamed == full.choices[0].text


def post_json(server, path, body):
    req = urllib.request.Request(server.url(path), data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def test_completion_accepts_token_ids(server, client):
    by_text = client.completions.create(model=MODEL, prompt="She counted", temperature=0,
                                        max_tokens=6, extra_body=LONG)
    ids = post_json(server, "/tokenize", {"model": MODEL, "content": "She counted"})["tokens"]
    assert post_json(server, "/detokenize", {"model": MODEL, "tokens": ids})["content"].endswith(
        "She counted")
    by_ids = client.completions.create(model=MODEL, prompt=ids, temperature=0, max_tokens=6,
                                       extra_body=LONG)
    assert by_ids.usage.prompt_tokens == len(ids) == by_text.usage.prompt_tokens
    assert by_ids.choices[0].text == by_text.choices[0].text


def test_stop_string_cuts_the_text_at_its_first_occurrence(client):
    full = chat(client, temperature=0, max_tokens=40, extra_body=LONG).choices[0].message.content
    assert len(full) >= 12, full
    stop = full[8:11]  # three characters from the middle of the answer
    expected = full[:full.find(stop)]
    cut = chat(client, temperature=0, max_tokens=40, stop=[stop], extra_body=LONG).choices[0]
    assert cut.message.content == expected
    assert stop not in cut.message.content
    assert cut.finish_reason == "stop"
    text, finish, _, _ = stream_chat(client, temperature=0, max_tokens=40, stop=[stop],
                                     extra_body=LONG)
    assert text[0] == expected and finish == {0: "stop"}


def test_n_choices_are_the_single_requests_seeded_seed_plus_i(client):
    many = chat(client, n=3, temperature=1, seed=7, max_tokens=12, extra_body=LONG)
    assert sorted(c.index for c in many.choices) == [0, 1, 2]
    assert many.usage.completion_tokens == 36
    by_index = {c.index: c.message.content for c in many.choices}
    for i in range(3):
        one = chat(client, temperature=1, seed=7 + i, max_tokens=12, extra_body=LONG)
        assert one.choices[0].message.content == by_index[i]
    text, _, _, _ = stream_chat(client, n=3, temperature=1, seed=7, max_tokens=12,
                                extra_body=LONG)
    assert text == by_index


def test_logprobs_are_finite_sorted_and_consistent(client):
    r = chat(client, temperature=0, max_tokens=8, logprobs=True, top_logprobs=5, extra_body=LONG)
    entries = r.choices[0].logprobs.content
    assert len(entries) == 8
    for e in entries:
        assert math.isfinite(e.logprob) and e.logprob <= 0
        top = [t.logprob for t in e.top_logprobs]
        assert len(top) == 5 and all(math.isfinite(v) and v <= 0 for v in top)
        assert top == sorted(top, reverse=True)
        assert sum(math.exp(v) for v in top) <= 1 + 1e-4
        # greedy: the chosen token is the most likely one
        assert e.top_logprobs[0].token == e.token
        assert e.logprob == pytest.approx(top[0], abs=1e-6)
        assert bytes(e.bytes).decode("utf-8", "replace") == e.token
    # sampled at temperature 1: the chosen token is no likelier than the best, and when it is
    # among the alternatives its value is the same
    r = chat(client, temperature=1, seed=3, max_tokens=8, logprobs=True, top_logprobs=20,
             extra_body=LONG)
    for e in r.choices[0].logprobs.content:
        assert e.logprob <= e.top_logprobs[0].logprob + 1e-6
        same = [t.logprob for t in e.top_logprobs if t.token == e.token and t.bytes == e.bytes]
        if same:
            assert e.logprob == pytest.approx(same[0], abs=1e-6)


def test_completion_logprobs_legacy_shape(client):
    r = client.completions.create(model=MODEL, prompt="She counted", temperature=0, max_tokens=5,
                                  logprobs=3, extra_body=LONG)
    lp = r.choices[0].logprobs
    assert len(lp.tokens) == len(lp.token_logprobs) == len(lp.top_logprobs) == 5
    assert all(len(t) <= 3 and math.isfinite(v) for t, v in zip(lp.top_logprobs,
                                                                lp.token_logprobs))


def test_seed_determinism(client):
    kw = dict(temperature=1, max_tokens=32, extra_body=LONG)
    a = chat(client, seed=42, **kw).choices[0].message.content
    b = chat(client, seed=42, **kw).choices[0].message.content
    c = chat(client, seed=43, **kw).choices[0].message.content
    assert a == b
    assert a != c


def test_max_tokens_finishes_with_length(client):
    r = chat(client, temperature=0, max_tokens=3, extra_body=LONG)
    assert r.choices[0].finish_reason == "length" and r.usage.completion_tokens == 3
    r = chat(client, temperature=0, max_completion_tokens=2, extra_body=LONG)
    assert r.usage.completion_tokens == 2


def bad_request(call, param=None, code=None, words=()):
    with pytest.raises(openai.BadRequestError) as e:
        call()
    err = e.value.body if isinstance(e.value.body, dict) else {}
    err = err.get("error", err)
    if param is not None:
        assert err.get("param") == param, err
        assert param in err.get("message", ""), err
    if code is not None:
        assert err.get("code") == code, err
    for w in words:
        assert w in err.get("message", ""), err
    return err


def test_errors_name_the_parameter(client):
    with pytest.raises(openai.NotFoundError) as e:
        chat(client, model="no-such-model", max_tokens=1)
    assert e.value.status_code == 404 and e.value.code == "model_not_found"
    bad_request(lambda: chat(client, temperature=3), param="temperature",
                words=["between 0 and 2"])
    bad_request(lambda: chat(client, top_p=-0.5), param="top_p")
    bad_request(lambda: chat(client, n=17), param="n")
    bad_request(lambda: chat(client, max_tokens=0), param="max_tokens")
    bad_request(lambda: chat(client, messages=[]), param="messages")
    err = bad_request(lambda: chat(client, messages=[{"role": "wizard", "content": "x"}]))
    assert err["param"].startswith("messages[0]") and "role" in err["message"], err
    bad_request(lambda: chat(client, top_logprobs=3), param="top_logprobs")
    bad_request(lambda: chat(client, response_format={"type": "json_object"}),
                param="response_format", words=["constrained decoding is not implemented"])
    bad_request(lambda: chat(client, tool_choice="required"), param="tool_choice")
    bad_request(lambda: chat(client, extra_body={"frobnicate": 1}), param="frobnicate")
    bad_request(lambda: client.completions.create(model=MODEL, prompt="x", echo=True),
                param="echo")
    bad_request(lambda: client.completions.create(model=MODEL, prompt="x", suffix="y"),
                param="suffix")
    bad_request(lambda: client.completions.create(model=MODEL, prompt="x", n=2, best_of=3),
                param="best_of")
    bad_request(lambda: client.completions.create(model=MODEL, prompt=[600], max_tokens=1),
                param="prompt")


def test_context_overflow_is_context_length_exceeded(client):
    long = [{"role": "user", "content": "ships " * 400}]
    bad_request(lambda: chat(client, messages=long, max_tokens=4),
                code="context_length_exceeded", words=["maximum context length is 256"])
    bad_request(lambda: chat(client, max_tokens=1000), code="context_length_exceeded")
    # the server goes on serving
    assert chat(client, temperature=0, max_tokens=2, extra_body=LONG).usage.completion_tokens == 2


def test_disconnect_mid_stream_frees_the_sequence(server, client):
    start = len(server.lines)
    stream = chat(client, stream=True, temperature=0, max_tokens=200, extra_body=LONG)
    for i, _ in enumerate(stream):
        if i == 3:
            break
    stream.close()
    server.wait_for_log(r"chatcmpl-\S+ cancelled: sequence freed", timeout=30, start=start)
    assert chat(client, temperature=0, max_tokens=2, extra_body=LONG).usage.completion_tokens == 2


def test_sixteen_concurrent_streams_equal_their_solo_runs(client):
    def request(i):
        messages = [{"role": "user", "content": f"Ship number {i} sails at dawn."}]
        return dict(messages=messages, temperature=0.8, seed=1000 + i, max_tokens=24,
                    extra_body=LONG)

    results, errors = {}, []

    def worker(i):
        try:
            text, finish, _, _ = stream_chat(client, **request(i))
            results[i] = (text[0], finish[0])
        except Exception as e:  # reported below, with the thread's index
            errors.append((i, repr(e)))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert sorted(results) == list(range(16))
    assert all(f == "length" for _, f in results.values())
    for i in range(16):
        solo = chat(client, **request(i)).choices[0].message.content
        assert results[i][0] == solo, f"request {i} differs under load"


def test_two_models_aliases_and_an_api_key_from_the_environment(tiny_models_dir):
    env = clean_env(ZEN_API_KEY="sesame")
    s = ZenServer(["-m", tiny_models_dir / "qwen3.gguf", "-m", tiny_models_dir / "llama.gguf",
                   "--alias", "first", "--threads", "1"], env=env)
    try:
        with pytest.raises(openai.AuthenticationError):
            s.client(api_key="wrong").models.list()
        c = s.client(api_key="sesame")
        assert sorted(m.id for m in c.models.list().data) == ["first", "llama"]
        for model in ("first", "llama"):
            r = c.completions.create(model=model, prompt="She counted", max_tokens=2,
                                     temperature=0, extra_body=LONG)
            assert r.model == model and r.usage.completion_tokens == 2
        # with two models, "model" cannot be left out
        err = bad_request(lambda: c.post("/completions", body={"prompt": "x"}, cast_to=object))
        assert err["param"] == "model"
    finally:
        assert s.stop() == 0


def test_a_model_that_cannot_load_ends_the_server_with_exit_1(zen_engine, tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF but not really")
    proc = subprocess.run([zen_engine, "serve", "-m", bad, "--port", "0"], capture_output=True,
                          text=True, timeout=60, env=clean_env())
    assert proc.returncode == 1, proc.stderr
    assert "model 'broken' failed to load" in proc.stderr
    missing = subprocess.run([zen_engine, "serve", "-m", "no-such-model-anywhere", "--port", "0"],
                             capture_output=True, text=True, timeout=60,
                             env=clean_env(ZEN_MODELS_DIR=str(tmp_path)))
    assert missing.returncode == 1
    assert "no-such-model-anywhere" in missing.stderr and "not found" in missing.stderr


HOSTILE = [
    {"messages": "hi"}, {"messages": [1]}, {"messages": [{"role": "user"}]},
    {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
    {"messages": [{"role": "user", "content": {"a": 1}}]},
    {"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": 1}}]}]},
    {"messages": [{"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": "{not json"}}]}]},
    {"n": True}, {"n": 2.5}, {"seed": 1e30}, {"seed": "7"}, {"temperature": None, "top_p": "1"},
    {"stop": [""]}, {"stop": ["a"] * 17}, {"stop": [1]}, {"logit_bias": {"x": 1}},
    {"logit_bias": {"99999999": 1}}, {"logit_bias": {"1": 1000}}, {"logit_bias": []},
    {"max_tokens": -1}, {"max_tokens": 2 ** 40}, {"top_logprobs": 50, "logprobs": True},
    {"tools": [{"type": "function", "function": {"name": "bad name!"}}]},
    {"tools": [{"type": "function", "function": {"name": "f"}}],
     "tool_choice": {"type": "function", "function": {"name": "g"}}},
    {"stream_options": {"include_usage": True}}, {"chat_template_kwargs": [1]},
    {"response_format": {"type": "json_schema", "json_schema": {}}}, {"model": 7},
    {"repeat_penalty": 0}, {"top_k": -5}, {"min_p": 2},
]


def test_hostile_fields_get_400_and_the_server_keeps_serving(server, client):
    for extra in HOSTILE:
        body = {"model": MODEL, "messages": HELLO, "max_tokens": 2, **extra}
        req = urllib.request.Request(server.url("/v1/chat/completions"),
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=30)
        assert e.value.code == 400, (extra, e.value.read())
        err = json.loads(e.value.read())["error"]
        assert err["type"] == "invalid_request_error" and err["message"], (extra, err)
    assert chat(client, temperature=0, max_tokens=2, extra_body=LONG).usage.completion_tokens == 2
