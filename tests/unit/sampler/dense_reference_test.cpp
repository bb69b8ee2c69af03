// The whole-vocabulary stages (histogram-bounded, no full sort) and the top_k heap against a
// straightforward reference written here: sort everything, softmax in double with std::exp.
//
// Random rows could put a token within rounding of a cut (the reference computes in double,
// the sampler in float); each case first asserts that its cut has a clear margin, so a failure
// is always a real disagreement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "sampler/adjusted_logits.h"
#include "sampler/dense_distribution.h"
#include "sampler/rng.h"
#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

// A row shaped like a language model's: a normal bulk (Box-Muller) and a few peaks.
std::vector<float> model_like_row(size_t n, double spread, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> row(n);
  for (float& v : row) {
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    v = static_cast<float>(spread * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307 * u2));
  }
  for (int i = 0; i < 8; ++i) {
    row[static_cast<size_t>(rng.uniform() * static_cast<double>(n))] =
        static_cast<float>(4.0 * spread + 2.0 * i);
  }
  return row;
}

struct Reference {
  std::vector<int32_t> by_rank;  // ids, higher logit first, then lower id
  std::vector<double> prob;      // softmax, indexed by id
};

Reference reference(const std::vector<float>& row) {
  Reference r;
  r.by_rank.resize(row.size());
  std::iota(r.by_rank.begin(), r.by_rank.end(), 0);
  std::sort(r.by_rank.begin(), r.by_rank.end(),
            [&](int32_t a, int32_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
  const double max = row[r.by_rank[0]];
  double z = 0.0;
  for (float v : row) z += std::exp(v - max);
  for (float v : row) r.prob.push_back(std::exp(v - max) / z);
  return r;
}

DenseDistribution dense_of(const std::vector<float>& row) {
  DenseDistribution d;
  d.logits = row;
  d.max_logit = *std::max_element(row.begin(), row.end());
  d.compute_weights(1.0f);
  return d;
}

std::vector<int32_t> ids_of(const std::vector<Candidate>& c) {
  std::vector<int32_t> ids;
  for (const Candidate& x : c) ids.push_back(x.id);
  return ids;
}

std::vector<int32_t> sorted_ids(const std::vector<Candidate>& c) {
  std::vector<int32_t> ids = ids_of(c);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(SamplerDenseReference, TopPKeepsTheReferencePrefix) {
  for (const double spread : {1.0, 2.5}) {  // flat: the nucleus is most of the vocabulary
    const auto row = model_like_row(262144, spread, 11);
    const Reference ref = reference(row);
    DenseDistribution d = dense_of(row);
    for (const float p : {0.3f, 0.9f, 0.95f, 0.99f}) {
      size_t n = 0;
      double cum = 0.0;
      while (cum < p) cum += ref.prob[ref.by_rank[n++]];
      const double before = cum - ref.prob[ref.by_rank[n - 1]];
      ASSERT_GT(cum - p, 1e-5) << "ambiguous case: spread " << spread << " p " << p;
      ASSERT_GT(p - before, 1e-5) << "ambiguous case: spread " << spread << " p " << p;
      std::vector<Candidate> out;
      dense_keep_top_p(d, p, 1, out);
      std::vector<int32_t> expected(ref.by_rank.begin(), ref.by_rank.begin() + n);
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(sorted_ids(out), expected) << "spread " << spread << " top_p " << p << ": kept "
                                           << out.size() << ", reference " << n;
    }
  }
}

TEST(SamplerDenseReference, TypicalKeepsTheReferenceSet) {
  const auto row = model_like_row(20000, 2.0, 5);
  const Reference ref = reference(row);
  double entropy = 0.0;
  for (double q : ref.prob) entropy -= q > 0 ? q * std::log(q) : 0.0;
  std::vector<int32_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int32_t i) { return std::abs(-std::log(ref.prob[i]) - entropy); };
  std::sort(order.begin(), order.end(),
            [&](int32_t a, int32_t b) { return key(a) < key(b) || (key(a) == key(b) && a < b); });
  DenseDistribution d = dense_of(row);
  for (const float p : {0.2f, 0.5f, 0.9f}) {
    size_t n = 0;
    double cum = 0.0;
    while (!(cum > p)) cum += ref.prob[order[n++]];
    ASSERT_GT(cum - p, 1e-6) << "ambiguous case: p " << p;
    ASSERT_GT(key(order[n]) - key(order[n - 1]), 1e-5) << "ambiguous case: p " << p;
    std::vector<Candidate> out;
    dense_keep_typical(d, p, 1, out);
    std::vector<int32_t> expected(order.begin(), order.begin() + n);
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(sorted_ids(out), expected) << "typical_p " << p;
  }
}

TEST(SamplerDenseReference, MinPKeepsTokensAboveTheRatio) {
  const auto row = model_like_row(262144, 2.0, 9);
  const float max = *std::max_element(row.begin(), row.end());
  for (const float p : {0.01f, 0.05f, 0.3f}) {
    std::vector<int32_t> expected;
    for (size_t i = 0; i < row.size(); ++i) {
      const double margin = (row[i] - static_cast<double>(max)) - std::log(p);
      ASSERT_GT(std::abs(margin), 1e-6) << "ambiguous case: token " << i;
      if (margin > 0) expected.push_back(static_cast<int32_t>(i));
    }
    DenseDistribution d = dense_of(row);
    const std::optional<float> floor = dense_min_p_floor(d, p, 1);
    ASSERT_TRUE(floor.has_value());
    d.compute_weights(1.0f, *floor);
    std::vector<int32_t> got;
    for (size_t i = 0; i < row.size(); ++i) {
      if (d.weights[i] > 0.0f) got.push_back(static_cast<int32_t>(i));
    }
    EXPECT_EQ(got, expected) << "min_p " << p;
    // Asking to keep more tokens than reach the floor is refused.
    EXPECT_FALSE(dense_min_p_floor(d, p, expected.size() + 1).has_value());
  }
}

TEST(SamplerDenseReference, TopKHeapMatchesAFullSortIncludingOverrides) {
  auto row = model_like_row(262144, 2.0, 13);
  row[77] = test::kNaN;
  // Overrides: one raised to the top, one lowered out, one banned.
  const Reference base = reference(row);
  const int32_t raised = 100000, lowered = base.by_rank[0], banned = base.by_rank[1];
  std::vector<Override> overrides = {{lowered, -50.0f}, {banned, -test::kInf}, {raised, 1000.0f}};
  std::sort(overrides.begin(), overrides.end(), [](auto& a, auto& b) { return a.id < b.id; });
  std::vector<float> adjusted = row;
  adjusted[77] = -test::kInf;
  for (const Override& o : overrides) adjusted[static_cast<size_t>(o.id)] = o.logit;
  const Reference ref = reference(adjusted);
  for (const size_t k : {1u, 40u, 1000u}) {
    std::vector<Candidate> out;
    select_top_k({row, overrides}, k, out);
    const std::vector<int32_t> expected(ref.by_rank.begin(), ref.by_rank.begin() + k);
    EXPECT_EQ(ids_of(out), expected) << "k " << k;
  }
  EXPECT_EQ(argmax({row, overrides}).id, raised);
}

TEST(SamplerDenseReference, SamplerDrawsOnlyFromTheNucleus) {
  const auto row = model_like_row(262144, 2.5, 17);
  const Reference ref = reference(row);
  std::vector<bool> in_nucleus(row.size(), false);
  double cum = 0.0;
  for (size_t n = 0; cum < 0.5; ++n) {
    cum += ref.prob[ref.by_rank[n]];
    in_nucleus[ref.by_rank[n]] = true;
  }
  Params p = test::seeded();
  p.top_p = 0.5f;
  p.temperature = 1.5f;
  Sampler sampler(p, static_cast<int32_t>(row.size()));
  for (int i = 0; i < 300; ++i) EXPECT_TRUE(in_nucleus[sampler.sample(row)]);
}

}  // namespace
}  // namespace zen::sampling
