"""The committed tiny GGUFs (tests/data/models/tiny, made by tools/make_tiny_models.py) are
the models transformers ran: two independent readers get transformers' logits at every
position of every prompt from them.

  * llama.cpp through llama-cpp-python (F32 KV cache, no flash attention), which also must
    tokenize the reference tokenizer's texts to the same ids;
  * tools/tiny_models/gguf_forward.py, a float64 numpy forward written from the GGUF
    conventions alone (needs only numpy and gguf, so it runs everywhere).

This checks the converter and the committed data, not the engine: agreement means the files
(tensor names, Q/K permutation, norm +1, expert layout, rope factors, metadata, vocabulary)
say what transformers computed, so the engine can be held to them.
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "models" / "tiny"
sys.path.insert(0, str(ROOT / "tools"))
from tiny_models.gguf_forward import GGUFModel  # noqa: E402

MANIFEST = json.loads((DATA / "manifest.json").read_text())
MODELS = {m["name"]: m for m in MANIFEST["models"]}

# (max |logit diff|, min cosine per position). Logits are of order 1-4 (std), up to 21.
# Measured with llama.cpp 0.3.36 (llama-cpp-python) / transformers 5.23: about 1.7e-5 for
# the F32 files. Two llama.cpp CPU roundings transformers does not have (how they were traced
# is in docs/TINY-MODELS.md):
#  * GELU through ggml's FP16 lookup table (input and output rounded to half): gemma3 1.9e-3;
#  * F16 weights multiply F16-rounded activations: llama_f16 5e-3, against a reference run on
#    the same F16-rounded weights in float32.
TOLERANCE_F32 = (1e-4, 0.999999)
# The numpy reader: float64 on the stored values (F16 ones included); measured <= 1.5e-5.
TOLERANCE_NUMPY = (1e-4, 0.999999)
TOLERANCE = {
    "gemma3": (5e-3, 0.99999),
    "llama_f16": (1.5e-2, 0.9999),
}


def reference_logits(prompt):
    values = np.fromfile(DATA / prompt["logits"], dtype="<f4")
    return values.reshape(prompt["shape"])


def compare(label, got, want, tolerance):
    got, want = np.asarray(got, dtype=np.float64), want.astype(np.float64)
    max_abs = np.abs(got - want).max()
    cosine = ((got * want).sum(1) / (np.linalg.norm(got, axis=1)
                                     * np.linalg.norm(want, axis=1))).min()
    print(f"{label}: max|diff| {max_abs:.3g}, min cosine {cosine:.9f}")
    max_abs_diff, min_cosine = tolerance
    assert max_abs <= max_abs_diff, f"{label}: max |diff| {max_abs}"
    assert cosine >= min_cosine, f"{label}: cosine {cosine}"
    assert (got.argmax(1) == want.argmax(1)).all(), f"{label}: top-1 differs"


@pytest.fixture(scope="module")
def llama_cpp():
    return pytest.importorskip(
        "llama_cpp", reason="llama-cpp-python is not installed (pip install llama-cpp-python); "
        "it is the independent GGUF reader these checks need")


@pytest.fixture(scope="module")
def load(llama_cpp):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = llama_cpp.Llama(
                model_path=str(DATA / MODELS[name]["gguf"]), n_ctx=64, n_batch=64, n_ubatch=64,
                n_threads=2, logits_all=True, flash_attn=False, type_k=llama_cpp.GGML_TYPE_F32,
                type_v=llama_cpp.GGML_TYPE_F32, verbose=False)
        return cache[name]

    yield get
    for llm in cache.values():
        llm.close()


def test_committed_files_are_the_ones_the_manifest_describes():
    for model in MODELS.values():
        data = (DATA / model["gguf"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == model["sha256"], model["gguf"]
        for prompt in model["prompts"]:
            n_tokens, n_vocab = prompt["shape"]
            assert n_tokens == len(prompt["ids"]) and n_vocab == model["vocab"]["size"]
            assert (DATA / prompt["logits"]).stat().st_size == n_tokens * n_vocab * 4


@pytest.mark.parametrize("name", sorted(MODELS))
def test_llamacpp_logits_match_transformers(load, name):
    llm = load(name)
    assert llm.n_vocab() == MODELS[name]["vocab"]["size"]
    for prompt in MODELS[name]["prompts"]:
        llm.reset()
        llm.eval(prompt["ids"])
        compare(f"llama.cpp {name} {prompt['name']}[{len(prompt['ids'])}]",
                llm.scores[: len(prompt["ids"])], reference_logits(prompt),
                TOLERANCE.get(name, TOLERANCE_F32))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_numpy_gguf_reader_logits_match_transformers(name):
    model = GGUFModel(DATA / MODELS[name]["gguf"])
    for prompt in MODELS[name]["prompts"]:
        compare(f"numpy {name} {prompt['name']}[{len(prompt['ids'])}]",
                model.logits(prompt["ids"]), reference_logits(prompt), TOLERANCE_NUMPY)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_llamacpp_tokenizes_like_the_reference_tokenizer(load, name):
    llm = load(name)
    model = MODELS[name]
    for check in model["tokenizer_checks"]:
        got = llm.tokenize(check["text"].encode(), add_bos=False, special=False)
        assert got == check["ids"], f"{name}: {check['text']!r}"
    short = next(p for p in model["prompts"] if p["name"] == "short_text")
    # add_bos=True asks for the vocabulary's own rule (tokenizer.ggml.add_bos_token)
    assert llm.tokenize(short["text"].encode(), add_bos=True, special=False) == short["ids"]
