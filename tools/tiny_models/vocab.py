"""Deterministic tiny tokenizers and the GGUF vocabulary metadata made from them.

Two kinds, as the real models use:
  * byte-level BPE ("gpt2" in GGUF) trained with Hugging Face `tokenizers`, with the Llama 3
    or Qwen 2 pre-tokenizer regex (GGUF pre "llama-bpe" / "qwen2");
  * SentencePiece BPE with byte fallback ("llama" in GGUF) trained with `sentencepiece`, laid
    out like Gemma's (<pad> <eos> <bos> <unk>, then turn markers, then the 256 byte pieces).
The trained tokenizer stays the reference: `encode` is its own encoder, never llama.cpp's.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Callable

from .corpus import TRAINING_TEXT

# GGUF token types (llama.cpp's llama_token_type / gguf.TokenType).
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

# The pre-tokenizer regexes exactly as the real models' tokenizer.json files carry them.
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
               r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


@dataclass
class Vocab:
    """Everything a GGUF `tokenizer.ggml.*` block needs, plus the reference encoder."""
    model: str                      # tokenizer.ggml.model
    pre: str                        # tokenizer.ggml.pre
    tokens: list[str]
    token_types: list[int]
    encode: Callable[[str], list[int]] = field(repr=False)  # text -> ids, no BOS/EOS
    scores: list[float] | None = None
    merges: list[str] | None = None
    special_ids: dict[str, int] = field(default_factory=dict)  # bos/eos/unk/pad -> id
    add_bos: bool = False
    add_eos: bool = False
    add_space_prefix: bool | None = None
    hf_files: dict[str, bytes] = field(default_factory=dict, repr=False)  # for --save-hf

    def encode_with_specials(self, text: str) -> list[int]:
        """What a user of the model gets: BOS first when the vocabulary asks for it."""
        ids = self.encode(text)
        if self.add_bos:
            ids = [self.special_ids["bos"]] + ids
        if self.add_eos:
            ids = ids + [self.special_ids["eos"]]
        return ids


def _training_lines() -> list[str]:
    return [line for line in TRAINING_TEXT.splitlines() if line.strip()]


def byte_level_bpe(*, pre: str, vocab_size: int, specials: list[str],
                   roles: dict[str, str], add_bos: bool) -> Vocab:
    """A byte-level BPE with `vocab_size` entries: 256 byte symbols, learned merges, then
    `specials` appended at the end (as Llama 3 and Qwen place theirs). `roles` maps
    bos/eos/pad to special token texts."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    split = {"llama-bpe": LLAMA3_SPLIT, "qwen2": QWEN2_SPLIT}[pre]
    # llama.cpp sets ignore_merges for the llama3 pre-tokenizer (whole-word vocab hits win),
    # as Llama 3's tokenizer.json does; Qwen 2 merges every word.
    tok = Tokenizer(models.BPE(ignore_merges=(pre == "llama-bpe")))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(split), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size - len(specials), min_frequency=1,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator([TRAINING_TEXT], trainer)
    if tok.get_vocab_size() != vocab_size - len(specials):
        raise RuntimeError(f"BPE training gave {tok.get_vocab_size()} entries, "
                           f"wanted {vocab_size - len(specials)}: enlarge the corpus")
    tok.add_special_tokens(specials)

    by_id = {i: t for t, i in tok.get_vocab(with_added_tokens=True).items()}
    tokens = [by_id[i] for i in range(vocab_size)]
    special_set = set(specials)
    types = [CONTROL if t in special_set else NORMAL for t in tokens]
    raw_merges = json.loads(tok.to_str())["model"]["merges"]
    merges = [m if isinstance(m, str) else f"{m[0]} {m[1]}" for m in raw_merges]

    return Vocab(
        model="gpt2", pre=pre, tokens=tokens, token_types=types, merges=merges,
        encode=lambda text: tok.encode(text, add_special_tokens=False).ids,
        special_ids={role: tok.token_to_id(text) for role, text in roles.items()},
        add_bos=add_bos, add_eos=False,
        hf_files={"tokenizer.json": tok.to_str().encode()},
    )


def gemma_sentencepiece(*, vocab_size: int) -> Vocab:
    """A SentencePiece BPE vocabulary shaped like Gemma 3's: ids 0-3 <pad> <eos> <bos> <unk>,
    turn markers, 256 byte-fallback pieces, then learned pieces with score -rank. No dummy
    prefix, no whitespace folding, digits split, identity normalization."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(_training_lines()), model_writer=model, model_type="bpe",
        vocab_size=vocab_size, pad_id=0, eos_id=1, bos_id=2, unk_id=3,
        pad_piece="<pad>", eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>",
        user_defined_symbols=["<start_of_turn>", "<end_of_turn>"], byte_fallback=True,
        character_coverage=1.0, add_dummy_prefix=False, remove_extra_whitespaces=False,
        normalization_rule_name="identity", split_digits=True, num_threads=1,
        allow_whitespace_only_pieces=True, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    if sp.vocab_size() != vocab_size:
        raise RuntimeError(f"SentencePiece gave {sp.vocab_size()} pieces, wanted {vocab_size}")

    # As in Gemma 3's GGUF: the HF config lists <pad> <eos> <bos> <unk> and the turn markers
    # as special added tokens, so llama.cpp's converter makes them CONTROL with score -1000.
    special_pieces = {"<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"}
    tokens, scores, types = [], [], []
    for i in range(vocab_size):
        piece = sp.id_to_piece(i)
        tokens.append(piece)
        if piece in special_pieces:
            scores.append(-1000.0)
            types.append(CONTROL)
            continue
        scores.append(float(sp.get_score(i)))
        if sp.is_byte(i):
            types.append(BYTE)
        elif sp.is_unused(i):
            types.append(UNUSED)
        else:
            types.append(NORMAL)

    return Vocab(
        model="llama", pre="default", tokens=tokens, token_types=types, scores=scores,
        encode=lambda text: list(sp.encode(text)),
        special_ids={"bos": sp.bos_id(), "eos": sp.eos_id(), "unk": sp.unk_id(),
                     "pad": sp.pad_id()},
        add_bos=True, add_eos=False, add_space_prefix=False,
        hf_files={"tokenizer.model": model.getvalue()},
    )
