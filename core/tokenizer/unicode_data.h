// The Unicode properties the BERT normalizer and pre-tokenizer need, from the generated tables
// (unicode_tables.cpp, Unicode version in tables::kUnicodeVersion): category flags, White_Space,
// simple lowercase, canonical decomposition (NFD) with canonical ordering.
#pragma once

#include <cstdint>
#include <vector>

namespace zen::tokenizer::unicode {

enum Flag : uint8_t {
  kOther = 1,           // general category C* (Cc Cf Cs Co Cn)
  kPunctuation = 2,     // P*
  kNonspacingMark = 4,  // Mn
  kMark = 8,            // M* (Mn Mc Me)
};

uint8_t flags(char32_t cp);
// The White_Space property (Rust's char::is_whitespace, HF tokenizers' notion).
bool is_white_space(char32_t cp);
// Appends the lowercase of cp (one code point; two for U+0130).
void append_lower(char32_t cp, std::vector<char32_t>& out);
// Appends the full canonical decomposition of cp (itself when it has none), not reordered.
void append_decomposition(char32_t cp, std::vector<char32_t>& out);
uint8_t combining_class(char32_t cp);
// NFD of cps in place (`scratch` is working space): decompose, then order combining marks.
void nfd(std::vector<char32_t>& cps, std::vector<char32_t>& scratch);

}  // namespace zen::tokenizer::unicode
