// Runs of graph nodes a device may compute as one kernel (fewer, fatter dispatches: a decode
// step on a GPU pays a launch per kernel). These functions check the graph's side only: the
// ops, types and shapes, and the memory plan's aliasing (the plan may give a result the bytes
// of an input that dies there). A device adds its own limits (what it supports, how far a
// binding reaches). The fused kernel must write every tensor the unfused nodes write (another
// segment or a later node may read an intermediate) and compute each value with the same float
// operations, so results are bit-identical to the unfused run.
#pragma once

#include <zen/graph.h>

#include <cstdint>
#include <optional>

namespace zen::fusion {

inline const zen_tensor* source(const zen_graph& g, const zen_tensor& t, int i) {
  const int32_t s = t.src[i];
  return s >= 0 && static_cast<uint32_t>(s) < g.n_tensors ? zen_graph_tensor(&g, s) : nullptr;
}

inline bool same_shape(const zen_tensor& a, const zen_tensor& b) {
  for (int d = 0; d < ZEN_MAX_DIMS; ++d)
    if (a.ne[d] != b.ne[d]) return false;
  return true;
}

inline bool same_layout(const zen_tensor& a, const zen_tensor& b) {
  for (int d = 0; d < ZEN_MAX_DIMS; ++d)
    if (a.nb[d] != b.nb[d]) return false;
  return true;
}

// Bytes from the first element of a tensor of elem_bytes-sized elements to one past its last.
inline uint64_t extent(const zen_tensor& t, uint64_t elem_bytes) {
  uint64_t e = elem_bytes;
  for (int d = 0; d < ZEN_MAX_DIMS; ++d)
    if (t.ne[d] > 1) e += static_cast<uint64_t>(t.ne[d] - 1) * t.nb[d];
  return e;
}
inline uint64_t f32_extent(const zen_tensor& t) { return extent(t, 4); }

// Whether two F32 tensors share bytes.
inline bool overlap(const zen_tensor& a, const zen_tensor& b) {
  return a.buffer == b.buffer && a.offset < b.offset + f32_extent(b) &&
         b.offset < a.offset + f32_extent(a);
}

// Whether two F32 tensors share bytes other than element for element (same start, same
// strides): a kernel whose every item reads its elements before writing the same ones may
// write one over the other, never shifted.
inline bool clash(const zen_tensor& a, const zen_tensor& b) {
  return overlap(a, b) && !(a.offset == b.offset && same_layout(a, b));
}

// RMS_NORM or LAYER_NORM of F32 rows x (node `pos`), then MUL(norm, w) with w one F32 row
// broadcast over them (node pos + 1): every transformer block's norm weight, and the q/k
// norms. The product may take x's or the norm's bytes element for element (a row is read
// whole, for its sum, before it is written; each element of the product is written after its
// norm element), never shifted.
struct NormMul {
  const zen_tensor *norm, *x, *w, *mul;
};
inline std::optional<NormMul> norm_mul(const zen_graph& g, uint32_t pos) {
  if (pos + 1 >= g.n_nodes) return std::nullopt;
  const int32_t norm_id = g.nodes[pos];
  const zen_tensor& norm = *zen_graph_tensor(&g, norm_id);
  const zen_tensor& mul = *zen_graph_tensor(&g, g.nodes[pos + 1]);
  if (norm.op != ZEN_OP_RMS_NORM && norm.op != ZEN_OP_LAYER_NORM) return std::nullopt;
  const zen_tensor* x = source(g, norm, 0);
  const zen_tensor* w = source(g, mul, 1);
  if (mul.op != ZEN_OP_MUL || mul.src[0] != norm_id || !x || !w || x->type != ZEN_TYPE_F32 ||
      norm.type != ZEN_TYPE_F32 || mul.type != ZEN_TYPE_F32 || w->type != ZEN_TYPE_F32 ||
      !same_shape(mul, norm) || w->ne[0] != norm.ne[0] || w->ne[1] != 1 || w->ne[2] != 1 ||
      w->ne[3] != 1 || clash(mul, *x) || clash(mul, norm))
    return std::nullopt;
  return NormMul{&norm, x, w, &mul};
}

// MATMUL of one weight matrix a by F32 activations b (node `pos`, F32 out), then
// ADD(product, residual) or ADD(residual, product) of the same shape and layout (node
// pos + 1): the attention output and FFN down projections of every block. The sum may take
// the residual's or the product's bytes element for element, never the activations' (other
// items are still reading them).
struct MatmulAdd {
  const zen_tensor *mm, *a, *b, *res, *add;
};
inline std::optional<MatmulAdd> matmul_add(const zen_graph& g, uint32_t pos) {
  if (pos + 1 >= g.n_nodes) return std::nullopt;
  const int32_t mm_id = g.nodes[pos];
  const zen_tensor& mm = *zen_graph_tensor(&g, mm_id);
  const zen_tensor& add = *zen_graph_tensor(&g, g.nodes[pos + 1]);
  if (mm.op != ZEN_OP_MATMUL || mm.type != ZEN_TYPE_F32 || add.op != ZEN_OP_ADD ||
      (add.src[0] == mm_id) == (add.src[1] == mm_id))
    return std::nullopt;
  const zen_tensor* res = source(g, add, add.src[0] == mm_id ? 1 : 0);
  const zen_tensor* a = source(g, mm, 0);
  const zen_tensor* b = source(g, mm, 1);
  if (!res || !a || !b || res->type != ZEN_TYPE_F32 || add.type != ZEN_TYPE_F32 ||
      b->type != ZEN_TYPE_F32 || !same_shape(*res, mm) || !same_shape(add, mm) || a->ne[2] != 1 ||
      a->ne[3] != 1 || !same_layout(*res, mm) || !same_layout(add, mm) || clash(add, *res) ||
      clash(add, mm) || clash(*res, mm) || overlap(add, *b))
    return std::nullopt;
  return MatmulAdd{&mm, a, b, res, &add};
}

}  // namespace zen::fusion
