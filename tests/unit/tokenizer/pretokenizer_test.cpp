// The pre-tokenizer regex chains, on texts whose splits follow by hand from the published
// regexes.
#include <gtest/gtest.h>

#include "tokenizer/pretokenizer.h"
#include "tokenizer/utf8.h"

namespace zen::tokenizer {
namespace {

std::vector<std::string> split(std::string_view pre, std::string_view text) {
  const PreTokenizerSpec* spec = find_pre_tokenizer(pre);
  if (!spec) throw std::runtime_error("no pre-tokenizer " + std::string(pre));
  PreTokenizer p(*spec);
  utf8::Normalized n = utf8::normalize_lenient(text);
  std::vector<std::string> words;
  for (auto [b, e] : p.split(n)) words.push_back(n.text.substr(b, e - b));
  return words;
}

using Words = std::vector<std::string>;

TEST(TokenizerPreTokenizer, Gpt2) {
  // Two spaces before "end": \s+(?!\S) keeps one back for " end".
  EXPECT_EQ(split("gpt-2", "Hello world's  end\n"),
            (Words{"Hello", " world", "'s", " ", " end", "\n"}));
  EXPECT_EQ(split("gpt-2", "x 123 ?!"), (Words{"x", " 123", " ?!"}));
  EXPECT_EQ(split("gpt-2", "IT'S"), (Words{"IT", "'", "S"}));  // contractions are lower-case only
}

TEST(TokenizerPreTokenizer, Llama3) {
  EXPECT_EQ(split("llama-bpe", "abc 12345 !!\n\n x"),
            (Words{"abc", " ", "123", "45", " !!\n\n", " x"}));
  EXPECT_EQ(split("llama-bpe", "IT'S\tok"), (Words{"IT", "'S", "\tok"}));
  EXPECT_EQ(split("llama-bpe", "a  \n  b"), (Words{"a", "  \n", " ", " b"}));
}

TEST(TokenizerPreTokenizer, Qwen2SplitsDigitsSingly) {
  EXPECT_EQ(split("qwen2", "x12 3"), (Words{"x", "1", "2", " ", "3"}));
}

TEST(TokenizerPreTokenizer, DefaultChainsFourRegexes) {
  // Punctuation runs first, then GPT-2 inside the rest, then digit runs, then three digits.
  EXPECT_EQ(split("default", "a...b 1234"), (Words{"a", "...", "b", " ", "123", "4"}));
  EXPECT_EQ(split("", "a...b"), (Words{"a", "...", "b"}));  // no name means "default"
}

TEST(TokenizerPreTokenizer, WhitespaceIsUnicodeWhiteSpace) {
  // U+0085 (NEXT LINE) is White_Space: two of them split like two tabs would. (With
  // PCRE2's own \s they would be one run of "other" characters: "\u0085\u0085".)
  EXPECT_EQ(split("gpt-2", "a\u0085\u0085b"), (Words{"a", "\u0085", "\u0085", "b"}));
  // U+3000 IDEOGRAPHIC SPACE likewise; letters of any script are \p{L}.
  EXPECT_EQ(split("gpt-2", "\u4F60\u3000\u3000\u597D"),
            (Words{"\u4F60", "\u3000", "\u3000", "\u597D"}));
}

TEST(TokenizerPreTokenizer, UnknownNamesAreNotFound) {
  EXPECT_EQ(find_pre_tokenizer("no-such-model"), nullptr);
  EXPECT_NE(supported_pre_tokenizers().find("qwen2"), std::string::npos);
}

}  // namespace
}  // namespace zen::tokenizer
