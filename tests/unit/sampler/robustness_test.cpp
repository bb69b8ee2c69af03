// Hostile rows and extreme parameters never crash: a valid token or a clear Error.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "sampler/rng.h"
#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using test::kInf;
using test::kNaN;

// A row mixing NaN, +-inf, +-FLT_MAX, subnormals and ordinary values.
std::vector<float> hostile_row(Rng& rng, size_t n) {
  const float specials[] = {kNaN, -kInf, kInf, FLT_MAX, -FLT_MAX, 1e-45f, -1e-45f, 0.0f, -0.0f};
  std::vector<float> row(n);
  for (float& v : row) {
    const double u = rng.uniform();
    v = u < 0.3 ? specials[static_cast<size_t>(rng.uniform() * 9)]
                : static_cast<float>((rng.uniform() - 0.5) * 60.0);
  }
  return row;
}

bool eligible(float logit) { return logit == logit && logit > -kInf; }

TEST(SamplerRobustness, HostileRowsGiveAnEligibleTokenOrAClearError) {
  Rng rng(2718);
  const float temperatures[] = {0.0f, 1e-30f, 1e-6f, 0.7f, 1.0f, 50.0f, 1e30f};
  int drawn = 0, refused = 0;
  for (int round = 0; round < 400; ++round) {
    const size_t n = 1 + static_cast<size_t>(rng.uniform() * 700);
    std::vector<float> row = hostile_row(rng, n);
    if (round % 5 == 0) {  // rows with no eligible token at all
      for (float& v : row) v = rng.uniform() < 0.5 ? kNaN : -kInf;
    }
    Params p = test::seeded(static_cast<uint64_t>(round));
    p.temperature = temperatures[round % 7];
    p.top_k = round % 3 == 0 ? 5 : 0;
    p.top_p = round % 4 == 0 ? 0.9f : 1.0f;
    p.min_p = round % 6 == 0 ? 0.1f : 0.0f;
    p.typical_p = round % 11 == 0 ? 0.5f : 1.0f;
    p.repeat_penalty = 1.3f;
    p.presence_penalty = 2.0f;
    p.n_probs = 3;
    Sampler sampler(p, static_cast<int32_t>(n));
    sampler.accept(0);
    bool any_eligible = false;
    for (float v : row) any_eligible |= eligible(v);
    try {
      const int32_t t = sampler.sample(row);
      ASSERT_GE(t, 0);
      ASSERT_LT(static_cast<size_t>(t), n);
      EXPECT_TRUE(eligible(row[static_cast<size_t>(t)])) << "round " << round << " token " << t;
      EXPECT_FALSE(std::isnan(sampler.last_logprobs().chosen.logprob));
      ++drawn;
    } catch (const Error& e) {
      EXPECT_FALSE(any_eligible) << "round " << round << ": " << e.what();
      ++refused;
    }
  }
  EXPECT_GT(drawn, 250);
  EXPECT_GT(refused, 50);
}

TEST(SamplerRobustness, ExtremeButFiniteLogitsStayUsable) {
  // max - min overflows to inf in float: the far token just weighs 0.
  const std::vector<float> row = {-FLT_MAX, FLT_MAX, FLT_MAX / 2};
  Sampler sampler(test::seeded(), 3);
  EXPECT_EQ(test::drawn(sampler, row, 100), (std::set<int32_t>{1}));
}

}  // namespace
}  // namespace zen::sampling
