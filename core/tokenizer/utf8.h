// The UTF-8 rules the tokenizer needs, which are deliberately not all the same:
//  - lead_length(): how SentencePiece-style splitting (and llama.cpp) groups bytes into
//    symbols: by the lead byte alone, so invalid input still splits and byte-falls-back.
//  - decode_lenient(): llama.cpp's decoder before byte-level BPE (accepts overlongs and
//    surrogates, turns anything else invalid into U+FFFD one byte at a time), so byte-level
//    tokenization of hostile input matches llama.cpp's.
//  - next_strict(): the Unicode-conformant decoder used for streamed output, which must be
//    valid UTF-8.
#pragma once

#include "text/utf8.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zen::tokenizer::utf8 {

inline constexpr uint32_t kReplacement = 0xFFFD;

inline size_t lead_length(uint8_t lead) {
  static constexpr uint8_t kLength[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLength[lead >> 4];
}

struct Lenient {
  uint32_t cpt;   // kReplacement for an invalid byte
  size_t length;  // bytes consumed, >= 1
};
// The code point at s[i] (i < s.size()), llama.cpp's way.
Lenient decode_lenient(std::string_view s, size_t i);

// Input for byte-level BPE: every code point decode_lenient() finds, re-encoded. `text` is what
// gets byte-encoded; `subject` has the same length but surrogates replaced by U+FFFD (also
// three bytes), so the regex engine gets valid UTF-8 while offsets stay shared.
struct Normalized {
  std::string text;
  std::string subject;
};
Normalized normalize_lenient(std::string_view raw);

// Strict decoding and encoding are the shared ones (text/utf8.h).
using text::utf8::append;
using text::utf8::next_strict;
using text::utf8::Status;
using text::utf8::Step;

}  // namespace zen::tokenizer::utf8
