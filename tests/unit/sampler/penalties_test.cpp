// Penalties change logits exactly as their formulas say; logit_bias adds, and -inf bans.
#include "sampler/penalties.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using test::kInf;

Params repeat(float penalty, int32_t last_n) {
  Params p;
  p.repeat_penalty = penalty;
  p.repeat_last_n = last_n;
  return p;
}

TEST(SamplerPenalties, RepeatDividesPositiveAndMultipliesNegativeLogits) {
  Penalties pen(repeat(1.5f, 64));
  pen.accept(3);
  EXPECT_EQ(pen.apply(3, 2.0f), 2.0f / 1.5f);
  EXPECT_EQ(pen.apply(3, -1.0f), -1.5f);
  EXPECT_EQ(pen.apply(3, 0.0f), 0.0f);
  EXPECT_EQ(pen.apply(4, 2.0f), 2.0f);  // not seen
  pen.accept(3);                        // a second occurrence does not penalize twice
  EXPECT_EQ(pen.apply(3, 2.0f), 2.0f / 1.5f);
}

TEST(SamplerPenalties, RepeatWindowForgetsOldTokens) {
  Penalties pen(repeat(2.0f, 2));
  pen.accept(5);
  pen.accept(6);
  pen.accept(7);  // window {6, 7}
  EXPECT_EQ(pen.apply(5, 4.0f), 4.0f);
  EXPECT_EQ(pen.apply(6, 4.0f), 2.0f);
  EXPECT_EQ(pen.apply(7, 4.0f), 2.0f);
  pen.accept(6);  // window {7, 6}
  pen.accept(6);  // window {6, 6}
  EXPECT_EQ(pen.apply(7, 4.0f), 4.0f);
  EXPECT_EQ(pen.apply(6, 4.0f), 2.0f);
}

TEST(SamplerPenalties, RepeatWindowOfMinusOneIsEverythingAndZeroIsOff) {
  Penalties all(repeat(2.0f, -1));
  for (int32_t t = 0; t < 1000; ++t) all.accept(t);
  EXPECT_EQ(all.apply(0, 4.0f), 2.0f);
  EXPECT_EQ(all.apply(999, 4.0f), 2.0f);
  Penalties off(repeat(2.0f, 0));
  off.accept(1);
  EXPECT_EQ(off.apply(1, 4.0f), 4.0f);
}

TEST(SamplerPenalties, PromptCountsForRepeatOnly) {
  Params p = repeat(2.0f, 3);
  p.frequency_penalty = 0.5f;
  p.presence_penalty = 0.25f;
  Penalties pen(p);
  const std::vector<int32_t> prompt = {1, 2, 3, 4};  // window keeps {2, 3, 4}
  pen.add_prompt(prompt);
  EXPECT_EQ(pen.apply(1, 4.0f), 4.0f);
  EXPECT_EQ(pen.apply(4, 4.0f), 2.0f);  // repeat only: no frequency/presence for prompt tokens
  pen.accept(4);
  pen.accept(4);
  pen.accept(9);  // window {4, 4, 9}; generated 4 twice, 9 once
  // Repeat first, then OpenAI's: 4 / 2 - 2 * 0.5 - 0.25 = 0.75.
  EXPECT_EQ(pen.apply(4, 4.0f), 0.75f);
  EXPECT_EQ(pen.apply(9, -1.0f), -2.0f - 0.5f - 0.25f);
  EXPECT_EQ(pen.apply(2, 4.0f), 4.0f);  // left the window
}

TEST(SamplerPenalties, FrequencyAndPresenceFollowOpenAI) {
  Params p;
  p.frequency_penalty = 0.25f;
  p.presence_penalty = 0.5f;
  Penalties pen(p);
  for (int i = 0; i < 3; ++i) pen.accept(8);
  EXPECT_EQ(pen.apply(8, 1.0f), -0.25f);  // 1 - (3 * 0.25 + 0.5)
  EXPECT_EQ(pen.apply(7, 1.0f), 1.0f);
  Params negative;
  negative.frequency_penalty = -0.5f;  // negative values encourage repetition
  Penalties encourage(negative);
  encourage.accept(2);
  EXPECT_EQ(encourage.apply(2, 1.0f), 1.5f);
}

TEST(SamplerPenalties, ResetForgetsEverything) {
  Params p = repeat(2.0f, 10);
  p.presence_penalty = 1.0f;
  Penalties pen(p);
  pen.accept(1);
  pen.reset();
  EXPECT_EQ(pen.apply(1, 4.0f), 4.0f);
  std::vector<int32_t> touched;
  pen.penalized_tokens(touched);
  EXPECT_TRUE(touched.empty());
}

TEST(SamplerPenalties, SamplerAppliesThemToTheNextToken) {
  Params p = repeat(1.1f, 64);
  p.temperature = 0.0f;
  Sampler sampler(p, 2);
  const std::vector<float> logits = {2.0f, 1.9f};
  EXPECT_EQ(sampler.sample(logits), 0);
  sampler.accept(0);  // 2.0 / 1.1 = 1.818 < 1.9
  EXPECT_EQ(sampler.sample(logits), 1);
  sampler.accept(1);  // both penalized: 1.818 > 1.727
  EXPECT_EQ(sampler.sample(logits), 0);
}

TEST(SamplerPenalties, LogitBiasComesBeforeThePenalties) {
  // llama.cpp's order. Token 0: logit 1, bias +1, repeat penalty 2: (1 + 1) / 2 = 1.0, below
  // token 1's 1.2. Penalty first would give 1 / 2 + 1 = 1.5 and pick token 0.
  Params p = repeat(2.0f, 64);
  p.temperature = 0.0f;
  p.logit_bias = {{0, 1.0f}};
  Sampler sampler(p, 2);
  sampler.accept(0);
  const std::vector<float> logits = {1.0f, 1.2f};
  EXPECT_EQ(sampler.sample(logits), 1);
}

TEST(SamplerLogitBias, MinusInfinityIsNeverSampled) {
  std::vector<float> logits = {3.0f, 1.0f, 0.5f, 2.9f, 0.0f, -0.5f, 1.5f, 0.2f};
  for (const int32_t top_k : {0, 5}) {
    Params p = test::seeded(31);
    p.temperature = 2.0f;
    p.top_k = top_k;
    p.logit_bias = {{0, -kInf}, {3, -kInf}};
    Sampler sampler(p, 8);
    const auto tokens = test::drawn(sampler, logits, 5000);
    EXPECT_FALSE(tokens.contains(0));
    EXPECT_FALSE(tokens.contains(3));
    EXPECT_EQ(tokens.size(), top_k == 0 ? 6u : 5u);
  }
  Params g;
  g.temperature = 0.0f;
  g.logit_bias = {{0, -kInf}};
  Sampler greedy(g, 8);
  EXPECT_EQ(greedy.sample(logits), 3);
}

TEST(SamplerLogitBias, PlusInfinityForcesTheToken) {
  const std::vector<float> logits = {3.0f, 1.0f, 0.5f, 2.9f};
  Params p = test::seeded(8);
  p.logit_bias = {{2, kInf}};
  Sampler sampler(p, 4);
  EXPECT_EQ(test::drawn(sampler, logits, 200), (std::set<int32_t>{2}));
}

TEST(SamplerLogitBias, CannotReviveATokenTheModelRuledOut) {
  // -inf + inf is NaN: treated as -inf, so the model's -inf stands.
  const std::vector<float> logits = {-kInf, 1.0f, test::kNaN};
  Params p = test::seeded(8);
  p.logit_bias = {{0, kInf}, {2, kInf}};
  Sampler sampler(p, 3);
  EXPECT_EQ(test::drawn(sampler, logits, 200), (std::set<int32_t>{1}));
}

TEST(SamplerPenalties, OutOfVocabularyTokensAreRejected) {
  Sampler sampler(Params{}, 10);
  EXPECT_THROW(sampler.accept(10), Error);
  EXPECT_THROW(sampler.accept(-1), Error);
  const std::vector<int32_t> prompt = {1, 2, 30};
  EXPECT_THROW(sampler.add_prompt(prompt), Error);
}

}  // namespace
}  // namespace zen::sampling
