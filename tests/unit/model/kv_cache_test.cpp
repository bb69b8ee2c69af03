// The paged KV cache's bookkeeping: block tables, all-or-nothing appends, truncation, the
// prefix cache (publish, attach, sharing, LRU eviction, collisions), masks against a
// brute-force reference, and the memory it hands the graph. Block size 4 keeps the expected
// cells small enough to derive by hand: position p of a sequence whose table is {b0, b1, ...}
// lives in cell b[p / 4] * 4 + p % 4, and free blocks are handed out lowest first.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <zen/plugin.hpp>

#include "model/kv_cache.h"

namespace zen::model {
namespace {

constexpr float kHidden = -INFINITY;
using Ids = std::vector<int32_t>;

KvCache small(uint32_t cells, uint32_t block = 4) {
  return KvCache({{8, 4}, {0, 0}, {16, 16}}, cells, ZEN_TYPE_F16, block);
}

Ids range(int32_t from, int32_t n) {
  Ids v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), from);
  return v;
}

// Appends the next n positions of seq; returns their cells (empty when they do not fit).
Ids grow(KvCache& kv, int32_t seq, int32_t n) {
  return kv.append(range(kv.seq_len(seq), n), Ids(static_cast<size_t>(n), seq));
}

Ids cells_of(const KvCache& kv, int32_t seq) {
  Ids out;
  for (int32_t p = 0; p < kv.seq_len(seq); ++p) out.push_back(kv.cell(seq, p));
  return out;
}

// Layer 0's K row (8 F16 elements) and layer 2's V row (16) of a cell, as raw bits: what a
// test writes and reads back.
uint16_t* k_row(const KvCache& kv, int32_t cell) {
  return static_cast<uint16_t*>(kv.data(0, false)) + static_cast<size_t>(cell) * 8;
}
uint16_t* v_row(const KvCache& kv, int32_t cell) {
  return static_cast<uint16_t*>(kv.data(2, true)) + static_cast<size_t>(cell) * 16;
}

// Writes a pattern unique to each position into seq's rows.
void mark(const KvCache& kv, int32_t seq) {
  for (int32_t p = 0; p < kv.seq_len(seq); ++p) {
    for (int e = 0; e < 8; ++e)
      k_row(kv, kv.cell(seq, p))[e] = static_cast<uint16_t>(1000 + p * 8 + e);
    for (int e = 0; e < 16; ++e)
      v_row(kv, kv.cell(seq, p))[e] = static_cast<uint16_t>(5000 + p * 16 + e);
  }
}

// True when seq's first n positions hold the pattern mark() wrote for those positions.
bool marked(const KvCache& kv, int32_t seq, int32_t n) {
  for (int32_t p = 0; p < n; ++p) {
    for (int e = 0; e < 8; ++e)
      if (k_row(kv, kv.cell(seq, p))[e] != 1000 + p * 8 + e) return false;
    for (int e = 0; e < 16; ++e)
      if (v_row(kv, kv.cell(seq, p))[e] != 5000 + p * 16 + e) return false;
  }
  return true;
}

TEST(KvCache, AllocatesZeroedRowsPerLayerInWholeBlocks) {
  KvCache kv = small(10);
  EXPECT_EQ(kv.size(), 12u);  // 3 blocks of 4
  EXPECT_EQ(kv.n_blocks(), 3u);
  EXPECT_EQ(kv.block_size(), 4u);
  EXPECT_EQ(kv.bytes(), (8u + 4 + 16 + 16) * 12 * 2);  // F16
  EXPECT_NE(kv.data(0, false), nullptr);
  EXPECT_EQ(kv.data(1, false), nullptr);  // a layer without a cache
  const auto* v = static_cast<const uint16_t*>(kv.data(2, true));
  for (int i = 0; i < 16 * 12; ++i) ASSERT_EQ(v[i], 0);
  EXPECT_THROW(small(0), Error);
  EXPECT_THROW(small(8, 0), Error);
}

TEST(KvCache, AppendsIntoEachSequencesOwnBlocks) {
  KvCache kv = small(32);
  EXPECT_EQ(grow(kv, 0, 6), range(0, 6));  // blocks 0, 1
  EXPECT_EQ(grow(kv, 1, 3), range(8, 3));  // block 2
  // Interleaved: seq 0 fills block 1 then takes block 3; seq 1 fills block 2, takes block 4.
  EXPECT_EQ(kv.append(Ids{6, 3, 7, 4, 8}, Ids{0, 1, 0, 1, 0}), (Ids{6, 11, 7, 16, 12}));
  EXPECT_EQ(kv.seq_len(0), 9);
  EXPECT_EQ(kv.seq_len(1), 5);
  EXPECT_EQ(kv.seq_len(2), 0);
  EXPECT_EQ(cells_of(kv, 1), (Ids{8, 9, 10, 11, 16}));
  EXPECT_EQ(kv.stats().blocks_used, 5u);
  EXPECT_THROW(kv.cell(1, 5), Error);
}

TEST(KvCache, RefusesPositionsThatDoNotContinueTheSequence) {
  KvCache kv = small(32);
  grow(kv, 0, 2);
  try {
    kv.append(Ids{3}, Ids{0});
    FAIL() << "a gap was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sequence 0"), std::string::npos) << what;
    EXPECT_NE(what.find("holds 2"), std::string::npos) << what;
    EXPECT_NE(what.find("position 3"), std::string::npos) << what;
  }
  EXPECT_THROW(kv.append(Ids{2, 2}, Ids{0, 0}), Error);  // a repeat
  EXPECT_THROW(kv.append(Ids{0}, Ids{-1}), Error);
  EXPECT_THROW(kv.append(Ids{0, 1}, Ids{5}), Error);  // sizes differ
  EXPECT_EQ(kv.seq_len(0), 2);
  EXPECT_EQ(kv.seq_len(5), 0);
  EXPECT_EQ(kv.stats().blocks_used, 1u);
}

TEST(KvCache, AppendIsAllOrNothingWhenTheCacheIsFull) {
  KvCache kv = small(16);  // 4 blocks
  grow(kv, 0, 10);         // 3 blocks, 2 cells of the third free
  EXPECT_EQ(kv.blocks_available(), 1u);
  EXPECT_EQ(kv.blocks_needed(0, 2), 0u);
  EXPECT_EQ(kv.blocks_needed(0, 3), 1u);
  EXPECT_EQ(kv.blocks_needed(1, 0), 0u);
  EXPECT_EQ(kv.blocks_needed(1, 4), 1u);
  EXPECT_EQ(kv.blocks_needed(1, 5), 2u);

  EXPECT_TRUE(grow(kv, 1, 5).empty());
  // Seq 0's part would fit, seq 1's would not: neither is taken.
  EXPECT_TRUE(kv.append(Ids{10, 0, 11, 1, 2, 3, 4}, Ids{0, 1, 0, 1, 1, 1, 1}).empty());
  EXPECT_EQ(kv.seq_len(0), 10);
  EXPECT_EQ(kv.seq_len(1), 0);
  EXPECT_EQ(kv.blocks_available(), 1u);

  EXPECT_EQ(grow(kv, 1, 4), range(12, 4));
  EXPECT_EQ(kv.blocks_available(), 0u);
  EXPECT_EQ(grow(kv, 0, 2), (Ids{10, 11}));  // seq 0's own last block still has room
  EXPECT_TRUE(grow(kv, 0, 1).empty());
  EXPECT_EQ(kv.seq_len(0), 12);
}

TEST(KvCache, TruncateReleasesTheBlocksPastTheNewLength) {
  KvCache kv = small(32);  // 8 blocks
  grow(kv, 0, 10);         // blocks 0, 1, 2
  grow(kv, 1, 4);          // block 3
  EXPECT_EQ(kv.blocks_available(), 4u);
  kv.seq_truncate(0, 5);  // keeps blocks 0 and 1 (position 4 is cell 4)
  EXPECT_EQ(kv.seq_len(0), 5);
  EXPECT_EQ(kv.blocks_available(), 5u);
  EXPECT_EQ(grow(kv, 0, 1), (Ids{5}));     // back into its own partial block
  EXPECT_EQ(grow(kv, 2, 4), range(8, 4));  // the freed block 2, lowest first
  kv.seq_truncate(0, 100);                 // longer than it is: nothing to cut
  kv.seq_truncate(7, 0);                   // unknown sequence: nothing to cut
  EXPECT_EQ(kv.seq_len(0), 6);
  EXPECT_THROW(kv.seq_truncate(0, -1), Error);
  kv.seq_truncate(0, 0);
  kv.seq_free(1);
  EXPECT_EQ(kv.seq_len(0), 0);
  EXPECT_EQ(kv.seq_len(1), 0);
  EXPECT_EQ(kv.stats().blocks_used, 1u);  // seq 2
  EXPECT_EQ(grow(kv, 0, 2), (Ids{0, 1}));
}

TEST(KvCache, NKvEndsAfterTheHighestReferencedBlock) {
  KvCache kv = small(64);     // 16 blocks
  EXPECT_EQ(kv.n_kv(1), 1u);  // empty: never a zero-sized graph
  grow(kv, 0, 4);
  grow(kv, 1, 4);
  grow(kv, 2, 1);
  EXPECT_EQ(kv.n_kv(1), 12u);
  EXPECT_EQ(kv.n_kv(32), 32u);
  EXPECT_EQ(kv.n_kv(), 32u);
  kv.seq_free(2);
  EXPECT_EQ(kv.n_kv(1), 8u);
  kv.seq_free(0);
  EXPECT_EQ(kv.n_kv(1), 8u);  // block 1 is still in use
  grow(kv, 3, 64 - 4);
  EXPECT_EQ(kv.n_kv(32), 64u);  // at most size()
}

TEST(KvCache, AttachesWholePublishedBlocksUpToMaxTokens) {
  KvCache kv = small(64);
  const Ids t = range(100, 10);
  grow(kv, 0, 10);
  kv.publish(0, t);
  EXPECT_EQ(kv.attach_prefix(1, t, 10), 8u);  // blocks 0 and 1; the partial third never
  EXPECT_EQ(kv.seq_len(1), 8);
  EXPECT_EQ(cells_of(kv, 1), range(0, 8));  // the very same cells
  EXPECT_EQ(kv.attach_prefix(2, t, 9), 8u);
  EXPECT_EQ(kv.attach_prefix(3, t, 7), 4u);  // 7 tokens hold one whole block
  EXPECT_EQ(kv.attach_prefix(4, Ids(t.begin(), t.begin() + 3), 3), 0u);
  // A prompt of exactly 8 tokens whose last token must be computed (max_tokens = 7).
  EXPECT_EQ(kv.attach_prefix(5, Ids(t.begin(), t.begin() + 8), 7), 4u);
  EXPECT_EQ(kv.seq_len(4), 0);
  EXPECT_THROW(kv.attach_prefix(1, t, 10), Error);  // not empty

  KvCache::Stats st = kv.stats();
  EXPECT_EQ(st.prefix_queries, 5u);  // the refused call is not a query
  EXPECT_EQ(st.prefix_hit_tokens, 8u + 8 + 4 + 0 + 4);
  EXPECT_EQ(st.blocks_used, 3u);  // shared blocks count once
  EXPECT_EQ(st.blocks_cached, 0u);

  // The attached sequence writes its next position into a block of its own.
  EXPECT_EQ(grow(kv, 1, 1), (Ids{12}));
  EXPECT_EQ(cells_of(kv, 0), range(0, 10));
}

TEST(KvCache, PublishesOnlyFullBlocksCoveredByTheTokens) {
  KvCache kv = small(64);
  const Ids t = range(100, 12);
  grow(kv, 0, 12);
  kv.publish(0, Ids(t.begin(), t.begin() + 7));  // the caller knows 7 tokens: one block
  EXPECT_EQ(kv.attach_prefix(1, t, 12), 4u);
  kv.publish(0, t);  // later: all three (the first is already published, unchanged)
  EXPECT_EQ(kv.attach_prefix(2, t, 12), 12u);
  kv.publish(9, t);  // an unknown sequence publishes nothing
}

TEST(KvCache, ChainHashingMatchesPrefixesNotLoneBlocks) {
  KvCache kv = small(64);
  const Ids a = range(0, 12);
  Ids b = a;
  for (int i = 4; i < 8; ++i) b[static_cast<size_t>(i)] = 50 + i;  // second block differs
  grow(kv, 0, 12);
  kv.publish(0, a);
  // b's third block holds the same tokens as a's, after a different history: not a match.
  EXPECT_EQ(kv.attach_prefix(1, b, 12), 4u);
}

// K/V computed under a LoRA mix (a root) are never attached without it, nor under another
// mix, even when every hash collides; the same root finds them.
TEST(KvCache, ChainsOfDifferentRootsNeverMix) {
  for (bool degenerate : {false, true}) {
    KvCache kv = small(64);
    if (degenerate)
      kv.set_block_hash([](uint64_t, std::span<const int32_t>) -> uint64_t { return 42; });
    const Ids t = range(100, 8);
    grow(kv, 0, 8);
    kv.publish(0, t, /*root=*/7);
    EXPECT_EQ(kv.attach_prefix(1, t, 8), 0u) << "root 0 after root 7";
    EXPECT_EQ(kv.attach_prefix(2, t, 8, 9), 0u) << "root 9 after root 7";
    EXPECT_EQ(kv.attach_prefix(3, t, 8, 7), degenerate ? 4u : 8u) << "root 7 again";
    grow(kv, 4, 8);
    kv.publish(4, t);  // the plain model's own copy, beside the adapter's
    EXPECT_EQ(kv.attach_prefix(5, t, 8), degenerate ? 0u : 8u);
    if (!degenerate) EXPECT_NE(kv.cell(5, 0), kv.cell(3, 0));
  }
}

TEST(KvCache, AHashCollisionIsNeverAHit) {
  KvCache kv = small(64);
  kv.set_block_hash([](uint64_t, std::span<const int32_t>) -> uint64_t { return 42; });
  const Ids x = range(1, 8), y = range(20, 8);
  grow(kv, 0, 8);
  kv.publish(0, x);
  EXPECT_EQ(kv.attach_prefix(1, y, 8), 0u);  // same hash, other tokens
  // x's second block collides with its first and is not published: one block, never a wrong one.
  EXPECT_EQ(kv.attach_prefix(2, x, 8), 4u);
  EXPECT_EQ(kv.cell(2, 3), kv.cell(0, 3));
}

TEST(KvCache, SharedBlocksSurviveOneOwnersFree) {
  KvCache kv = small(64);
  const Ids x = range(7, 8);
  grow(kv, 0, 8);
  mark(kv, 0);
  kv.publish(0, x);
  ASSERT_EQ(kv.attach_prefix(1, x, 8), 8u);
  kv.seq_free(0);
  EXPECT_EQ(kv.stats().blocks_used, 2u);  // seq 1 holds both
  EXPECT_EQ(kv.stats().blocks_cached, 0u);
  EXPECT_TRUE(marked(kv, 1, 8));
  const Ids other = grow(kv, 2, 8);  // must not be handed seq 1's blocks
  for (int32_t c : other) EXPECT_GE(c, 8);
  kv.seq_free(1);
  EXPECT_EQ(kv.stats().blocks_used, 2u);    // seq 2
  EXPECT_EQ(kv.stats().blocks_cached, 2u);  // kept for the next prompt
  ASSERT_EQ(kv.attach_prefix(3, x, 8), 8u);
  EXPECT_TRUE(marked(kv, 3, 8));
  EXPECT_EQ(kv.stats().blocks_cached, 0u);
}

TEST(KvCache, DuplicatePublishersKeepOneCopy) {
  KvCache kv = small(64);
  const Ids x = range(7, 8);
  grow(kv, 0, 8);
  grow(kv, 1, 8);  // the same tokens, computed independently
  kv.publish(0, x);
  kv.publish(1, x);
  kv.seq_free(1);  // its blocks were never published: they are simply free
  EXPECT_EQ(kv.stats().blocks_cached, 0u);
  EXPECT_EQ(kv.blocks_available(), 14u);
  kv.seq_free(0);
  EXPECT_EQ(kv.stats().blocks_cached, 2u);
  EXPECT_EQ(kv.attach_prefix(2, x, 8), 8u);
}

TEST(KvCache, EvictsTheLeastRecentlyUsedCachedBlockOnlyWhenNothingIsFree) {
  KvCache kv = small(16);  // 4 blocks
  const Ids a(4, 1), b(4, 2);
  grow(kv, 0, 4);  // block 0
  kv.publish(0, a);
  grow(kv, 1, 4);  // block 1
  kv.publish(1, b);
  kv.seq_free(0);  // cached: a
  kv.seq_free(1);  // cached: a, b (a least recent)
  EXPECT_EQ(kv.stats().blocks_cached, 2u);
  EXPECT_EQ(kv.blocks_available(), 4u);

  EXPECT_EQ(grow(kv, 9, 8), range(8, 8));  // the free blocks 2 and 3 first
  EXPECT_EQ(kv.stats().blocks_cached, 2u);
  // Using a makes it the most recent: b is now the least recently used.
  ASSERT_EQ(kv.attach_prefix(10, a, 4), 4u);
  kv.seq_free(10);
  EXPECT_EQ(kv.blocks_available(), 2u);
  EXPECT_EQ(grow(kv, 9, 4), range(4, 4));  // evicts b's block 1
  EXPECT_EQ(kv.stats().blocks_cached, 1u);
  EXPECT_EQ(kv.attach_prefix(11, b, 4), 0u);
  EXPECT_EQ(kv.attach_prefix(12, a, 4), 4u);
  EXPECT_EQ(kv.stats().blocks_cached, 0u);
  EXPECT_EQ(kv.blocks_available(), 0u);
}

TEST(KvCache, TruncatingInsideASharedBlockCopiesItForTheCutSequence) {
  KvCache kv = small(32);
  const Ids x = range(7, 8);
  grow(kv, 0, 8);
  mark(kv, 0);
  kv.publish(0, x);
  ASSERT_EQ(kv.attach_prefix(1, x, 8), 8u);
  kv.seq_truncate(1, 6);
  EXPECT_EQ(kv.seq_len(1), 6);
  for (int32_t p = 0; p < 4; ++p) EXPECT_EQ(kv.cell(1, p), kv.cell(0, p));  // still shared
  EXPECT_NE(kv.cell(1, 4), kv.cell(0, 4));                                  // a private copy
  EXPECT_TRUE(marked(kv, 1, 6));  // with the K and V rows it kept
  EXPECT_EQ(grow(kv, 1, 1), (Ids{kv.cell(1, 4) + 2}));
  EXPECT_TRUE(marked(kv, 0, 8));  // the other owner's rows are untouched
  EXPECT_EQ(kv.attach_prefix(2, x, 8), 8u);
}

TEST(KvCache, TruncatingInsideASharedBlockWithoutRoomChangesNothing) {
  KvCache kv = small(8);  // 2 blocks
  const Ids x = range(7, 8);
  grow(kv, 0, 8);
  kv.publish(0, x);
  ASSERT_EQ(kv.attach_prefix(1, x, 8), 8u);
  EXPECT_THROW(kv.seq_truncate(1, 6), Error);
  EXPECT_EQ(kv.seq_len(1), 8);
  kv.seq_truncate(1, 4);  // at a block boundary: no copy needed
  EXPECT_EQ(kv.seq_len(1), 4);
}

TEST(KvCache, TruncatingInsideItsOwnPublishedBlockUnpublishesIt) {
  KvCache kv = small(32);
  const Ids x = range(7, 8);
  grow(kv, 0, 8);
  kv.publish(0, x);
  kv.seq_truncate(0, 6);  // its second block will be overwritten
  EXPECT_EQ(kv.attach_prefix(1, x, 8), 4u);
}

TEST(KvCache, ClearForgetsEverythingButTheCounters) {
  KvCache kv = small(32);
  const Ids x = range(7, 8);
  grow(kv, 0, 8);
  kv.publish(0, x);
  EXPECT_EQ(kv.attach_prefix(1, x, 8), 8u);
  kv.clear();
  KvCache::Stats st = kv.stats();
  EXPECT_EQ(st.blocks_total, 8u);
  EXPECT_EQ(st.blocks_used, 0u);
  EXPECT_EQ(st.blocks_cached, 0u);
  EXPECT_EQ(kv.seq_len(0), 0);
  EXPECT_EQ(kv.attach_prefix(2, x, 8), 0u);
  st = kv.stats();
  EXPECT_EQ(st.prefix_queries, 2u);
  EXPECT_EQ(st.prefix_hit_tokens, 8u);
  EXPECT_EQ(grow(kv, 0, 3), range(0, 3));
}

// The mask by definition: query (s, p) sees cell j when some position q of s with q <= p (and
// p - q < window) lives in j. Written without the block tables' arithmetic.
std::vector<float> reference_mask(const KvCache& kv, uint32_t n_kv, const Ids& pos, const Ids& seq,
                                  uint32_t window) {
  std::vector<float> m(pos.size() * n_kv, kHidden);
  for (size_t t = 0; t < pos.size(); ++t)
    for (uint32_t j = 0; j < n_kv; ++j)
      for (int32_t q = 0; q < kv.seq_len(seq[t]); ++q)
        if (kv.cell(seq[t], q) == static_cast<int32_t>(j) && q <= pos[t] &&
            (window == 0 || pos[t] - q < static_cast<int32_t>(window)))
          m[t * n_kv + j] = 0.0f;
  return m;
}

TEST(KvCache, MaskMatchesABruteForceReference) {
  KvCache kv = small(64);
  const Ids t = range(100, 10);
  grow(kv, 0, 10);
  kv.publish(0, t);
  grow(kv, 1, 6);
  ASSERT_EQ(kv.attach_prefix(2, t, 10), 8u);  // shares seq 0's first two blocks
  grow(kv, 2, 3);
  kv.seq_truncate(1, 3);  // leaves a hole
  grow(kv, 3, 5);
  grow(kv, 1, 5);
  // Every position of every sequence as a query, plus one of a sequence with no cells.
  Ids pos, seq;
  for (int32_t s : {2, 0, 1, 3})
    for (int32_t p = 0; p < kv.seq_len(s); ++p) {
      pos.push_back(p);
      seq.push_back(s);
    }
  pos.push_back(0);
  seq.push_back(8);
  const uint32_t n_kv = kv.n_kv();
  for (uint32_t window : {0u, 3u}) {
    std::vector<float> got(pos.size() * n_kv, 1.0f);
    kv.fill_mask(got.data(), n_kv, pos, seq, window);
    const std::vector<float> want = reference_mask(kv, n_kv, pos, seq, window);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "window " << window << ", query " << i / n_kv << ", cell "
                                 << i % n_kv;
  }
}

}  // namespace
}  // namespace zen::model
