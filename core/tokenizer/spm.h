// SentencePiece-style BPE ("llama" vocabularies: Llama 2, Gemma, Mistral v1): start from one
// symbol per UTF-8 character, repeatedly merge the adjacent pair whose concatenation is the
// highest-scoring token (leftmost on ties), then emit each symbol's token, or its bytes as
// <0xHH> byte tokens when the symbol is not in the vocabulary (byte fallback). Spaces are
// expected already replaced by U+2581 "▁".
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace zen::tokenizer {

class SpmEncoder {
 public:
  explicit SpmEncoder(const Vocab& vocab);

  // Appends the tokens of one stretch of escaped text.
  void encode(std::string_view text, std::vector<int32_t>& out) const;

  // The token for a raw byte: <0xHH>, else the byte as a one-character token, else <unk>;
  // kNoToken when the vocabulary has none of these (the byte is then dropped).
  int32_t byte_token(uint8_t byte) const { return byte_tokens_[byte]; }

 private:
  const Vocab& vocab_;
  std::array<int32_t, 256> byte_tokens_;
};

}  // namespace zen::tokenizer
