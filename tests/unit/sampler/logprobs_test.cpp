// logprobs are the log-softmax of the model's own logits, whatever the chain did to them.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sampler/error.h"
#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using test::kInf;
using test::kNaN;

// log-softmax in double, -inf for -inf/NaN logits.
std::vector<double> log_softmax(const std::vector<float>& logits) {
  double max = -INFINITY, z = 0.0;
  for (float l : logits) {
    if (l == l) max = std::max(max, static_cast<double>(l));
  }
  for (float l : logits) z += l == l ? std::exp(l - max) : 0.0;
  std::vector<double> out;
  for (float l : logits) out.push_back(l == l ? l - max - std::log(z) : -INFINITY);
  return out;
}

TEST(SamplerLogprobs, ChosenAndTopAlternativesAreTheRawLogSoftmax) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.5f, -1.0f, 2.0f, kNaN, -kInf, 0.0f};
  const auto expected = log_softmax(logits);
  Params p = test::seeded(3);
  p.n_probs = 4;
  // Everything that changes the draw must leave logprobs alone.
  p.temperature = 0.3f;
  p.top_k = 3;
  p.repeat_penalty = 1.3f;
  p.presence_penalty = 1.0f;
  p.logit_bias = {{1, -1.0f}};
  Sampler sampler(p, 8);
  sampler.accept(4);
  for (int i = 0; i < 20; ++i) {
    const int32_t token = sampler.sample(logits);
    const Logprobs lp = sampler.last_logprobs();
    EXPECT_EQ(lp.chosen.token, token);
    EXPECT_NEAR(lp.chosen.logprob, expected[static_cast<size_t>(token)], 1e-5);
    ASSERT_EQ(lp.top.size(), 4u);
    // Best first, ties to the lower id: 1 and 4 (2.0), then 0 (1.0), then 2 (0.5).
    const int32_t order[] = {1, 4, 0, 2};
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(lp.top[k].token, order[k]);
      EXPECT_NEAR(lp.top[k].logprob, expected[static_cast<size_t>(order[k])], 1e-5);
    }
  }
}

TEST(SamplerLogprobs, GreedyOnAFullSizeRow) {
  std::vector<float> logits(262144, 0.0f);
  logits[12345] = 10.0f;
  logits[200] = 9.0f;
  // log-softmax by hand: z = e^10 + e^9 + 262142.
  const double z = std::exp(10.0) + std::exp(9.0) + 262142.0;
  Params p;
  p.temperature = 0.0f;
  p.logprobs = true;
  p.n_probs = 2;
  Sampler sampler(p, 262144);
  EXPECT_EQ(sampler.sample(logits), 12345);
  const Logprobs lp = sampler.last_logprobs();
  EXPECT_NEAR(lp.chosen.logprob, 10.0 - std::log(z), 1e-5);
  ASSERT_EQ(lp.top.size(), 2u);
  EXPECT_EQ(lp.top[1].token, 200);
  EXPECT_NEAR(lp.top[1].logprob, 9.0 - std::log(z), 1e-5);
}

TEST(SamplerLogprobs, InfiniteLogitsShareTheProbability) {
  const std::vector<float> logits = {kInf, 0.0f, kInf, 5.0f};
  Params p = test::seeded();
  p.n_probs = 3;
  Sampler sampler(p, 4);
  const int32_t token = sampler.sample(logits);
  EXPECT_TRUE(token == 0 || token == 2);
  const Logprobs lp = sampler.last_logprobs();
  EXPECT_NEAR(lp.chosen.logprob, -std::log(2.0), 1e-6);
  EXPECT_EQ(lp.top[2].token, 3);
  EXPECT_EQ(lp.top[2].logprob, -kInf);
}

TEST(SamplerLogprobs, FewerFiniteTokensThanRequestedGiveFewerAlternatives) {
  const std::vector<float> logits = {-kInf, 1.0f, kNaN, 0.0f};
  Params p = test::seeded();
  p.n_probs = 4;
  Sampler sampler(p, 4);
  sampler.sample(logits);
  EXPECT_EQ(sampler.last_logprobs().top.size(), 2u);
}

TEST(SamplerLogprobs, OnlyWhenRequestedAndAfterASample) {
  const std::vector<float> logits = {0.0f, 1.0f};
  Sampler quiet(test::seeded(), 2);
  quiet.sample(logits);
  EXPECT_THROW(quiet.last_logprobs(), Error);

  Params p = test::seeded();
  p.logprobs = true;
  Sampler sampler(p, 2);
  EXPECT_THROW(sampler.last_logprobs(), Error);
  sampler.sample(logits);
  EXPECT_TRUE(sampler.last_logprobs().top.empty());  // n_probs 0: the chosen token only
}

}  // namespace
}  // namespace zen::sampling
