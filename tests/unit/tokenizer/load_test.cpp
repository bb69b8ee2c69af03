// Tokenizer metadata that is missing, mistyped or inconsistent is refused with one line that
// names the key and the problem. The GGUF reader already refuses wrong types and lengths of
// the keys it knows (gguf/known_keys.cpp); either refusal will do, so messages are checked for
// what both say.
#include <gtest/gtest.h>

#include "vocab_gguf.h"

namespace zen::tokenizer::test {
namespace {

using namespace gguf::test;

VocabSpec small_spm() {
  VocabSpec s;
  s.tokens = {"<unk>", "<s>", "</s>", "a"};
  s.scores = {0, 0, 0, -1};
  s.types = {kUnknown, kControl, kControl, kNormal};
  return s;
}

::testing::AssertionResult refused(const VocabSpec& s,
                                   std::initializer_list<std::string_view> words) {
  try {
    make_tokenizer(s);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (msg.find('\n') != std::string::npos)
      return ::testing::AssertionFailure() << "not one line: " << msg;
    for (auto w : words) {
      if (msg.find(w) == std::string::npos) {
        return ::testing::AssertionFailure() << "message lacks '" << w << "': " << msg;
      }
    }
    return ::testing::AssertionSuccess() << msg;
  }
  return ::testing::AssertionFailure() << "accepted";
}

TEST(TokenizerLoad, AcceptsAMinimalVocabulary) {
  Tokenizer t = make_tokenizer(small_spm());
  EXPECT_EQ(t.n_vocab(), 4);
  EXPECT_EQ(t.kind(), VocabKind::kSpm);
  EXPECT_EQ(t.bos(), 1);  // llama.cpp's SentencePiece defaults
  EXPECT_EQ(t.eos(), 2);
  EXPECT_EQ(t.unk(), 0);
  EXPECT_TRUE(t.add_bos());
  EXPECT_EQ(t.find("a"), 3);
  EXPECT_EQ(t.find("b"), std::nullopt);
  EXPECT_EQ(t.token_text(3), "a");
  EXPECT_THROW(t.token_text(4), Error);
  EXPECT_THROW(t.decode(std::vector<int32_t>{3, 99}, false), Error);
  EXPECT_THROW(t.piece(-1), Error);
}

TEST(TokenizerLoad, RefusesMissingOrUnsupportedModel) {
  VocabSpec s = small_spm();
  s.model.reset();
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.model", "missing"}));
  s.model = "rwkv";
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.model", "'rwkv'", "not supported"}));
}

TEST(TokenizerLoad, RefusesBadTokenArrays) {
  VocabSpec s = small_spm();
  s.tokens.clear();
  s.scores.clear();
  s.types.clear();
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.tokens", "empty"}));

  s = small_spm();
  s.scores.pop_back();
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.scores", "3 entries"}));

  s = small_spm();
  s.types.push_back(kNormal);
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.token_type", "5 entries"}));

  s = small_spm();
  s.scores.clear();
  s.raw_keys = {{"tokenizer.ggml.scores", T_ARRAY, string_array({"a", "b", "c", "d"})}};
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.scores", "expected array of f32"}));

  s = small_spm();
  s.types.clear();
  s.raw_keys = {{"tokenizer.ggml.token_type", T_STRING, str("normal")}};
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.token_type", "expected array of"}));

  s = small_spm();
  s.tokens[3] = "<s>";
  EXPECT_TRUE(refused(s, {"tokens 1 and 3", "same text", "<s>"}));

  s = small_spm();
  s.types[3] = kByte;  // a byte token must be spelled <0xHH>
  EXPECT_TRUE(refused(s, {"token 3", "BYTE", "<0xHH>"}));
}

TEST(TokenizerLoad, RefusesBadSpecialIdsAndFlags) {
  VocabSpec s = small_spm();
  s.u32_keys = {{"bos_token_id", 4}};
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.bos_token_id", "token id 4", "outside the vocabulary"}));

  s = small_spm();
  s.raw_keys = {{"tokenizer.ggml.eos_token_id", T_STRING, str("2")}};
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.eos_token_id", "expected", "got string"}));

  s = small_spm();
  s.raw_keys = {{"tokenizer.ggml.add_bos_token", T_U8, u8(1)}};
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.add_bos_token", "expected bool, got u8"}));

  // A vocabulary of 4 tokens has no default BOS for byte-level BPE (llama.cpp's is id 11).
  s = small_spm();
  s.model = "gpt2";
  s.merges = std::vector<std::string>{};
  s.bool_keys = {{"add_bos_token", true}};
  EXPECT_TRUE(refused(s, {"add_bos_token", "no BOS token"}));

  // Ids llama.cpp only warns about (padding and the like) are ignored here too.
  s = small_spm();
  s.u32_keys = {{"padding_token_id", 128256}};
  EXPECT_EQ(make_tokenizer(s).pad(), kNoToken);
}

TEST(TokenizerLoad, RefusesBadMergesAndPreTokenizers) {
  VocabSpec s = small_spm();
  s.model = "gpt2";
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.merges", "missing"}));
  s.merges = std::vector<std::string>{"a b", "ab"};
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.merges", "entry 1", "'ab'", "two parts"}));
  s.merges = std::vector<std::string>{"a b"};
  s.pre = "no-such-pre";
  EXPECT_TRUE(refused(s, {"tokenizer.ggml.pre", "'no-such-pre'", "not supported", "llama-bpe"}));
}

}  // namespace
}  // namespace zen::tokenizer::test
