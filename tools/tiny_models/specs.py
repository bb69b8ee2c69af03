"""The catalogue of tiny models: which transformers class, which config, which vocabulary.

Shapes are chosen so that every convention the engine must honour is observable:
  * head_dim != hidden / n_head for qwen3, qwen3moe and gemma3 (key_length must be read);
  * GQA everywhere (gemma3 with a single KV head, as Gemma 3 270M);
  * llama3 rope scaling whose per-dimension factors hit all three branches (1, factor,
    smoothed) for head_dim 16;
  * gemma3 with 7 layers: local 0-4, global 5, local 6 (llama.cpp's rule: layer il is global
    when (il + 1) % 6 == 0), a 4-token sliding window and prompts longer than it;
  * one tied and one untied model per family where the real models differ.
"""
from __future__ import annotations

from dataclasses import dataclass

VOCAB_SIZE = 512
CONTEXT_LENGTH = 256


@dataclass(frozen=True)
class ModelSpec:
    name: str             # output file stem
    arch: str             # general.architecture
    hf_class: str         # transformers class name
    config_class: str     # transformers config class name
    config: dict          # config kwargs; hf_model.build adds vocab size, context, special ids
    vocab: str            # key into build_vocabs()
    seed: int             # weights are a function of the seed and the shapes only
    f16: bool = False     # store matrices as F16 (norms, router and rope factors stay F32)
    notes: str = ""


LLAMA_CONFIG = dict(
    hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=4,
    num_key_value_heads=2, rms_norm_eps=1e-5, hidden_act="silu",
    rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                     "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 64},
)

SPECS = [
    ModelSpec("llama", "llama", "LlamaForCausalLM", "LlamaConfig",
              dict(LLAMA_CONFIG, tie_word_embeddings=False), "llama3-bpe", seed=1,
              notes="untied lm_head (output.weight), GQA 4/2, llama3 rope scaling"),
    ModelSpec("llama_tied", "llama", "LlamaForCausalLM", "LlamaConfig",
              dict(LLAMA_CONFIG, tie_word_embeddings=True), "llama3-bpe", seed=2,
              notes="tied embeddings: no output.weight"),
    ModelSpec("llama_f16", "llama", "LlamaForCausalLM", "LlamaConfig",
              dict(LLAMA_CONFIG, tie_word_embeddings=False), "llama3-bpe", seed=1, f16=True,
              notes="llama's weights (same seed) stored F16; the reference runs on the "
                    "F16-rounded weights"),
    ModelSpec("qwen3", "qwen3", "Qwen3ForCausalLM", "Qwen3Config",
              dict(hidden_size=64, intermediate_size=128, num_hidden_layers=3,
                   num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                   rms_norm_eps=1e-6, rope_parameters={"rope_type": "default",
                                                       "rope_theta": 1000000.0},
                   tie_word_embeddings=True),
              "qwen2-bpe", seed=3, notes="q/k RMSNorm per head, head_dim 32 != 64/4, tied"),
    ModelSpec("qwen3moe", "qwen3moe", "Qwen3MoeForCausalLM", "Qwen3MoeConfig",
              dict(hidden_size=64, intermediate_size=128, moe_intermediate_size=48,
                   num_experts=8, num_experts_per_tok=2, norm_topk_prob=True,
                   num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                   head_dim=32, rms_norm_eps=1e-6,
                   rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
                   tie_word_embeddings=False),
              "qwen2-bpe", seed=4, notes="8 experts, top-2, renormalized top-k weights, untied"),
    ModelSpec("gemma3", "gemma3", "Gemma3ForCausalLM", "Gemma3TextConfig",
              dict(hidden_size=64, intermediate_size=128, num_hidden_layers=7,
                   num_attention_heads=4, num_key_value_heads=1, head_dim=32,
                   query_pre_attn_scalar=32, sliding_window=4,
                   layer_types=["full_attention" if (il + 1) % 6 == 0 else "sliding_attention"
                                for il in range(7)],
                   rms_norm_eps=1e-6, hidden_activation="gelu_pytorch_tanh",
                   rope_parameters={"full_attention": {"rope_type": "default",
                                                       "rope_theta": 1000000.0},
                                    "sliding_attention": {"rope_type": "default",
                                                          "rope_theta": 10000.0}},
                   final_logit_softcapping=None, attn_logit_softcapping=None,
                   tie_word_embeddings=True),
              "gemma-spm", seed=5,
              notes="window 4, layers 0-4 and 6 local (theta 1e4), layer 5 global (theta 1e6)"),
]


def spec_by_name(name: str) -> ModelSpec:
    for spec in SPECS:
        if spec.name == name:
            return spec
    raise KeyError(f"no tiny model named {name!r}")


def build_vocabs():
    """The three vocabularies, built once (training is deterministic)."""
    from .vocab import byte_level_bpe, gemma_sentencepiece

    return {
        "llama3-bpe": byte_level_bpe(
            pre="llama-bpe", vocab_size=VOCAB_SIZE,
            specials=["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"],
            roles={"bos": "<|begin_of_text|>", "eos": "<|end_of_text|>"}, add_bos=True),
        "qwen2-bpe": byte_level_bpe(
            pre="qwen2", vocab_size=VOCAB_SIZE,
            specials=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
            roles={"bos": "<|endoftext|>", "eos": "<|im_end|>", "pad": "<|endoftext|>"},
            add_bos=False),
        "gemma-spm": gemma_sentencepiece(vocab_size=VOCAB_SIZE),
    }
