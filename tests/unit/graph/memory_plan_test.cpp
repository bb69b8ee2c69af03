// The arena packer on its own: sharing only between lifetimes that do not overlap.
#include <gtest/gtest.h>

#include <vector>

#include "graph/memory_plan.h"

namespace zen::graph {
namespace {

bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) { return a < b + bn && b < a + an; }

// No two items alive at the same step share a byte.
void expect_disjoint(const std::vector<Lifetime>& items, const Packing& p) {
  for (size_t i = 0; i < items.size(); ++i)
    for (size_t j = i + 1; j < items.size(); ++j) {
      bool same_time = items[i].start <= items[j].end && items[j].start <= items[i].end;
      bool same_bytes = overlaps(p.offsets[i], items[i].size, p.offsets[j], items[j].size);
      EXPECT_FALSE(same_time && same_bytes) << "items " << i << " and " << j;
    }
}

TEST(MemoryPlan, DisjointLifetimesShareBytes) {
  std::vector<Lifetime> items{{0, 1, 1000}, {2, 3, 1000}, {4, 5, 1000}};
  Packing p = pack(items, 64);
  EXPECT_EQ(p.peak, 1024u);
  EXPECT_EQ(p.offsets, (std::vector<uint64_t>{0, 0, 0}));
}

TEST(MemoryPlan, OverlappingLifetimesDoNot) {
  std::vector<Lifetime> items{{0, 2, 100}, {1, 3, 100}, {2, 4, 100}, {5, 6, 300}};
  Packing p = pack(items, 64);
  expect_disjoint(items, p);
  EXPECT_EQ(p.peak, 3u * 128u) << "three 100-byte items live at step 2, each padded to 128";
  for (uint64_t off : p.offsets) EXPECT_EQ(off % 64, 0u);
}

TEST(MemoryPlan, FillsHolesLeftByEarlierTensors) {
  // A big tensor dies at step 1; two small ones born later fit into its hole side by side.
  std::vector<Lifetime> items{{0, 1, 512}, {0, 9, 64}, {2, 9, 256}, {2, 9, 256}};
  Packing p = pack(items, 64);
  expect_disjoint(items, p);
  EXPECT_EQ(p.peak, 576u);
}

TEST(MemoryPlan, EndpointsAreInclusive) {
  // Item 1 is born at the step item 0 is last read: they must not share.
  std::vector<Lifetime> items{{0, 3, 64}, {3, 4, 64}};
  Packing p = pack(items, 64);
  EXPECT_NE(p.offsets[0], p.offsets[1]);
}

}  // namespace
}  // namespace zen::graph
