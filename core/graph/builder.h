// The host's graph builder as plugins see it: the C zen_graph_api table ("graph" in
// zen_host_api.get_api), where a zen_graph_builder* is a Builder*. Errors never cross the
// boundary as exceptions: a failing call returns a negative handle or a status, and
// last_error() says why in one line.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <zen/graph.h>

#include "graph/ir.h"

namespace zen::graph {

// What the host knows about a model weight: its layout and where its bytes are.
struct WeightInfo {
  zen_type type = ZEN_TYPE_F32;
  Dims ne{1, 1, 1, 1};
  Placement where;
  bool state = false;  // runtime-owned, written by the graph (a KV cache), not a model weight
};

// Looks a weight (or state) up by name; nullopt when the model has no such tensor.
using WeightResolver = std::function<std::optional<WeightInfo>(std::string_view name)>;

class Builder;
// Called after each ZEN_OP_MATMUL whose src0 is a model weight (weight, activations x, result
// y); returns what the plugin gets instead of y (LoRA adds its low-rank product there).
using MatmulHook = std::function<TensorId(Builder&, TensorId weight, TensorId x, TensorId y)>;

class Builder {
 public:
  explicit Builder(Graph& graph, WeightResolver resolver = {}, MatmulHook on_matmul = {})
      : graph_(graph), resolver_(std::move(resolver)), on_matmul_(std::move(on_matmul)) {}

  zen_graph_builder* handle() { return reinterpret_cast<zen_graph_builder*>(this); }
  static Builder& from(zen_graph_builder* b) { return *reinterpret_cast<Builder*>(b); }

  Graph& graph() { return graph_; }
  // weight() / state() by name: the same handle for the same name, resolved once.
  TensorId weight(std::string_view name) { return placed(name, false); }
  TensorId state(std::string_view name) { return placed(name, true); }
  // A plugin's op: the graph's, then the matmul hook for a weight's matmul.
  TensorId op(zen_op op, std::span<const TensorId> srcs, std::span<const int32_t> params);

  std::string last_error;

 private:
  TensorId placed(std::string_view name, bool state);

  Graph& graph_;
  WeightResolver resolver_;
  MatmulHook on_matmul_;
};

// The table handed to plugins; valid for the process lifetime.
const zen_graph_api* graph_api();

}  // namespace zen::graph
