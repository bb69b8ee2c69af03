// Temperature 0: the argmax of the adjusted logits, ties to the lowest id, NaN never chosen.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sampler/error.h"
#include "sampler/rng.h"
#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using test::kInf;
using test::kNaN;

Params greedy() {
  Params p;
  p.temperature = 0.0f;
  return p;
}

int32_t argmax_of(const std::vector<float>& logits, Params p = greedy()) {
  Sampler sampler(p, static_cast<int32_t>(logits.size()));
  return sampler.sample(logits);
}

TEST(SamplerGreedy, PicksTheLargestLogitAndTheLowestIdOnTies) {
  EXPECT_EQ(argmax_of({1.0f, 3.0f, 3.0f, 2.0f}), 1);
  EXPECT_EQ(argmax_of({-5.0f, -4.0f, -4.5f}), 1);
  EXPECT_EQ(argmax_of({7.0f}), 0);
}

TEST(SamplerGreedy, FullSizeVocabularyWithTiesAndNaN) {
  constexpr int32_t kVocab = 262144;
  std::vector<float> logits(kVocab);
  Rng rng(3);
  for (float& v : logits) v = static_cast<float>(rng.uniform() * 20.0 - 10.0);
  for (int32_t i = 0; i < kVocab; i += 97) logits[static_cast<size_t>(i)] = kNaN;
  logits[200001] = 10.5f;
  logits[250000] = 10.5f;  // tie: the lower id wins
  logits[100] = kNaN;
  EXPECT_EQ(argmax_of(logits), 200001);
  logits[7] = 10.5f;  // an earlier block
  EXPECT_EQ(argmax_of(logits), 7);
}

TEST(SamplerGreedy, TiesBetweenBiasedAndRawTokensGoToTheLowerId) {
  const std::vector<float> logits = {0.0f, 0.0f, 1.0f, 3.0f, 0.0f, 0.0f, 0.0f, 2.0f};
  Params p = greedy();
  p.logit_bias = {{7, 1.0f}};  // 2 + 1 = 3: ties with token 3, which has the lower id
  EXPECT_EQ(argmax_of(logits, p), 3);
  p.logit_bias = {{2, 2.0f}};  // 1 + 2 = 3: ties with token 3, token 2 is lower
  EXPECT_EQ(argmax_of(logits, p), 2);
  p.logit_bias = {{3, -0.5f}};  // 2.5 vs 2: token 3 still
  EXPECT_EQ(argmax_of(logits, p), 3);
  p.logit_bias = {{3, -1.5f}};  // 1.5 vs 2: token 7
  EXPECT_EQ(argmax_of(logits, p), 7);
}

TEST(SamplerGreedy, NaNIsNeverChosen) {
  EXPECT_EQ(argmax_of({kNaN, 1.0f, kNaN, 0.0f}), 1);
  EXPECT_EQ(argmax_of({kNaN, -kInf, -1e30f}), 2);
}

TEST(SamplerGreedy, PositiveInfinityWins) { EXPECT_EQ(argmax_of({0.0f, kInf, 5.0f, kInf}), 1); }

TEST(SamplerGreedy, NoFiniteLogitIsAClearError) {
  const std::vector<std::vector<float>> rows = {{-kInf, -kInf, -kInf}, {kNaN, kNaN}, {kNaN, -kInf}};
  for (const auto& row : rows) {
    try {
      argmax_of(row);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("-inf or NaN"), std::string::npos) << e.what();
    }
  }
  Params p = greedy();
  p.logit_bias = {{1, -kInf}};  // the only finite token banned
  EXPECT_THROW(argmax_of({-kInf, 2.0f, kNaN}, p), Error);
}

TEST(SamplerGreedy, WrongRowSizeIsAnError) {
  Sampler sampler(greedy(), 4);
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  EXPECT_THROW(sampler.sample(logits), Error);
}

TEST(SamplerGreedy, TruncationFiltersCannotChangeTheArgmax) {
  Params p = greedy();
  p.top_k = 2;
  p.top_p = 0.1f;
  p.min_p = 0.9f;
  EXPECT_EQ(argmax_of({0.5f, 2.0f, 1.0f, 2.0f}, p), 1);
}

TEST(SamplerGreedy, TypicalCanExcludeTheMostLikelyToken) {
  // p = {0.5, 0.3, 0.15, 0.05}: entropy 1.1421 nats; |-ln p - H| = 0.449, 0.062, 0.755, 1.854.
  // Typical order 1, 0, 2, 3; with typical_p 0.25 the first token (p 0.3 > 0.25) suffices.
  Params p = greedy();
  p.typical_p = 0.25f;
  EXPECT_EQ(argmax_of(test::logits_for({0.5, 0.3, 0.15, 0.05}), p), 1);
  p.typical_p = 0.5f;  // {1, 0}: the argmax is back
  EXPECT_EQ(argmax_of(test::logits_for({0.5, 0.3, 0.15, 0.05}), p), 0);
}

}  // namespace
}  // namespace zen::sampling
