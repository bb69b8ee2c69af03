#!/usr/bin/env python3
"""Makes the tiny fidelity models in tests/data/models/tiny/ (see docs/TINY-MODELS.md).

For every model in tools/tiny_models/specs.py: build it with transformers' own class and
fixed-seed random weights, write it as GGUF following llama.cpp's converter conventions, run
transformers on three prompts and save the logits of every position as raw float32, and
describe it all in manifest.json. Needs torch, transformers, tokenizers, sentencepiece and
gguf; CI does not: it only reads the committed outputs.

    python3 tools/make_tiny_models.py [--out DIR] [--only NAME ...] [--save-hf DIR]

--save-hf also writes each model as a Hugging Face directory (config.json, safetensors,
tokenizer files), e.g. to convert it with llama.cpp's own convert_hf_to_gguf.py and compare.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from tiny_models import gguf_export, hf_model, reference  # noqa: E402
from tiny_models.gguf_forward import GGUFModel  # noqa: E402
from tiny_models.corpus import TOKENIZER_CHECK_TEXTS  # noqa: E402
from tiny_models.specs import SPECS, build_vocabs, spec_by_name  # noqa: E402
from tiny_models.vocab import CONTROL  # noqa: E402

DEFAULT_OUT = ROOT / "tests" / "data" / "models" / "tiny"
LOGITS_LAYOUT = ("raw little-endian float32, row-major [n_tokens, n_vocab]; row i holds the "
                 "logits after reading ids[0..i] (all positions, one forward pass, no cache)")


def versions() -> dict:
    import sentencepiece
    import tokenizers
    import torch
    import transformers
    from importlib.metadata import version

    return {"python": platform.python_version(), "torch": torch.__version__,
            "transformers": transformers.__version__, "tokenizers": tokenizers.__version__,
            "sentencepiece": sentencepiece.__version__, "gguf": version("gguf"),
            "numpy": np.__version__}


def make_one(spec, vocab, out: Path, save_hf: Path | None) -> dict:
    model = hf_model.build(spec, vocab)
    if spec.f16:
        # The file holds F16 matrices: the reference is transformers on those same values.
        hf_model.round_to_f16(model, gguf_export.f16_parameter_names(spec, model))

    gguf_path = out / f"{spec.name}.gguf"
    gguf_export.export(gguf_path, spec, model, vocab)
    check_llama3_factors(spec, model)

    entry = describe(spec, model, vocab, gguf_path)
    entry["prompts"] = write_reference_logits(spec, model, vocab, out)
    entry.update(measure(spec, model, gguf_path, out, entry["prompts"]))
    if save_hf is not None:
        save_hf_dir(save_hf / spec.name, model, vocab)
    return entry


def describe(spec, model, vocab, gguf_path: Path) -> dict:
    return {
        "name": spec.name, "arch": spec.arch, "gguf": gguf_path.name,
        "sha256": hashlib.sha256(gguf_path.read_bytes()).hexdigest(),
        "bytes": gguf_path.stat().st_size, "file_type": "F16" if spec.f16 else "F32",
        "hf_class": spec.hf_class, "seed": spec.seed, "notes": spec.notes,
        "tied_embeddings": bool(model.config.tie_word_embeddings),
        "config": json.loads(model.config.to_json_string()),
        "vocab": {"model": vocab.model, "pre": vocab.pre, "size": len(vocab.tokens),
                  "special_ids": vocab.special_ids, "add_bos": vocab.add_bos},
        "tokenizer_checks": [{"text": t, "ids": vocab.encode(t)} for t in TOKENIZER_CHECK_TEXTS],
    }


def write_reference_logits(spec, model, vocab, out: Path) -> list[dict]:
    prompts = []
    for prompt in reference.prompts(vocab):
        values = reference.logits(model, prompt["ids"])
        logits_file = f"{spec.name}.{prompt['name']}.f32"
        values.astype("<f4").tofile(out / logits_file)
        prompts.append({**prompt, "logits": logits_file, "shape": list(values.shape),
                        "dtype": "float32"})
    return prompts


def measure(spec, model, gguf_path: Path, out: Path, prompts: list[dict]) -> dict:
    """Self-check with the independent numpy reader, router margins, sensitivity."""
    reader = GGUFModel(gguf_path)
    numpy_diff = max(float(np.abs(reader.logits(p["ids"]) - reference_logits(out, p)).max())
                     for p in prompts)
    if numpy_diff > 1e-4:
        raise AssertionError(f"{spec.name}: numpy GGUF reader differs by {numpy_diff}")
    figures = {"numpy_reader_max_abs_diff": numpy_diff}

    margins = [reference.router_min_margin(model, p["ids"]) for p in prompts]
    if margins[0] is not None:
        figures["router_min_topk_logit_gap"] = min(margins)
    figures["sensitivity_long_random"] = reference.sensitivity(spec, model, prompts[-1]["ids"])
    return figures


def reference_logits(out: Path, prompt: dict) -> np.ndarray:
    return np.fromfile(out / prompt["logits"], dtype="<f4").reshape(prompt["shape"])


def check_llama3_factors(spec, model) -> None:
    """Our rope_freqs must equal transformers' own llama3 scaling (default / scaled inv_freq)."""
    rope = model.config.rope_parameters
    if rope.get("rope_type") != "llama3":
        return
    head_dim = model.config.head_dim
    default = 1.0 / (rope["rope_theta"] ** (np.arange(0, head_dim, 2) / head_dim))
    scaled = model.model.rotary_emb.inv_freq.double().numpy()
    ours = gguf_export.llama3_rope_factors(rope, head_dim)
    if not np.allclose(default / scaled, ours, rtol=1e-5):
        raise AssertionError(f"{spec.name}: rope_freqs {ours} != transformers' {default / scaled}")


# A ChatML template for the Qwen-style vocabulary, so the HF directory tests see one read.
CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
          "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def spm_tokenizer_json(model_file: Path, vocab) -> str:
    """A SentencePiece BPE model as the tokenizer.json Gemma ships: BPE over its pieces with
    byte fallback, spaces normalized to U+2581, the control pieces as special added tokens."""
    from tokenizers import Tokenizer, decoders, models, normalizers
    from transformers.convert_slow_tokenizer import SentencePieceExtractor

    extracted = SentencePieceExtractor(str(model_file)).extract(models.BPE)
    tok = Tokenizer(models.BPE(vocab=extracted["vocab"], merges=extracted["merges"],
                               unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Replace(" ", "\u2581")
    tok.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(),
                                     decoders.Fuse()])
    tok.add_special_tokens([t for t, k in zip(vocab.tokens, vocab.token_types) if k == CONTROL])
    for text in TOKENIZER_CHECK_TEXTS:
        if tok.encode(text, add_special_tokens=False).ids != vocab.encode(text):
            raise AssertionError(f"tokenizer.json differs from sentencepiece on {text!r}")
    return tok.to_str()


def save_hf_dir(path: Path, model, vocab) -> None:
    """The model as a Hugging Face directory, as published models ship: config.json,
    generation_config.json, model.safetensors, tokenizer.json and tokenizer_config.json (the
    SentencePiece vocabulary converted to tokenizer.json by transformers, as Gemma ships)."""
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    for name, data in vocab.hf_files.items():
        (path / name).write_bytes(data)
    if vocab.model == "llama":
        (path / "tokenizer.json").write_text(spm_tokenizer_json(path / "tokenizer.model", vocab))
        (path / "tokenizer.model").unlink()
    names = {i: t for i, t in enumerate(vocab.tokens)}
    config = {f"{role}_token": names[i] for role, i in vocab.special_ids.items()}
    config["add_bos_token"] = vocab.add_bos
    config["tokenizer_class"] = ("GemmaTokenizer" if vocab.model == "llama"
                                 else "PreTrainedTokenizerFast")
    if vocab.pre == "qwen2":
        config["chat_template"] = CHATML
    (path / "tokenizer_config.json").write_text(json.dumps(config, indent=1))
    generation = json.loads((path / "generation_config.json").read_text())
    generation.update({"do_sample": True, "temperature": 0.7, "top_k": 20, "top_p": 0.8})
    (path / "generation_config.json").write_text(json.dumps(generation, indent=2))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", nargs="*", help="model names (default: all)")
    parser.add_argument("--save-hf", type=Path, help="also write Hugging Face directories here")
    args = parser.parse_args()

    import torch
    torch.set_num_threads(2)
    args.out.mkdir(parents=True, exist_ok=True)
    specs = [spec_by_name(n) for n in args.only] if args.only else SPECS
    vocabs = build_vocabs()

    manifest_path = args.out / "manifest.json"
    previous = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    entries = {m["name"]: m for m in previous.get("models", [])}
    for spec in specs:
        entry = make_one(spec, vocabs[spec.vocab], args.out, args.save_hf)
        entries[spec.name] = entry
        print(f"{spec.name:12s} {entry['bytes']:>9,d} B  "
              + "  ".join(f"{p['name']}[{len(p['ids'])}]" for p in entry["prompts"])
              + f"  sensitivity {entry['sensitivity_long_random']}")

    manifest = {
        "format": 1,
        "generator": "tools/make_tiny_models.py",
        "versions": versions(),
        "logits_layout": LOGITS_LAYOUT,
        "models": [entries[s.name] for s in SPECS if s.name in entries],
    }
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
