"""The OpenAI wire format of the real server (zen-engine serve + http frontend + tiny qwen3):
exact SSE framing, chunk and response shapes, usage, logprobs in both layouts, n > 1, models
and tokenize endpoints; driven by raw HTTP and by the official openai client."""
import http.client
import json

import pytest

from conftest import ZenServer, http_request, model_id


@pytest.fixture(scope="module")
def server(tiny_model):
    s = ZenServer(["-m", tiny_model])
    yield s
    s.stop()


@pytest.fixture(scope="module")
def model(server):
    return model_id(server)


def greedy(**extra):
    # Greedy and ignore_eos: the length of every answer is exactly max_tokens.
    return {"temperature": 0, "ignore_eos": True, **extra}


def sse_events(server, path, body):
    """Posts a streaming request; returns (response headers, list of data payloads)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    headers = {k.lower(): v for k, v in resp.getheaders()}
    text = resp.read().decode()  # http.client undoes the chunked framing
    conn.close()
    assert text.endswith("\n\n")
    events = text[:-2].split("\n\n")
    for e in events:
        assert e.startswith("data: ") and "\n" not in e, repr(e)
    return headers, [e[len("data: "):] for e in events]


def post_json(server, path, body):
    status, _, raw = http_request(server, "POST", path, body)
    assert status == 200, raw
    return json.loads(raw)


def test_chat_stream_is_exact_sse(server, model):
    body = {"model": model, "messages": [{"role": "user", "content": "Count ships"}],
            "max_tokens": 5, "stream": True, "stream_options": {"include_usage": True},
            **greedy()}
    headers, events = sse_events(server, "/v1/chat/completions", body)
    assert headers["content-type"] == "text/event-stream"
    assert headers.get("transfer-encoding") == "chunked"
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert len({c["id"] for c in chunks}) == 1 and chunks[0]["id"].startswith("chatcmpl-")
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == model for c in chunks)
    first, usage_chunk, finish = chunks[0], chunks[-1], chunks[-2]
    assert first["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert usage_chunk["choices"] == []
    usage = usage_chunk["usage"]
    assert usage["completion_tokens"] == 5
    assert usage["total_tokens"] == usage["prompt_tokens"] + 5
    assert finish["choices"][0]["finish_reason"] == "length"
    middle = chunks[1:-2]
    assert all(c["choices"][0]["finish_reason"] is None for c in [first] + middle)
    streamed = "".join(c["choices"][0]["delta"].get("content", "") for c in middle)

    del body["stream_options"]  # only allowed on streams
    whole = post_json(server, "/v1/chat/completions", dict(body, stream=False))
    assert whole["object"] == "chat.completion"
    assert whole["choices"][0]["message"]["content"] == streamed
    assert whole["choices"][0]["finish_reason"] == "length"
    assert whole["usage"]["completion_tokens"] == 5


def test_completion_stream_chunks(server, model):
    body = {"model": model, "prompt": "She counted", "max_tokens": 4, "stream": True,
            **greedy()}
    _, events = sse_events(server, "/v1/completions", body)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "text_completion" for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"
    assert "usage" not in chunks[-1] or chunks[-1]["usage"] is None
    streamed = "".join(c["choices"][0]["text"] for c in chunks)
    whole = post_json(server, "/v1/completions", dict(body, stream=False))
    assert whole["object"] == "text_completion"
    assert whole["choices"][0]["text"] == streamed


def test_completion_legacy_logprobs(server, model):
    answer = post_json(server, "/v1/completions",
                       {"model": model, "prompt": "She counted", "max_tokens": 3, "logprobs": 2,
                        **greedy()})
    choice = answer["choices"][0]
    lp = choice["logprobs"]
    assert len(lp["tokens"]) == len(lp["token_logprobs"]) == len(lp["top_logprobs"]) == 3
    assert all(x <= 0 for x in lp["token_logprobs"])
    for token, logprob, top in zip(lp["tokens"], lp["token_logprobs"], lp["top_logprobs"]):
        assert isinstance(top, dict) and 1 <= len(top) <= 2
        # Greedy: the chosen token is the most likely one.
        assert max(top.values()) == pytest.approx(logprob, abs=1e-4)
    offsets = [0]
    for token in lp["tokens"][:-1]:
        offsets.append(offsets[-1] + len(token))
    assert lp["text_offset"] == offsets
    if not any("\ufffd" in t for t in lp["tokens"]):  # no token split a character
        assert "".join(lp["tokens"]) == choice["text"]


def test_chat_logprobs_and_n_choices(server, model):
    answer = post_json(server, "/v1/chat/completions",
                       {"model": model, "messages": [{"role": "user", "content": "Hi"}],
                        "max_tokens": 3, "n": 2, "logprobs": True, "top_logprobs": 2,
                        "seed": 7, "ignore_eos": True})
    assert [c["index"] for c in answer["choices"]] == [0, 1]
    for c in answer["choices"]:
        entries = c["logprobs"]["content"]
        assert len(entries) == 3
        for e in entries:
            assert set(e) >= {"token", "logprob", "bytes", "top_logprobs"}
            assert len(e["top_logprobs"]) == 2
            assert all(isinstance(b, int) and 0 <= b < 256 for b in e["bytes"])
    assert answer["usage"]["completion_tokens"] == 6


def test_stream_with_two_choices_opens_and_finishes_each(server, model):
    body = {"model": model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2,
            "n": 2, "stream": True, "seed": 3, "ignore_eos": True}
    _, events = sse_events(server, "/v1/chat/completions", body)
    chunks = [json.loads(e) for e in events[:-1]]
    for index in (0, 1):
        mine = [c["choices"][0] for c in chunks if c["choices"][0]["index"] == index]
        assert mine[0]["delta"].get("role") == "assistant"
        assert mine[-1]["finish_reason"] == "length"
        assert all(m["finish_reason"] is None for m in mine[:-1])


def test_openai_client_round_trip(server, model, openai_module):
    client = openai_module.OpenAI(base_url=server.url("/v1"), api_key="unused")
    models = client.models.list()
    assert [m.id for m in models.data] == [model]
    assert client.models.retrieve(model).id == model

    kwargs = dict(model=model, messages=[{"role": "user", "content": "Hello"}], max_tokens=4,
                  temperature=0, extra_body={"ignore_eos": True})
    whole = client.chat.completions.create(**kwargs)
    parts, usage = [], None
    for chunk in client.chat.completions.create(**kwargs, stream=True,
                                                stream_options={"include_usage": True}):
        if chunk.usage:
            usage = chunk.usage
        for c in chunk.choices:
            parts.append(c.delta.content or "")
    assert "".join(parts) == whole.choices[0].message.content
    assert usage.completion_tokens == whole.usage.completion_tokens == 4

    with pytest.raises(openai_module.BadRequestError) as err:
        client.chat.completions.create(model=model, messages=[{"role": "user", "content": "x"}],
                                       temperature="hot")
    assert err.value.status_code == 400
    with pytest.raises(openai_module.NotFoundError):
        client.chat.completions.create(model="no-such-model",
                                       messages=[{"role": "user", "content": "x"}])


def test_tokenize_detokenize_round_trip(server, model):
    text = "She counted 12 ships."
    tokens = post_json(server, "/tokenize", {"model": model, "content": text,
                                             "add_special": False})["tokens"]
    assert tokens and all(isinstance(t, int) for t in tokens)
    assert post_json(server, "/detokenize", {"model": model, "tokens": tokens})["content"] == text
    pieces = post_json(server, "/tokenize", {"model": model, "content": text,
                                             "add_special": False, "with_pieces": True})["tokens"]
    assert [p["id"] for p in pieces] == tokens
    assert "".join(p["piece"] for p in pieces) == text
    status, _, raw = http_request(server, "POST", "/tokenize", {"model": model, "content": 5})
    assert status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"
