// WordPiece and Unigram on llama.cpp-style GGUF vocabularies small enough to derive the tokens
// by hand (the tokenizer.json reference tests in hf_json_test.cpp cover real vocabularies).
#include <gtest/gtest.h>

#include "vocab_gguf.h"

namespace zen::tokenizer::test {
namespace {

using Ids = std::vector<int32_t>;

// llama.cpp's BERT spelling: "x" starts a word as "▁x", "##x" continues as "x".
VocabSpec bert_vocab() {
  VocabSpec s;
  s.model = "bert";
  s.tokens = {"[PAD]", "[UNK]",   "[CLS]",         "[SEP]",   "\u2581un",   "aff",
              "able",  "\u2581a", "\u2581affable", "\u2581,", "\u2581cafe", "\u2581\xE4\xB8\xAD",
              "s"};
  s.types = {kControl, kControl, kControl, kControl, kNormal, kNormal, kNormal,
             kNormal,  kNormal,  kNormal,  kNormal,  kNormal, kNormal};
  s.u32_keys = {{"bos_token_id", 2}, {"eos_token_id", 3}, {"unknown_token_id", 1}};
  return s;
}

TEST(WordPiece, GreedyLongestMatchFirst) {
  Tokenizer t = make_tokenizer(bert_vocab());
  EXPECT_EQ(t.encode("unaffable", false, false), (Ids{4, 5, 6}));
  EXPECT_EQ(t.encode("affable", false, false), (Ids{8}));  // the whole word wins over "▁a"
  EXPECT_EQ(t.encode("as", false, false), (Ids{7, 12}));
}

TEST(WordPiece, UnmatchedRestMakesTheWholeWordUnknown) {
  Tokenizer t = make_tokenizer(bert_vocab());
  EXPECT_EQ(t.encode("unaffablex a", false, false), (Ids{1, 7}));
}

TEST(WordPiece, NormalizesAndSplitsLikeBert) {
  Tokenizer t = make_tokenizer(bert_vocab());
  // Lowercase, accents stripped (NFD minus Mn), punctuation alone, CJK spaced out, control
  // characters dropped, [CLS] ... [SEP] added.
  EXPECT_EQ(t.encode("CAF\xC3\x89,\x01 A\xE4\xB8\xAD"
                     "a",
                     true, false),
            (Ids{2, 10, 9, 7, 11, 7, 3}));
}

TEST(WordPiece, WordsOverTheLimitAreUnknown) {
  VocabSpec s = bert_vocab();
  s.raw_keys.push_back(
      {"tokenizer.zen.wordpiece.max_input_chars_per_word", gguf::test::T_U32, gguf::test::u32(8)});
  Tokenizer t = make_tokenizer(s);
  EXPECT_EQ(t.encode("unaffable affable", false, false), (Ids{1, 8}));
}

VocabSpec unigram_vocab() {
  VocabSpec s;
  s.model = "t5";
  s.tokens = {"<pad>", "</s>", "<unk>", "\u2581", "\u2581ab", "\u2581a", "b", "c", "bc"};
  s.scores = {0, 0, 0, -2, -3, -1, -1, -1, -3};
  s.types = {kControl, kControl, kNormal, kNormal, kNormal, kNormal, kNormal, kNormal, kNormal};
  s.bool_keys = {{"add_space_prefix", true}, {"remove_extra_whitespaces", true}};
  return s;
}

TEST(Unigram, ViterbiTakesTheBestPath) {
  Tokenizer t = make_tokenizer(unigram_vocab());
  // "▁abc": ▁a + b + c = -3 beats ▁ab + c = -4 and ▁a + bc = -4.
  EXPECT_EQ(t.encode("abc", false, false), (Ids{5, 6, 7}));
  EXPECT_EQ(t.encode("abc", true, false), (Ids{5, 6, 7, 1}));  // </s> added, as T5 does
}

TEST(Unigram, UnknownCharactersFuseIntoOneUnk) {
  Tokenizer t = make_tokenizer(unigram_vocab());
  EXPECT_EQ(t.encode("axyzb", false, false), (Ids{5, 2, 6}));
}

TEST(Unigram, ExtraWhitespaceIsRemoved) {
  Tokenizer t = make_tokenizer(unigram_vocab());
  EXPECT_EQ(t.encode("a   b  ", false, false), (Ids{5, 3, 6}));
}

}  // namespace
}  // namespace zen::tokenizer::test
