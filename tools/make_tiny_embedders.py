#!/usr/bin/env python3
"""Makes the tiny embedding and reranker models in tests/data/models/tiny_embed/ (see
docs/TINY-MODELS.md, "The tiny embedders and rerankers").

Four families, each built with transformers' own class and fixed-seed random weights drawn so
that every norm weight, bias and embedding table matters (as tools/make_tiny_encoder.py does),
saved as the Hugging Face directory a real checkpoint of the family is (save_pretrained, a
tokenizer, and the sentence-transformers files the family ships), converted to F32 GGUF with
tools/convert_embedding_model.py, and run by the family's reference implementation:

  qwen3_embed   Qwen3Model, Qwen3-Embedding style: last-token pooling, <|endoftext|> appended
                by the tokenizer's post-processor, Normalize, the query instruction prompt.
                Reference: SentenceTransformer(dir).
  gemma_embed   Gemma3TextModel with use_bidirectional_attention (EmbeddingGemma): 6 layers
                (5 sliding-window, 1 global, as llama.cpp places them), window 4 (so |i-j| <= 2
                inside a local layer), mean pooling, Dense 64->128->64 (no bias, identity),
                Normalize, EmbeddingGemma's prompts; tokenizer adds <bos> and <eos>.
                Reference: SentenceTransformer(dir).
  bert_rerank   BertForSequenceClassification, num_labels 1 (ms-marco MiniLM cross-encoder
                style), WordPiece vocab.txt. Reference: CrossEncoder(dir).predict (sigmoid) and
                the raw logit.
  qwen3_rerank  Qwen3ForCausalLM, untied lm_head (as Qwen3-Reranker-4B/8B; the 0.6B is tied),
                score = softmax(logits[yes], logits[no])[0] at the last position of the
                Qwen3-Reranker prompt. Reference: transformers, the model card's recipe.

Writes <name>.gguf for each and manifest.json (ids as the HF tokenizer gives them, pooled and
normalized vectors or logits and scores, the first case's last hidden state, sensitivities,
and llama.cpp's figures when llama-cpp-python is installed). Needs torch, transformers,
sentence-transformers, tokenizers, sentencepiece, gguf; CI only reads the committed files.

    python3 tools/make_tiny_embedders.py [--out DIR] [--only NAME ...] [--save-hf DIR]
                                         [--no-llama-cpp]

--save-hf keeps the Hugging Face directories (otherwise they live in a temporary directory).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import platform
import shutil
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from tiny_models.corpus import TRAINING_TEXT  # noqa: E402
from tiny_models.vocab import QWEN2_SPLIT  # noqa: E402

DEFAULT_OUT = ROOT / "tests" / "data" / "models" / "tiny_embed"
SEEDS = {"qwen3_embed": 21, "gemma_embed": 22, "bert_rerank": 23, "qwen3_rerank": 24}
NAMES = list(SEEDS)

QWEN3_EMBED_PROMPTS = {
    "query": "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:",
    "document": "",
}
# EmbeddingGemma's config_sentence_transformers.json prompts (a subset, same spelling).
GEMMA_PROMPTS = {
    "query": "task: search result | query: ",
    "document": "title: none | text: ",
    "BitextMining": "task: search result | query: ",
    "Clustering": "task: clustering | query: ",
    "Classification": "task: classification | query: ",
    "Retrieval-query": "task: search result | query: ",
    "Retrieval-document": "title: none | text: ",
    "STS": "task: sentence similarity | query: ",
    "Summarization": "task: summarization | query: ",
}
RERANK_INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query"
RERANK_PREFIX = ("<|im_start|>system\nJudge whether the Document meets the requirements based on "
                 "the Query and the Instruct provided. Note that the answer can only be \"yes\" "
                 "or \"no\".<|im_end|>\n<|im_start|>user\n")
RERANK_SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
RERANK_MIDDLE = "<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {document}"

# Embedder inputs: a query with its prompt, a document with its prompt, one longer than any
# sliding window (no prompt), one with accents, CJK and an emoji.
EMBED_CASES = [
    ("how many ships did the lighthouse keeper count?", "query"),
    ("The keeper counted 147 ships in one night and wrote them down.", "document"),
    ("Every night she wrote the numbers down: 3 ships, 12 ships, 147 ships, 2048 ships. "
     "The lamp was lit at 19:45 and put out at 06:30, and the sea kept its own ledger.", None),
    ("Caf\u00e9 \u00fcber M\u00fcnchen: \u65e5\u672c\u8a9e \U0001f680 na\u00efve keepers", "document"),
]
RERANK_QUERY = "how many ships did the keeper count?"
RERANK_DOCUMENTS = [
    "The keeper counted 147 ships in one night.",
    "Tea, coffee and water are on the table.",
    "Every night she wrote the numbers down: 3 ships, 12 ships, 147 ships, 2048 ships, and the "
    "lamp was lit at 19:45 before the sea turned dark and the boats came home.",
    "Caf\u00e9 \u00fcber Stra\u00dfe: the keeper's \U0001f680 log, \u65e5\u672c too.",
]

# Extra training text for the Qwen-style BPE: the prompt words, and "yes"/"no" often enough
# (also at line starts, so the space-less pieces the reranker reads are whole tokens).
QWEN_EXTRA_TEXT = """\
yes
no
yes
no
Answer yes or no: yes, no, yes, no. The answer is yes. The answer is no.
Judge whether the Document meets the requirements based on the Query and the Instruct provided.
Note that the answer can only be "yes" or "no".
<Instruct>: Given a web search query, retrieve relevant passages that answer the query
<Query>: how many ships did the keeper count?
<Document>: The keeper counted 147 ships in one night.
Instruct: Given a web search query, retrieve relevant passages that answer the query
Query: where is the lighthouse? Query: who kept the book?
system user assistant system user assistant
"""


# ---- weights ---------------------------------------------------------------------------------

def redraw(model, seed: int, *, norm_identity: float, embed_std: float, head_scale: float = 2.0):
    """Every parameter from N(0, 1) draws of one generator: matrices N(0, 1/in), heads
    (lm_head, classifier) N(0, head_scale^2/in), embeddings N(0, embed_std^2), 1-D norm
    weights identity + N(0, 0.04) and biases N(0, 0.04)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32)
            if p.ndim == 1:
                is_norm = "norm" in name.lower() and name.endswith("weight")
                p.copy_((norm_identity if is_norm else 0.0) + 0.2 * noise)
            elif "embed" in name:
                p.copy_(embed_std * noise)
            elif name.startswith(("lm_head", "classifier")):
                p.copy_(head_scale / math.sqrt(p.shape[-1]) * noise)
            else:
                p.copy_(noise / math.sqrt(p.shape[-1]))


# ---- tokenizers ------------------------------------------------------------------------------

def qwen_bpe(vocab_size: int):
    """A byte-level BPE laid out like Qwen's: 256 byte symbols and learned merges (Qwen 2
    regex, NFC normalizer, as Qwen's tokenizer.json), then <|endoftext|> <|im_start|>
    <|im_end|> (special) and <think> </think> (added, not special, as in Qwen3)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
    from tokenizers import pre_tokenizers, processors, trainers

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    plain = ["<think>", "</think>"]
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    n_learned = vocab_size - len(specials) - len(plain)
    trainer = trainers.BpeTrainer(vocab_size=n_learned, min_frequency=1, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([TRAINING_TEXT + QWEN_EXTRA_TEXT], trainer)
    if tok.get_vocab_size() != n_learned:
        raise RuntimeError(f"BPE training gave {tok.get_vocab_size()} entries, wanted {n_learned}")
    tok.add_special_tokens(specials)
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in plain])
    for t in ("yes", "no"):
        if tok.token_to_id(t) is None:
            raise RuntimeError(f"{t!r} is not a single token: enlarge the vocabulary")
    return tok


def qwen_tokenizer_dir(path: Path, tok, *, append_eos: bool) -> None:
    """tokenizer.json (+ config) as Qwen3 ships it; Qwen3-Embedding's post-processor appends
    <|endoftext|> to every text (its updated tokenizer.json), the reranker's appends nothing."""
    from tokenizers import processors
    from transformers import PreTrainedTokenizerFast

    if append_eos:
        eot = tok.token_to_id("<|endoftext|>")
        tok = tok.__class__.from_str(tok.to_str())
        tok.post_processor = processors.TemplateProcessing(
            single="$A:0 <|endoftext|>:0", pair="$A:0 <|endoftext|>:0 $B:1 <|endoftext|>:1",
            special_tokens=[("<|endoftext|>", eot)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", unk_token=None, bos_token=None,
                                   model_max_length=256)
    fast.save_pretrained(path)
    config = json.loads((path / "tokenizer_config.json").read_text())
    config.update({"add_bos_token": False, "add_prefix_space": False, "errors": "replace",
                   "split_special_tokens": False, "clean_up_tokenization_spaces": False})
    (path / "tokenizer_config.json").write_text(json.dumps(config, indent=1, ensure_ascii=False))


def gemma_tokenizer_dir(path: Path) -> None:
    """Gemma 3's layout (tiny_models' SentencePiece BPE with byte fallback: <pad> <eos> <bos>
    <unk>, turn markers, 256 byte pieces) as tokenizer.model plus the tokenizer.json
    transformers converts it to, with EmbeddingGemma's post-processor: <bos> text <eos>."""
    from tiny_models.vocab import gemma_sentencepiece
    from make_tiny_models import spm_tokenizer_json

    vocab = gemma_sentencepiece(vocab_size=GEMMA_VOCAB)
    (path / "tokenizer.model").write_bytes(vocab.hf_files["tokenizer.model"])
    tj = json.loads(spm_tokenizer_json(path / "tokenizer.model", vocab))
    bos, eos = vocab.special_ids["bos"], vocab.special_ids["eos"]
    tj["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "<eos>", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "<bos>", "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "<eos>", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}},
                 {"SpecialToken": {"id": "<eos>", "type_id": 1}}],
        "special_tokens": {"<bos>": {"id": "<bos>", "ids": [bos], "tokens": ["<bos>"]},
                           "<eos>": {"id": "<eos>", "ids": [eos], "tokens": ["<eos>"]}}}
    (path / "tokenizer.json").write_text(json.dumps(tj, ensure_ascii=False), encoding="utf-8")
    config = {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
              "unk_token": "<unk>", "add_bos_token": True, "add_eos_token": True,
              "padding_side": "right", "model_max_length": 256,
              "tokenizer_class": "PreTrainedTokenizerFast"}
    (path / "tokenizer_config.json").write_text(json.dumps(config, indent=1))
    (path / "special_tokens_map.json").write_text(json.dumps(
        {k: config[k] for k in ("bos_token", "eos_token", "pad_token", "unk_token")}, indent=1))


BERT_WORDS = """the a an and are at before boats came count counted dark did down every home how
in is it keeper lamp lit log many night numbers of on one sea she ship ships table tea coffee too
turned was water wrote what cafe uber"""


def bert_tokenizer_dir(path: Path) -> int:
    """vocab.txt (specials, punctuation, digits, letters, ##letters, ##digits, some whole words
    and suffixes) and the BertTokenizerFast transformers makes from it (uncased: lowercase and
    accent stripping, CJK characters split). Returns the vocabulary size."""
    import transformers

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    punct = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    digits = [str(d) for d in range(10)]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    words = BERT_WORDS.split()
    tokens = (specials + punct + digits + letters + ["##" + c for c in letters]
              + ["##" + d for d in digits] + words + ["##ed", "##ing", "##er", "\u65e5"])
    tokens = list(dict.fromkeys(tokens))  # "a" is a letter and a word
    (path / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
    tok = transformers.BertTokenizerFast(vocab={t: i for i, t in enumerate(tokens)},
                                         do_lower_case=True, model_max_length=64)
    tok.save_pretrained(path)
    if len(json.loads((path / "tokenizer.json").read_text())["model"]["vocab"]) != len(tokens):
        raise RuntimeError("BertTokenizerFast did not take the vocabulary")
    write_json(path / "special_tokens_map.json",
               {f"{r}_token": f"[{r.upper()}]" for r in ("unk", "sep", "pad", "cls", "mask")})
    return len(tokens)


# ---- models ----------------------------------------------------------------------------------

QWEN_VOCAB = 384
GEMMA_VOCAB = 384


def qwen_config(vocab_size: int, tok, **extra):
    import transformers

    return transformers.Qwen3Config(
        vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, rms_norm_eps=1e-6,
        max_position_embeddings=256,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        bos_token_id=tok.token_to_id("<|endoftext|>"),
        eos_token_id=tok.token_to_id("<|endoftext|>"),
        pad_token_id=tok.token_to_id("<|endoftext|>"), **extra)


def gemma_config(vocab_size: int, **extra):
    import transformers

    n_layer = 6
    return transformers.Gemma3TextConfig(
        vocab_size=vocab_size, hidden_size=64, intermediate_size=64, num_hidden_layers=n_layer,
        num_attention_heads=4, num_key_value_heads=1, head_dim=16, query_pre_attn_scalar=16,
        sliding_window=4, use_bidirectional_attention=True,
        layer_types=["full_attention" if (il + 1) % 6 == 0 else "sliding_attention"
                     for il in range(n_layer)],
        rms_norm_eps=1e-6, hidden_activation="gelu_pytorch_tanh", max_position_embeddings=256,
        rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
                         "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
        final_logit_softcapping=None, attn_logit_softcapping=None, tie_word_embeddings=True,
        pad_token_id=0, eos_token_id=1, bos_token_id=2, **extra)


def write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def st_files(path: Path, *, width: int, pooling: str, prompts: dict, dense: list | None = None):
    """The sentence-transformers files, spelled as the published checkpoints have them."""
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    for i, (in_f, out_f, weight) in enumerate(dense or [], start=2):
        d = path / f"{i}_Dense"
        modules.append({"idx": i, "name": str(i), "path": f"{i}_Dense",
                        "type": "sentence_transformers.models.Dense"})
        write_json(d / "config.json", {"in_features": in_f, "out_features": out_f, "bias": False,
                                       "activation_function": "torch.nn.modules.linear.Identity"})
        from safetensors.torch import save_file
        save_file({"linear.weight": weight.contiguous()}, str(d / "model.safetensors"))
    n = len(modules)
    modules.append({"idx": n, "name": str(n), "path": f"{n}_Normalize",
                    "type": "sentence_transformers.models.Normalize"})
    write_json(path / "modules.json", modules)
    write_json(path / "1_Pooling" / "config.json", {
        "word_embedding_dimension": width, "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": pooling == "mean", "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": pooling == "lasttoken", "include_prompt": True})
    write_json(path / "sentence_bert_config.json", {"max_seq_length": 256, "do_lower_case": False})
    write_json(path / "config_sentence_transformers.json", {
        "prompts": prompts, "default_prompt_name": None, "similarity_fn_name": "cosine"})


def build_qwen3_embed(path: Path) -> dict:
    import torch
    import transformers

    seed = SEEDS["qwen3_embed"]
    tok = qwen_bpe(QWEN_VOCAB)
    config = qwen_config(QWEN_VOCAB, tok, tie_word_embeddings=True)
    torch.manual_seed(seed)
    model = transformers.Qwen3Model(config)
    redraw(model, seed, norm_identity=1.0, embed_std=0.5)
    model.save_pretrained(path)
    qwen_tokenizer_dir(path, tok, append_eos=True)
    st_files(path, width=64, pooling="lasttoken", prompts=QWEN3_EMBED_PROMPTS)
    return {"hf_class": "Qwen3Model", "seed": seed, "pooling": "last", "convert": {}}


def build_gemma_embed(path: Path) -> dict:
    import torch
    import transformers

    seed = SEEDS["gemma_embed"]
    config = gemma_config(GEMMA_VOCAB)
    torch.manual_seed(seed)
    model = transformers.Gemma3TextModel(config)
    redraw(model, seed, norm_identity=0.0, embed_std=1.0 / math.sqrt(config.hidden_size))
    model.save_pretrained(path)
    gemma_tokenizer_dir(path)
    gen = torch.Generator().manual_seed(seed + 1000)
    dense = [(64, 128, torch.randn((128, 64), generator=gen) / math.sqrt(64)),
             (128, 64, torch.randn((64, 128), generator=gen) / math.sqrt(128))]
    st_files(path, width=64, pooling="mean", prompts=GEMMA_PROMPTS, dense=dense)
    # Matryoshka widths, as EmbeddingGemma's 768/512/256/128 are for its real width.
    dims = [64, 32, 16]
    return {"hf_class": "Gemma3TextModel", "seed": seed, "pooling": "mean",
            "convert": {"matryoshka_dims": dims}, "matryoshka_dims": dims,
            "dense": [[i, o] for i, o, _ in dense]}


def build_bert_rerank(path: Path) -> dict:
    import torch
    import transformers

    seed = SEEDS["bert_rerank"]
    path.mkdir(parents=True, exist_ok=True)
    n_vocab = bert_tokenizer_dir(path)
    config = transformers.BertConfig(
        vocab_size=n_vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=64, type_vocab_size=2,
        layer_norm_eps=1e-12, hidden_act="gelu", num_labels=1, pad_token_id=0)
    torch.manual_seed(seed)
    model = transformers.BertForSequenceClassification(config)
    redraw(model, seed, norm_identity=1.0, embed_std=0.5)
    model.save_pretrained(path)
    return {"hf_class": "BertForSequenceClassification", "seed": seed, "pooling": "rank",
            "convert": {}}


def build_qwen3_rerank(path: Path) -> dict:
    import torch
    import transformers

    seed = SEEDS["qwen3_rerank"]
    tok = qwen_bpe(QWEN_VOCAB)
    config = qwen_config(QWEN_VOCAB, tok, tie_word_embeddings=False)
    torch.manual_seed(seed)
    model = transformers.Qwen3ForCausalLM(config)
    redraw(model, seed, norm_identity=1.0, embed_std=0.5)
    model.save_pretrained(path)
    qwen_tokenizer_dir(path, tok, append_eos=False)
    (path / "README.md").write_text("# Qwen3-Reranker (tiny random test model)\n")
    return {"hf_class": "Qwen3ForCausalLM", "seed": seed, "pooling": "rank", "tied": False,
            "convert": {"reranker": True}}


BUILDERS = {"qwen3_embed": build_qwen3_embed, "gemma_embed": build_gemma_embed,
            "bert_rerank": build_bert_rerank, "qwen3_rerank": build_qwen3_rerank}


# ---- references ------------------------------------------------------------------------------

def as_list(t) -> list:
    """A float32 tensor as nested lists of floats, each the shortest decimal that reads back
    as the same float32 (half the digits of float64's repr, no information lost)."""
    a = t.detach().cpu().to(dtype=__import__("torch").float32).numpy()
    return np.vectorize(lambda x: float(str(np.float32(x))), otypes=[object])(a).tolist() \
        if a.ndim else float(str(np.float32(a)))


def f32(x) -> float:
    return float(str(np.float32(float(x))))


def dumps(obj, indent: int = 0) -> str:
    """JSON with one key per line but lists of numbers (and of short strings) on one line."""
    pad = " " * (indent + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(obj, list) and any(isinstance(x, (dict, list)) for x in obj):
        items = [pad + dumps(x, indent + 1) for x in obj]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return json.dumps(obj, ensure_ascii=False)


def embed_reference(path: Path) -> dict:
    """SentenceTransformer(dir), module by module: ids, the vector entering Normalize
    ("pooled"), the normalized one (checked against encode()), the first case's
    token embeddings (the transformer's last hidden state)."""
    import torch
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(path), device="cpu")
    st.eval()
    cases, first_hidden = [], None
    for text, prompt_name in EMBED_CASES:
        prompt = st.prompts.get(prompt_name, "") if prompt_name else ""
        features = st.tokenize([prompt + text])
        with torch.no_grad():
            stages = {}
            for name, module in st.named_children():
                kind = type(module).__name__
                if kind == "Normalize":
                    stages["pooled"] = features["sentence_embedding"][0].clone()
                features = module(features)
                if kind == "Pooling":
                    stages["pooling_output"] = features["sentence_embedding"][0].clone()
                if kind == "Transformer" and first_hidden is None:
                    first_hidden = features["token_embeddings"][0].clone()
            normalized = features["sentence_embedding"][0]
            encoded = st.encode([text], prompt_name=prompt_name, convert_to_tensor=True)[0]
        if float((encoded - normalized).abs().max()) > 1e-6:
            raise AssertionError(f"{path.name}: encode() differs from the module chain")
        case = {"text": text, "prompt_name": prompt_name, "prompt": prompt,
                "input": prompt + text, "ids": features["input_ids"][0].tolist(),
                "pooled": as_list(stages["pooled"]), "normalized": as_list(normalized)}
        if "pooling_output" in stages and not torch.equal(stages["pooling_output"], stages["pooled"]):
            case["pooled_before_dense"] = as_list(stages["pooling_output"])
        cases.append(case)
    return {"cases": cases, "last_hidden_state": as_list(first_hidden),
            "modules": [type(m).__name__ for m in st.children()]}


def bert_rerank_reference(path: Path) -> dict:
    import torch
    import transformers
    from sentence_transformers import CrossEncoder

    ce = CrossEncoder(str(path), device="cpu")
    pairs = [(RERANK_QUERY, d) for d in RERANK_DOCUMENTS]
    scores = ce.predict(pairs)
    logits = ce.predict(pairs, activation_fn=torch.nn.Identity())
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(path).eval()
    cases, first_hidden = [], None
    for (q, d), score, logit in zip(pairs, scores, logits):
        enc = tok(q, d, return_tensors="pt")
        with torch.no_grad():
            direct = model(**enc).logits[0, 0]
            zero_types = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                               token_type_ids=torch.zeros_like(enc["token_type_ids"])).logits[0, 0]
            if first_hidden is None:
                first_hidden = model.bert(**enc).last_hidden_state[0]
        if abs(float(direct) - float(logit)) > 1e-5:
            raise AssertionError("CrossEncoder logit differs from the model's")
        cases.append({"query": q, "document": d, "ids": enc["input_ids"][0].tolist(),
                      "token_types": enc["token_type_ids"][0].tolist(),
                      "logit": f32(logit), "score": f32(score),
                      "logit_token_types_zero": f32(zero_types)})
    return {"cases": cases, "last_hidden_state": as_list(first_hidden),
            "score_function": "sigmoid(logit) (CrossEncoder's default for num_labels 1)"}


def qwen3_rerank_reference(path: Path) -> dict:
    import torch
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForCausalLM.from_pretrained(path).eval()
    yes, no = tok.convert_tokens_to_ids("yes"), tok.convert_tokens_to_ids("no")
    prefix = tok(RERANK_PREFIX, add_special_tokens=False)["input_ids"]
    suffix = tok(RERANK_SUFFIX, add_special_tokens=False)["input_ids"]
    cases, first_hidden = [], None
    for d in RERANK_DOCUMENTS:
        middle = RERANK_MIDDLE.format(instruction=RERANK_INSTRUCTION, query=RERANK_QUERY, document=d)
        text = RERANK_PREFIX + middle + RERANK_SUFFIX
        ids = tok(text, add_special_tokens=False)["input_ids"]
        recipe = prefix + tok(middle, add_special_tokens=False)["input_ids"] + suffix
        if ids != recipe:  # the model card tokenizes the three parts separately
            raise AssertionError("whole-text ids differ from the model card's prefix+pair+suffix")
        with torch.no_grad():
            out = model(torch.tensor([ids]))
            if first_hidden is None:
                first_hidden = model.model(torch.tensor([ids])).last_hidden_state[0]
        last = out.logits[0, -1]
        pair = torch.stack([last[yes], last[no]])
        cases.append({"query": RERANK_QUERY, "document": d, "text": text, "ids": ids,
                      "token_types": [0] * len(ids), "logits": as_list(pair),
                      "score": f32(torch.softmax(pair, 0)[0])})
    return {"cases": cases, "last_hidden_state": as_list(first_hidden),
            "yes_id": yes, "no_id": no,
            "score_function": "softmax([logit_yes, logit_no])[0] at the last position",
            "template": RERANK_PREFIX + RERANK_MIDDLE.replace("{instruction}", RERANK_INSTRUCTION)
            + RERANK_SUFFIX}


# ---- sensitivities: what an engine that got a feature wrong would be off by ------------------

def gemma_sensitivity(path: Path, ref: dict) -> dict:
    """Max abs change of the normalized embedding of the long case when the same weights run
    under a changed attention mask (the modules after the transformer unchanged)."""
    import torch
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(path), device="cpu")
    original = st[0].auto_model
    ids = torch.tensor([ref["cases"][2]["ids"]])
    base = np.array(ref["cases"][2]["normalized"])
    variants = {
        "no_sliding_window": {"layer_types": ["full_attention"] * original.config.num_hidden_layers},
        "causal_attention": {"use_bidirectional_attention": False},
        # config.json's window 4 means |i-j| <= 2 (transformers keeps 4 // 2 + 1 = 3 as an
        # exclusive bound; llama.cpp masks |i-j| > 4 / 2). Misreadings of it:
        "window_read_as |i-j| < 4": {"sliding_window": 6},    # in memory 6 // 2 + 1 = 4
        "window_read_as |i-j| <= 4": {"sliding_window": 8},   # in memory 5
    }
    out = {}
    for label, change in {"unchanged": {}, **variants}.items():
        config = {**original.config.to_dict(), **change}
        cfg = original.config.__class__.from_dict(config)
        cfg._attn_implementation = "eager"
        twin = original.__class__(cfg).eval()
        twin.load_state_dict(original.state_dict())
        with torch.no_grad():
            features = {"input_ids": ids, "attention_mask": torch.ones_like(ids),
                        "token_embeddings": twin(input_ids=ids).last_hidden_state}
            for module in list(st.children())[1:]:
                features = module(features)
        v = features["sentence_embedding"][0].numpy()
        out[label] = float(np.abs(v - base).max())
    if out.pop("unchanged") > 1e-5:
        raise AssertionError("gemma: the eager twin does not reproduce the reference")
    return out


def qwen3_embed_sensitivity(path: Path, ref: dict) -> dict:
    """The long case pooled at its last text token (EOS not appended) or by mean."""
    import torch
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(path), device="cpu")
    ids = ref["cases"][2]["ids"]
    base = np.array(ref["cases"][2]["normalized"])
    with torch.no_grad():
        h = st[0].auto_model(torch.tensor([ids])).last_hidden_state[0]
        no_eos = st[0].auto_model(torch.tensor([ids[:-1]])).last_hidden_state[0][-1]

    def unit(v):
        v = v.numpy()
        return v / np.linalg.norm(v)
    return {"eos_not_appended": float(np.abs(unit(no_eos) - base).max()),
            "mean_pooling": float(np.abs(unit(h.mean(0)) - base).max())}


# ---- llama.cpp -------------------------------------------------------------------------------

def llama_cpp_run(gguf_path: Path, ids_list: list[list[int]], n_out: int) -> list[list[float]]:
    """llama.cpp's pooled output (embedding before normalization, or rank scores) for each id
    sequence, fed as ids (one sequence per decode, F32 KV cache, no flash attention, 2 threads)."""
    import llama_cpp as L

    llm = L.Llama(model_path=str(gguf_path), embedding=True, n_ctx=256, n_batch=256,
                  n_ubatch=256, n_threads=2, flash_attn=False, type_k=L.GGML_TYPE_F32,
                  type_v=L.GGML_TYPE_F32, swa_full=True, verbose=False)
    ctx, model = llm._ctx.ctx, llm._model.model
    out = []
    for ids in ids_list:
        L.llama_memory_clear(L.llama_get_memory(ctx), True)
        batch = L.llama_batch_init(len(ids), 0, 1)
        batch.n_tokens = len(ids)
        for i, t in enumerate(ids):
            batch.token[i] = t
            batch.pos[i] = i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = True
        if L.llama_model_has_encoder(model) and not L.llama_model_has_decoder(model):
            rc = L.llama_encode(ctx, batch)
        else:
            rc = L.llama_decode(ctx, batch)
        if rc != 0:
            raise RuntimeError(f"llama.cpp decode failed ({rc})")
        ptr = L.llama_get_embeddings_seq(ctx, 0)
        out.append([float(ptr[i]) for i in range(n_out)])
        L.llama_batch_free(batch)
    return out


def llama_cpp_tokenize(gguf_path: Path, texts: list[str], add_special: bool) -> list[list[int]]:
    import llama_cpp as L

    llm = L.Llama(model_path=str(gguf_path), embedding=True, vocab_only=True, verbose=False)
    return [llm.tokenize(t.encode("utf-8"), add_bos=add_special, special=True) for t in texts]


def cosine(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def llama_cpp_check(name: str, gguf_path: Path, entry: dict) -> dict:
    import llama_cpp as L

    cases = entry["cases"]
    res = {"version": L.__version__}
    if entry["kind"] == "embedding":
        width = len(cases[0]["pooled"])
        vecs = llama_cpp_run(gguf_path, [c["ids"] for c in cases], width)
        res["pooled_max_abs_diff"] = max(float(np.abs(np.array(v) - c["pooled"]).max())
                                         for v, c in zip(vecs, cases))
        res["normalized_max_abs_diff"] = max(
            float(np.abs(np.array(v) / np.linalg.norm(v) - c["normalized"]).max())
            for v, c in zip(vecs, cases))
        res["min_cosine"] = min(cosine(v, c["pooled"]) for v, c in zip(vecs, cases))
        toks = llama_cpp_tokenize(gguf_path, [c["input"] for c in cases], True)
        res["tokenizer_ids_equal"] = [t == c["ids"] for t, c in zip(toks, cases)]
    elif name == "qwen3_rerank":
        out = llama_cpp_run(gguf_path, [c["ids"] for c in cases], 2)
        res["scores"] = [o[0] for o in out]
        res["score_max_abs_diff"] = max(abs(o[0] - c["score"]) for o, c in zip(out, cases))
        toks = llama_cpp_tokenize(gguf_path, [c["text"] for c in cases], False)
        res["tokenizer_ids_equal"] = [t == c["ids"] for t, c in zip(toks, cases)]
    else:  # bert_rerank: llama.cpp adds token type 0 to every position
        out = llama_cpp_run(gguf_path, [c["ids"] for c in cases], 1)
        res["logits"] = [o[0] for o in out]
        res["logit_max_abs_diff_vs_token_types_zero"] = max(
            abs(o[0] - c["logit_token_types_zero"]) for o, c in zip(out, cases))
        res["logit_max_abs_diff_vs_reference"] = max(
            abs(o[0] - c["logit"]) for o, c in zip(out, cases))
        toks = llama_cpp_tokenize(gguf_path, [c["query"] for c in cases]
                                  + [c["document"] for c in cases], False)
        n = len(cases)
        res["tokenizer_ids_equal"] = [toks[i] + toks[n + i] == strip_pair(c["ids"], c["token_types"])
                                      for i, c in enumerate(cases)]
    return res


def strip_pair(ids: list[int], types: list[int]) -> list[int]:
    """[CLS] a [SEP] b [SEP] -> a + b (the pieces a plain tokenizer gives)."""
    first = [t for t, k in zip(ids, types) if k == 0][1:-1]
    second = [t for t, k in zip(ids, types) if k == 1][:-1]
    return first + second


# ---- main ------------------------------------------------------------------------------------

def versions() -> dict:
    out = {"python": platform.python_version(), "numpy": np.__version__}
    for pkg in ("torch", "transformers", "sentence-transformers", "tokenizers", "sentencepiece",
                "gguf", "safetensors"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


ARCH = {"qwen3_embed": "qwen3", "gemma_embed": "gemma-embedding", "bert_rerank": "bert",
        "qwen3_rerank": "qwen3"}


def make_one(name: str, hf_root: Path, out: Path, use_llama_cpp: bool) -> dict:
    from convert_embedding_model import convert

    path = hf_root / name
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    info = BUILDERS[name](path)
    gguf_path = out / f"{name}.gguf"
    convert(path, gguf_path, "f32", name=f"zen tiny {name}", **info.pop("convert"))
    config = json.loads((path / "config.json").read_text())
    config.pop("transformers_version", None)
    entry = {"gguf": gguf_path.name, "sha256": hashlib.sha256(gguf_path.read_bytes()).hexdigest(),
             "bytes": gguf_path.stat().st_size, "arch": ARCH[name],
             "kind": "embedding" if name.endswith("embed") else "rerank", **info,
             "config": config,
             "hf_files": sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())}
    if entry["kind"] == "embedding":
        st_config = json.loads((path / "config_sentence_transformers.json").read_text())
        entry["prompts"] = st_config["prompts"]
        entry["normalize"] = True
        entry.update(embed_reference(path))
        sens = gemma_sensitivity if name == "gemma_embed" else qwen3_embed_sensitivity
        entry["sensitivity_long_case"] = sens(path, entry)
    elif name == "bert_rerank":
        entry.update(bert_rerank_reference(path))
    else:
        entry.update(qwen3_rerank_reference(path))
    if use_llama_cpp:
        try:
            entry["llama_cpp"] = llama_cpp_check(name, gguf_path, entry)
        except Exception as e:  # noqa: BLE001 (report, keep the reference)
            entry["llama_cpp"] = {"error": f"{type(e).__name__}: {e}"}
    return entry


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*", choices=NAMES, help="model names (default: all)")
    ap.add_argument("--save-hf", type=Path, help="keep the Hugging Face directories here")
    ap.add_argument("--no-llama-cpp", action="store_true",
                    help="skip llama.cpp's figures even if llama-cpp-python is installed")
    args = ap.parse_args()

    import torch
    torch.set_num_threads(2)
    use_llama_cpp = not args.no_llama_cpp
    if use_llama_cpp:
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            use_llama_cpp = False
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    previous = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    models = previous.get("models", {})
    tmp = tempfile.TemporaryDirectory()
    hf_root = args.save_hf or Path(tmp.name)
    for name in args.only or NAMES:
        entry = make_one(name, hf_root, args.out, use_llama_cpp)
        models[name] = entry
        print(f"{name:13s} {entry['bytes']:>8,d} B  {len(entry['cases'])} cases  "
              f"llama.cpp: {json.dumps(entry.get('llama_cpp'))}")
    manifest = {
        "format": 1,
        "generator": "tools/make_tiny_embedders.py",
        "versions": versions(),
        "layout": {
            "embedding cases": "text, prompt_name (null: none), prompt, input = prompt + text, "
                               "ids (the HF tokenizer's, specials included), pooled (the vector "
                               "sentence-transformers passes to Normalize: after pooling and any "
                               "Dense), normalized (SentenceTransformer.encode's output); "
                               "gemma_embed also pooled_before_dense (the mean-pooled state)",
            "rerank cases": "query, document, ids and token_types of the pair as the HF "
                            "tokenizer makes them; bert: logit, score = sigmoid(logit), "
                            "logit_token_types_zero (the same ids with every token type 0, "
                            "as llama.cpp computes); qwen3: text (the filled template), "
                            "logits [yes, no] at the last position, score = P(yes)",
            "last_hidden_state": "transformers' final hidden state (after the final norm) of "
                                 "the first case, [n_tokens][n_embd]",
            "sensitivity_long_case": "max abs change of the normalized long-case embedding "
                                     "under the named mistake",
            "llama_cpp": "llama-cpp-python's figures on the GGUF, ids fed directly (absent when "
                         "it was not installed)",
        },
        "models": {k: models[k] for k in NAMES if k in models},
    }
    manifest_path.write_text(dumps(manifest) + "\n", encoding="utf-8")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
