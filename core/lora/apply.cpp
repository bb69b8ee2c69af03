#include "lora/apply.h"

#include <bit>
#include <charconv>
#include <span>

#include <zen/plugin.hpp>

namespace zen::lora {
namespace {

constexpr std::string_view kPrefix = "lora.";

std::string tensor_name(size_t i, const std::string& weight, char half) {
  return std::string(kPrefix) + std::to_string(i) + "." + weight + "." + half;
}

}  // namespace

std::optional<graph::WeightInfo> resolve(const Adapters& adapters, std::string_view name) {
  if (!name.starts_with(kPrefix) || name.size() < kPrefix.size() + 4) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  size_t i = 0;
  auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), i);
  if (ec != std::errc() || i >= adapters.size() || p == name.data() + name.size() || *p != '.')
    return std::nullopt;
  name.remove_prefix(static_cast<size_t>(p - name.data()) + 1);
  const char half = name.back();
  if ((half != 'a' && half != 'b') || !name.ends_with(std::string(".") + half)) return std::nullopt;
  const auto it = adapters[i]->pairs.find(name.substr(0, name.size() - 2));
  if (it == adapters[i]->pairs.end()) return std::nullopt;
  const Pair& pair = it->second;
  graph::WeightInfo w;
  w.type = pair.type;
  w.ne =
      half == 'a' ? graph::Dims{pair.in, pair.rank, 1, 1} : graph::Dims{pair.rank, pair.out, 1, 1};
  // Read-only like a mapped weight: no kernel writes a weight.
  w.where.host = const_cast<uint8_t*>(half == 'a' ? pair.a.data() : pair.b.data());
  return w;
}

std::string scale_input(size_t i, bool outputs) {
  return (outputs ? "lora_scale_out." : "lora_scale.") + std::to_string(i);
}

graph::MatmulHook matmul_hook(const Adapters& adapters, std::vector<size_t> active,
                              int64_t n_tokens, int64_t n_outputs,
                              std::set<std::pair<size_t, std::string>>* used) {
  return [&adapters, active = std::move(active), n_tokens, n_outputs, used](
             graph::Builder& b, graph::TensorId w, graph::TensorId x, graph::TensorId y) {
    graph::Graph& g = b.graph();
    const std::string weight = g.tensor(w).name;
    for (size_t i : active) {
      const auto pair = adapters[i]->pairs.find(weight);
      if (pair == adapters[i]->pairs.end()) continue;
      const graph::Dims ne = g.tensor(x).ne;
      // n_tokens == n_outputs means every token is an output: the two scale inputs agree.
      const bool outputs = ne[1] != n_tokens;
      if (ne[2] != 1 || ne[3] != 1 || (outputs && ne[1] != n_outputs))
        throw Error(ZEN_ERR_UNSUPPORTED, "LoRA: '" + weight + "' multiplies " +
                                             graph::describe(g.tensor(x)) +
                                             ", not one column per token or per output");
      const std::string scale_name = scale_input(i, outputs);
      graph::TensorId scale = g.find(scale_name);
      if (scale == graph::kNoTensor) {
        const int64_t cols[2] = {1, ne[1]};
        scale = g.input(scale_name, ZEN_TYPE_F32, cols);
      }
      const graph::TensorId a = b.weight(tensor_name(i, weight, 'a'));
      const graph::TensorId bt = b.weight(tensor_name(i, weight, 'b'));
      // The scales go on A x [r, N], not on the [out, N] product: r is the small side.
      const graph::TensorId ax[2] = {a, x};
      graph::TensorId down = g.op(ZEN_OP_MATMUL, ax);
      const graph::TensorId ds[2] = {down, scale};
      down = g.op(ZEN_OP_MUL, ds);
      // The adapter's common fold is in the scale input (Context); a pair's own fold differs.
      if (const float own = pair->second.fold / adapters[i]->fold; own != 1.0f) {
        const int32_t params[2] = {std::bit_cast<int32_t>(own), 0};
        down = g.op(ZEN_OP_SCALE, std::span<const graph::TensorId>(&down, 1), params);
      }
      const graph::TensorId bd[2] = {bt, down};
      const graph::TensorId ys[2] = {y, g.op(ZEN_OP_MATMUL, bd)};
      y = g.op(ZEN_OP_ADD, ys);
      if (used) used->emplace(i, weight);
    }
    return y;
  };
}

void check_all_applied(const Adapters& adapters, const std::vector<size_t>& active,
                       const std::set<std::pair<size_t, std::string>>& used,
                       const std::string& plugin) {
  for (size_t i : active)
    for (const auto& [weight, pair] : adapters[i]->pairs)
      if (!used.count({i, weight}))
        throw Error(ZEN_ERR_UNSUPPORTED, "LoRA adapter '" + adapters[i]->name + "' adapts '" +
                                             weight + "', which the " + plugin +
                                             " graph does not multiply as a matrix");
}

}  // namespace zen::lora
