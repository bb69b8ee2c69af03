// Byte-level BPE merging on vocabularies small enough to derive the tokens by hand. Byte-level
// spellings: "Ġ" is the space byte, "ï¿½" the bytes EF BF BD of U+FFFD.
#include <gtest/gtest.h>

#include "vocab_gguf.h"

namespace zen::tokenizer::test {
namespace {

using Ids = std::vector<int32_t>;

VocabSpec bpe_vocab(std::vector<std::string> merges, std::string pre = "gpt-2") {
  VocabSpec s;
  s.model = "gpt2";
  s.pre = pre;
  s.tokens = {"a",  "b",       "c",   "x",      "y",      "z",      "\u0120",  "ab",
              "bc", "\u0120a", "xyz", "\u00ef", "\u00bf", "\u00bd", "<|end|>", "<tool>"};
  s.types = {kNormal, kNormal, kNormal, kNormal, kNormal, kNormal, kNormal,  kNormal,
             kNormal, kNormal, kNormal, kNormal, kNormal, kNormal, kControl, kUserDefined};
  s.merges = std::move(merges);
  s.u32_keys = {{"bos_token_id", 14}, {"eos_token_id", 10}};
  return s;
}

enum : int32_t {
  kA,
  kB,
  kC,
  kX,
  kY,
  kZ,
  kSpace,
  kAB,
  kBC,
  kSpaceA,
  kXYZ,
  kEF,
  kBF,
  kBD,
  kEnd,
  kTool
};

TEST(TokenizerBpe, LowestRankMergesFirst) {
  // a b c: "b c" has rank 0, "a b" rank 1: bc forms first and "a bc" is no merge.
  EXPECT_EQ(make_tokenizer(bpe_vocab({"b c", "a b"})).encode("abc", false, false), (Ids{kA, kBC}));
  EXPECT_EQ(make_tokenizer(bpe_vocab({"a b", "b c"})).encode("abc", false, false), (Ids{kAB, kC}));
}

TEST(TokenizerBpe, MergesStayInsidePreTokenizedWords) {
  // GPT-2 splits "ab ab" into "ab" and " ab" (Ġab); "a b" (rank 0) beats "Ġ a" (rank 1).
  Tokenizer t = make_tokenizer(bpe_vocab({"a b", "\u0120 a"}));
  EXPECT_EQ(t.encode("ab ab", false, false), (Ids{kAB, kSpace, kAB}));
  // " a" alone: Ġ a merges.
  EXPECT_EQ(t.encode(" a", false, false), (Ids{kSpaceA}));
}

TEST(TokenizerBpe, Llama3FamilyTakesWholeWordTokens) {
  // "xyz" is a token but no merge builds it: GPT-2 rules emit characters, the llama-bpe
  // pre-tokenizer (ignore_merges) takes the word whole.
  EXPECT_EQ(make_tokenizer(bpe_vocab({})).encode("xyz", false, false), (Ids{kX, kY, kZ}));
  Tokenizer llama3 = make_tokenizer(bpe_vocab({}, "llama-bpe"));
  EXPECT_EQ(llama3.encode("xyz", false, false), (Ids{kXYZ}));
  EXPECT_TRUE(llama3.add_bos());  // the Llama 3 family adds BOS unless the file says not to
  EXPECT_EQ(llama3.encode("xyz", true, false), (Ids{kEnd, kXYZ}));
}

TEST(TokenizerBpe, InvalidUtf8BecomesReplacementCharacter) {
  Tokenizer t = make_tokenizer(bpe_vocab({}));
  EXPECT_EQ(t.encode("\xFF", false, false), (Ids{kEF, kBF, kBD}));
  // E4 lacks its second continuation byte: E4 and BD are each invalid, each one U+FFFD.
  EXPECT_EQ(t.encode("a\xE4\xBD"
                     "b",
                     false, false),
            (Ids{kA, kEF, kBF, kBD, kEF, kBF, kBD, kB}));
  // A character with no token at all (é = C3 A9, spelled "Ã©") is dropped, as in llama.cpp.
  EXPECT_EQ(t.encode("\xC3\xA9", false, false), Ids{});
}

TEST(TokenizerBpe, SpecialAndUserDefinedTokens) {
  Tokenizer t = make_tokenizer(bpe_vocab({"a b"}));
  EXPECT_EQ(t.encode("ab<|end|>ab", false, true), (Ids{kAB, kEnd, kAB}));
  EXPECT_EQ(t.encode("<tool>ab", false, false), (Ids{kTool, kAB}));
  EXPECT_TRUE(t.is_eog(kEnd));  // "<|end|>" ends generation by its text, as in llama.cpp
  EXPECT_TRUE(t.is_eog(kXYZ));  // EOS
  EXPECT_FALSE(t.is_eog(kTool));
}

TEST(TokenizerBpe, PiecesDecodeTheByteLevelSpelling) {
  Tokenizer t = make_tokenizer(bpe_vocab({"a b", "\u0120 a"}));
  EXPECT_EQ(t.piece(kSpaceA), " a");
  EXPECT_EQ(t.piece(kEF), "\xEF");
  EXPECT_EQ(t.piece(kTool), "<tool>");
  EXPECT_EQ(t.piece(kEnd, /*skip_special=*/true), "");
  EXPECT_EQ(t.decode(Ids{kAB, kSpace, kAB, kEF, kBF, kBD}, false), "ab ab\xEF\xBF\xBD");
  EXPECT_EQ(t.decode(t.encode(" ab abc", false, false), false), " ab abc");
}

}  // namespace
}  // namespace zen::tokenizer::test
