"""LoRA adapters through the real server (issue 19 item 5): the tiny Llama served with two
adapters loaded at once, the same peft-made adapter as llama.cpp's GGUF layout and as the PEFT
directory (tests/data/models/tiny_lora, tools/make_tiny_lora.py), the first at --lora-scale 1
and the second at 0. Requests pick adapters and scales with llama-server's "lora" field (by id
or by name). Expected values come from the other form of the same adapter and from a second
server started without adapters, never from the server's internals."""
import concurrent.futures

import pytest

openai = pytest.importorskip("openai")

from conftest import ZenServer, http_request  # noqa: E402


@pytest.fixture(scope="module")
def paths(source_dir):
    root = source_dir / "tests" / "data" / "models"
    return {"model": str(root / "tiny" / "llama.gguf"),
            "gguf": str(root / "tiny_lora" / "llama.lora.gguf"),
            "peft": str(root / "tiny_lora" / "llama_peft")}


@pytest.fixture(scope="module")
def server(paths):
    # --deterministic: a request's tokens do not depend on what runs beside it, so concurrent
    # results can be compared with solo ones exactly (docs/ENGINE.md).
    s = ZenServer(["-m", paths["model"], "--lora", paths["gguf"], "--lora", paths["peft"],
                   "--lora-scale", "1", "--lora-scale", "0", "--threads", "2", "--ctx", "2048",
                   "--deterministic"])
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


@pytest.fixture(scope="module")
def plain(paths):
    s = ZenServer(["-m", paths["model"], "--threads", "2", "--ctx", "2048", "--deterministic"])
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


PROMPT = "She counted 12 ships. The harbour"


def complete(srv, lora=None, prompt=PROMPT):
    body = {"prompt": prompt, "max_tokens": 12, "temperature": 0, "ignore_eos": True}
    if lora is not None:
        body["lora"] = lora
    status, _, data = http_request(srv, "POST", "/v1/completions", body)
    assert status == 200, data
    import json
    return json.loads(data)["choices"][0]["text"]


def test_the_startup_log_names_each_adapter(server):
    # Logged after the model's "ready" line, so possibly after the server answers: wait for it.
    server.wait_for_log(r"LoRA 0 'llama\.lora' \(gguf, 22 matrices")
    server.wait_for_log(r"LoRA 1 'llama_peft' \(peft, 22 matrices.*default scale 0")


def test_default_scales_and_picks_by_id_and_by_name(server, plain):
    default = complete(server)  # --lora-scale: the GGUF form at 1, the PEFT form at 0
    assert complete(server, [{"id": 0, "scale": 1}]) == default
    # The same adapter in its other form, picked by name.
    assert complete(server, [{"name": "llama_peft", "scale": 1.0}]) == default
    # An empty list: no adapter, as the server started without any.
    base = complete(plain)
    assert complete(server, []) == base
    assert complete(server, [{"id": 0, "scale": 0}]) == base
    assert default != base, "the adapter must change the text"


def test_concurrent_requests_with_different_adapters_share_the_engine(server):
    picks = [None, [], [{"id": 1}], [{"id": 0, "scale": 0.5}]] * 3
    prompts = [PROMPT + " " + w for w in ("sailed", "rested", "burned")]
    jobs = [(p, prompts[i % 3]) for i, p in enumerate(picks)]
    alone = [complete(server, p, q) for p, q in jobs]
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        together = list(pool.map(lambda j: complete(server, *j), jobs))
    assert together == alone


@pytest.mark.parametrize("lora, words", [
    ([{"id": 7, "scale": 1}], "no LoRA adapter 7"),
    ([{"name": "nope"}], "no LoRA adapter 'nope'"),
    (3, "'lora' must be an array"),
    ([{"id": 0, "name": "llama_peft"}], "exactly one of"),
    ([{"id": 0, "scale": "high"}], "lora[0].scale"),
    ([{"id": 0, "scale": 1e9}], "lora[0].scale"),
])
def test_bad_picks_are_refused_naming_the_field(server, lora, words):
    body = {"prompt": PROMPT, "max_tokens": 2, "lora": lora}
    status, _, data = http_request(server, "POST", "/v1/completions", body)
    assert status == 400, data
    assert words in data.decode(), data
    assert complete(server, []) == complete(server, [])  # still serving


def test_picks_on_a_model_without_adapters_are_refused(plain):
    status, _, data = http_request(plain, "POST", "/v1/completions",
                                   {"prompt": PROMPT, "max_tokens": 2, "lora": [{"id": 0}]})
    assert status == 400 and b"started without --lora" in data, data
