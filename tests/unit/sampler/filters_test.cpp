// Each truncation stage keeps exactly the hand-computed candidate set, alone and chained, on
// both paths: over the whole vocabulary (top_k off) and over the top_k heap's list.
//
// The kept set is observed from outside: 3000 seeded draws at temperature 1 hit every kept
// token (the least likely kept token below has probability >= 0.05 after renormalization).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "sampler/candidate_filters.h"
#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using Set = std::set<int32_t>;
using test::kInf;

const std::vector<double> kP = {0.5, 0.3, 0.15, 0.05};

enum class Path { kWholeVocabulary, kTopKList };

// The tokens drawn. For kTopKList, four -inf tokens pad the vocabulary so that a top_k of 7
// (< n_vocab, so the heap path runs) keeps every real candidate.
Set kept(Params p, const std::vector<double>& probs, Path path) {
  std::vector<float> logits = test::logits_for(probs);
  if (path == Path::kTopKList) {
    logits.insert(logits.end(), 4, -kInf);
    if (p.top_k == 0) p.top_k = static_cast<int32_t>(logits.size()) - 1;
  }
  p.seed = 1234;
  Sampler sampler(p, static_cast<int32_t>(logits.size()));
  return test::drawn(sampler, logits, 3000);
}

class SamplerFilters : public ::testing::TestWithParam<Path> {};

TEST_P(SamplerFilters, NoFilterKeepsEverything) {
  EXPECT_EQ(kept(Params{}, kP, GetParam()), (Set{0, 1, 2, 3}));
}

TEST_P(SamplerFilters, TopP) {
  Params p;
  p.top_p = 0.75f;  // cumulative 0.5, 0.8 >= 0.75
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1}));
  p.top_p = 0.85f;  // 0.5, 0.8, 0.95
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1, 2}));
  p.top_p = 0.97f;  // 0.95 < 0.97: all four
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1, 2, 3}));
  p.top_p = 0.1f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0}));
  p.top_p = 0.0f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0}));
  p.min_keep = 3;
  p.top_p = 0.1f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1, 2}));
}

TEST_P(SamplerFilters, MinP) {
  Params p;
  p.min_p = 0.25f;  // threshold 0.25 * 0.5 = 0.125: 0.15 stays, 0.05 goes
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1, 2}));
  p.min_p = 0.5f;  // 0.25: 0.3 stays
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1}));
  p.min_p = 0.7f;  // 0.35: only the top
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0}));
  p.min_keep = 2;  // fewer than min_keep pass: the top two
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1}));
}

TEST_P(SamplerFilters, Typical) {
  // Entropy 1.1421 nats; |-ln p - H| = 0.449, 0.062, 0.755, 1.854: order 1, 0, 2, 3 with
  // cumulative probability 0.3, 0.8, 0.95, 1 (kept once it exceeds typical_p).
  Params p;
  p.typical_p = 0.25f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{1}));
  p.typical_p = 0.5f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1}));
  p.typical_p = 0.9f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1, 2}));
  p.typical_p = 0.25f;
  p.min_keep = 2;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1}));
}

TEST_P(SamplerFilters, StagesRenormalizeOverWhatTheStageBeforeKept) {
  // typical 0.9 keeps {1, 0, 2}: renormalized 0.526, 0.316, 0.158. top_p 0.83 then needs
  // 0.526 + 0.316 = 0.842: {0, 1}. (Without renormalizing it would need 0.5 + 0.3 + 0.15.)
  Params p;
  p.typical_p = 0.9f;
  p.top_p = 0.83f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1}));
}

TEST_P(SamplerFilters, TemperatureComesAfterTheFilters) {
  // At temperature 5 the distribution flattens to 0.30, 0.27, 0.24, 0.19; top_p 0.75 on that
  // would keep three tokens. The filters see temperature 1: {0, 1}.
  Params p;
  p.temperature = 5.0f;
  p.top_p = 0.75f;
  EXPECT_EQ(kept(p, kP, GetParam()), (Set{0, 1}));
}

INSTANTIATE_TEST_SUITE_P(BothPaths, SamplerFilters,
                         ::testing::Values(Path::kWholeVocabulary, Path::kTopKList));

TEST(SamplerTopK, KeepsTheKBestTiesToLowerIds) {
  Params p;
  p.top_k = 2;
  EXPECT_EQ(kept(p, kP, Path::kTopKList), (Set{0, 1}));
  p.top_k = 1;
  EXPECT_EQ(kept(p, kP, Path::kTopKList), (Set{0}));
  p.top_k = 2;
  p.min_keep = 3;  // top_k never keeps fewer than min_keep
  EXPECT_EQ(kept(p, kP, Path::kTopKList), (Set{0, 1, 2}));

  // Equal logits 2, 2, 2 at ids 1..3: the two lowest ids.
  const std::vector<float> logits = {1.0f, 2.0f, 2.0f, 2.0f, 0.0f};
  Params q = test::seeded();
  q.top_k = 2;
  Sampler sampler(q, 5);
  EXPECT_EQ(test::drawn(sampler, logits, 2000), (Set{1, 2}));
}

TEST(SamplerTopK, TopPRenormalizesOverTheTopK) {
  // p = {0.4, 0.3, 0.2, 0.1}; top_k 3 leaves 0.444, 0.333, 0.222; top_p 0.75 is reached at
  // 0.778: {0, 1}. Over the unnormalized 0.4 + 0.3 = 0.7 it would take three.
  Params p;
  p.top_k = 3;
  p.top_p = 0.75f;
  EXPECT_EQ(kept(p, {0.4, 0.3, 0.2, 0.1}, Path::kTopKList), (Set{0, 1}));
}

TEST(SamplerTopK, LargerThanTheVocabularyKeepsEverything) {
  Params p;
  p.top_k = 1000;
  EXPECT_EQ(kept(p, kP, Path::kWholeVocabulary), (Set{0, 1, 2, 3}));
}

// The list stages directly, on lists in an arbitrary order.
TEST(SamplerCandidateStages, KeepTopPSortsByRankAndCuts) {
  std::vector<Candidate> c = {
      {0.0f, 9, 0}, {2.0f, 4, 0}, {1.0f, 7, 0}, {2.0f, 2, 0}, {-1.0f, 1, 0}};
  // Weights e^0 : e^2 : e^1 : e^2 : e^-1 = 1 : 7.389 : 2.718 : 7.389 : 0.368 (sum 18.864).
  // Rank order ids 2, 4, 7, 9, 1 with cumulative 0.392, 0.783, 0.927, 0.980, 1.
  keep_top_p(c, 0.9f, 1);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].id, 2);
  EXPECT_EQ(c[1].id, 4);
  EXPECT_EQ(c[2].id, 7);
}

TEST(SamplerCandidateStages, KeepMinPKeepsTheListOrder) {
  std::vector<Candidate> c = {{0.0f, 9, 0}, {2.0f, 4, 0}, {1.0f, 7, 0}, {-1.0f, 1, 0}};
  // Relative to the top (e^2): 0.135, 1, 0.368, 0.0498. min_p 0.1 drops only id 1.
  keep_min_p(c, 0.1f, 1);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].id, 9);
  EXPECT_EQ(c[1].id, 4);
  EXPECT_EQ(c[2].id, 7);
}

}  // namespace
}  // namespace zen::sampling
