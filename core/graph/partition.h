// Partitioning: which device computes each node, where every tensor lives, which copies move
// tensors between devices, and the consecutive same-device segments the scheduler runs.
//
// Time is counted in steps: the step of a node is its position in execution order. A copy
// into device d runs at the first step of the first segment on d that reads the tensor (after
// the previous segments finished), so a tensor read by a copy at step s is live until s.
#pragma once

#include <climits>
#include <cstdint>
#include <span>
#include <vector>

#include "graph/device_ref.h"
#include "graph/ir.h"
#include "graph/lower.h"
#include "graph/memory_plan.h"

namespace zen::graph {

inline constexpr int kHostMemory = -1;  // the "device" of a weight in plain host memory
inline constexpr int kNowhere = -2;     // a tensor the outputs do not need
inline constexpr int32_t kForever = INT32_MAX;

// One tensor moved to another device, once per (tensor, target device) however many nodes
// there read it.
struct Copy {
  TensorId tensor = kNoTensor;  // a storage tensor: views travel with their storage
  int from = kHostMemory;       // device index or kHostMemory
  int to = 0;
  int32_t step = 0;  // runs before the segment starting at this step
  uint64_t bytes = 0;
  Location src, dst;  // filled once the arenas exist
  // A weight or state in host memory going to a device that cannot read host memory: the
  // scheduler keeps a persistent mirror there (uploaded once, outside the arena) instead of
  // copying on every compute. A state's mirror is where its writes land.
  bool mirror = false;
};

struct Segment {
  int device = 0;
  int32_t first_step = 0;
  std::vector<TensorId> nodes;
  std::vector<size_t> copies;  // indices into Partition::copies, run before the compute
  Lowered lowered;             // filled once the arenas exist
};

// Bytes a storage tensor needs in one device's arena, and for how long.
struct Resident {
  TensorId tensor = kNoTensor;
  int device = 0;
  Lifetime life;
};

struct Partition {
  std::vector<TensorId> nodes;  // computing tensors the outputs need, in execution order
  std::vector<int> device;      // per tensor: the device computing it, or -1
  std::vector<int> home;        // per storage tensor: device index, kHostMemory or kNowhere
  std::vector<Segment> segments;
  std::vector<Copy> copies;
  std::vector<Resident> residents;  // everything that needs arena bytes
};

// Assigns each needed node to the first device (in preference order) whose supports_op takes
// it, places leaves (weights where their placement says, inputs on the device of their first
// reader), inserts copies and splits the nodes into segments. Throws zen::Error naming the op
// and shapes when no device supports a node, or naming the tensor when a leaf cannot be placed.
Partition partition(const Graph& g, std::span<const DeviceRef> devices);

}  // namespace zen::graph
