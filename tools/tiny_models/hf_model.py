"""Builds a tiny model with transformers' own classes and gives it informative random weights.

transformers' default init (normal, std 0.02; norms at their identity value) makes logits
nearly zero and every norm a no-op, so an engine that skipped a norm weight, the Gemma "+1"
or the router renormalization would still match. We re-draw every parameter from a fixed
seed with scales that keep activations of order one:
  * matrices [out, in] (and stacked experts [E, out, in]): N(0, 1/in);
  * the MoE router: N(0, 4/in), so top-k choices are far from ties;
  * lm_head: N(0, 4/in), logits of order 2;
  * token embeddings: N(0, 0.25), or N(0, 1/hidden) for Gemma, whose input is scaled by
    sqrt(hidden);
  * 1-D norm weights: identity + N(0, 0.04) (identity is 1, or 0 for Gemma's (1 + w)).
"""
from __future__ import annotations

import math

from .specs import CONTEXT_LENGTH, ModelSpec


def build(spec: ModelSpec, vocab):
    """The model in eval mode, eager attention, float32, weights drawn from spec.seed."""
    import torch
    import transformers

    config_class = getattr(transformers, spec.config_class)
    config = config_class(
        vocab_size=len(vocab.tokens), max_position_embeddings=CONTEXT_LENGTH,
        bos_token_id=vocab.special_ids.get("bos"), eos_token_id=vocab.special_ids.get("eos"),
        pad_token_id=vocab.special_ids.get("pad"), **spec.config)
    config._attn_implementation = "eager"
    torch.manual_seed(spec.seed)
    model = getattr(transformers, spec.hf_class)(config)
    _redraw(model, spec)
    return model.eval()


def rebuild_with(model, **overrides):
    """The same weights under a changed config (used to measure what each feature changes)."""
    import transformers

    config = model.config.__class__.from_dict({**model.config.to_dict(), **overrides})
    config._attn_implementation = "eager"
    twin = getattr(transformers, model.__class__.__name__)(config)
    twin.load_state_dict(model.state_dict())
    return twin.eval()


def _redraw(model, spec: ModelSpec) -> None:
    import torch

    gen = torch.Generator().manual_seed(spec.seed)
    hidden = model.config.hidden_size
    norm_identity = 0.0 if spec.arch == "gemma3" else 1.0
    embed_std = 1.0 / math.sqrt(hidden) if spec.arch == "gemma3" else 0.5

    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32)
            if p.ndim == 1:
                p.copy_(norm_identity + 0.2 * noise)
            elif name.endswith("embed_tokens.weight"):
                p.copy_(embed_std * noise)
            elif name == "lm_head.weight" or name.endswith("mlp.gate.weight"):
                p.copy_(2.0 / math.sqrt(p.shape[-1]) * noise)
            else:
                p.copy_(noise / math.sqrt(p.shape[-1]))


def round_to_f16(model, names: set[str]) -> None:
    """Rounds the named parameters to float16 and back, as storing them F16 does."""
    import torch

    with torch.no_grad():
        for name, p in model.named_parameters():
            if name in names:
                p.copy_(p.to(torch.float16).to(torch.float32))
