// The KV cache's bookkeeping: first-fit slots, masks (causal, sequence isolation, sliding
// window), cutting a sequence back, and the memory it hands the graph.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/kv_cache.h"

namespace zen::model {
namespace {

constexpr float kHidden = -INFINITY;

KvCache small(uint32_t cells) { return KvCache({{8, 4}, {0, 0}, {16, 16}}, cells); }

TEST(KvCache, AllocatesZeroedRowsPerLayer) {
  KvCache kv = small(10);
  EXPECT_EQ(kv.bytes(), (8u + 4 + 16 + 16) * 10 * 2);  // F16
  EXPECT_NE(kv.data(0, false), nullptr);
  EXPECT_EQ(kv.data(1, false), nullptr);  // a layer without a cache
  const auto* k = static_cast<const uint16_t*>(kv.data(2, true));
  for (int i = 0; i < 16 * 10; ++i) ASSERT_EQ(k[i], 0);
}

TEST(KvCache, FirstFitSlotsAndPaddedLength) {
  KvCache kv = small(100);
  std::vector<int32_t> s = kv.find_slots(5);
  EXPECT_EQ(s, (std::vector<int32_t>{0, 1, 2, 3, 4}));
  kv.commit(s, std::vector<int32_t>{0, 1, 2, 3, 4}, std::vector<int32_t>(5, 0));
  EXPECT_EQ(kv.used(), 5u);
  EXPECT_EQ(kv.n_kv(32), 32u);
  EXPECT_EQ(kv.n_kv(1), 5u);
  kv.seq_rm(0, 1, 3);  // frees positions 1 and 2
  EXPECT_EQ(kv.find_slots(3), (std::vector<int32_t>{1, 2, 5}));
  EXPECT_EQ(kv.seq_pos_max(0), 4);
  EXPECT_TRUE(kv.find_slots(98).empty());  // 97 free
}

TEST(KvCache, MaskIsCausalAndKeepsSequencesApart) {
  KvCache kv = small(8);
  // Cells 0-2: sequence 0 positions 0-2; cells 3-4: sequence 1 positions 0-1.
  kv.commit(std::vector<int32_t>{0, 1, 2, 3, 4}, std::vector<int32_t>{0, 1, 2, 0, 1},
            std::vector<int32_t>{0, 0, 0, 1, 1});
  const std::vector<int32_t> pos{1, 1}, seq{0, 1};
  std::vector<float> m(2 * 6);
  kv.fill_mask(m.data(), 6, pos, seq, 0);
  const std::vector<float> want{0,       0,       kHidden, kHidden, kHidden, kHidden,   // seq 0 @ 1
                                kHidden, kHidden, kHidden, 0,       0,       kHidden};  // seq 1 @ 1
  EXPECT_EQ(m, want);
}

TEST(KvCache, SlidingWindowHidesOldPositions) {
  KvCache kv = small(8);
  kv.commit(std::vector<int32_t>{0, 1, 2, 3, 4, 5}, std::vector<int32_t>{0, 1, 2, 3, 4, 5},
            std::vector<int32_t>(6, 0));
  std::vector<float> m(6);
  kv.fill_mask(m.data(), 6, std::vector<int32_t>{5}, std::vector<int32_t>{0}, 3);
  // Window 3 at position 5: positions 3, 4, 5 visible (5 - p < 3).
  EXPECT_EQ(m, (std::vector<float>{kHidden, kHidden, kHidden, 0, 0, 0}));
}

TEST(KvCache, ReleaseUndoesACommit) {
  KvCache kv = small(4);
  std::vector<int32_t> s = kv.find_slots(2);
  kv.commit(s, std::vector<int32_t>{0, 1}, std::vector<int32_t>{3, 3});
  kv.release(s);
  EXPECT_EQ(kv.used(), 0u);
  EXPECT_EQ(kv.seq_pos_max(3), -1);
  EXPECT_EQ(kv.find_slots(4).size(), 4u);
}

TEST(KvCache, RefusesBadConfigurations) {
  EXPECT_THROW(KvCache({{8, 8}}, 0), std::exception);
  EXPECT_THROW(KvCache({{8, 8}}, 4, ZEN_TYPE_Q4_0), std::exception);
}

}  // namespace
}  // namespace zen::model
