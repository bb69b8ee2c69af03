"""A Hugging Face directory served as it is published (issue 19): the tiny Qwen3 saved by
transformers (tests/data/models/tiny_hf/qwen3: config.json, model.safetensors,
tokenizer.json, a tokenizer_config.json with a ChatML template, a generation_config.json with
temperature 0.7, top_k 20, top_p 0.8), driven by the official openai package. Expected values
come from the files and from the same model's GGUF conversion served beside it, never from the
server's internals."""
import pytest

openai = pytest.importorskip("openai")

from conftest import ZenServer  # noqa: E402

PROMPT = [{"role": "user", "content": "Tell me about ships."}]



@pytest.fixture(scope="module")
def server(source_dir, tiny_model):
    hf = str(source_dir / "tests" / "data" / "models" / "tiny_hf" / "qwen3")
    s = ZenServer(["-m", hf, "--alias", "hf", "-m", tiny_model, "--alias", "gguf",
                   "--deterministic", "--threads", "2", "--ctx", "2048"])
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


@pytest.fixture(scope="module")
def client(server):
    return server.client()


def chat(client, model, top_k=None, **kw):
    extra = {"ignore_eos": True}
    if top_k is not None:
        extra["top_k"] = top_k
    r = client.chat.completions.create(model=model, messages=PROMPT, seed=7, max_tokens=24,
                                       extra_body=extra, **kw)
    return r.choices[0].message.content, r.usage.prompt_tokens


def test_the_directory_answers_as_its_gguf_conversion_does(client):
    # Same weights, same tokenizer.json-built tokenizer, same chat template: same tokens.
    for kw in ({"temperature": 0}, {"temperature": 1.0, "top_k": 0, "top_p": 1.0}):
        assert chat(client, "hf", **kw) == chat(client, "gguf", **kw), kw


def test_the_chat_template_comes_from_tokenizer_config(client):
    text, prompt_tokens = chat(client, "hf", temperature=0)
    # ChatML of one user turn plus the generation prompt: more tokens than the words.
    assert prompt_tokens > 8
    models = {m.id for m in client.models.list().data}
    assert models == {"hf", "gguf"}


def test_sampler_fields_left_out_take_the_generation_config(client):
    # generation_config.json: temperature 0.7, top_k 20, top_p 0.8 (the GGUF has no such keys).
    defaults, _ = chat(client, "hf")
    explicit, _ = chat(client, "hf", temperature=0.7, top_k=20, top_p=0.8)
    neutral, _ = chat(client, "hf", temperature=1.0, top_k=0, top_p=1.0)
    assert defaults == explicit
    assert defaults != neutral
    # A field the request sets wins over the file's.
    assert chat(client, "hf", temperature=0)[0] == chat(client, "gguf", temperature=0)[0]
