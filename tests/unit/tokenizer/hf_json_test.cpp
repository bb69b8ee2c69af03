// tokenizer.json -> GGUF metadata -> Tokenizer gives the ids Hugging Face `tokenizers` gives,
// for every fixture in tests/data/tokenizers (tools/make_hf_tokenizer_fixtures.py recorded
// them with `tokenizers` itself); the byte-level conversions equal the committed tiny GGUFs'
// vocabularies; malformed and unsupported files are refused naming the file and JSON path.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "gguf/gguf.h"
#include "tokenizer/hf_json.h"
#include "tokenizer/tokenizer.h"

namespace zen::tokenizer::test {
namespace {

const std::string kDir = std::string(ZEN_TEST_DATA_DIR) + "/tokenizers/";

gguf::File assemble(const std::filesystem::path& dir) {
  return gguf::File::assemble(gguf_metadata_from_hf(dir), {}, nullptr);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  return nlohmann::json::parse(in);
}

class HfReference : public ::testing::TestWithParam<std::string> {};

TEST_P(HfReference, IdsEqualTokenizers) {
  std::string dir = kDir + GetParam();
  gguf::File file = assemble(dir);
  Tokenizer tok = Tokenizer::from_gguf(file);
  nlohmann::json ref = read_json(dir + "/reference.json");
  EXPECT_EQ(tok.n_vocab(), ref["n_vocab"].get<int32_t>());
  size_t checked = 0;
  for (const auto& c : ref["cases"]) {
    std::string text = c["text"].get<std::string>();
    auto want = c["ids"].get<std::vector<int32_t>>();
    auto want_special = c["ids_special"].get<std::vector<int32_t>>();
    // HF matches special added tokens in text whether or not it adds BOS/EOS.
    EXPECT_EQ(tok.encode(text, false, true), want) << GetParam() << ": " << show(text);
    EXPECT_EQ(tok.encode(text, true, true), want_special) << GetParam() << ": " << show(text);
    ++checked;
  }
  EXPECT_GT(checked, 50u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfReference,
                         ::testing::Values("llama3_bpe", "qwen2_bpe", "gpt2_bpe", "custom_bpe",
                                           "gemma_spm", "bert_wordpiece", "bert_cased", "minilm",
                                           "t5_unigram"));

// The metadata a tokenizer.json converts to is the metadata of the GGUF the same vocabulary
// was exported to (tools/make_tiny_models.py): the same tokenizer either way.
void expect_same_vocabulary(const std::string& fixture, const std::string& gguf_name) {
  gguf::File hf = assemble(kDir + fixture);
  gguf::File gg = gguf::File::open(std::string(ZEN_TEST_DATA_DIR) + "/models/tiny/" + gguf_name);
  for (const char* key : {"tokenizer.ggml.tokens", "tokenizer.ggml.merges"}) {
    const gguf::Array& a = hf.at(key).as_array();
    const gguf::Array& b = gg.at(key).as_array();
    ASSERT_EQ(a.size(), b.size()) << key;
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.string_at(i), b.string_at(i)) << key << i;
  }
  const gguf::Array& ta = hf.at("tokenizer.ggml.token_type").as_array();
  const gguf::Array& tb = gg.at("tokenizer.ggml.token_type").as_array();
  ASSERT_EQ(ta.size(), tb.size());
  for (size_t i = 0; i < ta.size(); ++i)
    EXPECT_EQ(ta.int_at<int64_t>(i), tb.int_at<int64_t>(i)) << i;
  for (const char* key : {"tokenizer.ggml.model", "tokenizer.ggml.pre"})
    EXPECT_EQ(hf.get_string(key), gg.get_string(key)) << key;
  for (const char* key : {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"})
    EXPECT_EQ(hf.get_int<int64_t>(key), gg.get_int<int64_t>(key)) << key;
  EXPECT_EQ(hf.at("tokenizer.ggml.add_bos_token").as_bool(),
            gg.at("tokenizer.ggml.add_bos_token").as_bool());
}

TEST(HfJson, Llama3EqualsTheTinyLlamaGguf) { expect_same_vocabulary("llama3_bpe", "llama.gguf"); }
TEST(HfJson, Qwen2EqualsTheTinyQwen3Gguf) { expect_same_vocabulary("qwen2_bpe", "qwen3.gguf"); }

TEST(HfJson, CustomRegexChainIsCarried) {
  gguf::File f = assemble(kDir + "custom_bpe");
  EXPECT_EQ(f.find("tokenizer.ggml.pre"), nullptr);
  const gguf::Array& chain = f.at("tokenizer.zen.pre_regexes").as_array();
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain.string_at(0), "\\p{N}");
}

TEST(HfJson, SpecialTokensFromConfigAndPostProcessor) {
  Tokenizer bert = Tokenizer::from_gguf(assemble(kDir + "minilm"));
  EXPECT_EQ(bert.token_text(bert.bos()), "[CLS]");
  EXPECT_EQ(bert.token_text(bert.eos()), "[SEP]");
  EXPECT_EQ(bert.token_text(bert.pad()), "[PAD]");
  EXPECT_EQ(bert.token_text(bert.unk()), "[UNK]");
  EXPECT_TRUE(bert.add_bos());
  EXPECT_TRUE(bert.add_eos());
  Tokenizer gemma = Tokenizer::from_gguf(assemble(kDir + "gemma_spm"));
  EXPECT_EQ(gemma.token_text(gemma.bos()), "<bos>");
  EXPECT_TRUE(gemma.add_bos());
  EXPECT_FALSE(gemma.add_eos());
}

// ---- refusals ------------------------------------------------------------------------------

class HostileDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("zen_hf_json_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // A valid byte-level tokenizer.json to break one way at a time.
  nlohmann::json base() { return read_json(kDir + "llama3_bpe/tokenizer.json"); }

  ::testing::AssertionResult refused(const nlohmann::json& tokenizer,
                                     std::initializer_list<std::string_view> words) {
    write("tokenizer.json", tokenizer.dump());
    return refused_as_is(words);
  }
  ::testing::AssertionResult refused_as_is(std::initializer_list<std::string_view> words) {
    try {
      Tokenizer::from_gguf(assemble(dir_));
    } catch (const Error& e) {
      std::string msg = e.what();
      if (msg.find('\n') != std::string::npos)
        return ::testing::AssertionFailure() << "not one line: " << msg;
      for (auto w : words) {
        if (msg.find(w) == std::string::npos)
          return ::testing::AssertionFailure() << "message lacks '" << w << "': " << msg;
      }
      return ::testing::AssertionSuccess() << msg;
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << "not a tokenizer::Error: " << e.what();
    }
    return ::testing::AssertionFailure() << "accepted";
  }

  std::filesystem::path dir_;
};

TEST_F(HostileDir, MissingFile) { EXPECT_TRUE(refused_as_is({"tokenizer.json"})); }

TEST_F(HostileDir, TruncatedJson) {
  std::string text = base().dump();
  write("tokenizer.json", text.substr(0, text.size() / 2));
  EXPECT_TRUE(refused_as_is({"tokenizer.json", "invalid JSON"}));
}

TEST_F(HostileDir, MissingModel) {
  nlohmann::json j = base();
  j.erase("model");
  EXPECT_TRUE(refused(j, {"tokenizer.json", "missing member 'model'"}));
}

TEST_F(HostileDir, UnknownModelType) {
  nlohmann::json j = base();
  j["model"]["type"] = "WordLevel";
  EXPECT_TRUE(refused(j, {"tokenizer.json", "model.type", "WordLevel", "not supported"}));
}

TEST_F(HostileDir, VocabHole) {
  nlohmann::json j = base();
  j["model"]["vocab"].erase("a");  // the ids after it stay: one id has no token
  j["model"]["merges"] = nlohmann::json::array();
  EXPECT_TRUE(refused(j, {"tokenizer.json", "dense"}));
}

TEST_F(HostileDir, HugeId) {
  nlohmann::json j = base();
  j["model"]["vocab"]["a"] = 4000000000LL;
  EXPECT_TRUE(refused(j, {"tokenizer.json", "4000000000", "dense"}));
}

TEST_F(HostileDir, TwoTokensOneId) {
  nlohmann::json j = base();
  j["model"]["vocab"]["a"] = j["model"]["vocab"]["b"];
  EXPECT_TRUE(refused(j, {"tokenizer.json", "is given to both"}));
}

TEST_F(HostileDir, DuplicateTokenText) {
  nlohmann::json j = base();
  // An added token spelling a vocabulary token under another id.
  j["added_tokens"][0]["content"] = "a";
  EXPECT_TRUE(refused(j, {"tokenizer.json", "'a'", "two ids"}));
}

TEST_F(HostileDir, MergeOfThreeParts) {
  nlohmann::json j = base();
  j["model"]["merges"][0] = "a b c";
  EXPECT_TRUE(refused(j, {"tokenizer.json", "model.merges[0]", "two tokens"}));
}

TEST_F(HostileDir, MergeOutsideTheVocabulary) {
  nlohmann::json j = base();
  j["model"]["merges"][1] = nlohmann::json::array({"no-such-token", "a"});
  EXPECT_TRUE(refused(j, {"tokenizer.json", "model.merges[1]", "not in the vocabulary"}));
}

TEST_F(HostileDir, MergeOfWrongShape) {
  nlohmann::json j = base();
  j["model"]["merges"][2] = 7;
  EXPECT_TRUE(refused(j, {"tokenizer.json", "model.merges[2]"}));
}

TEST_F(HostileDir, IdOfWrongType) {
  nlohmann::json j = base();
  j["model"]["vocab"]["a"] = "zero";
  EXPECT_TRUE(refused(j, {"tokenizer.json", "model.vocab.a", "expected an integer"}));
}

TEST_F(HostileDir, UnsupportedPreTokenizer) {
  nlohmann::json j = base();
  j["pre_tokenizer"]["pretokenizers"][0] = {{"type", "Whitespace"}};
  EXPECT_TRUE(refused(j, {"tokenizer.json", "pre_tokenizer.pretokenizers[0]", "Whitespace"}));
}

TEST_F(HostileDir, RegexPcre2Refuses) {
  nlohmann::json j = base();
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(unclosed";
  EXPECT_TRUE(refused(j, {"(unclosed", "does not compile"}));
}

TEST_F(HostileDir, SpecialTokenNotInVocabulary) {
  write("tokenizer_config.json", R"({"eos_token": "<|no such token|>"})");
  EXPECT_TRUE(refused(base(), {"tokenizer_config.json", "eos_token", "<|no such token|>"}));
}

TEST_F(HostileDir, WordPieceWithAnotherPreTokenizer) {
  nlohmann::json j = read_json(kDir + "bert_wordpiece/tokenizer.json");
  j["pre_tokenizer"] = {{"type", "Whitespace"}};
  EXPECT_TRUE(refused(j, {"tokenizer.json", "pre_tokenizer.type", "BertPreTokenizer"}));
}

TEST_F(HostileDir, WordPieceWithAnotherPrefix) {
  nlohmann::json j = read_json(kDir + "bert_wordpiece/tokenizer.json");
  j["model"]["continuing_subword_prefix"] = "@@";
  EXPECT_TRUE(refused(j, {"tokenizer.json", "model.continuing_subword_prefix"}));
}

TEST_F(HostileDir, UnigramCharsmapNotBase64) {
  nlohmann::json j = read_json(kDir + "t5_unigram/tokenizer.json");
  j["normalizer"]["normalizers"][0]["precompiled_charsmap"] = "!!not base64!!";
  EXPECT_TRUE(
      refused(j, {"tokenizer.json", "normalizer.normalizers[0].precompiled_charsmap", "base64"}));
}

TEST_F(HostileDir, UnigramCharsmapTruncated) {
  nlohmann::json j = read_json(kDir + "t5_unigram/tokenizer.json");
  j["normalizer"]["normalizers"][0]["precompiled_charsmap"] = "AAEAAAAA";  // trie of 256 bytes
  EXPECT_TRUE(refused(j, {"precompiled_charsmap", "does not fit"}));
}

TEST_F(HostileDir, UnigramEntryNotAPair) {
  nlohmann::json j = read_json(kDir + "t5_unigram/tokenizer.json");
  j["model"]["vocab"][5] = nlohmann::json::array({"x"});
  EXPECT_TRUE(refused(j, {"tokenizer.json", "model.vocab[5]", "[piece, score]"}));
}

TEST_F(HostileDir, ConfigDisagreesWithTokenizer) {
  write("tokenizer_config.json",
        R"({"added_tokens_decoder": {"1": {"content": "<|begin_of_text|>", "special": true}}})");
  EXPECT_TRUE(refused(base(), {"tokenizer_config.json", "added_tokens_decoder"}));
}

}  // namespace
}  // namespace zen::tokenizer::test
