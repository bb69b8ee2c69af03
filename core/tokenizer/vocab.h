// A model's vocabulary as the tokenizer uses it: token texts (one blob, views into it), scores,
// attributes, the special ids and the flags from GGUF metadata, plus the text -> id index.
// Built by load_vocab() (gguf_vocab.h); immutable afterwards and safe to share between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/token_attr.h"

namespace zen::tokenizer {

inline constexpr int32_t kNoToken = -1;

// WordPiece (bert): the BERT normalizer's switches and the longest word not replaced by UNK.
// Defaults are what llama.cpp does with a "bert" GGUF (which carries none of them).
struct WordPieceOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;
  bool lowercase = true;
  uint32_t max_word_chars = 100;
};

enum class VocabKind {
  kSpm,  // tokenizer.ggml.model "llama": SentencePiece-style score-driven BPE (Llama 2, Gemma)
  kBpe,  // tokenizer.ggml.model "gpt2": byte-level BPE with ranked merges (GPT-2, Llama 3, Qwen)
  kWpm,  // tokenizer.ggml.model "bert": WordPiece (BERT)
  kUgm,  // tokenizer.ggml.model "t5": SentencePiece unigram (T5)
};

struct SpecialIds {
  int32_t bos = kNoToken;
  int32_t eos = kNoToken;
  int32_t eot = kNoToken;
  int32_t eom = kNoToken;
  int32_t unk = kNoToken;
  int32_t sep = kNoToken;
  int32_t pad = kNoToken;
  int32_t mask = kNoToken;
  int32_t fim_pre = kNoToken;
  int32_t fim_suf = kNoToken;
  int32_t fim_mid = kNoToken;
  int32_t fim_pad = kNoToken;
  int32_t fim_rep = kNoToken;
  int32_t fim_sep = kNoToken;
};

class Vocab {
 public:
  Vocab() = default;
  Vocab(Vocab&&) = default;
  Vocab& operator=(Vocab&&) = default;
  Vocab(const Vocab&) = delete;
  Vocab& operator=(const Vocab&) = delete;

  void reserve(size_t n_tokens, size_t text_bytes);
  // Appends a token; ids are assigned in order.
  void add(std::string_view text, float score, uint32_t attr);
  // Call once every token is added: builds the text index; Error if two tokens share a text.
  void finish();

  int32_t size() const { return static_cast<int32_t>(ends_.size()); }
  bool contains(int32_t id) const { return id >= 0 && id < size(); }
  std::string_view text(int32_t id) const;
  float score(int32_t id) const { return scores_[static_cast<size_t>(id)]; }
  uint32_t attr(int32_t id) const { return attrs_[static_cast<size_t>(id)]; }
  void set_attr(int32_t id, uint32_t attr) { attrs_[static_cast<size_t>(id)] = attr; }
  // Exact text lookup over every token, whatever its type.
  std::optional<int32_t> find(std::string_view text) const;

  VocabKind kind = VocabKind::kSpm;
  std::string pre;  // tokenizer.ggml.pre as written (empty when absent)
  // BPE: a regex chain from tokenizer.json (PCRE2 syntax) used instead of pre's; usually empty.
  std::vector<std::string> pre_regexes;
  SpecialIds special;
  bool add_bos = false;
  bool add_eos = false;
  bool add_space_prefix = false;    // SPM: a raw-text fragment after a special token gets " "
  bool ignore_merges = false;       // BPE: a pre-token that is itself a token skips merging
  std::vector<std::string> merges;  // BPE: "left right", rank = index
  WordPieceOptions wordpiece;
  // Unigram (t5): SentencePiece's normalizer data and whitespace handling.
  std::vector<uint8_t> precompiled_charsmap;
  bool remove_extra_whitespaces = false;
  std::vector<uint8_t> is_eog;  // per id: generation stops on it

 private:
  // Text -> id: open addressing over a flat array, because encoding is mostly lookups of
  // strings that are not tokens and a node-based map costs a cache miss per node.
  struct Slot {
    uint32_t tag = 0;       // high bits of the text's hash
    int32_t id = kNoToken;  // kNoToken: empty
  };
  static uint64_t hash(std::string_view text);

  std::vector<char> blob_;
  std::vector<uint64_t> ends_;  // token i is blob_[ends_[i-1] (0 for i = 0), ends_[i])
  std::vector<float> scores_;
  std::vector<uint32_t> attrs_;
  std::vector<Slot> slots_;  // power-of-two size, at most half full
};

}  // namespace zen::tokenizer
