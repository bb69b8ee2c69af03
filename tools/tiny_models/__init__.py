"""Tiny random-weight models of every architecture Zen Engine runs, converted to GGUF the way
llama.cpp's convert_hf_to_gguf.py does, plus transformers' logits for them.

Entry point: tools/make_tiny_models.py. Layout and conventions: docs/TINY-MODELS.md.
"""
