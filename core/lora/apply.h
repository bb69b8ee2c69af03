// LoRA in the graph: after each matmul by an adapted weight W, the graph gets
//   y + (B_i (A_i x)) * s_i   for every adapter i active in the micro-batch,
// where s_i is a per-column graph input (each token's scale for adapter i, 0 where its
// sequence does not use it), so sequences with different adapters, or none, share a batch.
// The adapter tensors are weights named "lora.<i>.<weight>.a" / ".b" that a Context resolves
// with resolve(). Expert matrices (MATMUL_ID) and embedding lookups are not adapted.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "graph/builder.h"
#include "lora/adapter.h"

namespace zen::lora {

// The weight an adapter tensor name stands for (F32, in the adapter's memory), else nullopt.
std::optional<graph::WeightInfo> resolve(const Adapters& adapters, std::string_view name);

// Graph input of adapter i's per-column scales times its common fold (Adapter::fold): F32
// [1, n_tokens] ("lora_scale.<i>"), or [1, n_outputs] for matmuls after the output rows were
// picked ("lora_scale_out.<i>").
std::string scale_input(size_t i, bool outputs);

// The hook for a graph of n_tokens columns (n_outputs after the pick) applying adapters
// `active` (indices into adapters). Each (adapter index, weight name) it adapts goes to `used`.
graph::MatmulHook matmul_hook(const Adapters& adapters, std::vector<size_t> active,
                              int64_t n_tokens, int64_t n_outputs,
                              std::set<std::pair<size_t, std::string>>* used);

// Throws naming the first pair of an active adapter the built graph never multiplied (an
// embedding lookup, a weight this architecture does not use).
void check_all_applied(const Adapters& adapters, const std::vector<size_t>& active,
                       const std::set<std::pair<size_t, std::string>>& used,
                       const std::string& plugin);

}  // namespace zen::lora
