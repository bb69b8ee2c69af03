#!/usr/bin/env python3
"""LoRA fixtures for the tiny models: PEFT adapters made by `peft` itself on the committed
Hugging Face directories (tests/data/models/tiny_hf), the logits `peft` computes with them,
and the same adapters in llama.cpp's GGUF adapter layout, checked against llama.cpp (the peer,
llama-cpp-python) when it is installed. CI reads the outputs; it never runs this (torch).

    python3 tools/make_tiny_lora.py   # writes tests/data/models/tiny_lora/

Each adapter's weights are redrawn from a fixed seed (PEFT starts B at zero, which would make
every adapter a no-op): A ~ N(0, 1/in), B ~ N(0, 0.25/r), rounded to F16-representable values
(the PEFT files stay F32, the GGUF is F16: both hold exactly the weights peft computed with), so
the correction moves the logits by about as much as a layer does. The three adapters exercise different parts of the format:
  * llama: every projection and lm_head (the output rows' scale), q/k rows in rope-pair order;
  * qwen3: attention only, use_rslora (alpha / sqrt(r)) and an alpha_pattern for o_proj;
  * gemma3: the MLP only, rank_pattern giving down_proj another rank.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from tiny_models import gguf_export, reference  # noqa: E402
from tiny_models.gguf_export import permute_for_pairwise_rope  # noqa: E402

TINY = ROOT / "tests/data/models/tiny"
TINY_HF = ROOT / "tests/data/models/tiny_hf"
OUT = ROOT / "tests/data/models/tiny_lora"
SEED = 4242
SCALES = [1.0, 0.5]

ADAPTERS = {
    "llama": dict(r=4, lora_alpha=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj",
                                                     "gate_proj", "up_proj", "down_proj",
                                                     "lm_head"]),
    "qwen3": dict(r=8, lora_alpha=4, use_rslora=True, alpha_pattern={"o_proj": 12},
                  target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]),
    "gemma3": dict(r=4, lora_alpha=4, rank_pattern={"down_proj": 2},
                   target_modules=["gate_proj", "up_proj", "down_proj"]),
}


def build(name: str):
    import peft
    import torch
    import transformers

    model = transformers.AutoModelForCausalLM.from_pretrained(
        TINY_HF / name, dtype=torch.float32, attn_implementation="eager")
    config = peft.LoraConfig(lora_dropout=0.0, init_lora_weights=False, **ADAPTERS[name])
    model = peft.get_peft_model(model, config)
    gen = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for pname, p in sorted(model.named_parameters()):
            if "lora_A" in pname:
                p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[1]))
            elif "lora_B" in pname:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5 / math.sqrt(p.shape[1]))
            # F16-representable values: the F16 GGUF form holds exactly what peft computes with.
            if "lora_" in pname:
                p.copy_(p.half().float())
    return model.eval()


def set_scale(model, scale: float) -> None:
    from peft.tuners.lora import LoraLayer

    for m in model.modules():
        if isinstance(m, LoraLayer):
            m.set_scale("default", scale)


def write_gguf_adapter(name: str, model, path: Path) -> None:
    """llama.cpp's layout (convert_lora_to_gguf.py, its default F16): <weight>.lora_a [in, r]
    and <weight>.lora_b [r, out] in GGUF order, B's rows converted as the weight's are."""
    import gguf

    cfg = model.base_model.model.config.to_dict()
    arch = {"llama": "LLAMA", "qwen3": "QWEN3", "gemma3": "GEMMA3"}[name]
    names = gguf.get_tensor_name_map(getattr(gguf.MODEL_ARCH, arch), cfg["num_hidden_layers"])
    w = gguf.GGUFWriter(str(path), name)
    w.add_string("general.type", "adapter")
    w.add_string("adapter.type", "lora")
    w.add_float32("adapter.lora.alpha", float(ADAPTERS[name]["lora_alpha"]))
    if ADAPTERS[name].get("use_rslora") or ADAPTERS[name].get("alpha_pattern") or \
            ADAPTERS[name].get("rank_pattern"):
        raise ValueError(f"{name}: one alpha per file in GGUF; only plain adapters convert")
    state = {k: v.detach().float().numpy() for k, v in model.state_dict().items() if "lora_" in k}
    for key in sorted(state):
        if ".lora_A." not in key:
            continue
        module = key.removeprefix("base_model.model.").removesuffix(".lora_A.default.weight")
        a = state[key]
        b = state[key.replace("lora_A", "lora_B")]
        target = names.get_name(module + ".weight", try_suffixes=(".weight",))
        if name == "llama" and module.endswith("q_proj"):
            b = permute_for_pairwise_rope(b, cfg["num_attention_heads"])
        elif name == "llama" and module.endswith("k_proj"):
            b = permute_for_pairwise_rope(b, cfg["num_key_value_heads"])
        w.add_tensor(target + ".lora_a", np.ascontiguousarray(a).astype(np.float16))
        w.add_tensor(target + ".lora_b", np.ascontiguousarray(b).astype(np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def peer_check(name: str, gguf_adapter: Path, prompt: dict, expected: np.ndarray) -> dict:
    """llama.cpp's own logits with our GGUF adapter against peft's, beside llama.cpp's own
    distance from transformers without it (its F16 K/V): {} without the peer."""
    try:
        import llama_cpp
    except ImportError:
        return {}

    def peer_logits(lora: Path | None) -> np.ndarray:
        llm = llama_cpp.Llama(model_path=str(TINY / f"{name}.gguf"),
                              lora_path=str(lora) if lora else None, logits_all=True,
                              n_ctx=256, verbose=False, n_threads=2)
        llm.eval(prompt["ids"])
        return np.array(llm.scores[: len(prompt["ids"])], dtype=np.float32)

    base = np.fromfile(TINY / f"{name}.{prompt['name']}.f32", dtype="<f4").reshape(expected.shape)
    return {"peer_llama_cpp_max_abs_diff": float(np.abs(peer_logits(gguf_adapter) - expected).max()),
            "peer_llama_cpp_base_max_abs_diff": float(np.abs(peer_logits(None) - base).max())}


def main() -> int:
    import peft
    import torch
    import transformers

    OUT.mkdir(parents=True, exist_ok=True)
    manifest = {"generator": "tools/make_tiny_lora.py", "seed": SEED,
                "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                             "peft": peft.__version__},
                "adapters": []}
    tiny = json.loads((TINY / "manifest.json").read_text())
    for name in ADAPTERS:
        spec = next(m for m in tiny["models"] if m["name"] == name)
        model = build(name)
        peft_dir = OUT / f"{name}_peft"
        model.save_pretrained(peft_dir)
        (peft_dir / "README.md").unlink(missing_ok=True)
        entry = {"model": name, "peft": peft_dir.name, "config": ADAPTERS[name], "logits": []}
        prompts = [p for p in spec["prompts"] if p["name"] != "one_token"]
        for scale in SCALES:
            set_scale(model, scale)
            for p in prompts:
                values = reference.logits(model, p["ids"])
                file = f"{name}.{p['name']}.scale{scale:g}.f32"
                values.astype("<f4").tofile(OUT / file)
                base = np.fromfile(TINY / p["logits"], dtype="<f4").reshape(values.shape)
                entry["logits"].append({"prompt": p["name"], "ids": p["ids"], "scale": scale,
                                        "file": file, "shape": list(values.shape),
                                        "max_abs_change_from_base":
                                            float(np.abs(values - base).max())})
        set_scale(model, 1.0)
        plain = not any(k in ADAPTERS[name] for k in ("use_rslora", "alpha_pattern",
                                                       "rank_pattern"))
        if plain:
            gguf_path = OUT / f"{name}.lora.gguf"
            write_gguf_adapter(name, model, gguf_path)
            entry["gguf"] = gguf_path.name
            first = entry["logits"][0]
            expected = np.fromfile(OUT / first["file"], dtype="<f4").reshape(first["shape"])
            entry.update(peer_check(name, gguf_path, prompts[0], expected))
        manifest["adapters"].append(entry)
        print(name, json.dumps({k: v for k, v in entry.items() if k != "logits"}),
              [round(x["max_abs_change_from_base"], 3) for x in entry["logits"]])
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
