"""zen-engine run / bench / perplexity on the committed tiny models, and the errors a user sees
for files the engine cannot run (each must be one clear line, exit code 1, no crash)."""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

ENGINE = os.environ.get("ZEN_ENGINE", "zen-engine")
SOURCE = Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[2]))
TINY = SOURCE / "tests" / "data" / "models" / "tiny"


def zen(*args, timeout=300):
    return subprocess.run([ENGINE, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("model", ["llama", "qwen3", "qwen3moe", "gemma3"])
def test_bench_json_reports_both_tests(model):
    r = zen("bench", "-m", TINY / f"{model}.gguf", "-p", "32", "-n", "8", "-r", "2", "-t", "2",
            "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert [t["test"] for t in j["results"]] == ["pp32", "tg8"]
    for t in j["results"]:
        assert len(t["samples_ts"]) == 2 and all(s > 0 for s in t["samples_ts"])
        assert t["avg_ts"] == pytest.approx(sum(t["samples_ts"]) / 2)
    assert j["threads"] == 2


def test_run_raw_generates_exactly_n_tokens_worth_of_text():
    r = zen("run", "-m", TINY / "llama.gguf", "--raw", "-p", "She counted", "--temp", "0",
            "-n", "8", "-v")
    assert r.returncode == 0, r.stderr
    assert "generated: 8 tokens" in r.stderr or "stop: eog" in r.stderr
    assert r.stdout.strip() != ""


def test_interactive_chat_reuses_the_cached_prefix():
    # Two turns through the chat template (ChatML for this model: it ships none); the second
    # turn's prompt starts with the first turn's whole conversation, so it is reused.
    r = subprocess.run([ENGINE, "run", "-m", TINY / "qwen3.gguf", "--temp", "0", "-n", "4"],
                       input="hello\nand again\n", capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    stats = [line for line in r.stderr.splitlines() if line.startswith("[prompt:")]
    assert len(stats) == 2
    assert "(0 reused)" in stats[0]
    reused = int(stats[1].split("(")[1].split()[0])
    assert reused > 0


def test_perplexity_and_logits_file(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("She counted 12 ships. " * 20)
    out = tmp_path / "l.bin"
    r = zen("perplexity", "-m", TINY / "llama.gguf", "-f", text, "-c", "16", "--chunks", "2",
            "--logits-out", out)
    assert r.returncode == 0, r.stderr
    ppl = float(r.stdout.split("PPL = ")[1].split()[0])
    data = out.read_bytes()
    assert data[:8] == b"ZENLGT01"
    n_vocab, n_ctx, n_chunks = (int(x) for x in np.frombuffer(data[8:20], dtype=np.uint32))
    assert (n_vocab, n_ctx, n_chunks) == (512, 16, 2)
    assert len(data) == 20 + n_chunks * n_ctx * (4 + 4 * n_vocab)
    # The printed perplexity is exp(mean NLL) over the second half of each chunk, recomputed
    # here from the saved logits.
    nll, off = [], 20
    for _ in range(n_chunks):
        toks = np.frombuffer(data, dtype=np.int32, count=n_ctx, offset=off)
        off += 4 * n_ctx
        logits = np.frombuffer(data, dtype=np.float32, count=n_ctx * n_vocab,
                               offset=off).reshape(n_ctx, n_vocab).astype(np.float64)
        off += 4 * n_ctx * n_vocab
        lse = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
        for i in range(n_ctx // 2, n_ctx - 1):
            nll.append(lse[i] - logits[i, toks[i + 1]])
    assert ppl == pytest.approx(np.exp(np.mean(nll)), rel=1e-4)


def test_not_a_gguf_is_one_clear_error(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a model at all")
    r = zen("run", "-m", bad, "-p", "hi")
    assert r.returncode == 1
    assert str(bad) in r.stderr and "magic" in r.stderr.lower()


def write_model(path, arch, tensors):
    w = gguf.GGUFWriter(str(path), arch)
    w.add_block_count(1)
    w.add_embedding_length(32)
    w.add_feed_forward_length(64)
    w.add_head_count(4)
    w.add_context_length(64)
    for name, shape in tensors.items():
        w.add_tensor(name, np.zeros(shape[::-1], dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def llama_tensors():
    t = {"token_embd.weight": (32, 100), "output_norm.weight": (32,)}
    for name, shape in {"attn_norm": (32,), "attn_q": (32, 32), "attn_k": (32, 32),
                        "attn_v": (32, 32), "attn_output": (32, 32), "ffn_norm": (32,),
                        "ffn_gate": (32, 64), "ffn_up": (32, 64), "ffn_down": (64, 32)}.items():
        t[f"blk.0.{name}.weight"] = shape
    return t


def test_unknown_architecture_names_it(tmp_path):
    path = tmp_path / "m.gguf"
    write_model(path, "mamba9", {"token_embd.weight": (32, 100)})
    r = zen("bench", "-m", path, "-p", "4", "-n", "0", "-r", "1")
    assert r.returncode == 1
    assert "no architecture plugin for 'mamba9'" in r.stderr
    assert "llama" in r.stderr  # the message lists what is loaded


def test_misshapen_tensor_is_named(tmp_path):
    t = llama_tensors()
    t["blk.0.attn_k.weight"] = (32, 24)
    path = tmp_path / "m.gguf"
    write_model(path, "llama", t)
    r = zen("bench", "-m", path, "-p", "4", "-n", "0", "-r", "1")
    assert r.returncode == 1
    assert "tensor 'blk.0.attn_k.weight' has shape [32, 24], expected [32, 32]" in r.stderr


def test_missing_tensor_is_named(tmp_path):
    t = llama_tensors()
    del t["blk.0.ffn_up.weight"]
    path = tmp_path / "m.gguf"
    write_model(path, "llama", t)
    r = zen("bench", "-m", path, "-p", "4", "-n", "0", "-r", "1")
    assert r.returncode == 1
    assert "tensor 'blk.0.ffn_up.weight' [32, 64] is missing" in r.stderr


def test_model_without_a_tokenizer_cannot_chat_and_says_why(tmp_path):
    # run needs the tokenizer metadata; bench does not.
    path = tmp_path / "m.gguf"
    write_model(path, "llama", llama_tensors())
    r = zen("run", "-m", path, "-p", "hi")
    assert r.returncode == 1
    assert "tokenizer" in r.stderr.lower()
