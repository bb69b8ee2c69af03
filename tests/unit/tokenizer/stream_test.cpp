// StreamDecoder on characters split across tokens, with token choices derived by hand. In the
// GPT-2 byte alphabet, the bytes E4 BD A0 of "你" are spelled "ä" (U+00E4), "½" (U+00BD) and
// "ł" (U+0142: A0 is not printable, it is the 67th such byte, so U+0100 + 66); FF is "ÿ".
#include <gtest/gtest.h>

#include "fixtures.h"
#include "gguf/text.h"

namespace zen::tokenizer::test {
namespace {

int32_t id_of(const Tokenizer& t, std::string_view text) {
  auto id = t.find(text);
  if (!id) throw std::runtime_error("no token " + std::string(text));
  return *id;
}

TEST(TokenizerStream, HoldsBackACharacterSplitAcrossByteTokens) {
  Tokenizer t = load_tokenizer(std::string(ZEN_TEST_DATA_DIR) + "/tokenizer/bpe_qwen2.gguf");
  StreamDecoder s(t);
  EXPECT_EQ(s.push(id_of(t, "\u00e4")), "");
  EXPECT_EQ(s.push(id_of(t, "\u00bd")), "");
  EXPECT_EQ(s.push(id_of(t, "\u0142")), "\u4F60");
  EXPECT_EQ(s.flush(), "");

  // An unfinished character at the end becomes one U+FFFD.
  EXPECT_EQ(s.push(id_of(t, "\u00e4")), "");
  EXPECT_EQ(s.push(id_of(t, "\u00bd")), "");
  EXPECT_EQ(s.flush(), "\uFFFD");

  // A byte that cannot start a character is replaced at once; text after it flows.
  EXPECT_EQ(s.push(id_of(t, "\u00ff")), "\uFFFD");
  EXPECT_EQ(s.push(id_of(t, "a")), "a");
  // A lead byte followed by a non-continuation: U+FFFD for the lead, then the rest.
  EXPECT_EQ(s.push(id_of(t, "\u00e4")), "");
  EXPECT_EQ(s.push(id_of(t, "a")), "\uFFFDa");
}

TEST(TokenizerStream, SpecialTokensFollowSkipSpecial) {
  Tokenizer t = load_tokenizer(std::string(ZEN_TEST_DATA_DIR) + "/tokenizer/bpe_qwen2.gguf");
  int32_t im_end = id_of(t, "<|im_end|>");
  StreamDecoder skipping(t);
  EXPECT_EQ(skipping.push(im_end), "");
  StreamDecoder rendering(t, /*skip_special=*/false);
  EXPECT_EQ(rendering.push(im_end), "<|im_end|>");
  EXPECT_THROW(rendering.push(t.n_vocab()), Error);
}

TEST(TokenizerStream, GemmaByteFallbackTokens) {
  std::string why;
  auto path = gguf_path("gemma3", why);
  if (!path) GTEST_SKIP() << why;
  Tokenizer t = load_tokenizer(*path);
  StreamDecoder s(t);
  EXPECT_EQ(s.push(id_of(t, "<0xE4>")), "");
  EXPECT_EQ(s.push(id_of(t, "<0xBD>")), "");
  EXPECT_EQ(s.push(id_of(t, "<0xA0>")), "\u4F60");
  EXPECT_EQ(s.push(id_of(t, "<0xF0>")), "");
  EXPECT_EQ(s.flush(), "\uFFFD");
}

// Whatever ids come, the stream is valid UTF-8 (checked by the GGUF reader's validator).
TEST(TokenizerStream, OutputIsAlwaysValidUtf8) {
  Tokenizer t = load_tokenizer(std::string(ZEN_TEST_DATA_DIR) + "/tokenizer/bpe_llama3.gguf");
  uint64_t state = 12345;
  for (int round = 0; round < 50; ++round) {
    StreamDecoder s(t, round % 2 == 0);
    std::string all;
    for (int i = 0; i < 200; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      auto id = static_cast<int32_t>((state >> 33) % static_cast<uint64_t>(t.n_vocab()));
      std::string chunk = s.push(id);
      EXPECT_TRUE(gguf::is_valid_utf8(chunk)) << show(chunk);
      all += chunk;
    }
    all += s.flush();
    EXPECT_TRUE(gguf::is_valid_utf8(all));
  }
}

}  // namespace
}  // namespace zen::tokenizer::test
