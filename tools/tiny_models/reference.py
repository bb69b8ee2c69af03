"""The prompts and transformers' logits for them, plus figures that show what the data can
detect (how far the logits move when one feature is switched off)."""
from __future__ import annotations

import numpy as np

from .corpus import SHORT_PROMPT_TEXT
from .vocab import BYTE, NORMAL

LONG_PROMPT_LENGTH = 40
LONG_PROMPT_SEED = 2024


def prompts(vocab) -> list[dict]:
    """Three prompts: one token, a short text (~7 tokens), and 40 random ordinary tokens
    (longer than gemma3's 4-token window). BOS leads when the vocabulary adds it."""
    lead = [vocab.special_ids["bos"]] if vocab.add_bos else []
    short = vocab.encode_with_specials(SHORT_PROMPT_TEXT)
    ordinary = [i for i, t in enumerate(vocab.token_types) if t in (NORMAL, BYTE)]
    rng = np.random.default_rng(LONG_PROMPT_SEED)
    long = lead + [int(i) for i in rng.choice(ordinary, LONG_PROMPT_LENGTH - len(lead))]
    return [
        {"name": "one_token", "ids": (lead or short)[:1]},
        {"name": "short_text", "ids": short, "text": SHORT_PROMPT_TEXT},
        {"name": "long_random", "ids": long},
    ]


def logits(model, ids: list[int]) -> np.ndarray:
    """[n_tokens, n_vocab] float32: one full forward pass, no cache."""
    import torch

    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), use_cache=False)
    return out.logits[0].float().numpy().astype(np.float32)


def router_min_margin(model, ids: list[int]) -> float | None:
    """Smallest gap, over tokens and layers, between the k-th and (k+1)-th router logit: an
    engine's top-k choice can only differ from transformers' where its router logits are off
    by half this much."""
    import torch

    k = getattr(model.config, "num_experts_per_tok", None)
    if k is None:
        return None
    gaps = []

    def hook(_module, _inputs, output):
        top = torch.topk(output[0].float(), k + 1, dim=-1).values
        gaps.append(float((top[:, k - 1] - top[:, k]).min()))

    handles = [layer.mlp.gate.register_forward_hook(hook) for layer in model.model.layers]
    try:
        logits(model, ids)
    finally:
        for h in handles:
            h.remove()
    return min(gaps)


def sensitivity(spec, model, ids: list[int]) -> dict[str, float]:
    """Max |logit change| when one architecture feature is switched off or changed, on `ids`.
    An engine that got that feature wrong would be off by about this much."""
    from .hf_model import rebuild_with

    hp = model.config.to_dict()
    variants = {}
    if spec.arch == "llama":
        variants["llama3_rope_scaling_off"] = dict(rope_parameters={
            "rope_type": "default", "rope_theta": hp["rope_parameters"]["rope_theta"]})
    if spec.arch == "qwen3moe":
        variants["topk_weights_not_renormalized"] = dict(norm_topk_prob=False)
    if spec.arch in ("qwen3", "qwen3moe"):
        variants["rope_theta_1e4"] = dict(rope_parameters={"rope_type": "default",
                                                           "rope_theta": 10000.0})
    if spec.arch == "gemma3":
        n = hp["num_hidden_layers"]
        variants["sliding_window_off"] = dict(layer_types=["full_attention"] * n)
        variants["global_layer_il_mod_6_eq_0"] = dict(layer_types=[
            "full_attention" if il % 6 == 0 else "sliding_attention" for il in range(n)])
        variants["local_rope_theta_1e6"] = dict(rope_parameters={
            "full_attention": hp["rope_parameters"]["full_attention"],
            "sliding_attention": {"rope_type": "default", "rope_theta": 1000000.0}})
        variants["query_pre_attn_scalar_256"] = dict(query_pre_attn_scalar=256)
    base = logits(model, ids)
    return {name: float(np.abs(logits(rebuild_with(model, **over), ids) - base).max())
            for name, over in variants.items()}
