// zen_tokenizer against llama.cpp on the same GGUF files: token ids, decodes, streamed text and
// vocabulary facts recorded by tools/make_tokenizer_fixtures.py from llama-cpp-python, for
// three byte-level BPE vocabularies (GPT-2, Llama 3 and Qwen 2 pre-tokenizers) and the real
// SentencePiece-style Gemma 3 vocabulary.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "fixtures.h"

namespace zen::tokenizer::test {
namespace {

class TokenizerReference : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    auto path = gguf_path(GetParam(), why);
    if (!path) GTEST_SKIP() << why;
    tokenizer_.emplace(load_tokenizer(*path));
    reference_ = load_reference(GetParam());
    ASSERT_GT(reference_.cases.size(), 100u);
  }

  const Tokenizer& tok() const { return *tokenizer_; }

  std::optional<Tokenizer> tokenizer_;
  Reference reference_;
};

// Collects mismatches so one failure report shows several cases, not just the first.
class Mismatches {
 public:
  void add(const std::string& what) {
    if (count_++ < 12) report_ += what + "\n";
  }
  ::testing::AssertionResult result(size_t total) const {
    if (count_ == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << count_ << " of " << total << " cases differ:\n"
                                         << report_;
  }

 private:
  size_t count_ = 0;
  std::string report_;
};

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += std::to_string(id) + " ";
  return s;
}

TEST_P(TokenizerReference, EncodeGivesLlamaCppIds) {
  Mismatches m;
  for (const Case& c : reference_.cases) {
    std::vector<int32_t> got = tok().encode(c.text, c.add_special, c.parse_special);
    if (got != c.ids) {
      m.add(c.label() + " text '" + show(c.text) + "'\n  got  " + ids_text(got) + "\n  want " +
            ids_text(c.ids));
    }
  }
  EXPECT_TRUE(m.result(reference_.cases.size()));
}

TEST_P(TokenizerReference, DecodeGivesLlamaCppText) {
  Mismatches m;
  for (const Case& c : reference_.cases) {
    std::string all = tok().decode(c.ids, false), skip = tok().decode(c.ids, true);
    if (all != c.decode)
      m.add(c.label() + " decode '" + show(all) + "' want '" + show(c.decode) + "'");
    if (skip != c.decode_skip) {
      m.add(c.label() + " decode(skip_special) '" + show(skip) + "' want '" + show(c.decode_skip) +
            "'");
    }
  }
  EXPECT_TRUE(m.result(reference_.cases.size()));
}

// Expected chunks: llama.cpp's pieces decoded by Python ("replace"), holding back a trailing
// character that later bytes could complete (the fixture script's stream_chunks()).
TEST_P(TokenizerReference, StreamDecoderEmitsCompleteCharacters) {
  Mismatches m;
  for (const Case& c : reference_.cases) {
    StreamDecoder stream(tok(), /*skip_special=*/true);
    std::vector<std::string> got;
    for (int32_t id : c.ids) got.push_back(stream.push(id));
    got.push_back(stream.flush());
    if (got != c.stream) {
      std::string diff;
      for (size_t i = 0; i < std::min(got.size(), c.stream.size()); ++i) {
        if (got[i] != c.stream[i]) {
          diff = "chunk " + std::to_string(i) + " '" + show(got[i]) + "' want '" +
                 show(c.stream[i]) + "'";
          break;
        }
      }
      m.add(c.label() + " " + (diff.empty() ? "chunk count differs" : diff));
    }
  }
  EXPECT_TRUE(m.result(reference_.cases.size()));
}

TEST_P(TokenizerReference, VocabularyFactsMatchLlamaCpp) {
  const nlohmann::json& v = reference_.vocab;
  EXPECT_EQ(tok().n_vocab(), v.at("n_vocab").get<int32_t>());
  EXPECT_EQ(tok().bos(), v.at("bos").get<int32_t>());
  EXPECT_EQ(tok().eos(), v.at("eos").get<int32_t>());
  EXPECT_EQ(tok().add_bos(), v.at("add_bos").get<bool>());
  EXPECT_EQ(tok().add_eos(), v.at("add_eos").get<bool>());

  auto eog = v.at("eog").get<std::vector<int32_t>>();
  std::vector<int32_t> got_eog;
  for (int32_t id = 0; id < tok().n_vocab(); ++id) {
    if (tok().is_eog(id)) got_eog.push_back(id);
  }
  EXPECT_EQ(got_eog, eog);
  EXPECT_FALSE(tok().is_eog(-1));
  EXPECT_FALSE(tok().is_eog(tok().n_vocab()));
  // With several candidate texts llama.cpp picks the EOT in hash-map order and this code the
  // lowest id; on these vocabularies both give the same token.
  EXPECT_EQ(tok().eot(), v.at("eot").get<int32_t>());

  for (const auto& [id, hex] : v.at("piece_samples").items()) {
    EXPECT_EQ(tok().piece(std::stoi(id)), from_hex(hex.get<std::string>())) << "piece of " << id;
  }
  for (const auto& [id, attr] : v.at("attr_samples").items()) {
    EXPECT_EQ(tok().token_attr(std::stoi(id)), attr.get<uint32_t>()) << "attributes of " << id;
  }
  uint64_t pieces = kFnvOffset, attrs = kFnvOffset;
  for (int32_t id = 0; id < tok().n_vocab(); ++id) {
    std::string p = tok().piece(id);
    uint32_t n = static_cast<uint32_t>(p.size()), a = tok().token_attr(id);
    pieces = fnv1a64(fnv1a64(pieces, &n, 4), p.data(), p.size());
    attrs = fnv1a64(attrs, &a, 4);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(pieces));
  EXPECT_EQ(hex, v.at("pieces_fnv1a64").get<std::string>()) << "some token's piece differs";
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(attrs));
  EXPECT_EQ(hex, v.at("attrs_fnv1a64").get<std::string>()) << "some token's attributes differ";
}

INSTANTIATE_TEST_SUITE_P(Vocab, TokenizerReference, ::testing::ValuesIn(kVocabNames),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace zen::tokenizer::test
