// Byte-level BPE pre-tokenizers: the regexes that cut text into words before merging, chosen
// by tokenizer.ggml.pre. Each family is a chain: every regex re-splits the previous one's
// pieces, and text a regex does not match stays a piece of its own (llama.cpp's semantics).
// The regexes run on PCRE2 in UTF + UCP mode; \s is spelled out as Unicode White_Space (what
// llama.cpp and HF tokenizers use, including U+0085, which PCRE2's \s lacks).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/utf8.h"

namespace zen::tokenizer {

// A family of tokenizer.ggml.pre names sharing one regex chain, with the defaults llama.cpp
// gives those models before add_bos_token & co. from the file apply.
struct PreTokenizerSpec {
  std::vector<std::string_view> names;
  std::vector<std::string_view> regexes;
  bool add_bos = false;
  bool ignore_merges = false;   // a word that is a token as a whole is not merged from parts
  bool no_default_bos = false;  // no BOS unless the file names one
};

// The spec for a name ("" means "default", as in llama.cpp), or nullptr.
const PreTokenizerSpec* find_pre_tokenizer(std::string_view name);
// Every supported name, comma-separated, for error messages and docs.
std::string supported_pre_tokenizers();

// A Hugging Face (Oniguruma-syntax) regex as PCRE2 needs it: \s and \S are written out as
// the White_Space set, as above; the rest is the same syntax. Error for \S inside a class.
std::string pcre2_pattern_from_hf(std::string_view hf);

class PreTokenizer {
 public:
  // A chain of PCRE2 patterns (already translated).
  explicit PreTokenizer(const std::vector<std::string>& patterns);
  // Compiles the spec's regexes; Error if PCRE2 refuses one.
  explicit PreTokenizer(const PreTokenizerSpec& spec);
  ~PreTokenizer();
  PreTokenizer(PreTokenizer&&) noexcept;
  PreTokenizer& operator=(PreTokenizer&&) noexcept;

  // Byte spans [begin, end) of the words of text, in order, covering it exactly.
  std::vector<std::pair<size_t, size_t>> split(const utf8::Normalized& text) const;

 private:
  class Regex;
  std::vector<std::unique_ptr<Regex>> chain_;
};

}  // namespace zen::tokenizer
