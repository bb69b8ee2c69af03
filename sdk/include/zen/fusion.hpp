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

// norm_mul (nodes pos, pos + 1), then ROPE of the product (node pos + 2) of its shape, F32:
// the per-head q / k norms of Qwen3 and Gemma 3, each followed by its rope. A pass per row
// (head) may norm, weigh and rotate it; the rotated values may take the product's or the
// norm's bytes element for element, never x's other rows' (clash).
struct NormMulRope {
  NormMul nm;
  const zen_tensor* rope;
};
inline std::optional<NormMulRope> norm_mul_rope(const zen_graph& g, uint32_t pos) {
  const auto nm = norm_mul(g, pos);
  if (!nm || pos + 2 >= g.n_nodes) return std::nullopt;
  const zen_tensor& rope = *zen_graph_tensor(&g, g.nodes[pos + 2]);
  if (rope.op != ZEN_OP_ROPE || rope.src[0] != g.nodes[pos + 1] || rope.type != ZEN_TYPE_F32 ||
      !same_shape(rope, *nm->mul) || clash(rope, *nm->x) || clash(rope, *nm->norm) ||
      clash(rope, *nm->mul))
    return std::nullopt;
  return NormMulRope{*nm, &rope};
}

// Two SET_ROWS (nodes pos, pos + 1) of F32 rows by the same ids into two different tensors: a
// layer's K and V cache writes, which one launch may do. Neither destination may share bytes
// with the other's rows or with the other destination.
struct SetRowsPair {
  const zen_tensor *first, *second;
};
inline std::optional<SetRowsPair> set_rows_pair(const zen_graph& g, uint32_t pos) {
  if (pos + 1 >= g.n_nodes) return std::nullopt;
  const zen_tensor& a = *zen_graph_tensor(&g, g.nodes[pos]);
  const zen_tensor& b = *zen_graph_tensor(&g, g.nodes[pos + 1]);
  if (a.op != ZEN_OP_SET_ROWS || b.op != ZEN_OP_SET_ROWS || a.src[2] != b.src[2])
    return std::nullopt;
  const zen_tensor* ra = source(g, a, 1);
  const zen_tensor* rb = source(g, b, 1);
  if (!ra || !rb || ra->type != ZEN_TYPE_F32 || rb->type != ZEN_TYPE_F32 ||
      ra->ne[1] != rb->ne[1] || overlap(a, b) || overlap(a, *rb) || overlap(b, *ra))
    return std::nullopt;
  return SetRowsPair{&a, &b};
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

// Two or three MATMULs (nodes pos, pos + 1, ...) of 2D weight matrices by the same F32
// activations b, F32 out: the q/k/v and gate/up projections of every block, which a device
// may compute in one launch over all their rows. No product may share bytes with b (other
// rows are still reading it) or with another product.
struct SharedMatmuls {
  uint32_t n = 0;  // how many (2 or 3)
  const zen_tensor* mm[3] = {};
  const zen_tensor* a[3] = {};
  const zen_tensor* b = nullptr;
};
inline std::optional<SharedMatmuls> shared_matmuls(const zen_graph& g, uint32_t pos) {
  SharedMatmuls r;
  int32_t b_id = -1;
  for (uint32_t i = pos; i < g.n_nodes && r.n < 3; ++i) {
    const zen_tensor& mm = *zen_graph_tensor(&g, g.nodes[i]);
    const zen_tensor* a = source(g, mm, 0);
    const zen_tensor* b = source(g, mm, 1);
    if (mm.op != ZEN_OP_MATMUL || mm.type != ZEN_TYPE_F32 || !a || !b || b->type != ZEN_TYPE_F32 ||
        a->ne[2] != 1 || a->ne[3] != 1 || (b_id >= 0 && mm.src[1] != b_id) || overlap(mm, *b))
      break;
    bool apart = true;
    for (uint32_t j = 0; j < r.n; ++j) apart = apart && !overlap(mm, *r.mm[j]);
    if (!apart) break;
    b_id = mm.src[1];
    r.mm[r.n] = &mm;
    r.a[r.n] = a;
    r.b = b;
    ++r.n;
  }
  if (r.n < 2) return std::nullopt;
  return r;
}

}  // namespace zen::fusion
