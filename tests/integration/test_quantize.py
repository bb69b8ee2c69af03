"""zen-engine quantize on small F32 models written here with the `gguf` package.

References, none of them the code under test: the recipe's tensor types are hand-derived from
llama.cpp's rules (docs/QUANTIZE.md) for an 8-layer model; the bytes of every tensor in a
type gguf-py can quantize (F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1) equal gguf-py's; every
tensor dequantizes (gguf-py) to within one quantization step of its block's range; and, when
llama-cpp-python is installed, llama.cpp's own quantizer gives the same types and the same
bytes for the same input, and llama.cpp loads and runs our output.
"""
import os

import numpy as np
import pytest

from conftest import run

gguf = pytest.importorskip("gguf", reason="the gguf package writes and reads the test models")
from gguf import GGMLQuantizationType as Q  # noqa: E402
from gguf.quants import dequantize, quantize  # noqa: E402

try:
    import llama_cpp
except ImportError:  # the checks against llama.cpp skip with this reason
    llama_cpp = None
NO_LLAMA = "llama-cpp-python is not installed (pip install llama-cpp-python)"

N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, HEAD_DIM = 8, 256, 4, 1, 64
N_FF = 288  # a multiple of 32 but not of 256: ffn_down rows need the K-quant fallbacks
# llama.cpp's "more bits" layers for 8 layers: i < 1, i >= 7, (i - 1) % 3 == 2.
MORE_BITS = {0, 3, 6, 7}


def byte_alphabet():
    keep = [*range(33, 127), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    extra = iter(range(256, 512))
    return [chr(b) if b in keep else chr(next(extra)) for b in range(256)]


def write_model(path, tied=False, arch="llama", extra=None, nan_in=None, nested=False, seed=0):
    """An 8-layer llama-shaped F32 model with a small byte-level BPE vocabulary (loadable by
    llama.cpp unless `nested`: ggml refuses arrays of arrays). Weights ~ N(0, 0.02) plus a few
    outliers, so blocks have varied ranges."""
    rng = np.random.default_rng(seed)
    tokens = byte_alphabet()
    merges = []
    for a, b in [("h", "e"), ("l", "l"), ("he", "ll"), ("hell", "o"), ("w", "o"), ("r", "l")]:
        merges.append(f"{a} {b}")
        tokens.append(a + b)
    tokens += ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    types = [1] * (len(tokens) - 3) + [3, 3, 3]
    n_vocab = len(tokens)

    w = gguf.GGUFWriter(str(path), arch)
    w.add_name("quantize test model")
    w.add_context_length(256)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_rope_dimension_count(HEAD_DIM)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_eos_token_id(n_vocab - 1)
    w.add_bos_token_id(n_vocab - 3)
    w.add_float64("test.f64", 0.125)
    w.add_int8("test.i8", -3)
    w.add_bool("test.bool", True)
    if nested:
        w.add_array("test.nested", [[1, 2], [3]])

    def mat(rows, cols):
        x = (0.02 * rng.standard_normal((rows, cols))).astype(np.float32)
        x.flat[rng.integers(0, x.size, 8)] *= 20.0
        return x

    tensors = {"token_embd.weight": mat(n_vocab, N_EMBD)}
    for i in range(N_LAYER):
        p = f"blk.{i}."
        tensors[p + "attn_norm.weight"] = np.ones(N_EMBD, np.float32)
        tensors[p + "attn_q.weight"] = mat(N_HEAD * HEAD_DIM, N_EMBD)
        tensors[p + "attn_k.weight"] = mat(N_HEAD_KV * HEAD_DIM, N_EMBD)
        tensors[p + "attn_v.weight"] = mat(N_HEAD_KV * HEAD_DIM, N_EMBD)
        tensors[p + "attn_output.weight"] = mat(N_EMBD, N_HEAD * HEAD_DIM)
        tensors[p + "ffn_norm.weight"] = np.ones(N_EMBD, np.float32)
        tensors[p + "ffn_gate.weight"] = mat(N_FF, N_EMBD)
        tensors[p + "ffn_up.weight"] = mat(N_FF, N_EMBD)
        tensors[p + "ffn_down.weight"] = mat(N_EMBD, N_FF)
    tensors["output_norm.weight"] = np.ones(N_EMBD, np.float32)
    if not tied:
        tensors["output.weight"] = mat(n_vocab, N_EMBD)
    tensors.update(extra or {})
    if nan_in:
        tensors[nan_in] = tensors[nan_in].copy()
        tensors[nan_in].flat[5] = np.nan
    for name, x in tensors.items():
        w.add_tensor(name, x)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return tensors


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("quantize") / "f32.gguf"
    return path, write_model(path)


def quantize_with_zen(zen_engine, src, dst, qtype, *extra, check=True):
    return run([zen_engine, "quantize", str(src), str(dst), qtype, *extra], check=check)


def tensor_types(path):
    return {t.name: t.tensor_type for t in gguf.GGUFReader(str(path)).tensors}


def scalar(reader, key):
    return reader.fields[key].contents()


# One quantization step of a block's range [-amax, amax] at the format's bits per weight: the
# reference quantizers stay within it (the exact half-step plus rounding of the fp16 scales
# and, for K-quants, of the 4-8 bit sub-block scales).
BITS = {Q.Q8_0: 8, Q.Q6_K: 6, Q.Q5_0: 5, Q.Q5_1: 5, Q.Q5_K: 5, Q.Q4_0: 4, Q.Q4_1: 4,
        Q.Q4_K: 4, Q.IQ4_NL: 4, Q.IQ4_XS: 4, Q.Q3_K: 3, Q.Q2_K: 2}
BLOCK = {Q.Q8_0: 32, Q.Q5_0: 32, Q.Q5_1: 32, Q.Q4_0: 32, Q.Q4_1: 32, Q.IQ4_NL: 32}


def assert_within_format_error(name, qtype, got, want):
    if qtype == Q.F32:
        np.testing.assert_array_equal(got, want, err_msg=name)
        return
    if qtype in (Q.F16, Q.BF16):
        rel = 2.0 ** (-11 if qtype == Q.F16 else -8)
        np.testing.assert_allclose(got, want, rtol=rel, atol=1e-7, err_msg=name)
        return
    block = BLOCK.get(qtype, 256)
    g = got.reshape(-1, block)
    w = want.reshape(-1, block)
    amax = np.abs(w).max(axis=1, keepdims=True)
    step = 2.0 * amax / (2 ** BITS[qtype] - 1)
    err = np.abs(g - w)
    worst = float((err / np.maximum(step, 1e-30)).max())
    assert np.all(err <= step * 1.0001 + 1e-8), f"{name} ({qtype.name}): error {worst:.2f} steps"


ALL_TYPES = ["F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K_S",
             "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K", "IQ4_NL",
             "IQ4_XS"]
FILE_TYPE_IDS = {"F32": 0, "F16": 1, "BF16": 32, "Q8_0": 7, "Q4_0": 2, "Q4_1": 3, "Q5_0": 8,
                 "Q5_1": 9, "Q2_K": 10, "Q3_K_S": 11, "Q3_K_M": 12, "Q3_K_L": 13, "Q4_K_S": 14,
                 "Q4_K_M": 15, "Q5_K_S": 16, "Q5_K_M": 17, "Q6_K": 18, "IQ4_NL": 25,
                 "IQ4_XS": 30}
GGUF_PY_QUANTIZES = {Q.F16, Q.BF16, Q.Q8_0, Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1}


@pytest.mark.parametrize("qtype", ALL_TYPES)
def test_every_type_keeps_shapes_metadata_and_values(zen_engine, model, tmp_path, qtype):
    src, original = model
    out = tmp_path / f"{qtype}.gguf"
    proc = quantize_with_zen(zen_engine, src, out, qtype, "--threads", "2")
    progress = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert len(progress) == len(original)  # one line per tensor

    r, a = gguf.GGUFReader(str(out)), gguf.GGUFReader(str(src))
    assert scalar(r, "general.file_type") == FILE_TYPE_IDS[qtype]
    assert scalar(r, "general.quantization_version") == 2
    for key, field in a.fields.items():
        if key.startswith("GGUF."):
            continue
        assert r.fields[key].contents() == field.contents(), key

    tensors = {t.name: t for t in r.tensors}
    assert list(tensors) == list(original)
    for name, want in original.items():
        t = tensors[name]
        assert tuple(int(d) for d in t.shape) == want.shape[::-1], name
        if want.ndim == 1:
            assert t.tensor_type == Q.F32, f"{name}: 1-D tensors stay F32"
        got = dequantize(t.data, t.tensor_type).reshape(want.shape)
        assert_within_format_error(name, t.tensor_type, got, want)
        if t.tensor_type in GGUF_PY_QUANTIZES:
            ref = quantize(want, t.tensor_type)
            assert np.array_equal(np.asarray(t.data).view(np.uint8).reshape(-1),
                                  ref.view(np.uint8).reshape(-1)), f"{name}: bytes differ"


def expected_q4_k_m(names):
    """llama.cpp's Q4_K_M rules applied by hand to this model (see docs/QUANTIZE.md)."""
    want = {}
    for name in names:
        layer = int(name.split(".")[1]) if name.startswith("blk.") else None
        if name.endswith("norm.weight"):
            want[name] = Q.F32
        elif name == "output.weight":
            want[name] = Q.Q6_K
        elif name.endswith("attn_v.weight"):
            want[name] = Q.Q6_K if layer in MORE_BITS else Q.Q4_K
        elif name.endswith("ffn_down.weight"):  # rows of 288: Q6_K -> Q8_0, Q4_K -> Q5_0
            want[name] = Q.Q8_0 if layer in MORE_BITS else Q.Q5_0
        else:
            want[name] = Q.Q4_K
    return want


def test_q4_k_m_recipe(zen_engine, model, tmp_path):
    src, original = model
    out = tmp_path / "q4km.gguf"
    proc = quantize_with_zen(zen_engine, src, out, "Q4_K_M")
    assert tensor_types(out) == expected_q4_k_m(original)
    assert "fallback: row of 288 is not a multiple of the Q6_K block of 256" in proc.stdout


def test_tied_embeddings_get_the_output_type(zen_engine, tmp_path):
    src = tmp_path / "tied.gguf"
    write_model(src, tied=True)
    for qtype, want in [("Q4_K_M", Q.Q6_K), ("Q4_0", Q.Q6_K), ("Q8_0", Q.Q8_0), ("F16", Q.F16)]:
        out = tmp_path / f"{qtype}.gguf"
        quantize_with_zen(zen_engine, src, out, qtype)
        assert tensor_types(out)["token_embd.weight"] == want, qtype


def test_rows_no_block_fits_fall_back_to_f16(zen_engine, tmp_path):
    src = tmp_path / "odd.gguf"
    rng = np.random.default_rng(1)
    write_model(src, extra={"blk.0.odd.weight": rng.standard_normal((4, 40)).astype(np.float32)})
    for qtype in ["Q4_0", "Q4_K_M", "Q8_0"]:
        out = tmp_path / f"{qtype}.gguf"
        proc = quantize_with_zen(zen_engine, src, out, qtype)
        assert tensor_types(out)["blk.0.odd.weight"] == Q.F16, qtype
        assert "row of 40 is not a multiple" in proc.stdout


def test_options_override_the_recipe(zen_engine, model, tmp_path):
    src, original = model
    out = tmp_path / "pure.gguf"
    quantize_with_zen(zen_engine, src, out, "Q4_K_M", "--pure")
    types = tensor_types(out)
    assert types["output.weight"] == Q.Q4_K and types["blk.0.attn_v.weight"] == Q.Q4_K
    assert types["blk.0.ffn_down.weight"] == Q.Q5_0  # the block-size fallback still applies

    out = tmp_path / "opts.gguf"
    quantize_with_zen(zen_engine, src, out, "Q4_K_M", "--leave-output-tensor",
                      "--token-embedding-type", "q8_0")
    types = tensor_types(out)
    assert types["output.weight"] == Q.F32 and types["token_embd.weight"] == Q.Q8_0

    out = tmp_path / "out-type.gguf"
    quantize_with_zen(zen_engine, src, out, "Q4_0", "--output-tensor-type", "Q5_K")
    assert tensor_types(out)["output.weight"] == Q.Q5_K


def test_thread_count_does_not_change_the_output(zen_engine, model, tmp_path):
    src, _ = model
    one, two = tmp_path / "t1.gguf", tmp_path / "t2.gguf"
    quantize_with_zen(zen_engine, src, one, "Q4_K_M", "--threads", "1")
    quantize_with_zen(zen_engine, src, two, "Q4_K_M", "--threads", "3")
    assert one.read_bytes() == two.read_bytes()


def test_requantize_needs_the_flag(zen_engine, model, tmp_path):
    src, original = model
    q8 = tmp_path / "q8.gguf"
    quantize_with_zen(zen_engine, src, q8, "Q8_0")
    out = tmp_path / "q4.gguf"
    proc = quantize_with_zen(zen_engine, q8, out, "Q4_0", check=False)
    assert proc.returncode == 1
    assert "--allow-requantize" in proc.stderr and "already quantized" in proc.stderr
    assert not out.exists()

    quantize_with_zen(zen_engine, q8, out, "Q4_0", "--allow-requantize")
    r8 = {t.name: t for t in gguf.GGUFReader(str(q8)).tensors}
    for t in gguf.GGUFReader(str(out)).tensors:
        q8_values = dequantize(r8[t.name].data, r8[t.name].tensor_type)
        got = dequantize(t.data, t.tensor_type)
        assert_within_format_error(t.name, t.tensor_type, got.reshape(-1),
                                   q8_values.reshape(-1))


def leftovers(directory, keep):
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


def test_bad_inputs_are_clear_errors_and_leave_no_output(zen_engine, model, tmp_path):
    src, _ = model
    out = tmp_path / "out.gguf"
    keep = {src.name}

    proc = quantize_with_zen(zen_engine, src, out, "Q9_X", check=False)
    assert proc.returncode == 2 and "unknown TYPE 'Q9_X'" in proc.stderr and "Q4_K_M" in proc.stderr

    cut = tmp_path / "cut.gguf"
    cut.write_bytes(src.read_bytes()[:100000])
    proc = quantize_with_zen(zen_engine, cut, out, "Q4_0", check=False)
    assert proc.returncode == 1 and "cut.gguf" in proc.stderr and "\n" == proc.stderr[-1:]
    assert proc.stderr.count("\n") == 1, proc.stderr

    nan = tmp_path / "nan.gguf"
    write_model(nan, nan_in="blk.2.ffn_up.weight")
    out.write_bytes(b"previous contents")
    proc = quantize_with_zen(zen_engine, nan, out, "Q4_K_M", check=False)
    assert proc.returncode == 1
    assert "'blk.2.ffn_up.weight' has a non-finite value" in proc.stderr
    assert out.read_bytes() == b"previous contents"  # untouched

    proc = quantize_with_zen(zen_engine, src, tmp_path / "missing" / "o.gguf", "Q4_0",
                             check=False)
    assert proc.returncode == 1 and "missing" in proc.stderr

    assert leftovers(tmp_path, keep | {"cut.gguf", "nan.gguf", "out.gguf"}) == []


def test_nested_arrays_and_every_metadata_kind_are_copied(zen_engine, tmp_path):
    src, out = tmp_path / "nested.gguf", tmp_path / "q8.gguf"
    write_model(src, nested=True)
    quantize_with_zen(zen_engine, src, out, "Q8_0")
    a, r = gguf.GGUFReader(str(src)), gguf.GGUFReader(str(out))
    assert "test.nested" in r.fields
    for key, field in a.fields.items():
        if not key.startswith("GGUF."):
            assert r.fields[key].contents() == field.contents(), key
            assert r.fields[key].types == field.types, key


def test_same_type_copies_the_bytes(zen_engine, model, tmp_path):
    src, _ = model
    out = tmp_path / "same.gguf"
    quantize_with_zen(zen_engine, src, out, "F32")
    a = {t.name: bytes(t.data) for t in gguf.GGUFReader(str(src)).tensors}
    b = {t.name: bytes(t.data) for t in gguf.GGUFReader(str(out)).tensors}
    assert a == b


# ---- against llama.cpp ----

LLAMA_FTYPES = ["Q8_0", "Q4_0", "Q5_1", "Q2_K", "Q3_K_M", "Q4_K_S", "Q4_K_M", "Q5_K_M", "Q6_K",
                "IQ4_XS"]


def llama_quantize(src, dst, qtype):
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = FILE_TYPE_IDS[qtype]
    params.nthread = 2
    rc = llama_cpp.llama_model_quantize(str(src).encode(), str(dst).encode(),
                                        llama_cpp.byref(params))
    assert rc == 0, f"llama_model_quantize failed ({rc})"


def assert_same_as_llama_quantize(zen_engine, src, tmp_path, qtype):
    ours, theirs = tmp_path / "zen.gguf", tmp_path / "llama.gguf"
    quantize_with_zen(zen_engine, src, ours, qtype, "--threads", "2")
    llama_quantize(src, theirs, qtype)
    a = {t.name: t for t in gguf.GGUFReader(str(ours)).tensors}
    b = {t.name: t for t in gguf.GGUFReader(str(theirs)).tensors}
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name].tensor_type == b[name].tensor_type, name
        assert bytes(a[name].data) == bytes(b[name].data), f"{name} ({a[name].tensor_type.name})"


@pytest.mark.skipif(llama_cpp is None, reason=NO_LLAMA)
@pytest.mark.parametrize("qtype", LLAMA_FTYPES)
def test_same_types_and_bytes_as_llama_quantize(zen_engine, model, tmp_path, qtype):
    assert_same_as_llama_quantize(zen_engine, model[0], tmp_path, qtype)


@pytest.mark.skipif(llama_cpp is None, reason=NO_LLAMA)
def test_tied_embeddings_as_llama_quantize(zen_engine, tmp_path):
    src = tmp_path / "tied.gguf"
    write_model(src, tied=True)
    for qtype in ["Q4_0", "Q4_K_M"]:
        assert_same_as_llama_quantize(zen_engine, src, tmp_path, qtype)


def last_logits(path):
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=32, n_threads=2, logits_all=True,
                          verbose=False)
    ids = llm.tokenize(b"hello world", add_bos=False)
    llm.eval(ids)
    logits = np.array(llm.scores[llm.n_tokens - 1])
    del llm
    return logits


@pytest.mark.skipif(llama_cpp is None, reason=NO_LLAMA)
def test_llama_cpp_runs_our_output(zen_engine, model, tmp_path):
    """llama.cpp loads our Q4_K_M file and computes the same logits as from its own."""
    src, _ = model
    ours, theirs = tmp_path / "zen.gguf", tmp_path / "llama.gguf"
    quantize_with_zen(zen_engine, src, ours, "Q4_K_M")
    llama_quantize(src, theirs, "Q4_K_M")
    a, b = last_logits(ours), last_logits(theirs)
    assert np.all(np.isfinite(a)) and np.abs(a).max() > 0
    np.testing.assert_array_equal(a, b)
