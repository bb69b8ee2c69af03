"""/v1/embeddings over the typed embed task (zen/task.h): the real server serves the tiny BERT
through the SDK's encoder example and a tiny decoder beside it. The vectors must be
transformers' (normalised, as OpenAI's are), in float and base64; a frontend learns what each
model serves from the engine (task_kinds, shown as "capabilities"); every misuse is a 4xx
naming what is wrong."""
import base64
import json
import os
import struct

import numpy as np
import pytest

from conftest import ZenServer, clean_env, http_request

MAX_ABS_DIFF = 1e-5  # F32 weights and compute: float summation order only


@pytest.fixture(scope="module")
def manifest(source_dir):
    return json.loads((source_dir / "tests/data/models/tiny_encoder/manifest.json").read_text())


@pytest.fixture(scope="module")
def server(source_dir, tiny_model):
    plugins = os.environ.get("ZEN_EXAMPLE_PLUGIN_DIR")
    if not plugins:
        pytest.skip("ZEN_EXAMPLE_PLUGIN_DIR is not set (run through ctest)")
    bert = source_dir / "tests/data/models/tiny_encoder/bert.gguf"
    s = ZenServer(["-m", bert, "--alias", "bert", "-m", tiny_model, "--alias", "qwen3",
                   "--threads", "2"], env=clean_env(ZEN_PLUGIN_PATH=plugins))
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


def post(server, body):
    status, _, raw = http_request(server, "POST", "/v1/embeddings", body)
    return status, json.loads(raw)


def unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def test_vectors_are_transformers_normalised(server, manifest):
    seqs = manifest["sequences"]
    status, out = post(server, {"model": "bert", "input": [s["ids"] for s in seqs]})
    assert status == 200, out
    assert out["object"] == "list" and out["model"] == "bert"
    assert out["usage"] == {"prompt_tokens": sum(len(s["ids"]) for s in seqs),
                            "total_tokens": sum(len(s["ids"]) for s in seqs)}
    assert [d["index"] for d in out["data"]] == list(range(len(seqs)))
    for d, s in zip(out["data"], seqs):
        assert d["object"] == "embedding"
        diff = np.abs(np.asarray(d["embedding"]) - unit(s["mean_pooled"])).max()
        print(f"sequence {d['index']}: max |diff| {diff:.3g}")
        assert diff <= MAX_ABS_DIFF
        assert abs(np.linalg.norm(d["embedding"]) - 1) < 1e-6

    # One id list alone, and base64: the same little-endian float32 values.
    status, one = post(server, {"model": "bert", "input": seqs[1]["ids"],
                                "encoding_format": "base64"})
    assert status == 200, one
    raw = base64.b64decode(one["data"][0]["embedding"])
    floats = struct.unpack(f"<{len(raw) // 4}f", raw)
    assert len(floats) == manifest["config"]["hidden_size"]
    assert np.abs(np.asarray(floats) - unit(seqs[1]["mean_pooled"])).max() <= MAX_ABS_DIFF


def test_models_say_what_they_serve(server):
    status, _, raw = http_request(server, "GET", "/v1/models")
    assert status == 200
    caps = {m["id"]: m["capabilities"] for m in json.loads(raw)["data"]}
    assert caps == {"bert": ["embeddings"], "qwen3": ["completion", "chat"]}


@pytest.mark.parametrize("body, status, param, says", [
    ({"model": "qwen3", "input": [[1, 2, 3]]}, 400, "model", "makes no embeddings"),
    ({"model": "bert", "input": "hello"}, 400, "model", "no tokenizer"),
    ({"model": "nope", "input": [[1, 2]]}, 404, "model", "nope"),
    ({"model": "bert"}, 400, "input", "'input' is required"),
    ({"model": "bert", "input": []}, 400, "input", "not empty"),
    ({"model": "bert", "input": [[1, 2], "text"]}, 400, "input", "not mixed"),
    ({"model": "bert", "input": [[1] * 65]}, 400, "input",
     "input 0 has 65 tokens; model 'bert' takes at most 64"),
    ({"model": "bert", "input": [[1, 2]], "encoding_format": "hex"}, 400, "encoding_format",
     "\"float\" or \"base64\""),
])
def test_misuse_is_a_clear_client_error(server, body, status, param, says):
    got, out = post(server, body)
    assert got == status, out
    assert out["error"]["param"] == param, out
    assert says in out["error"]["message"], out


def test_generation_on_the_encoder_is_refused(server):
    status, _, raw = http_request(server, "POST", "/v1/chat/completions",
                                  {"model": "bert", "messages": [{"role": "user", "content": "x"}]})
    assert status == 400, raw
    assert "is an embedding model" in json.loads(raw)["error"]["message"]
