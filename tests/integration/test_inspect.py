"""zen-engine inspect on files written by the reference `gguf` Python package, and on hostile
files: the metadata and tensor table must match what was written; a bad file is one clear
line and exit code 1, never a crash."""
import json

import numpy as np
import pytest

from conftest import run, run_json

gguf = pytest.importorskip("gguf", reason="the gguf package writes the reference files")


def write_model(path):
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.add_context_length(128)
    w.add_float32("llama.rope.freq_base", 10000.0)
    w.add_tokenizer_model("llama")
    w.add_token_list(["<unk>", "<s>", "</s>", "hello"])
    w.add_token_scores([0.0, 0.0, 0.0, -1.5])
    w.add_array("test.nested", [[1, 2], [3]])
    w.add_tensor("token_embd.weight", np.arange(4 * 8, dtype=np.float32).reshape(4, 8))
    w.add_tensor("output_norm.weight", np.ones(8, dtype=np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_inspect_json_matches_what_was_written(zen_engine, tmp_path):
    f = tmp_path / "m.gguf"
    write_model(f)
    out = run_json([zen_engine, "inspect", str(f), "--json"])
    text = json.dumps(out)
    for needle in ("general.architecture", "llama.block_count", "tokenizer.ggml.tokens",
                   "token_embd.weight", "output_norm.weight", "test.nested"):
        assert needle in text, needle
    tensors = {t["name"]: t for t in out["tensors"]}
    assert tensors["token_embd.weight"]["type"] == "F32"
    assert tensors["token_embd.weight"]["shape"] == [8, 4]
    assert tensors["output_norm.weight"]["type"] == "F16"
    assert out["version"] == 3


def test_inspect_text(zen_engine, tmp_path):
    f = tmp_path / "m.gguf"
    write_model(f)
    text = run([zen_engine, "inspect", str(f)]).stdout
    assert "token_embd.weight" in text and "F32" in text and "llama" in text


@pytest.mark.parametrize("cut", [3, 10, 40, 200])
def test_truncated_file_is_one_clear_error(zen_engine, tmp_path, cut):
    f = tmp_path / "m.gguf"
    write_model(f)
    bad = tmp_path / "cut.gguf"
    bad.write_bytes(f.read_bytes()[:cut])
    proc = run([zen_engine, "inspect", str(bad)], check=False)
    assert proc.returncode == 1, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0], proc.stderr


def test_not_a_gguf(zen_engine, tmp_path):
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"PK\x03\x04 this is a zip")
    proc = run([zen_engine, "inspect", str(bad)], check=False)
    assert proc.returncode == 1 and "magic" in proc.stderr.lower(), proc.stderr


def test_missing_file(zen_engine, tmp_path):
    proc = run([zen_engine, "inspect", str(tmp_path / "nope.gguf")], check=False)
    assert proc.returncode == 1 and "nope.gguf" in proc.stderr
