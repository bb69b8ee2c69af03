// The step planner on a real (small, standalone) KvCache: decode tokens before prompt chunks,
// the token budget, deterministic chunk alignment, and running out of blocks.
#include <gtest/gtest.h>

#include <vector>

#include "engine/step_planner.h"

namespace zen::engine {
namespace {

// 8 blocks of 4 cells.
model::KvCache small_cache() { return model::KvCache({{8, 8}}, 32, ZEN_TYPE_F16, 4); }

// A running sequence with `cached` of its tokens in the cache (appended for real).
Sequence running(model::KvCache& kv, int32_t seq, uint32_t prompt_len, uint32_t total,
                 uint32_t cached) {
  Sequence s;
  s.seq = seq;
  s.state = Sequence::State::kRunning;
  s.prompt_len = prompt_len;
  s.tokens.assign(total, 1);
  s.n_cached = cached;
  std::vector<int32_t> pos, seqs;
  for (uint32_t p = 0; p < cached; ++p) {
    pos.push_back(static_cast<int32_t>(p));
    seqs.push_back(seq);
  }
  if (cached) {
    EXPECT_EQ(kv.append(pos, seqs).size(), cached);
  }
  return s;
}

TEST(StepPlanner, DecodeTokensFirstThenChunksWithinTheBudget) {
  model::KvCache kv = small_cache();
  Sequence prefill = running(kv, 0, 10, 10, 0);  // admitted first, still prefilling
  Sequence decode = running(kv, 1, 3, 4, 3);     // generating: one token to run
  std::vector<Sequence*> order{&prefill, &decode};
  StepPlan p = plan_step(order, kv, {.prefill_chunk = 8, .max_batch_tokens = 6});
  ASSERT_FALSE(p.short_of_blocks);
  ASSERT_EQ(p.work.size(), 2u);
  EXPECT_EQ(p.work[0].seq, &decode);
  EXPECT_EQ(p.work[0].n, 1u);
  EXPECT_TRUE(p.work[0].wants_logits());
  EXPECT_EQ(p.work[1].seq, &prefill);
  EXPECT_EQ(p.work[1].n, 5u) << "6 tokens of budget, 1 taken by the decode token";
  EXPECT_FALSE(p.work[1].wants_logits());

  p = plan_step(order, kv, {.prefill_chunk = 4, .max_batch_tokens = 64});
  EXPECT_EQ(p.work[1].n, 4u) << "at most prefill_chunk per sequence";
  EXPECT_EQ(p.n_tokens(), 5u);
}

TEST(StepPlanner, PromptTokensBesideDecodeTokensAreCapped) {
  model::KvCache kv = small_cache();
  Sequence prefill = running(kv, 0, 20, 20, 0);
  Sequence decode = running(kv, 1, 3, 4, 3);
  const StepLimits limits{.prefill_chunk = 16, .max_batch_tokens = 64, .prefill_while_decoding = 5};
  // Someone is generating: the prompt enters 5 tokens at a time, so that step stays short.
  std::vector<Sequence*> both{&prefill, &decode};
  StepPlan p = plan_step(both, kv, limits);
  ASSERT_EQ(p.work.size(), 2u);
  EXPECT_EQ(p.work[0].seq, &decode);
  EXPECT_EQ(p.work[1].n, 5u);
  EXPECT_EQ(p.n_tokens(), 6u);
  // Nobody is generating: the whole prefill_chunk.
  std::vector<Sequence*> alone{&prefill};
  p = plan_step(alone, kv, limits);
  ASSERT_EQ(p.work.size(), 1u);
  EXPECT_EQ(p.work[0].n, 16u);
}

TEST(StepPlanner, DeterministicChunksAreAlignedAndNeverCut) {
  model::KvCache kv = small_cache();
  Sequence a = running(kv, 0, 20, 20, 3);  // next chunk: [3, 8)
  Sequence b = running(kv, 1, 6, 6, 0);    // next chunk: [0, 6), the whole prompt
  std::vector<Sequence*> order{&a, &b};
  const StepLimits det{.prefill_chunk = 8, .max_batch_tokens = 64, .deterministic = true};
  StepPlan p = plan_step(order, kv, det);
  ASSERT_EQ(p.work.size(), 2u);
  EXPECT_EQ(p.work[0].n, 5u);
  EXPECT_EQ(p.work[1].n, 6u);
  EXPECT_TRUE(p.work[1].wants_logits());

  // A budget of 6: a's 5 fit, b's 6 would have to be cut, so b waits for the next step.
  StepLimits tight = det;
  tight.max_batch_tokens = 6;
  p = plan_step(order, kv, tight);
  ASSERT_EQ(p.work.size(), 1u);
  EXPECT_EQ(p.work[0].seq, &a);

  // The oldest prompt goes even over the budget, so decode tokens cannot starve it.
  tight.max_batch_tokens = 2;
  std::vector<Sequence*> b_first{&b, &a};
  p = plan_step(b_first, kv, tight);
  ASSERT_EQ(p.work.size(), 1u);
  EXPECT_EQ(p.work[0].seq, &b);
  EXPECT_EQ(p.work[0].n, 6u);

  EXPECT_EQ(aligned_chunk_end(0, 20, 8), 8u);
  EXPECT_EQ(aligned_chunk_end(8, 20, 8), 16u);
  EXPECT_EQ(aligned_chunk_end(16, 20, 8), 20u);
}

TEST(StepPlanner, ShortOfBlocksWhenDecodeTokensCannotGetOne) {
  model::KvCache kv = small_cache();
  // Seven blocks full with one sequence, the eighth with another: no block left.
  Sequence big = running(kv, 0, 28, 29, 28);  // generating, at a block boundary
  Sequence other = running(kv, 1, 4, 5, 4);   // generating, at a block boundary
  ASSERT_EQ(kv.blocks_available(), 0u);
  std::vector<Sequence*> order{&big, &other};
  EXPECT_TRUE(plan_step(order, kv, {}).short_of_blocks);

  // Once `other` is gone (preempted), big's token gets the freed block.
  kv.seq_free(1);
  std::vector<Sequence*> alone{&big};
  const StepPlan p = plan_step(alone, kv, {});
  EXPECT_FALSE(p.short_of_blocks);
  ASSERT_EQ(p.work.size(), 1u);
}

TEST(StepPlanner, PromptChunkThatDoesNotFitWaits) {
  model::KvCache kv = small_cache();
  Sequence decode = running(kv, 0, 20, 21, 20);  // 5 blocks, next token needs a 6th
  Sequence prefill = running(kv, 1, 16, 16, 0);  // 4 blocks needed, 3 left after the decode
  std::vector<Sequence*> order{&decode, &prefill};
  const StepPlan p = plan_step(order, kv, {.prefill_chunk = 16, .max_batch_tokens = 64});
  EXPECT_FALSE(p.short_of_blocks);
  ASSERT_EQ(p.work.size(), 1u);
  EXPECT_EQ(p.work[0].seq, &decode);
}

}  // namespace
}  // namespace zen::engine
