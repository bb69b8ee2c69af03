// Named intermediate tensors (zen_graph_api.name: "attn_norm-3") kept for a dump: before
// planning they are marked outputs, so the memory planner gives them their own bytes and the
// devices write them; after compute they are read back. How an engine is compared with a
// reference layer by layer (`zen-engine embed --dump`, tests against transformers' hidden
// states), like llama.cpp's eval callback.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/ir.h"
#include "graph/scheduler.h"

namespace zen::model {

struct KeptTensor {
  std::string name;
  std::array<int64_t, ZEN_MAX_DIMS> ne{1, 1, 1, 1};  // ne[0] innermost, as in the graph
  std::vector<float> data;                           // packed, ne[0] fastest
};

// Marks each named tensor an output; throws naming the first that the graph lacks or that is
// not a packed F32 tensor (`who` prefixes the message: the plugin's name).
void keep_tensors(graph::Graph& g, std::span<const std::string> names, const std::string& who);

// Reads the kept tensors of the last compute, in the order asked.
std::vector<KeptTensor> read_kept(const graph::Scheduler& sched,
                                  std::span<const std::string> names);

}  // namespace zen::model
