// Lowering: the IR (or a segment of it) as the C zen_graph a device computes.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "graph/ir.h"

namespace zen::graph {

// Where a tensor's first element is on the device that runs a segment. For a view that is its
// storage's location plus view_offset. data is the host address when the memory is
// host-visible (then buffer may be NULL for plain host memory, e.g. an unwrapped mmap).
struct Location {
  zen_buffer* buffer = nullptr;
  uint64_t offset = 0;
  void* data = nullptr;
};

// A zen_graph and the arrays it points into. Names point into the Graph it was lowered from,
// which must outlive it unchanged.
class Lowered {
 public:
  Lowered() = default;
  Lowered(Lowered&&) noexcept = default;
  Lowered& operator=(Lowered&&) noexcept = default;
  Lowered(const Lowered&) = delete;
  Lowered& operator=(const Lowered&) = delete;

  const zen_graph* graph() const;
  // Index in tensors of an IR tensor, or -1 when the lowering does not include it.
  int32_t index_of(TensorId id) const;

  std::vector<zen_tensor> tensors;
  std::vector<int32_t> nodes;    // indices into tensors, in execution order
  std::vector<TensorId> ir_ids;  // tensors[i] came from IR tensor ir_ids[i]

 private:
  mutable zen_graph graph_{};
};

using LocateFn = std::function<Location(TensorId)>;

// `nodes` (computing tensors, in execution order) with every tensor they read, and their
// views' storage. A lowered view's src[0] is its storage, like view_src.
Lowered lower(const Graph& g, std::span<const TensorId> nodes, const LocateFn& where);

// The whole graph with unchanged indices and no locations: what supports_op queries read.
Lowered lower_all(const Graph& g);

}  // namespace zen::graph
