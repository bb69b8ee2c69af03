"""Embeddings and reranking through the real server, on the tiny Qwen3-Embedding,
EmbeddingGemma, BERT cross-encoder and Qwen3-Reranker (tests/data/models/tiny_embed, made by
tools/make_tiny_embedders.py with transformers' own classes, references from
sentence-transformers and transformers): /v1/embeddings with the models' prompts, Matryoshka
widths, truncation and its refusals, through the official openai client; /v1/rerank through
`requests`, in the Cohere/Jina shape; concurrent requests packed together equal each alone;
the MCP `embed` and `rerank` tools; the Vulkan and OpenCL devices (lavapipe, PoCL here) give the
same rows as the CPU."""
import asyncio
import concurrent.futures
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

requests = pytest.importorskip("requests")
openai = pytest.importorskip("openai")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from zen_server import ZenServer  # noqa: E402
from zen_testing import clean_env, engine_path  # noqa: E402

DIR = Path(__file__).resolve().parents[1] / "data" / "models" / "tiny_embed"
EMBEDDERS = ("qwen3_embed", "gemma_embed")
RERANKERS = ("bert_rerank", "qwen3_rerank")
MAX_ABS = 2e-5  # F32 weights and compute: summation order only


@pytest.fixture(scope="module")
def manifest():
    path = DIR / "manifest.json"
    if not path.exists():
        pytest.skip(f"{path} is missing (tools/make_tiny_embedders.py)")
    return json.loads(path.read_text())["models"]


@pytest.fixture(scope="module")
def server(manifest):
    args = []
    for name in EMBEDDERS + RERANKERS:
        args += ["-m", DIR / manifest[name]["gguf"], "--alias", name]
    s = ZenServer(args + ["--threads", "2", "--mcp-port", "0"])
    line = s.wait_for_log(r"serving on http://\S+/mcp")
    s.mcp_url = re.search(r"(http://\S+/mcp)", line).group(1)
    yield s
    assert s.stop() == 0, "\n".join(s.lines)


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server.url("/v1"), api_key="none")


def unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def post(server, path, body):
    r = requests.post(server.url(path), json=body, timeout=60)
    return r.status_code, r.json()


def test_models_say_what_they_serve(server):
    models = {m["id"]: m for m in requests.get(server.url("/v1/models"), timeout=30).json()["data"]}
    for name in EMBEDDERS:
        assert models[name]["capabilities"] == ["embeddings"], models[name]
    for name in RERANKERS:
        assert models[name]["capabilities"] == ["rerank"], models[name]


@pytest.mark.parametrize("name", EMBEDDERS)
def test_openai_client_vectors_match_sentence_transformers(client, manifest, name):
    for case in manifest[name]["cases"]:
        extra = {"input_type": case["prompt_name"]} if case.get("prompt_name") else {}
        out = client.embeddings.create(model=name, input=[case["text"]], extra_body=extra)
        got = np.asarray(out.data[0].embedding)
        diff = np.abs(got - np.asarray(case["normalized"])).max()
        print(f"{name} {case.get('prompt_name') or '-'} {len(case['ids'])} tokens: "
              f"max abs diff {diff:.2e}, cosine {float(got @ unit(case['pooled'])):.9f}")
        assert diff <= MAX_ABS, case["text"]
        assert out.usage.prompt_tokens == len(case["ids"]), case["text"]


def test_prompts_come_from_the_model(server, manifest):
    case = next(c for c in manifest["qwen3_embed"]["cases"] if c.get("prompt_name") == "query")
    plain = post(server, "/v1/embeddings", {"model": "qwen3_embed", "input": case["text"]})[1]
    asked = post(server, "/v1/embeddings", {"model": "qwen3_embed", "input": case["text"],
                                            "input_type": "search_query"})[1]
    assert asked["usage"]["prompt_tokens"] == len(case["ids"])
    assert plain["usage"]["prompt_tokens"] < asked["usage"]["prompt_tokens"]
    status, err = post(server, "/v1/embeddings", {"model": "qwen3_embed", "input": "x",
                                                  "input_type": "poem"})
    assert status == 400 and "'poem'" in err["error"]["message"]
    assert "query" in err["error"]["message"] and err["error"]["param"] == "input_type"


def test_matryoshka_widths(server, manifest):
    dims = manifest["gemma_embed"].get("matryoshka_dims")
    case = manifest["gemma_embed"]["cases"][0]
    body = {"model": "gemma_embed", "input": case["text"], "input_type": case["prompt_name"]}
    if not dims:
        pytest.skip("the tiny EmbeddingGemma has no Matryoshka widths in its manifest")
    d = min(dims)
    status, out = post(server, "/v1/embeddings", {**body, "dimensions": d})
    assert status == 200, out
    want = unit(np.asarray(case["pooled"])[:d])
    assert np.abs(np.asarray(out["data"][0]["embedding"]) - want).max() <= MAX_ABS
    status, err = post(server, "/v1/embeddings", {**body, "dimensions": d + 1})
    assert status == 400 and err["error"]["param"] == "dimensions", err
    status, err = post(server, "/v1/embeddings", {"model": "qwen3_embed", "input": "x",
                                                  "dimensions": 8})
    assert status == 400 and "Matryoshka" in err["error"]["message"], err


def test_too_long_is_refused_by_name_unless_truncated(server):
    long_ids = [5] * 5000  # past every tiny model's context
    status, err = post(server, "/v1/embeddings",
                       {"model": "qwen3_embed", "input": [[1, 2, 3], long_ids]})
    assert status == 400, err
    assert re.search(r"input 1 has 5000 tokens; .* takes at most \d+", err["error"]["message"])
    status, out = post(server, "/v1/embeddings",
                       {"model": "qwen3_embed", "input": [[1, 2, 3], long_ids], "truncate": True})
    assert status == 200, out
    assert len(out["data"]) == 2 and out["usage"]["prompt_tokens"] > 3


def test_concurrent_requests_equal_each_alone(server, manifest):
    texts = [c["text"] for c in manifest["qwen3_embed"]["cases"]] * 4
    alone = [post(server, "/v1/embeddings", {"model": "qwen3_embed", "input": t})[1]
             for t in texts]
    with concurrent.futures.ThreadPoolExecutor(len(texts)) as pool:
        together = list(pool.map(
            lambda t: post(server, "/v1/embeddings", {"model": "qwen3_embed", "input": t})[1],
            texts))
    for a, b in zip(alone, together):
        assert np.abs(np.asarray(a["data"][0]["embedding"]) -
                      np.asarray(b["data"][0]["embedding"])).max() <= 1e-5


@pytest.mark.parametrize("name", RERANKERS)
def test_rerank_scores_match_the_reference(server, manifest, name):
    cases = manifest[name]["cases"]
    query = cases[0]["query"]
    docs = [c["document"] for c in cases]
    status, out = post(server, "/v1/rerank", {"model": name, "query": query, "documents": docs})
    assert status == 200, out
    assert out["object"] == "list" and out["model"] == name and out["id"].startswith("rerank-")
    scores = [r["relevance_score"] for r in out["results"]]
    assert scores == sorted(scores, reverse=True)
    for r in out["results"]:
        want = cases[r["index"]]["score"]
        print(f"{name} document {r['index']}: {r['relevance_score']:.7f} (reference {want:.7f})")
        assert abs(r["relevance_score"] - want) <= MAX_ABS
        assert r["document"] == {"text": docs[r["index"]]}
    assert out["usage"]["prompt_tokens"] == sum(len(c["ids"]) for c in cases)


def test_rerank_options_and_refusals(server, manifest):
    cases = manifest["bert_rerank"]["cases"]
    docs = [{"text": c["document"]} for c in cases]
    status, out = post(server, "/rerank", {"model": "bert_rerank", "query": cases[0]["query"],
                                           "documents": docs, "top_n": 2,
                                           "return_documents": False})
    assert status == 200 and len(out["results"]) == 2, out
    assert all("document" not in r for r in out["results"])
    for body, param in [({"query": "q"}, "documents"), ({"documents": ["a"]}, "query"),
                        ({"query": "q", "documents": [3]}, "documents"),
                        ({"query": "q", "documents": ["a"], "top_n": 0}, "top_n")]:
        status, err = post(server, "/v1/rerank", {"model": "bert_rerank", **body})
        assert status == 400 and err["error"]["param"] == param, (body, err)
    status, err = post(server, "/v1/rerank", {"model": "bert_rerank", "query": "q",
                                              "documents": ["word " * 4000]})
    assert status == 400 and "document 0" in err["error"]["message"], err
    status, out = post(server, "/v1/rerank", {"model": "bert_rerank", "query": "q",
                                              "documents": ["word " * 4000], "truncate": True})
    assert status == 200, out
    status, err = post(server, "/v1/rerank", {"model": "qwen3_embed", "query": "q",
                                              "documents": ["a"]})
    assert status == 400 and "not a reranker" in err["error"]["message"], err
    status, err = post(server, "/v1/embeddings", {"model": "bert_rerank", "input": "a"})
    assert status == 400 and "reranker" in err["error"]["message"], err


def test_mcp_embed_and_rerank_tools(server, manifest):
    mcp = pytest.importorskip("mcp")

    async def main():
        async with mcp.Client(server.mcp_url) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            case = manifest["gemma_embed"]["cases"][0]
            emb = await c.call_tool("embed", {"model": "gemma_embed", "input": [case["text"]],
                                              "input_type": case["prompt_name"]})
            rc = manifest["qwen3_rerank"]["cases"]
            ranked = await c.call_tool("rerank", {"model": "qwen3_rerank",
                                                  "query": rc[0]["query"],
                                                  "documents": [x["document"] for x in rc]})
            bad = await c.call_tool("embed", {"model": "gemma_embed", "input": "x",
                                              "input_type": "poem"})
            return tools, case, emb, ranked, bad

    tools, case, emb, ranked, bad = asyncio.run(main())
    assert {"embed", "rerank"} <= tools
    assert not emb.is_error, emb
    got = np.asarray(emb.structured_content["embeddings"][0])
    assert np.abs(got - np.asarray(case["normalized"])).max() <= MAX_ABS
    assert json.loads(emb.content[0].text) == emb.structured_content
    assert not ranked.is_error, ranked
    for r in ranked.structured_content["results"]:
        want = manifest["qwen3_rerank"]["cases"][r["index"]]["score"]
        assert abs(r["relevance_score"] - want) <= MAX_ABS
    assert bad.is_error and "poem" in bad.content[0].text


@pytest.mark.parametrize("device", ["vulkan:0", "opencl:0"])
def test_gpu_devices_give_the_reference_rows(manifest, device):
    engine = engine_path()
    probe = json.loads(subprocess.run([engine, "probe", "--json"], capture_output=True, text=True,
                                      env=clean_env(), check=True).stdout)
    if device not in {d["id"] for d in probe["devices"]}:
        pytest.skip(f"{device} is not on this machine")
    for name in EMBEDDERS + ("qwen3_rerank",):
        cases = manifest[name]["cases"]
        cmd = [engine, "embed", "-m", DIR / manifest[name]["gguf"], "--json", "--device", device]
        for c in cases:
            cmd += ["--ids", ",".join(map(str, c["ids"]))]
        out = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=clean_env(),
                                        check=True).stdout)["embeddings"]
        for c, row in zip(cases, out):
            want = c["pooled"] if "pooled" in c else c["logits"]
            diff = np.abs(np.asarray(row) - np.asarray(want)).max()
            print(f"{device} {name} {len(c['ids'])} tokens: max abs diff {diff:.2e}")
            assert diff <= MAX_ABS
