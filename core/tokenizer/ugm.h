// Unigram (SentencePiece unigram, "t5" vocabularies) as Hugging Face tokenizers runs it: the
// precompiled charsmap normalizer, optionally the removal of extra whitespace (trailing
// whitespace stripped, runs of spaces made one), spaces become "▁" with one put in front
// (add_space_prefix), the text is cut before every "▁", and each piece is segmented by Viterbi
// over the token scores; a character no token covers is UNK scored min_score - 10, and
// consecutive UNKs fuse into one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/precompiled_charsmap.h"
#include "tokenizer/vocab.h"

namespace zen::tokenizer {

class UgmEncoder {
 public:
  explicit UgmEncoder(const Vocab& vocab);

  // Appends the tokens of text between special tokens.
  void encode(std::string_view text, std::vector<int32_t>& out) const;

 private:
  // The best segmentation of the text up to a byte offset.
  struct Best {
    float score = 0.0f;
    int32_t id = kNoToken;
    int32_t start = -1;  // where its last token starts; -1: not reached
  };

  void normalize(std::string_view text, std::string& out) const;
  void viterbi(std::string_view piece, std::vector<Best>& best, std::vector<int32_t>& out) const;

  const Vocab& vocab_;
  PrecompiledCharsmap charsmap_;
  float unk_score_ = 0.0f;
  size_t max_token_bytes_ = 0;
};

}  // namespace zen::tokenizer
