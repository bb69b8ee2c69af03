// Embedding and reranking models through the real host, the real architecture plugins and the
// real CPU device, against transformers / sentence-transformers (references committed by
// tools/make_tiny_encoder.py and tools/make_tiny_embedders.py, docs/TINY-MODELS.md):
//   - the `bert` plugin on the tiny BERT: mean-pooled vectors;
//   - the tiny Qwen3-Embedding (causal, last token), EmbeddingGemma (bidirectional with a
//     sliding window, mean, two Dense layers), BERT cross-encoder (pooler + classifier on CLS)
//     and Qwen3-Reranker (the yes/no rows of lm_head on the last token): pooled rows or logits;
//   - packing: sequences encoded together equal each encoded alone (the masks keep them apart).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tiny_host.h"

namespace zen {
namespace {

const std::string kData = std::string(ZEN_TEST_DATA_DIR) + "/models/";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

struct Diff {
  double max_abs = 0, cos = 1;
};

Diff compare(const std::vector<float>& got, const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  Diff d;
  double dot = 0, ng = 0, nw = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    d.max_abs = std::max(d.max_abs, std::fabs(got[i] - want[i]));
    dot += got[i] * want[i];
    ng += static_cast<double>(got[i]) * got[i];
    nw += want[i] * want[i];
  }
  d.cos = dot / std::sqrt(ng * nw);
  return d;
}

std::unique_ptr<host::LoadedModel> load(const std::string& path) {
  return test::load_model(path, model::ContextParams{});
}

// F32 weights and compute: float summation order only.
constexpr double kMaxAbs = 2e-5;

TEST(Embedding, BertPluginMatchesTransformersMeanPooling) {
  const nlohmann::json m = read_json(kData + "tiny_encoder/manifest.json");
  auto lm = load(kData + "tiny_encoder/" + m.at("gguf").get<std::string>());
  ASSERT_EQ(lm->model().kind(), ZEN_MODEL_ENCODER);
  EXPECT_EQ(lm->model().arch().plugin, "bert");
  std::vector<std::vector<int32_t>> seqs;
  for (const auto& s : m.at("sequences")) seqs.push_back(s.at("ids").get<std::vector<int32_t>>());
  const auto got = lm->encoder().encode(seqs);
  ASSERT_EQ(got.size(), seqs.size());
  for (size_t i = 0; i < seqs.size(); ++i) {
    const Diff d = compare(got[i], m["sequences"][i].at("mean_pooled").get<std::vector<double>>());
    EXPECT_LE(d.max_abs, kMaxAbs) << "sequence " << i;
    std::printf("bert sequence %zu (%zu tokens): max abs diff %.2e, cosine %.9f\n", i,
                seqs[i].size(), d.max_abs, d.cos);
  }
}

TEST(Embedding, PackedSequencesEqualEachAlone) {
  const nlohmann::json m = read_json(kData + "tiny_encoder/manifest.json");
  auto lm = load(kData + "tiny_encoder/" + m.at("gguf").get<std::string>());
  std::vector<std::vector<int32_t>> seqs;
  for (const auto& s : m.at("sequences")) seqs.push_back(s.at("ids").get<std::vector<int32_t>>());
  const auto together = lm->encoder().encode(seqs);
  for (size_t i = 0; i < seqs.size(); ++i) {
    const auto alone = lm->encoder().encode(std::span(&seqs[i], 1));
    for (size_t j = 0; j < alone[0].size(); ++j)
      ASSERT_NEAR(together[i][j], alone[0][j], 1e-5) << "sequence " << i << " element " << j;
  }
}

// The tiny embedders and rerankers of tools/make_tiny_embedders.py.
class TinyEmbedder : public ::testing::TestWithParam<std::string> {};

TEST_P(TinyEmbedder, MatchesReference) {
  const std::string dir = kData + "tiny_embed/";
  if (!std::filesystem::exists(dir + "manifest.json"))
    GTEST_SKIP() << dir << "manifest.json is missing (tools/make_tiny_embedders.py)";
  const nlohmann::json all = read_json(dir + "manifest.json");
  const nlohmann::json& m = all.at("models").at(GetParam());
  auto lm = load(dir + m.at("gguf").get<std::string>());
  ASSERT_EQ(lm->model().kind(), ZEN_MODEL_ENCODER);
  std::vector<std::vector<int32_t>> seqs, types;
  for (const auto& c : m.at("cases")) {
    seqs.push_back(c.at("ids").get<std::vector<int32_t>>());
    if (c.contains("token_types")) types.push_back(c["token_types"].get<std::vector<int32_t>>());
  }
  const auto got = lm->encoder().encode(seqs, false, types);
  ASSERT_EQ(got.size(), seqs.size());
  for (size_t i = 0; i < seqs.size(); ++i) {
    const nlohmann::json& c = m["cases"][i];
    // Embedders: the pooled row; rerankers: the classifier's logits ([yes, no], or one).
    const char* key = c.contains("pooled") ? "pooled" : c.contains("logits") ? "logits" : "logit";
    const std::vector<double> want = c.at(key).is_array()
                                         ? c[key].get<std::vector<double>>()
                                         : std::vector<double>{c[key].get<double>()};
    const Diff d = compare(got[i], want);
    EXPECT_LE(d.max_abs, kMaxAbs) << GetParam() << " case " << i;
    std::printf("%s case %zu (%zu tokens) %s: max abs diff %.2e, cosine %.9f\n", GetParam().c_str(),
                i, seqs[i].size(), key, d.max_abs, d.cos);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TinyEmbedder,
                         ::testing::Values("qwen3_embed", "gemma_embed", "bert_rerank",
                                           "qwen3_rerank"));

}  // namespace
}  // namespace zen
