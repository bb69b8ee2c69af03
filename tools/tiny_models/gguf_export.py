"""Writes a transformers model as GGUF the way llama.cpp's convert_hf_to_gguf.py does.

Conventions followed (llama.cpp's conversion/{base,llama,qwen,gemma}.py and gguf-py):
  * tensor names from gguf-py's own HF -> GGUF table (gguf.get_tensor_name_map);
  * llama: attn_q rows permuted per head (n_head) and attn_k rows per KV head (n_head_kv),
    from HF's half-split rotary layout to interleaved pairs, so that ggml's "normal" RoPE on
    adjacent pairs equals HF's rotate_half; llama3 rope scaling becomes rope_freqs.weight,
    one divisor per rotated pair; no rope scaling keys;
  * qwen3/qwen3moe/gemma3: no permutation (NEOX RoPE matches rotate_half);
  * qwen3moe: HF's fused experts gate_up_proj [E, 2*ff, n_embd] split into gate (first ff
    rows) and up, stored as ffn_gate_exps/ffn_up_exps [E, ff, n_embd] and ffn_down_exps
    [E, n_embd, ff] (numpy order; ggml ne is reversed);
  * gemma3: every "*norm.weight" stored as 1 + w (Gemma3RMSNorm scales by 1 + w);
    lm_head dropped (tied);
  * tied models: no output.weight;
  * types: F32 files keep everything F32; F16 files store matrices F16 but norms, 1-D
    tensors and the MoE router (ffn_gate_inp) F32.
"""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from .specs import ModelSpec

ARCH_ENUM_NAMES = {"llama": "LLAMA", "qwen3": "QWEN3", "qwen3moe": "QWEN3MOE",
                   "gemma3": "GEMMA3"}


def export(path, spec: ModelSpec, model, vocab) -> None:
    import gguf

    writer = gguf.GGUFWriter(str(path), spec.arch)
    _write_general(writer, spec)
    _write_hparams(writer, spec, model.config.to_dict())
    _write_vocab(writer, vocab)
    for name, array in tensors(spec, model):
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def stored_as_f16(spec: ModelSpec, gguf_name: str, ndim: int) -> bool:
    """llama.cpp's converter rule for an F16 (MOSTLY_F16) output file."""
    if not spec.f16 or ndim <= 1 or gguf_name.endswith("_norm.weight"):
        return False
    return ".ffn_gate_inp." not in gguf_name


def tensors(spec: ModelSpec, model) -> Iterator[tuple[str, np.ndarray]]:
    """(GGUF name, array in GGUF's numpy order) for every tensor the file holds."""
    for gguf_name, hf_name, array in _converted(spec, model):
        if stored_as_f16(spec, gguf_name, array.ndim):
            array = array.astype(np.float16)
        yield gguf_name, array


def f16_parameter_names(spec: ModelSpec, model) -> set[str]:
    """The HF parameters whose GGUF tensors are stored F16 (their reference must be rounded)."""
    return {hf for g, hf, a in _converted(spec, model) if hf and stored_as_f16(spec, g, a.ndim)}


# ---- metadata --------------------------------------------------------------------------------

def _write_general(w, spec: ModelSpec) -> None:
    import gguf

    w.add_type(gguf.GGUFType.MODEL)
    w.add_name(f"zen tiny {spec.name}")
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if spec.f16 else gguf.LlamaFileType.ALL_F32)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)


def _write_hparams(w, spec: ModelSpec, hp: dict) -> None:
    """The keys TextModel.set_gguf_parameters and the per-architecture subclasses write."""
    w.add_block_count(hp["num_hidden_layers"])
    w.add_context_length(hp["max_position_embeddings"])
    w.add_embedding_length(hp["hidden_size"])
    w.add_feed_forward_length(hp["intermediate_size"])
    w.add_head_count(hp["num_attention_heads"])
    w.add_head_count_kv(hp["num_key_value_heads"])
    w.add_layer_norm_rms_eps(hp["rms_norm_eps"])
    if hp.get("head_dim") is not None:
        w.add_key_length(hp["head_dim"])
        w.add_value_length(hp["head_dim"])

    rope = hp["rope_parameters"]
    w.add_rope_freq_base(rope.get("full_attention", rope)["rope_theta"])
    if "sliding_attention" in rope:
        w.add_rope_freq_base_swa(rope["sliding_attention"]["rope_theta"])

    if spec.arch == "llama":
        w.add_vocab_size(hp["vocab_size"])
        w.add_rope_dimension_count(_head_dim(hp))
    if spec.arch == "qwen3moe":
        # transformers 5 serializes num_experts as num_local_experts
        w.add_expert_count(hp.get("num_local_experts", hp.get("num_experts")))
        w.add_expert_used_count(hp["num_experts_per_tok"])
        w.add_expert_feed_forward_length(hp["moe_intermediate_size"])
    if spec.arch == "gemma3":
        # llama.cpp derives the local/global layout itself (pattern 6) and ignores
        # query_pre_attn_scalar (it scales by 1/sqrt(head_dim)): check the config agrees.
        expected = ["full_attention" if (il + 1) % 6 == 0 else "sliding_attention"
                    for il in range(hp["num_hidden_layers"])]
        if hp["layer_types"] != expected:
            raise ValueError(f"gemma3 layer_types {hp['layer_types']} != llama.cpp's {expected}")
        if hp["query_pre_attn_scalar"] != hp["head_dim"]:
            raise ValueError("gemma3: llama.cpp assumes query_pre_attn_scalar == head_dim")
        if hp.get("attn_logit_softcapping") is not None:
            raise ValueError("gemma3 has no attention logit softcapping in llama.cpp")
        if hp.get("final_logit_softcapping"):
            w.add_final_logit_softcapping(hp["final_logit_softcapping"])
        w.add_sliding_window(hp["sliding_window"])


def _write_vocab(w, vocab) -> None:
    w.add_tokenizer_model(vocab.model)
    w.add_tokenizer_pre(vocab.pre)
    w.add_token_list(vocab.tokens)
    if vocab.scores is not None:
        w.add_token_scores(vocab.scores)
    w.add_token_types(vocab.token_types)
    if vocab.merges is not None:
        w.add_token_merges(vocab.merges)
    adders = {"bos": w.add_bos_token_id, "eos": w.add_eos_token_id,
              "unk": w.add_unk_token_id, "pad": w.add_pad_token_id}
    for role, token_id in vocab.special_ids.items():
        adders[role](token_id)
    w.add_add_bos_token(vocab.add_bos)
    w.add_add_eos_token(vocab.add_eos)
    if vocab.add_space_prefix is not None:
        w.add_add_space_prefix(vocab.add_space_prefix)


# ---- tensors ---------------------------------------------------------------------------------

def _head_dim(hp: dict) -> int:
    return hp.get("head_dim") or hp["hidden_size"] // hp["num_attention_heads"]


def _converted(spec: ModelSpec, model) -> Iterator[tuple[str, str | None, np.ndarray]]:
    """(GGUF name, HF parameter name or None, float32 array) in llama.cpp's order: generated
    tensors first, then the checkpoint's."""
    import gguf

    hp = model.config.to_dict()
    arch = getattr(gguf.MODEL_ARCH, ARCH_ENUM_NAMES[spec.arch])
    names = gguf.get_tensor_name_map(arch, hp["num_hidden_layers"])

    def gguf_name(hf_name: str) -> str:
        mapped = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if mapped is None:
            raise KeyError(f"{spec.arch}: no GGUF name for {hf_name}")
        return mapped

    rope = hp["rope_parameters"]
    if rope.get("rope_type") == "llama3":
        yield "rope_freqs.weight", None, llama3_rope_factors(rope, _head_dim(hp))

    for hf_name, t in model.state_dict().items():
        if hf_name == "lm_head.weight" and hp["tie_word_embeddings"]:
            continue
        a = t.detach().to("cpu").float().numpy()
        if spec.arch == "llama" and hf_name.endswith("self_attn.q_proj.weight"):
            a = permute_for_pairwise_rope(a, hp["num_attention_heads"])
        elif spec.arch == "llama" and hf_name.endswith("self_attn.k_proj.weight"):
            a = permute_for_pairwise_rope(a, hp["num_key_value_heads"])
        elif spec.arch == "gemma3" and hf_name.endswith("norm.weight"):
            a = a + np.float32(1.0)
        if hf_name.endswith("mlp.experts.gate_up_proj"):
            n_ff = a.shape[1] // 2
            base = hf_name.removesuffix("gate_up_proj")
            yield gguf_name(base + "gate_proj.weight"), hf_name, np.ascontiguousarray(a[:, :n_ff])
            yield gguf_name(base + "up_proj.weight"), hf_name, np.ascontiguousarray(a[:, n_ff:])
            continue
        if hf_name.endswith("mlp.experts.down_proj"):
            yield gguf_name(hf_name + ".weight"), hf_name, a
            continue
        yield gguf_name(hf_name), hf_name, a


def permute_for_pairwise_rope(w: np.ndarray, n_head: int) -> np.ndarray:
    """Within each head, rows [x_0 .. x_{d/2-1}, x_{d/2} .. x_{d-1}] (HF's rotate_half pairs
    i with i + d/2) become [x_0, x_{d/2}, x_1, x_{d/2+1}, ...] (ggml's normal RoPE pairs 2i
    with 2i + 1)."""
    rows, cols = w.shape
    d = rows // n_head
    return w.reshape(n_head, 2, d // 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def llama3_rope_factors(rope: dict, head_dim: int) -> np.ndarray:
    """Llama 3.1 frequency scaling as one divisor per rotary pair (ggml divides each pair's
    angle by it): 1 for short wavelengths, `factor` for long ones, smooth in between."""
    # float32 arithmetic throughout, as the converter does it in torch.float32
    f32 = np.float32
    base, factor = f32(rope["rope_theta"]), f32(rope["factor"])
    low, high = f32(rope["low_freq_factor"]), f32(rope["high_freq_factor"])
    old_ctx = f32(rope["original_max_position_embeddings"])
    inv_freq = f32(1.0) / (base ** (np.arange(0, head_dim, 2, dtype=f32) / f32(head_dim)))
    out = []
    for f in inv_freq:
        wavelen = f32(2 * math.pi) / f
        if wavelen < old_ctx / high:
            out.append(f32(1.0))
        elif wavelen > old_ctx / low:
            out.append(factor)
        else:
            smooth = (old_ctx / wavelen - low) / (high - low)
            out.append(f32(1.0) / ((f32(1.0) - smooth) / factor + smooth))
    return np.asarray(out, dtype=f32)
