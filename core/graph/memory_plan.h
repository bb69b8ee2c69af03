// Arena planning: tensors whose lifetimes do not overlap share bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/tensor.h"

namespace zen::graph {

// Steps [start, end], both inclusive, during which `size` bytes must stay untouched by others.
struct Lifetime {
  int32_t start = 0;
  int32_t end = 0;
  uint64_t size = 0;
};

struct Packing {
  std::vector<uint64_t> offsets;  // per item, multiples of the alignment
  uint64_t peak = 0;              // bytes the arena needs
};

// Places every item at the lowest aligned offset that no time-overlapping item occupies,
// largest items first (they are the hardest to fit into holes later). O(n^2), run once per
// plan, not per compute.
Packing pack(std::span<const Lifetime> items, uint64_t alignment);

// One tensor's bytes in one device's arena.
struct Block {
  TensorId tensor = kNoTensor;  // the storage tensor (or the copy's source tensor)
  int device = 0;               // index in the scheduler's device list
  uint64_t offset = 0;
  uint64_t size = 0;
  int32_t start = 0, end = 0;  // lifetime in execution steps (see Scheduler)
};

struct MemoryPlan {
  std::vector<Block> blocks;
  std::vector<uint64_t> peak;  // per device: the arena's size
};

}  // namespace zen::graph
