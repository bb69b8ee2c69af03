// Draws follow softmax(logits / temperature); a seed fixes the sequence, on every platform.
//
// Frequencies are checked with Pearson's chi-square against probabilities computed here in
// double precision. With the seed fixed the statistic is a fixed number; the bound,
// df + 6 * sqrt(2 df) (six standard deviations of the chi-square distribution above its mean),
// would be crossed by a correct sampler with a probability below 1e-5 for any seed.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "sampler/rng.h"
#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using test::kInf;

// softmax(logits / t) in double.
std::vector<double> softmax(const std::vector<float>& logits, double t) {
  double max = -INFINITY, z = 0.0;
  for (float l : logits) max = std::max(max, static_cast<double>(l));
  std::vector<double> p;
  for (float l : logits) p.push_back(std::exp((l - max) / t));
  for (double q : p) z += q;
  for (double& q : p) q /= z;
  return p;
}

// counts[c] over expected[c] * n; categories must expect at least 5 draws.
void expect_chi_square_fits(const std::vector<int>& counts, const std::vector<double>& expected,
                            int n) {
  double chi2 = 0.0;
  for (size_t c = 0; c < counts.size(); ++c) {
    const double e = expected[c] * n;
    ASSERT_GE(e, 5.0) << "category " << c << " too rare for the test";
    chi2 += (counts[c] - e) * (counts[c] - e) / e;
  }
  const double df = static_cast<double>(counts.size()) - 1.0;
  EXPECT_LT(chi2, df + 6.0 * std::sqrt(2.0 * df)) << "df " << df;
}

std::vector<int> histogram(Sampler& sampler, const std::vector<float>& logits, int n,
                           size_t categories) {
  std::vector<int> counts(categories, 0);
  for (int i = 0; i < n; ++i) ++counts[static_cast<size_t>(sampler.sample(logits))];
  return counts;
}

TEST(SamplerDistribution, TemperatureFrequenciesMatchTheSoftmax) {
  const std::vector<float> logits = {2.0f, 1.0f, 0.5f, 0.0f, -1.0f};
  constexpr int kDraws = 20000;
  for (const float t : {0.7f, 1.0f, 1.6f}) {
    Params p = test::seeded(99);
    p.temperature = t;
    Sampler whole(p, 5);
    expect_chi_square_fits(histogram(whole, logits, kDraws, 5), softmax(logits, t), kDraws);

    // The top_k list path: three -inf tokens pad the vocabulary, top_k 7 keeps all five.
    std::vector<float> padded = logits;
    padded.insert(padded.end(), 3, -kInf);
    p.top_k = 7;
    Sampler listed(p, 8);
    auto counts = histogram(listed, padded, kDraws, 8);
    EXPECT_EQ(counts[5] + counts[6] + counts[7], 0);
    counts.resize(5);
    expect_chi_square_fits(counts, softmax(logits, t), kDraws);
  }
}

TEST(SamplerDistribution, TopKThenTemperatureRenormalizes) {
  const std::vector<float> logits = {2.0f, 1.0f, 0.5f, 0.0f, -1.0f};
  Params p = test::seeded(5);
  p.top_k = 3;
  p.temperature = 1.3f;
  Sampler sampler(p, 5);
  constexpr int kDraws = 20000;
  auto counts = histogram(sampler, logits, kDraws, 5);
  EXPECT_EQ(counts[3] + counts[4], 0);
  counts.resize(3);
  expect_chi_square_fits(counts, softmax({2.0f, 1.0f, 0.5f}, 1.3), kDraws);
}

TEST(SamplerDistribution, WholeVocabularyDrawAcrossBlocksAndRuns) {
  // The draw walks sums over runs of tokens (8 interleaved runs per block of 256), then one
  // run. 4100 tokens: 16 full blocks and a partial one. Six tokens spread over the row plus
  // 4094 others whose total mass is comparable: seven categories ("the rest" pooled).
  constexpr size_t kVocab = 4100;
  std::vector<float> logits(kVocab, -7.0f);
  const std::map<int32_t, float> peaks = {{3, 1.0f},     {1000, 0.5f}, {2047, 0.0f},
                                          {3000, -0.5f}, {4095, 0.2f}, {4099, 0.8f}};
  for (const auto& [id, l] : peaks) logits[static_cast<size_t>(id)] = l;
  std::vector<float> pooled;
  for (const auto& entry : peaks) pooled.push_back(entry.second);
  // The rest as one category: log(count * e^-7).
  pooled.push_back(static_cast<float>(std::log(static_cast<double>(kVocab - peaks.size())) - 7.0));
  const auto expected = softmax(pooled, 1.0);

  Params p = test::seeded(2024);
  Sampler sampler(p, kVocab);
  constexpr int kDraws = 20000;
  std::vector<int> counts(peaks.size() + 1, 0);
  for (int i = 0; i < kDraws; ++i) {
    const int32_t t = sampler.sample(logits);
    auto it = peaks.find(t);
    ++counts[it == peaks.end() ? peaks.size()
                               : static_cast<size_t>(std::distance(peaks.begin(), it))];
  }
  expect_chi_square_fits(counts, expected, kDraws);
}

TEST(SamplerDistribution, BiasAndPenaltiesAcrossAWholeRow) {
  // 5000 equal logits; logit_bias bans all but three tokens in different blocks, and a
  // presence penalty of 1 lowers token 1300 (generated once) by one: probabilities
  // 1 : e^-1 : 1 over tokens 17, 1300, 4999.
  constexpr int32_t kVocab = 5000;
  const std::vector<float> logits(kVocab, 0.25f);
  Params p = test::seeded(4);
  p.presence_penalty = 1.0f;
  for (int32_t t = 0; t < kVocab; ++t) {
    if (t != 17 && t != 1300 && t != 4999) p.logit_bias[t] = -kInf;
  }
  Sampler sampler(p, kVocab);
  sampler.accept(1300);
  constexpr int kDraws = 5000;
  std::vector<int> counts(3, 0);
  for (int i = 0; i < kDraws; ++i) {
    const int32_t t = sampler.sample(logits);
    ASSERT_TRUE(t == 17 || t == 1300 || t == 4999) << t;
    ++counts[t == 17 ? 0 : t == 1300 ? 1 : 2];
  }
  expect_chi_square_fits(counts, softmax({0.0f, -1.0f, 0.0f}, 1.0), kDraws);
}

TEST(SamplerDeterminism, RngIsTheStandardMersenneTwister) {
  // The C++ standard ([rand.predef]) fixes the 10000th output of a default-constructed
  // mt19937_64 (seed 5489) at 9981545732273789042.
  Rng rng(5489);
  double u = 0.0;
  for (int i = 0; i < 10000; ++i) u = rng.uniform();
  EXPECT_EQ(u, static_cast<double>(9981545732273789042ull >> 11) * 0x1.0p-53);
}

TEST(SamplerDeterminism, DrawMapsTheUniformOntoCumulativeProbability) {
  // Four equal logits weigh exactly 1 each, so a uniform u picks token floor(4u) exactly.
  // The uniforms come from the standard engine driven here, independently of the sampler.
  const std::vector<float> logits = {0.5f, 0.5f, 0.5f, 0.5f};
  Sampler sampler(test::seeded(77), 4);
  std::mt19937_64 engine(77);
  for (int i = 0; i < 1000; ++i) {
    const double u = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    ASSERT_EQ(sampler.sample(logits), static_cast<int32_t>(std::floor(4.0 * u))) << "draw " << i;
  }
}

std::vector<int32_t> generate(Sampler& sampler, const std::vector<float>& base, int n) {
  std::vector<int32_t> out;
  std::vector<float> logits = base;
  for (int i = 0; i < n; ++i) {
    const int32_t t = sampler.sample(logits);
    sampler.accept(t);
    out.push_back(t);
    logits[static_cast<size_t>(t)] -= 0.25f;  // the row changes from step to step
  }
  return out;
}

TEST(SamplerDeterminism, SameSeedSameTokensAndResetReplays) {
  Rng rng(1);
  std::vector<float> row(5000);
  for (float& v : row) v = static_cast<float>(rng.uniform() * 8.0);
  Params p = test::seeded(123456789);
  p.temperature = 0.9f;
  p.top_p = 0.95f;
  p.repeat_penalty = 1.1f;
  p.frequency_penalty = 0.3f;

  Sampler a(p, 5000), b(p, 5000);
  const auto first = generate(a, row, 200);
  EXPECT_EQ(generate(b, row, 200), first);
  a.reset();
  EXPECT_EQ(generate(a, row, 200), first);

  p.seed = 987654321;
  Sampler c(p, 5000);
  EXPECT_NE(generate(c, row, 200), first);
}

TEST(SamplerDeterminism, AnUnsetSeedIsReportedAndReproducible) {
  Rng rng(2);
  std::vector<float> row(1000);
  for (float& v : row) v = static_cast<float>(rng.uniform() * 6.0);
  Params p;  // no seed: drawn from std::random_device
  Sampler a(p, 1000);
  const auto first = generate(a, row, 100);
  p.seed = a.seed();
  Sampler b(p, 1000);
  EXPECT_EQ(generate(b, row, 100), first);
}

}  // namespace
}  // namespace zen::sampling
