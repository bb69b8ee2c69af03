#!/usr/bin/env python3
"""Converts a Hugging Face embedding or reranker directory to one GGUF file.

Reads config.json, the *.safetensors weights, the tokenizer (tokenizer.json, or vocab.txt for
BERT) and the sentence-transformers files (modules.json, 1_Pooling/config.json, 2_Dense/,
3_Dense/, config_sentence_transformers.json), and writes GGUF with the keys, tensor names and
layouts llama.cpp's convert_hf_to_gguf.py writes for the same family, so one file loads in
llama.cpp and in Zen Engine. Zen's own keys carry what sentence-transformers does around the
network, which GGUF otherwise loses:
  {arch}.embedding.normalize        bool: L2-normalize the pooled vector (a Normalize module)
  {arch}.embedding.prompt_names     string array } parallel: the model's named prompts,
  {arch}.embedding.prompts          string array } prefixed to a text before tokenizing
  {arch}.embedding.default_prompt_name   string
  {arch}.embedding.matryoshka_dims  u32 array: output widths the model was trained to truncate to

Families (general.architecture):
  bert             BertModel (embeddings: mean/cls pooling) and BertForSequenceClassification
                   (cross-encoder rerankers: rank pooling, pooler -> cls, classifier -> cls.output)
  qwen3            Qwen3-Embedding (last-token pooling) and Qwen3-Reranker (rank pooling, the
                   "yes"/"no" rows of the LM head as cls.output, a rerank prompt template)
  gemma-embedding  EmbeddingGemma (bidirectional Gemma 3, mean pooling, the two Dense layers)

Needs numpy and gguf only: safetensors are parsed here (8-byte header length, JSON header, raw
little-endian data), so CI converts without torch or the safetensors package.

    python3 tools/convert_embedding_model.py HF_DIR -o OUT.gguf [--outtype f32|f16|bf16|q8_0]
        [--matryoshka-dims 768,512,256,128] [--pooling mean|cls|last] [--reranker]
        [--rerank-instruction TEXT] [--name NAME]

From Python: `convert(Path(hf_dir), Path(out), "f16", matryoshka_dims=[256, 128])`.
"""
from __future__ import annotations

import argparse
import json
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import gguf

QT = gguf.GGMLQuantizationType
TT = gguf.TokenType

OUTTYPES = {"f32": (QT.F32, gguf.LlamaFileType.ALL_F32),
            "f16": (QT.F16, gguf.LlamaFileType.MOSTLY_F16),
            "bf16": (QT.BF16, gguf.LlamaFileType.MOSTLY_BF16),
            "q8_0": (QT.Q8_0, gguf.LlamaFileType.MOSTLY_Q8_0)}

POOLING = {"mean": gguf.PoolingType.MEAN, "cls": gguf.PoolingType.CLS,
           "last": gguf.PoolingType.LAST, "rank": gguf.PoolingType.RANK}

# Qwen3-Reranker's prompt (its model card), as llama.cpp's converter stores it; {query} and
# {document} are filled per pair by the server.
DEFAULT_RERANK_INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query"
RERANK_TEMPLATE = (
    "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query "
    "and the Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n"
    "<|im_start|>user\n<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {document}"
    "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n")

# Qwen3-Embedding's model card: queries carry an instruction, documents nothing.
QWEN3_EMBEDDING_PROMPTS = {
    "query": "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:",
    "document": "",
}
GEMMA_MATRYOSHKA_DIMS = [768, 512, 256, 128]


class ConvertError(Exception):
    """A directory this converter cannot turn into a correct GGUF; the message says why."""


@dataclass
class Options:
    matryoshka_dims: list[int] | None = None
    pooling: str | None = None          # overrides 1_Pooling: mean | cls | last
    reranker: bool = False              # Qwen3: treat as Qwen3-Reranker
    rerank_instruction: str = DEFAULT_RERANK_INSTRUCTION
    name: str | None = None             # general.name (default: the directory's name)


# ---- files -----------------------------------------------------------------------------------

def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


SAFETENSORS_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8",
                      "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?"}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file, memory-mapped where it is already float32/16.
    BF16 is widened to float32: numpy has no bfloat16, and its bits are a float32's top half."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in SAFETENSORS_DTYPES:
            raise ConvertError(f"{path.name}: {name}: dtype {info['dtype']} is not supported")
        begin, end = info["data_offsets"]
        a = data[begin:end].view(np.dtype(SAFETENSORS_DTYPES[info["dtype"]])).reshape(info["shape"])
        if info["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = a
    return tensors


def read_checkpoint(hf_dir: Path) -> dict[str, np.ndarray]:
    """All weights of the directory: the shards the index names, else every *.safetensors."""
    index = read_json(hf_dir / "model.safetensors.index.json")
    files = sorted(set(index["weight_map"].values())) if index else \
        sorted(p.name for p in hf_dir.glob("*.safetensors"))
    if not files:
        raise ConvertError(f"{hf_dir}: no *.safetensors weights (only safetensors are read)")
    tensors: dict[str, np.ndarray] = {}
    for name in files:
        tensors.update(read_safetensors(hf_dir / name))
    return tensors


# ---- sentence-transformers -------------------------------------------------------------------

@dataclass
class SentenceTransformers:
    """What modules.json and its modules' configs say happens around the transformer."""
    pooling: str | None = None          # mean | cls | last
    normalize: bool = True              # no modules.json: embeddings are used normalized
    dense: list[Path] = field(default_factory=list)   # Dense module directories, in order
    prompts: dict[str, str] = field(default_factory=dict)
    default_prompt_name: str | None = None


def pooling_mode(config: dict, where: Path) -> str:
    if config.get("pooling_mode_mean_tokens"):
        return "mean"
    if config.get("pooling_mode_cls_token"):
        return "cls"
    if config.get("pooling_mode_lasttoken"):
        return "last"
    mode = config.get("pooling_mode")  # newer sentence-transformers spell it as one string
    if mode in ("mean", "cls", "lasttoken"):
        return "last" if mode == "lasttoken" else mode
    raise ConvertError(f"{where}: pooling {config} is not supported (mean, cls or lasttoken)")


def read_sentence_transformers(hf_dir: Path) -> SentenceTransformers:
    st = SentenceTransformers()
    modules = read_json(hf_dir / "modules.json")
    if modules is not None:
        st.normalize = False
        for module in modules:
            kind = module["type"].rsplit(".", 1)[-1]
            path = hf_dir / module["path"]
            if kind == "Pooling":
                st.pooling = pooling_mode(read_json(path / "config.json") or {}, path)
            elif kind == "Dense":
                st.dense.append(path)
            elif kind == "Normalize":
                st.normalize = True
    config = read_json(hf_dir / "config_sentence_transformers.json") or {}
    st.prompts = dict(config.get("prompts") or {})
    st.default_prompt_name = config.get("default_prompt_name") or None
    return st


# ---- tokenizer: the token table and the special tokens ---------------------------------------

@dataclass
class TokenTable:
    """The tokenizer's tokens by id (None for a hole) and which are added / special."""
    texts: list[str | None]
    added: set[int]
    special: set[int]
    tokenizer_json: dict | None

    def index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.texts) if t is not None}


def read_token_table(hf_dir: Path) -> TokenTable:
    tj = read_json(hf_dir / "tokenizer.json")
    by_id: dict[int, str] = {}
    added: set[int] = set()
    special: set[int] = set()
    if tj is not None:
        vocab = tj["model"].get("vocab")
        if not isinstance(vocab, dict):
            raise ConvertError(f"{hf_dir}/tokenizer.json: model type {tj['model'].get('type')} "
                               "is not supported here (BPE or WordPiece)")
        by_id = {i: t for t, i in vocab.items()}
        for a in tj.get("added_tokens", []):
            by_id[a["id"]] = a["content"]
            added.add(a["id"])
            if a.get("special"):
                special.add(a["id"])
    elif (hf_dir / "vocab.txt").is_file():  # a BERT WordPiece vocabulary, one token a line
        lines = (hf_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        by_id = dict(enumerate(lines))
    else:
        raise ConvertError(f"{hf_dir}: no tokenizer.json (or vocab.txt)")
    # tokenizer_config.json may add tokens or flag them special (transformers honours it)
    config = read_json(hf_dir / "tokenizer_config.json") or {}
    for key, a in (config.get("added_tokens_decoder") or {}).items():
        i = int(key)
        by_id[i] = a["content"]
        added.add(i)
        (special.add if a.get("special") else special.discard)(i)
    texts = [by_id.get(i) for i in range(max(by_id) + 1)]
    return TokenTable(texts, added, special, tj)


@dataclass
class Specials:
    """Token ids by role (bos eos eot unk sep pad mask cls) and what encoding adds."""
    ids: dict[str, int | None]
    add_bos: bool
    add_eos: bool


def template_ends(tokenizer_json: dict | None) -> tuple[str | None, str | None] | None:
    """The special tokens the post-processor puts before and after one text, or None when it
    has no say (no post-processor, or only ByteLevel's offset fixing)."""
    processor = (tokenizer_json or {}).get("post_processor")
    ends = None
    for p in (processor or {}).get("processors", [processor] if processor else []):
        if p["type"] == "TemplateProcessing":
            single = p.get("single", [])
            ends = (single[0].get("SpecialToken", {}).get("id"),
                    single[-1].get("SpecialToken", {}).get("id")) if len(single) > 1 else (None, None)
        elif p["type"] in ("BertProcessing", "RobertaProcessing"):
            ends = (p["cls"][0], p["sep"][0])
    return ends


def read_specials(hf_dir: Path, table: TokenTable, config: dict, add_bos: bool,
                  add_eos: bool) -> Specials:
    """Roles as gguf-py's SpecialVocab finds them: names from tokenizer_config.json (else
    special_tokens_map.json), CLS standing in for BOS and SEP for EOS; the post-processor's
    first/last token decide what is added, and a last token that is not the EOS becomes the
    EOS (the old EOS stays as EOT); ids from config.json fill the roles still empty.
    `add_bos`/`add_eos` are the family's defaults when nothing says."""
    index = table.index()
    names = [read_json(hf_dir / "tokenizer_config.json") or {},
             read_json(hf_dir / "special_tokens_map.json") or {}]

    def named(role: str) -> int | None:
        for source in names:
            text = source.get(f"{role}_token")
            text = text.get("content") if isinstance(text, dict) else text
            if isinstance(text, str) and text in index:
                return index[text]
        return None

    ids = {role: named(role) for role in ("bos", "eos", "unk", "sep", "pad", "mask", "cls")}
    ids["eot"] = None
    if ids["bos"] is None:
        ids["bos"] = ids["cls"]
    if ids["eos"] is None:
        ids["eos"] = ids["sep"]

    ends = template_ends(table.tokenizer_json)
    if ends is not None:
        first, last = (index.get(t) if t is not None else None for t in ends)
        if first is not None and ids["bos"] is None:
            ids["bos"] = first
        if last is not None and last != ids["eos"]:
            ids["eot"], ids["eos"] = ids["eos"], last
        add_bos = first is not None and first in (ids["bos"], ids["cls"])
        add_eos = last is not None
    else:
        add_bos = names[0].get("add_bos_token", add_bos)
        add_eos = names[0].get("add_eos_token", add_eos)

    for role in ("bos", "eos", "unk", "sep", "pad", "mask"):
        token_id = config.get(f"{role}_token_id")
        if ids[role] is None and isinstance(token_id, int) and 0 <= token_id < len(table.texts):
            ids[role] = token_id
    return Specials(ids, bool(add_bos), bool(add_eos))


def looks_special(text: str) -> bool:
    """Added tokens llama.cpp's converter makes CONTROL although not flagged special."""
    return (text in ("<pad>", "<mask>", "<2mass>", "[@BOS@]")
            or (text.startswith("<|") and text.endswith("|>"))
            or (text.startswith("<\uff5c") and text.endswith("\uff5c>"))
            or (text.startswith("<unused") and text.endswith(">")))


def fit_to_rows(texts: list[str | None], n_rows: int, where: str) -> list[str | None]:
    """The token list sized to the embedding's rows: holes and missing ids at the end become
    padding (None), as llama.cpp pads to config.vocab_size."""
    if len(texts) > n_rows:
        raise ConvertError(f"{where}: the tokenizer has {len(texts)} tokens but the embedding "
                           f"only {n_rows} rows")
    return texts + [None] * (n_rows - len(texts))


# ---- tokenizer: the three GGUF vocabulary kinds -----------------------------------------------

@dataclass
class Vocab:
    """A `tokenizer.ggml.*` block (plus Zen's tokenizer.zen.* extras)."""
    model: str
    pre: str
    tokens: list[str]
    types: list[int]
    specials: Specials
    scores: list[float] | None = None
    merges: list[str] | None = None
    extra: dict[str, bool | int] = field(default_factory=dict)
    add_sep: bool | None = None


def bert_normalizer(tokenizer_json: dict | None, tokenizer_config: dict, where: Path) -> dict[str, bool]:
    """BertNormalizer's four switches, from tokenizer.json, else tokenizer_config.json
    (do_lower_case, strip_accents, tokenize_chinese_chars) as BertTokenizer reads them."""
    if tokenizer_json is not None:
        n = tokenizer_json.get("normalizer")
        if n is None:  # tokenizer.json without a normalizer applies none
            return dict(lowercase=False, strip_accents=False, clean_text=False,
                        handle_chinese_chars=False)
        if n.get("type") != "BertNormalizer":
            raise ConvertError(f"{where}: normalizer {n.get('type')} is not supported with "
                               "WordPiece (only BertNormalizer)")
        lower = n.get("lowercase", True)
        strip = n.get("strip_accents")
        return dict(lowercase=lower, strip_accents=lower if strip is None else strip,
                    clean_text=n.get("clean_text", True),
                    handle_chinese_chars=n.get("handle_chinese_chars", True))
    lower = tokenizer_config.get("do_lower_case", True)
    strip = tokenizer_config.get("strip_accents")
    return dict(lowercase=lower, strip_accents=lower if strip is None else strip, clean_text=True,
                handle_chinese_chars=tokenizer_config.get("tokenize_chinese_chars", True))


def bert_vocab(hf_dir: Path, table: TokenTable, config: dict, n_rows: int) -> Vocab:
    """WordPiece as llama.cpp spells it: "##x" -> "x", a word-initial "x" -> "▁x", special
    tokens as they are. CLS is BOS and SEP is EOS; both are added around a text."""
    tj = table.tokenizer_json
    if tj is not None:
        model = tj["model"]
        if model.get("type") != "WordPiece" or model.get("continuing_subword_prefix", "##") != "##":
            raise ConvertError(f"{hf_dir}/tokenizer.json: a BERT model needs a WordPiece "
                               "tokenizer with the '##' prefix")
    specials = read_specials(hf_dir, table, config, add_bos=True, add_eos=True)
    roles = {specials.ids[r] for r in ("bos", "eos", "sep", "pad", "mask", "cls")} - {None}
    tokens, types = [], []
    for i, text in enumerate(fit_to_rows(table.texts, n_rows, str(hf_dir))):
        if text is None:  # spelled as llama.cpp spells BERT padding
            tokens.append(f"\u2581[PAD{i}]")
            types.append(TT.UNUSED)
            continue
        if i == specials.ids["unk"]:
            kind = TT.UNKNOWN
        elif i in table.special or i in roles:
            kind = TT.CONTROL
        elif i in table.added:
            kind = TT.USER_DEFINED
        else:
            kind = TT.NORMAL
        if kind == TT.NORMAL:
            text = text[2:] if text.startswith("##") else "\u2581" + text
        tokens.append(text)
        types.append(kind)
    check_unique(tokens, hf_dir)

    tokenizer_config = read_json(hf_dir / "tokenizer_config.json") or {}
    norm = bert_normalizer(tj, tokenizer_config, hf_dir)
    max_chars = (tj or {}).get("model", {}).get("max_input_chars_per_word", 100)
    extra: dict[str, bool | int] = {f"tokenizer.zen.bert.{k}": v for k, v in norm.items()}
    extra["tokenizer.zen.wordpiece.max_input_chars_per_word"] = int(max_chars)
    # llama.cpp's own two switches (it always cleans text and spaces out CJK)
    extra["tokenizer.ggml.normalizer.lowercase"] = norm["lowercase"]
    extra["tokenizer.ggml.normalizer.strip_accents"] = norm["strip_accents"]
    # The trailing SEP is added as EOS, so llama.cpp must not add a second one as SEP.
    return Vocab("bert", "default", tokens, types, specials, extra=extra, add_sep=False)


def check_unique(tokens: list[str], where: Path) -> None:
    seen: dict[str, int] = {}
    for i, t in enumerate(tokens):
        if t in seen:
            raise ConvertError(f"{where}: tokens {seen[t]} and {i} are both {t!r} in GGUF spelling")
        seen[t] = i


def added_token_type(i: int, text: str, table: TokenTable) -> int | None:
    """CONTROL / USER_DEFINED for added tokens (llama.cpp's rule), None for the model's own."""
    if i not in table.added:
        return None
    return TT.CONTROL if i in table.special or looks_special(text) else TT.USER_DEFINED


def merge_strings(merges: list) -> list[str]:
    """tokenizer.json merges as GGUF's "left right" strings ([left, right] pairs are newer
    files' form; a space inside a part is written as U+0120+, as gguf-py does)."""
    out = []
    for m in merges:
        if isinstance(m, str):
            out.append(m)
        else:
            out.append(" ".join("".join(chr(ord(c) + 256) if c == " " else c for c in part)
                                for part in m))
    return out


def byte_level_vocab(hf_dir: Path, table: TokenTable, config: dict, n_rows: int, pre: str) -> Vocab:
    """GPT-2 style byte-level BPE ("gpt2"): tokens in byte-alphabet spelling, merges."""
    tj = table.tokenizer_json
    if tj is None or tj["model"].get("type") != "BPE":
        raise ConvertError(f"{hf_dir}: a byte-level BPE tokenizer.json is needed")
    specials = read_specials(hf_dir, table, config, add_bos=False, add_eos=False)
    tokens, types = [], []
    for i, text in enumerate(fit_to_rows(table.texts, n_rows, str(hf_dir))):
        if text is None:
            tokens.append(f"[PAD{i}]")
            types.append(TT.UNUSED)
            continue
        kind = added_token_type(i, text, table) or TT.NORMAL
        tokens.append(text.replace("\u2581", " ") if kind == TT.USER_DEFINED else text)
        types.append(kind)
    return Vocab("gpt2", pre, tokens, types, specials,
                 merges=merge_strings(tj["model"].get("merges", [])))


def spm_scores(tokens: list[str | None], table: TokenTable, merges: list[str]) -> list[float]:
    """Scores that make SentencePiece-style merging ("llama": highest score first) do what the
    BPE merge list does: a token scores minus the rank of the first merge producing it; tokens
    no merge produces rank below every merge; single characters score 0; added tokens -1000
    (as llama.cpp gives them)."""
    index = {t: i for i, t in enumerate(tokens) if t is not None}
    scores = [0.0] * len(tokens)
    produced: set[int] = set()
    for rank, m in enumerate(merges):
        left, right = m.split(" ", 1)
        i = index.get(left + right)
        if i is not None and i not in produced:
            produced.add(i)
            scores[i] = -float(rank)
    for i, t in enumerate(tokens):
        if i in produced or t is None:
            continue
        if i in table.added:
            scores[i] = -1000.0
        elif len(t.encode("utf-8")) > 1:
            scores[i] = -float(len(merges) + i)
    return scores


def is_byte_token(text: str) -> bool:
    return len(text) == 6 and text.startswith("<0x") and text.endswith(">") and \
        all(c in "0123456789abcdefABCDEF" for c in text[3:5])


def add_space_prefix(tokenizer_json: dict) -> bool:
    """Whether spaces-to-"▁" also puts one in front: a Prepend normalizer or Metaspace's scheme."""
    def normalizers(n):
        return n.get("normalizers", []) if n and n.get("type") == "Sequence" else [n] if n else []
    if any(n.get("type") == "Prepend" for n in normalizers(tokenizer_json.get("normalizer"))):
        return True
    pre = tokenizer_json.get("pre_tokenizer") or {}
    if pre.get("type") == "Metaspace":
        return pre.get("prepend_scheme", "always") != "never"
    return False


def sentencepiece_vocab(hf_dir: Path, table: TokenTable, config: dict, n_rows: int) -> Vocab:
    """Gemma's SentencePiece BPE as llama.cpp writes gemma3 ("llama": tokens, scores, types),
    from the tokenizer.json that Gemma ships (BPE with byte fallback, spaces as "▁")."""
    tj = table.tokenizer_json
    if tj is None or tj["model"].get("type") != "BPE" or not tj["model"].get("byte_fallback"):
        raise ConvertError(f"{hf_dir}: a SentencePiece-style tokenizer.json (BPE with "
                           "byte_fallback) is needed")
    specials = read_specials(hf_dir, table, config, add_bos=True, add_eos=False)
    texts = table.texts[:n_rows] + [None] * (n_rows - len(table.texts))
    merges = merge_strings(tj["model"].get("merges", []))
    scores = spm_scores(texts, table, merges)
    tokens, types = [], []
    for i, text in enumerate(texts):
        if text is None:
            tokens.append(f"[PAD{i}]")
            types.append(TT.UNUSED)
            scores[i] = -1000.0
            continue
        kind = added_token_type(i, text, table)
        if kind is None:
            kind = TT.BYTE if is_byte_token(text) else TT.NORMAL
        tokens.append(text.replace("\u2581", " ") if kind == TT.USER_DEFINED else text)
        types.append(kind)
    vocab = Vocab("llama", "default", tokens, types, specials, scores=scores)
    vocab.extra["tokenizer.ggml.add_space_prefix"] = add_space_prefix(tj)
    return vocab


def write_vocab(w: gguf.GGUFWriter, v: Vocab) -> None:
    w.add_tokenizer_model(v.model)
    w.add_tokenizer_pre(v.pre)
    w.add_token_list(v.tokens)
    if v.scores is not None:
        w.add_token_scores(v.scores)
    w.add_token_types(v.types)
    if v.merges:
        w.add_token_merges(v.merges)
    setters = {"bos": w.add_bos_token_id, "eos": w.add_eos_token_id, "eot": w.add_eot_token_id,
               "unk": w.add_unk_token_id, "sep": w.add_sep_token_id, "pad": w.add_pad_token_id,
               "mask": w.add_mask_token_id}
    for role, setter in setters.items():
        if v.specials.ids.get(role) is not None:
            setter(v.specials.ids[role])
    w.add_add_bos_token(v.specials.add_bos)
    w.add_add_eos_token(v.specials.add_eos)
    if v.add_sep is not None:
        w.add_add_sep_token(v.add_sep)
    for key, value in v.extra.items():
        if isinstance(value, bool):
            w.add_bool(key, value)
        else:
            w.add_uint32(key, value)


def chat_template(hf_dir: Path) -> str | None:
    """The chat template: tokenizer_config.json's, else chat_template.jinja (newer saves)."""
    template = (read_json(hf_dir / "tokenizer_config.json") or {}).get("chat_template")
    if isinstance(template, str):
        return template
    jinja = hf_dir / "chat_template.jinja"
    return jinja.read_text(encoding="utf-8") if jinja.is_file() else None


# ---- tensors ---------------------------------------------------------------------------------

def stored_type(name: str, shape: tuple[int, ...], outtype: str) -> QT:
    """llama.cpp's converter rule: vectors, norms, biases, position and token-type embeddings
    stay F32; other matrices take the file's type. Q8_0 needs rows of whole 32-blocks, else
    the matrix falls back to F16 (as gguf.quants refuses it there)."""
    if (len(shape) <= 1 or name.endswith("_norm.weight") or not name.endswith(".weight")
            or name.startswith(("position_embd.", "token_types."))):
        return QT.F32
    qtype = OUTTYPES[outtype][0]
    if qtype == QT.Q8_0 and shape[-1] % 32 != 0:
        return QT.F16
    return qtype


def add_tensor(w: gguf.GGUFWriter, name: str, array: np.ndarray, outtype: str) -> None:
    a = np.ascontiguousarray(array, dtype=np.float32)  # no copy for float32 safetensors
    qtype = stored_type(name, a.shape, outtype)
    if qtype == QT.F32:
        w.add_tensor(name, a)
    elif qtype == QT.F16:
        w.add_tensor(name, a.astype(np.float16))
    else:
        w.add_tensor(name, gguf.quants.quantize(a, qtype), raw_dtype=qtype)


def mapper(arch: gguf.MODEL_ARCH, n_layer: int):
    """HF name -> GGUF name via gguf-py's own table, failing loudly on unknown tensors."""
    names = gguf.get_tensor_name_map(arch, n_layer)

    def gguf_name(hf_name: str) -> str:
        mapped = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if mapped is None:
            raise ConvertError(f"no GGUF name for tensor {hf_name!r}")
        return mapped
    return gguf_name


def with_model_prefix(name: str) -> str:
    """Qwen3Model / Gemma3TextModel checkpoints lack the "model." of the *ForCausalLM ones."""
    return name if name.startswith(("model.", "lm_head.")) else "model." + name


# ---- families --------------------------------------------------------------------------------

@dataclass
class Source:
    """Everything read from the HF directory."""
    dir: Path
    config: dict
    st: SentenceTransformers
    table: TokenTable
    tensors: dict[str, np.ndarray]
    options: Options

    def name_hints(self) -> str:
        return " ".join([self.dir.resolve().name, str(self.config.get("_name_or_path", ""))]).lower()


@dataclass
class Plan:
    """What a family writes: the architecture, its keys (a function of the writer) and tensors."""
    arch: str
    pooling: str
    vocab: Vocab
    hparams: Any                      # callable(writer)
    tensors: Iterator[tuple[str, np.ndarray]]
    output_width: int
    embedding_keys: bool = True       # rerankers produce scores: no embedding.* keys
    default_prompts: dict[str, str] = field(default_factory=dict)
    templates: dict[str, str] = field(default_factory=dict)   # extra named chat templates


def detect_family(src: Source) -> str:
    config, archs = src.config, src.config.get("architectures") or []
    model_type = config.get("model_type")
    if "BertForSequenceClassification" in archs:
        return "bert-rank"
    if model_type == "bert" or "BertModel" in archs:
        return "bert"
    if model_type == "qwen3" or {"Qwen3ForCausalLM", "Qwen3Model"} & set(archs):
        hints = src.name_hints()
        if src.options.reranker or "reranker" in hints:
            return "qwen3-rank"
        if "last" in (src.options.pooling, src.st.pooling) or "embed" in hints:
            return "qwen3-embed"
        raise ConvertError("a Qwen3 model that is neither an embedding model (last-token "
                           "pooling in 1_Pooling, or --pooling last) nor a reranker (--reranker)")
    if ("Gemma3TextModel" in archs and config.get("use_bidirectional_attention")) or \
            (model_type == "gemma3_text" and src.st.dense):
        return "gemma-embedding"
    raise ConvertError(f"unsupported model: architectures {archs}, model_type {model_type!r} "
                       "(supported: BertModel, BertForSequenceClassification, Qwen3 embedding/"
                       "reranker, EmbeddingGemma)")


def bert_plan(src: Source, rank: bool) -> Plan:
    hp = src.config
    if hp.get("position_embedding_type", "absolute") != "absolute":
        raise ConvertError(f"BERT position_embedding_type {hp['position_embedding_type']!r} "
                           "is not supported (absolute only)")
    n_layer = hp["num_hidden_layers"]
    tensors = {k.removeprefix("bert."): v for k, v in src.tensors.items()}
    n_rows = tensors["embeddings.word_embeddings.weight"].shape[0]
    vocab = bert_vocab(src.dir, src.table, hp, n_rows)
    labels = bert_labels(hp, tensors) if rank else None

    def hparams(w: gguf.GGUFWriter) -> None:
        w.add_context_length(hp["max_position_embeddings"])
        w.add_embedding_length(hp["hidden_size"])
        w.add_feed_forward_length(hp["intermediate_size"])
        w.add_block_count(n_layer)
        w.add_head_count(hp["num_attention_heads"])
        w.add_layer_norm_eps(hp.get("layer_norm_eps", 1e-12))
        w.add_causal_attention(False)
        # llama.cpp refuses a BERT without it (it sizes the token-type embedding check)
        w.add_token_type_count(hp.get("type_vocab_size", 1))
        if labels:
            w.add_classifier_output_labels(labels)

    pooling = "rank" if rank else (src.options.pooling or src.st.pooling or "mean")
    return Plan("bert", pooling, vocab, hparams, bert_tensors(tensors, n_layer, rank),
                hp["hidden_size"], embedding_keys=not rank)


def bert_labels(hp: dict, tensors: dict[str, np.ndarray]) -> list[str]:
    """config id2label in id order, one per classifier row."""
    rows = tensors["classifier.weight"].shape[0]
    id2label = hp.get("id2label") or {}
    labels = [v for _, v in sorted(id2label.items(), key=lambda kv: int(kv[0]))]
    return labels if len(labels) == rows else [f"LABEL_{i}" for i in range(rows)]


def bert_tensors(tensors: dict[str, np.ndarray], n_layer: int, rank: bool) -> Iterator[tuple[str, np.ndarray]]:
    """BERT weights under gguf-py's names. A cross-encoder's head is pooler.dense (+ tanh) then
    classifier: written as cls and cls.output, which llama.cpp's rank pooling applies in that
    order. An embedding model's pooler is unused (sentence-transformers pools itself)."""
    gguf_name = mapper(gguf.MODEL_ARCH.BERT, n_layer)
    cls, cls_out = gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.CLS], gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.CLS_OUT]
    for name, a in tensors.items():
        if name.endswith(".gamma"):  # old checkpoints' LayerNorm spelling
            name = name[:-len(".gamma")] + ".weight"
        elif name.endswith(".beta"):
            name = name[:-len(".beta")] + ".bias"
        suffix = name.rsplit(".", 1)[-1]
        if name.endswith(("position_ids", "token_type_ids")) or \
                name.startswith(("cls.predictions.", "cls.seq_relationship.")):
            continue  # buffers, and pre-training heads
        if name.startswith("pooler.dense."):
            if rank:
                yield f"{cls}.{suffix}", a
            continue
        if name.startswith("classifier."):
            if not rank:
                raise ConvertError(f"{name}: a classifier in a BertModel checkpoint")
            yield f"{cls_out}.{suffix}", a
            continue
        yield gguf_name(name), a


def rope_thetas(hp: dict) -> tuple[float, float | None]:
    """(global, sliding-window) RoPE bases from either config layout: transformers 5's
    rope_parameters (per layer type) or the flat rope_theta / rope_local_base_freq."""
    params = hp.get("rope_parameters") or {}
    full = params.get("full_attention", params)
    local = params.get("sliding_attention", {})
    for p in (full, hp.get("rope_scaling") or {}):
        if p.get("rope_type", "default") != "default":
            raise ConvertError(f"RoPE scaling {p.get('rope_type')!r} is not supported here")
    return (float(full.get("rope_theta", hp.get("rope_theta", 1_000_000.0))),
            local.get("rope_theta", hp.get("rope_local_base_freq")))


def qwen3_plan(src: Source, rank: bool) -> Plan:
    hp = src.config
    n_layer = hp["num_hidden_layers"]
    tensors = {with_model_prefix(k): v for k, v in src.tensors.items()}
    tied = hp.get("tie_word_embeddings", "lm_head.weight" not in tensors)
    embed = tensors["model.embed_tokens.weight"]
    vocab = byte_level_vocab(src.dir, src.table, hp, embed.shape[0], "qwen2")
    head_dim = hp.get("head_dim") or hp["hidden_size"] // hp["num_attention_heads"]
    rope_base, _ = rope_thetas(hp)

    def hparams(w: gguf.GGUFWriter) -> None:
        w.add_context_length(hp["max_position_embeddings"])
        w.add_embedding_length(hp["hidden_size"])
        w.add_feed_forward_length(hp["intermediate_size"])
        w.add_block_count(n_layer)
        w.add_head_count(hp["num_attention_heads"])
        w.add_head_count_kv(hp.get("num_key_value_heads", hp["num_attention_heads"]))
        w.add_rope_freq_base(rope_base)
        w.add_layer_norm_rms_eps(hp["rms_norm_eps"])
        w.add_key_length(head_dim)
        w.add_value_length(head_dim)
        if rank:
            w.add_classifier_output_labels(["yes", "no"])

    templates = {}
    if rank:
        templates["rerank"] = RERANK_TEMPLATE.replace("{instruction}", src.options.rerank_instruction)
    return Plan("qwen3", "rank" if rank else "last", vocab, hparams,
                qwen3_tensors(tensors, n_layer, tied, src.table if rank else None),
                hp["hidden_size"], embedding_keys=not rank,
                default_prompts={} if rank else QWEN3_EMBEDDING_PROMPTS, templates=templates)


def qwen3_tensors(tensors: dict[str, np.ndarray], n_layer: int, tied: bool,
                  rerank_table: TokenTable | None) -> Iterator[tuple[str, np.ndarray]]:
    """Qwen3 weights under gguf-py's names; no output.weight when tied. For a reranker the
    LM head is only ever read at "yes" and "no": those two rows become cls.output ([yes, no],
    GGUF ne [n_embd, 2]) and, as in llama.cpp's converter, an untied head is not kept."""
    gguf_name = mapper(gguf.MODEL_ARCH.QWEN3, n_layer)
    head = "model.embed_tokens.weight" if tied else "lm_head.weight"
    for name, a in tensors.items():
        if rerank_table is not None and name == head:
            index = rerank_table.index()
            missing = [t for t in ("yes", "no") if t not in index]
            if missing:
                raise ConvertError(f"reranker: token(s) {missing} not in the vocabulary")
            yield gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.CLS_OUT] + ".weight", \
                np.stack([a[index["yes"]], a[index["no"]]]).astype(np.float32)
            if not tied:
                continue
        if name == "lm_head.weight" and tied:
            continue
        yield gguf_name(name), a


def gemma_layer_check(hp: dict) -> None:
    """llama.cpp places Gemma 3's global layers itself (every 6th) and scales queries by
    1/sqrt(head_dim): refuse configs that differ rather than write a wrong file."""
    n = hp["num_hidden_layers"]
    expected = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(n)]
    if hp.get("layer_types", expected) != expected:
        raise ConvertError(f"gemma layer_types {hp['layer_types']} differ from the every-6th "
                           "global layout llama.cpp assumes")
    head_dim = hp.get("head_dim", 256)
    if hp.get("query_pre_attn_scalar", head_dim) != head_dim:
        raise ConvertError("gemma: query_pre_attn_scalar != head_dim is not supported")
    if hp.get("attn_logit_softcapping") is not None:
        raise ConvertError("gemma: attention logit softcapping is not supported")


def dense_layers(st: SentenceTransformers, width: int) -> list[tuple[str, np.ndarray]]:
    """The sentence-transformers Dense projections after pooling, as dense_2 and dense_3
    ([out, in] numpy, GGUF ne [in, out]); llama.cpp applies them without bias or activation."""
    if len(st.dense) > 2:
        raise ConvertError(f"{len(st.dense)} Dense modules: at most two are supported")
    out = []
    for prefix, path in zip(("dense_2", "dense_3"), st.dense):
        config = read_json(path / "config.json") or {}
        activation = config.get("activation_function", "torch.nn.modules.linear.Identity")
        if not activation.endswith("Identity") or config.get("bias"):
            raise ConvertError(f"{path}: a Dense layer with bias or activation {activation!r} "
                               "is not supported (llama.cpp applies a plain matrix)")
        weight = read_safetensors(path / "model.safetensors")["linear.weight"]
        if weight.shape[1] != width:
            raise ConvertError(f"{path}: input width {weight.shape[1]} != {width}")
        out.append((prefix, weight))
        width = weight.shape[0]
    return out


def gemma_plan(src: Source) -> Plan:
    hp = src.config
    gemma_layer_check(hp)
    n_layer = hp["num_hidden_layers"]
    tensors = {with_model_prefix(k): v for k, v in src.tensors.items()}
    n_tokens = min(len(src.table.texts), tensors["model.embed_tokens.weight"].shape[0])
    vocab = sentencepiece_vocab(src.dir, src.table, hp, n_tokens)
    dense = dense_layers(src.st, hp["hidden_size"])
    rope_base, rope_local = rope_thetas(hp)
    head_dim = hp.get("head_dim", 256)

    def hparams(w: gguf.GGUFWriter) -> None:
        w.add_context_length(hp.get("max_position_embeddings", 131072))
        w.add_embedding_length(hp["hidden_size"])
        w.add_block_count(n_layer)
        w.add_feed_forward_length(hp["intermediate_size"])
        w.add_head_count(hp.get("num_attention_heads", 8))
        w.add_head_count_kv(hp.get("num_key_value_heads", 4))
        w.add_layer_norm_rms_eps(hp.get("rms_norm_eps", 1e-6))
        w.add_key_length(head_dim)
        w.add_value_length(head_dim)
        w.add_rope_freq_base(rope_base)
        if rope_local is not None:
            w.add_rope_freq_base_swa(float(rope_local))
        if hp.get("final_logit_softcapping"):
            w.add_final_logit_softcapping(hp["final_logit_softcapping"])
        # config.json's own value: transformers halves it in memory for bidirectional models
        w.add_sliding_window(hp["sliding_window"])
        w.add_causal_attention(False)
        for prefix, weight in dense:
            w.add_dense_features_dims(prefix, weight.shape[1], weight.shape[0])

    width = dense[-1][1].shape[0] if dense else hp["hidden_size"]
    return Plan("gemma-embedding", src.options.pooling or src.st.pooling or "mean", vocab,
                hparams, gemma_tensors(tensors, n_layer, n_tokens, dense), width)


def gemma_tensors(tensors: dict[str, np.ndarray], n_layer: int, n_tokens: int,
                  dense: list[tuple[str, np.ndarray]]) -> Iterator[tuple[str, np.ndarray]]:
    """Gemma 3 weights under gguf-py's names: RMSNorm weights stored as 1 + w (Gemma scales
    by 1 + w, ggml by w), embedding rows past the tokenizer dropped, no LM head (tied)."""
    gguf_name = mapper(gguf.MODEL_ARCH.GEMMA_EMBEDDING, n_layer)
    for name, a in tensors.items():
        if name == "lm_head.weight":
            continue
        if name == "model.embed_tokens.weight":
            a = a[:n_tokens]
        if name.endswith("norm.weight"):
            a = np.asarray(a, dtype=np.float32) + np.float32(1.0)
        yield gguf_name(name), a
    for prefix, weight in dense:
        yield f"{prefix}.weight", weight


def make_plan(src: Source) -> Plan:
    family = detect_family(src)
    if family in ("bert", "bert-rank"):
        return bert_plan(src, rank=family == "bert-rank")
    if family in ("qwen3-embed", "qwen3-rank"):
        return qwen3_plan(src, rank=family == "qwen3-rank")
    return gemma_plan(src)


# ---- Zen's embedding keys --------------------------------------------------------------------

def write_embedding_keys(w: gguf.GGUFWriter, plan: Plan, src: Source) -> None:
    arch = plan.arch
    w.add_bool(f"{arch}.embedding.normalize", src.st.normalize)
    prompts = src.st.prompts or plan.default_prompts
    if prompts:
        w.add_array(f"{arch}.embedding.prompt_names", list(prompts.keys()))
        w.add_array(f"{arch}.embedding.prompts", list(prompts.values()))
    if src.st.default_prompt_name:
        if src.st.default_prompt_name not in prompts:
            raise ConvertError(f"default_prompt_name {src.st.default_prompt_name!r} is not a prompt")
        w.add_string(f"{arch}.embedding.default_prompt_name", src.st.default_prompt_name)
    dims = src.options.matryoshka_dims
    if dims is None and arch == "gemma-embedding" and plan.output_width == 768:
        dims = GEMMA_MATRYOSHKA_DIMS
    if dims:
        if any(d <= 0 or d > plan.output_width for d in dims):
            raise ConvertError(f"matryoshka dims {dims} must lie in 1..{plan.output_width}")
        w.add_key_value(f"{arch}.embedding.matryoshka_dims", [int(d) for d in dims],
                        gguf.GGUFValueType.ARRAY, sub_type=gguf.GGUFValueType.UINT32)


# ---- entry points ----------------------------------------------------------------------------

def convert(hf_dir: Path, out: Path, outtype: str = "f32", **options: Any) -> None:
    """Writes `out` from the HF directory `hf_dir`; options are Options' fields
    (matryoshka_dims as a list or "768,512"), pooling, reranker, rerank_instruction, name)."""
    hf_dir, out = Path(hf_dir), Path(out)
    if outtype not in OUTTYPES:
        raise ConvertError(f"outtype {outtype!r}: one of {', '.join(OUTTYPES)}")
    if isinstance(options.get("matryoshka_dims"), str):
        options["matryoshka_dims"] = parse_dims(options["matryoshka_dims"])
    opts = Options(**options)
    if opts.pooling is not None and opts.pooling not in ("mean", "cls", "last"):
        raise ConvertError(f"pooling {opts.pooling!r}: one of mean, cls, last")
    config = read_json(hf_dir / "config.json")
    if config is None:
        raise ConvertError(f"{hf_dir}: no config.json")
    src = Source(hf_dir, config, read_sentence_transformers(hf_dir), read_token_table(hf_dir),
                 read_checkpoint(hf_dir), opts)
    plan = make_plan(src)

    w = gguf.GGUFWriter(str(out), plan.arch)
    w.add_type(gguf.GGUFType.MODEL)
    w.add_name(opts.name or hf_dir.resolve().name)
    w.add_file_type(OUTTYPES[outtype][1])
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    plan.hparams(w)
    w.add_pooling_type(POOLING[plan.pooling])
    if plan.embedding_keys:
        write_embedding_keys(w, plan, src)
    write_vocab(w, plan.vocab)
    if plan.arch != "bert" and (template := chat_template(hf_dir)) is not None:
        w.add_chat_template(template)
    if plan.templates:
        w.add_chat_template([{"name": k, "template": v} for k, v in plan.templates.items()])
    for name, array in plan.tensors:
        add_tensor(w, name, array, outtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def parse_dims(text: str) -> list[int]:
    try:
        return [int(d) for d in text.split(",") if d.strip()]
    except ValueError:
        raise ConvertError(f"--matryoshka-dims {text!r}: expected comma-separated integers")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hf_dir", type=Path, help="Hugging Face model directory")
    ap.add_argument("-o", "--out", type=Path, required=True, help="output .gguf")
    ap.add_argument("--outtype", choices=list(OUTTYPES), default="f32")
    ap.add_argument("--matryoshka-dims", help="comma-separated output widths, e.g. 768,512,256,128")
    ap.add_argument("--pooling", choices=["mean", "cls", "last"],
                    help="override the pooling of 1_Pooling/config.json")
    ap.add_argument("--reranker", action="store_true", help="Qwen3: convert as Qwen3-Reranker")
    ap.add_argument("--rerank-instruction", default=DEFAULT_RERANK_INSTRUCTION,
                    help="the <Instruct> line of the rerank prompt")
    ap.add_argument("--name", help="general.name (default: the directory's name)")
    args = ap.parse_args()
    try:
        convert(args.hf_dir, args.out, args.outtype,
                matryoshka_dims=parse_dims(args.matryoshka_dims) if args.matryoshka_dims else None,
                pooling=args.pooling, reranker=args.reranker,
                rerank_instruction=args.rerank_instruction, name=args.name)
    except ConvertError as e:
        print(f"convert_embedding_model: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
