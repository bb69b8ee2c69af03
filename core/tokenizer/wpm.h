// WordPiece (BERT, "bert" vocabularies): the BERT normalizer (drop control characters and
// turn whitespace into spaces, space out CJK ideographs, strip accents by NFD minus Mn,
// lowercase), the BERT pre-tokenizer (split at whitespace, punctuation on its own), then per
// word greedy longest-match-first; a word with an unmatched rest, or longer than the limit,
// becomes UNK. Tokens are spelled as in llama.cpp's GGUF: a word-initial piece "x" is "▁x" and
// a continuation "##x" is "x".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace zen::tokenizer {

class WpmEncoder {
 public:
  explicit WpmEncoder(const Vocab& vocab) : vocab_(vocab) {}

  // Appends the tokens of text between special tokens.
  void encode(std::string_view text, std::vector<int32_t>& out) const;

 private:
  void normalize(std::string_view text, std::vector<char32_t>& cps) const;
  void encode_word(const char32_t* word, size_t n, std::string& buffer, std::vector<uint32_t>& ends,
                   std::vector<int32_t>& out) const;

  const Vocab& vocab_;
};

}  // namespace zen::tokenizer
