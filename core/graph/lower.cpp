#include "graph/lower.h"

#include <algorithm>

namespace zen::graph {
namespace {

zen_tensor to_c(const Tensor& t, const Location& at) {
  zen_tensor c{};
  c.op = t.op;
  c.type = t.type;
  std::copy(t.ne.begin(), t.ne.end(), c.ne);
  std::copy(t.nb.begin(), t.nb.end(), c.nb);
  std::fill(std::begin(c.src), std::end(c.src), -1);
  std::copy(t.params.begin(), t.params.end(), c.params);
  c.flags = t.flags;
  c.view_src = -1;
  c.view_offset = t.view_offset;
  c.buffer = at.buffer;
  c.offset = at.offset;
  c.data = at.data;
  c.name = t.name.empty() ? nullptr : t.name.c_str();
  return c;
}

}  // namespace

const zen_graph* Lowered::graph() const {
  graph_.h = ZEN_HDR_INIT(zen_graph);
  graph_.tensor_stride = sizeof(zen_tensor);
  graph_.n_tensors = static_cast<uint32_t>(tensors.size());
  graph_.tensors = tensors.data();
  graph_.n_nodes = static_cast<uint32_t>(nodes.size());
  graph_.nodes = nodes.data();
  return &graph_;
}

int32_t Lowered::index_of(TensorId id) const {
  auto it = std::lower_bound(ir_ids.begin(), ir_ids.end(), id);
  return it != ir_ids.end() && *it == id ? static_cast<int32_t>(it - ir_ids.begin()) : -1;
}

// Fills out.tensors from out.ir_ids (ascending), with sources remapped to lowered indices.
static void emit(const Graph& g, Lowered& out, const LocateFn& where) {
  out.tensors.reserve(out.ir_ids.size());
  for (TensorId id : out.ir_ids) {
    const Tensor& t = g.tensor(id);
    zen_tensor c = to_c(t, where(id));
    if (t.is_view()) {
      c.view_src = out.index_of(t.view_src);
      c.src[0] = c.view_src;
    } else {
      for (int i = 0; i < ZEN_MAX_SRC; ++i)
        if (t.src[i] != kNoTensor) c.src[i] = out.index_of(t.src[i]);
    }
    out.tensors.push_back(c);
  }
}

Lowered lower(const Graph& g, std::span<const TensorId> nodes, const LocateFn& where) {
  std::vector<bool> used(g.size(), false);
  auto use = [&](TensorId id) {
    used[id] = true;
    const Tensor& t = g.tensor(id);
    if (t.is_view()) used[t.view_src] = true;
  };
  for (TensorId n : nodes) {
    use(n);
    for (TensorId s : g.tensor(n).src)
      if (s != kNoTensor) use(s);
  }
  Lowered out;
  for (size_t i = 0; i < used.size(); ++i)
    if (used[i]) out.ir_ids.push_back(static_cast<TensorId>(i));
  emit(g, out, where);
  for (TensorId n : nodes) out.nodes.push_back(out.index_of(n));
  return out;
}

Lowered lower_all(const Graph& g) {
  Lowered out;
  for (size_t i = 0; i < g.size(); ++i) {
    out.ir_ids.push_back(static_cast<TensorId>(i));
    if (g.tensors()[i].computes()) out.nodes.push_back(static_cast<int32_t>(i));
  }
  emit(g, out, [](TensorId) { return Location{}; });
  return out;
}

}  // namespace zen::graph
