// SentencePiece-style merging on vocabularies small enough to derive the tokens by hand.
#include <gtest/gtest.h>

#include "vocab_gguf.h"

namespace zen::tokenizer::test {
namespace {

using Ids = std::vector<int32_t>;

// "▁" is U+2581, the SentencePiece space.
VocabSpec spm_vocab() {
  VocabSpec s;
  s.tokens = {"<unk>",   "<s>",    "</s>",   "\u2581",  "a",   "b",    "ab", "ba", "\u2581a",
              "\u2581b", "<0xC3>", "<0xA7>", "\u2581x", "xab", "abcd", "c",  "d"};
  s.scores = {0, 0, 0, -4, -5, -5, -0.5f, -0.2f, -1, -3, 0, 0, -1, 0, 0, -5, -5};
  s.types = {kUnknown, kControl,     kControl,     kNormal, kNormal, kNormal,
             kNormal,  kNormal,      kNormal,      kNormal, kByte,   kByte,
             kNormal,  kUserDefined, kUserDefined, kNormal, kNormal};
  return s;
}

// Ids in spm_vocab().
enum : int32_t {
  kUnk = 0,
  kBos = 1,
  kEos = 2,
  kSpace = 3,
  kA = 4,
  kB = 5,
  kAB = 6,
  kBA = 7,
  kSpaceA = 8,
  kSpaceB = 9,
  kByteC3 = 10,
  kByteA7 = 11,
  kSpaceX = 12,
  kXAB = 13,
  kABCD = 14
};

TEST(TokenizerSpm, HighestScoringPairMergesFirst) {
  Tokenizer t = make_tokenizer(spm_vocab());
  // "ab" gets the default space prefix: ▁ a b. Pairs: "▁a" (-1), "ab" (-0.5): "ab" wins, and
  // "▁ab" is no token.
  EXPECT_EQ(t.encode("ab", false, false), (Ids{kSpace, kAB}));
  // ▁ a b a: "ba" (-0.2) beats "ab" (-0.5) and "▁a" (-1); then "aba" is no token, "▁a" is.
  EXPECT_EQ(t.encode("aba", false, false), (Ids{kSpaceA, kBA}));
  // Two words: every space becomes ▁ and merges like any character.
  EXPECT_EQ(t.encode("ab b", false, false), (Ids{kSpace, kAB, kSpaceB}));
}

TEST(TokenizerSpm, BosAndEosFollowTheFlags) {
  VocabSpec s = spm_vocab();
  EXPECT_EQ(make_tokenizer(s).encode("a", true, false), (Ids{kBos, kSpaceA}));  // add_bos default
  s.bool_keys = {{"add_bos_token", false}, {"add_eos_token", true}};
  EXPECT_EQ(make_tokenizer(s).encode("a", true, false), (Ids{kSpaceA, kEos}));
  EXPECT_EQ(make_tokenizer(s).encode("a", false, false), (Ids{kSpaceA}));
  EXPECT_EQ(make_tokenizer(s).encode("", true, false), (Ids{kEos}));
}

TEST(TokenizerSpm, UnknownCharactersFallBackToByteTokensOrUnk) {
  Tokenizer t = make_tokenizer(spm_vocab());
  // "ç" = C3 A7, both byte tokens exist.
  EXPECT_EQ(t.encode("a\xC3\xA7", false, false), (Ids{kSpaceA, kByteC3, kByteA7}));
  // "é" = C3 A9: no <0xA9>, no "\xA9" token, so <unk> stands for that byte.
  EXPECT_EQ(t.encode("a\xC3\xA9", false, false), (Ids{kSpaceA, kByteC3, kUnk}));
  // An invalid lead byte takes the next byte into its symbol; both fall back, "a" to its
  // one-character token since there is no <0x61>.
  EXPECT_EQ(t.encode("\xC3"
                     "a",
                     false, false),
            (Ids{kSpace, kByteC3, kA}));
}

TEST(TokenizerSpm, SpacePrefixFollowsTheFlagAndSpecialTokens) {
  VocabSpec s = spm_vocab();
  Tokenizer with_prefix = make_tokenizer(s);
  // After a special token the next raw text gets the prefix again.
  EXPECT_EQ(with_prefix.encode("a<s>b", false, true), (Ids{kSpaceA, kBos, kSpaceB}));
  s.bool_keys = {{"add_space_prefix", false}};
  Tokenizer without = make_tokenizer(s);
  EXPECT_EQ(without.encode("ab", false, false), (Ids{kAB}));
  EXPECT_EQ(without.encode(" ab", false, false), (Ids{kSpace, kAB}));
}

TEST(TokenizerSpm, DecodeUndoesEscapingAndTheSpacePrefix) {
  Tokenizer t = make_tokenizer(spm_vocab());
  EXPECT_EQ(t.piece(kSpaceA), " a");
  EXPECT_EQ(t.piece(kByteC3), "\xC3");
  EXPECT_EQ(t.piece(kBos), "<s>");
  EXPECT_EQ(t.piece(kBos, /*skip_special=*/true), "");
  EXPECT_EQ(t.decode(Ids{kSpaceA, kByteC3, kByteA7, kSpaceB}, false), "a\xC3\xA7 b");
  // The first token loses its leading space even after BOS is skipped (llama_detokenize).
  EXPECT_EQ(t.decode(Ids{kBos, kSpaceA}, true), " a");
  EXPECT_EQ(t.decode(Ids{kBos, kSpaceA}, false), "<s> a");
  EXPECT_EQ(t.decode(t.encode("ab ba", true, false), true), " ab ba");
  EXPECT_EQ(t.decode(t.encode("ab ba", false, false), true), "ab ba");
}

// Special tokens are claimed longest first over the whole text, as llama.cpp does: "abcd"
// (4 bytes) takes its occurrence before "xab" (3 bytes) is looked for, although "xab" starts
// earlier; leftmost-longest matching would give [xab] "cd" instead.
TEST(TokenizerSpm, LongerSpecialTokensClaimTextFirst) {
  Tokenizer t = make_tokenizer(spm_vocab());
  EXPECT_EQ(t.encode("xabcd", false, false), (Ids{kSpaceX, kABCD}));
  EXPECT_EQ(t.encode("xab", false, false), (Ids{kXAB}));
  // Control tokens only with parse_special; user-defined ones always.
  EXPECT_EQ(t.encode("<s>", false, true), (Ids{kBos}));
  EXPECT_NE(t.encode("<s>", false, false), (Ids{kBos}));
}

// Phi-3 models (recognised by general.name, as llama.cpp does) swallow the whitespace after
// their special tokens.
TEST(TokenizerSpm, Phi3SpecialTokensStripFollowingSpaces) {
  VocabSpec s = spm_vocab();
  s.tokens.push_back("<|user|>");
  s.scores.push_back(0);
  s.types.push_back(kControl);
  const int32_t user = 17;
  // "   a" (space prefix + two spaces): ▁ ▁ ▁ a, where only "▁a" is a token.
  EXPECT_EQ(make_tokenizer(s).encode("<|user|>  a", false, true),
            (Ids{user, kSpace, kSpace, kSpaceA}));
  s.raw_keys = {{"general.name", gguf::test::T_STRING, gguf::test::str("Phi-3 mini")}};
  EXPECT_EQ(make_tokenizer(s).encode("<|user|>  a", false, true), (Ids{user, kSpaceA}));
}

}  // namespace
}  // namespace zen::tokenizer::test
