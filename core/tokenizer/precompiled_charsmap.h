// SentencePiece's precompiled normalizer (the "Precompiled" normalizer of tokenizer.json, GGUF
// tokenizer.ggml.precompiled_charsmap): a darts-clone double-array trie over UTF-8 byte
// sequences whose values are offsets into a blob of NUL-terminated replacement strings.
// Layout: u32 (little-endian) trie size in bytes, the trie's 32-bit units, then the blob.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zen::tokenizer {

class PrecompiledCharsmap {
 public:
  PrecompiledCharsmap() = default;
  // Error (naming the GGUF key) if the layout is inconsistent.
  explicit PrecompiledCharsmap(const std::vector<uint8_t>& bytes);

  bool empty() const { return units_.empty(); }
  // The replacement for the shortest prefix of `text` that has one (what Hugging Face's
  // Precompiled normalizer uses), with the prefix's length; length 0 when none.
  struct Match {
    size_t length = 0;
    std::string_view replacement;
  };
  Match shortest_prefix(std::string_view text) const;

  // Hugging Face's normalization: per extended grapheme cluster shorter than 6 bytes, the
  // shortest matching prefix replaces the whole cluster; otherwise each character is replaced
  // by its own entry or kept.
  void normalize(std::string_view text, std::string& out) const;

 private:
  std::vector<uint32_t> units_;
  std::string blob_;
};

}  // namespace zen::tokenizer
