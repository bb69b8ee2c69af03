// The graph IR the host builds (through the builder table or directly) and the scheduler runs.
//
// Tensors are appended in creation order, and every op's sources exist before it, so creation
// order is a valid execution order. Views never copy: they alias their storage tensor (a
// non-view) with their own shape and strides. Every call checks shapes (see infer.h) and throws
// zen::Error(ZEN_ERR_INVALID_ARG) with a one-line message naming the op and the shapes.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <zen/plugin.hpp>  // zen::Error, what every call here throws

#include "graph/tensor.h"

namespace zen::graph {

using Dims = std::array<int64_t, ZEN_MAX_DIMS>;

class Graph {
 public:
  // A graph input the caller fills before compute; ne lists 1 to 4 dims.
  TensorId input(std::string name, zen_type type, std::span<const int64_t> ne);
  // A model weight whose bytes already live at `where` (host memory or a device buffer).
  TensorId weight(std::string name, zen_type type, std::span<const int64_t> ne, Placement where);
  // Persistent state (a KV cache) at `where`, kept across graphs and written by set_rows.
  TensorId state(std::string name, zen_type type, std::span<const int64_t> ne, Placement where);
  // A compute op; result type and shape are inferred. Optional sources are trailing.
  TensorId op(zen_op op, std::span<const TensorId> srcs, std::span<const int32_t> params = {});

  // A view of src's memory: ne/nb (nb empty = packed strides) starting `offset` bytes into src.
  // Must stay inside src's storage.
  TensorId view(TensorId src, std::span<const int64_t> ne, std::span<const uint64_t> nb,
                uint64_t offset);
  // Same elements, new shape: src must be contiguous and the element counts equal.
  TensorId reshape(TensorId src, std::span<const int64_t> ne);
  // Result dim i is src dim axes[i] (numpy's transpose convention).
  TensorId permute(TensorId src, const std::array<int, ZEN_MAX_DIMS>& axes);
  // Elements [begin, end) of dimension dim.
  TensorId slice(TensorId src, int dim, int64_t begin, int64_t end);

  // Mark t readable after compute under `name` (a tensor has one name: an input or weight
  // keeps its own, which must then equal `name`).
  void output(TensorId t, std::string name);
  // Name a computed tensor for dumps (zen_graph_api.name): unique, and a tensor keeps its first
  // name (the same name again is a no-op). Marking it an output later keeps the name.
  void name(TensorId t, std::string name);

  const Tensor& tensor(TensorId id) const;
  size_t size() const { return tensors_.size(); }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  // The tensor holding t's memory: t itself unless t is a view.
  TensorId storage(TensorId t) const;
  // A named tensor (input, weight or output), or kNoTensor.
  TensorId find(std::string_view name) const;
  std::vector<TensorId> outputs() const;

  // Throws unless id names a tensor of this graph; `what` prefixes the message.
  void check_id(TensorId id, const std::string& what) const;

 private:
  TensorId leaf(std::string name, zen_type type, std::span<const int64_t> ne, uint32_t flags,
                const char* what);
  TensorId add(Tensor t);
  void claim_name(const std::string& name, TensorId id, const char* what);

  std::vector<Tensor> tensors_;
  std::unordered_map<std::string, TensorId> names_;
};

// ne from 1..4 dims, padded with 1; throws (prefixed with `what`) on a bad count or a dim < 1.
Dims to_dims(std::span<const int64_t> ne, const std::string& what);

}  // namespace zen::graph
