// Byte-level BPE merging (GPT-2, Llama 3, Qwen): within one pre-tokenized word spelled in the
// byte-level alphabet, repeatedly merge the adjacent pair with the lowest merge rank (leftmost
// on ties) until no listed pair remains, then emit each symbol's token.
//
// Merge parts are interned once at load time, so a pair lookup is one hash probe on two
// integers and the merged symbol's id comes with it: no strings are built while encoding.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/vocab.h"

namespace zen::tokenizer {

class BpeEncoder {
 public:
  // Uses vocab.merges (rank = position; a repeated pair keeps its first rank).
  explicit BpeEncoder(const Vocab& vocab);

  // Appends the tokens of one word.
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

 private:
  struct Merge {
    int32_t rank;
    int32_t merged;  // part id of left+right
  };

  int32_t intern(std::string_view part);
  int32_t part_id(std::string_view part) const;
  void emit(std::string_view symbol, int32_t part, std::vector<int32_t>& out) const;

  const Vocab& vocab_;
  std::deque<std::string> parts_;  // stable storage for the views in part_ids_
  std::unordered_map<std::string_view, int32_t> part_ids_;
  std::vector<int32_t> part_tokens_;            // part id -> token id or kNoToken
  std::unordered_map<uint64_t, Merge> merges_;  // (left part << 32 | right part) -> merge
};

}  // namespace zen::tokenizer
