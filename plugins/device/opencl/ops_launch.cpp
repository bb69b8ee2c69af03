// Each node as one kernel launch (several for concat): the argument order of every kernel in
// kernels/*.cl is spelled out here.
#include "ops.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <zen/fusion.hpp>
#include <zen/plugin.hpp>

#include "launch.h"

namespace zen_opencl {
namespace {

constexpr uint32_t F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16;

int64_t elems(const zen_tensor& t) { return t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]; }
int64_t rows(const zen_tensor& t) { return t.ne[1] * t.ne[2] * t.ne[3]; }
int32_t ti(uint32_t type) { return static_cast<int32_t>(type); }

// Activation formats of kernels/75_matmul_q8.cl (ACT_Q8, ACT_Q8K) and their block sizes.
constexpr int32_t kActQ8 = 1, kActQ8K = 2;
constexpr int64_t kActQ8Bytes = 40, kActQ8KBytes = 292;

// The K-quants, whose dot products read Q8_K activations.
bool k_quant(uint32_t t) {
  return t == ZEN_TYPE_Q2_K || t == ZEN_TYPE_Q3_K || t == ZEN_TYPE_Q4_K || t == ZEN_TYPE_Q5_K ||
         t == ZEN_TYPE_Q6_K;
}

struct QuantAct {
  cl_mem mem;         // the scratch holding every activation row of b
  int64_t row_bytes;  // bytes of one quantized row
  int32_t fmt;        // kActQ8 or kActQ8K
};

// Where the rows of b (F32) go quantized for weight a: the scratch, in the format the CPU
// pairs with a's type (plugins/device/cpu/matmul/vec_dot.cpp: Q8_K for the K-quants, Q8 blocks
// of 32 for the rest, IQ4_XS included).
QuantAct quant_place(const LaunchContext& c, const zen_tensor& a, const zen_tensor& b) {
  const bool k = k_quant(a.type);
  const int64_t row_bytes = a.ne[0] / (k ? 256 : 32) * (k ? kActQ8KBytes : kActQ8Bytes);
  return {c.scratch->get(static_cast<uint64_t>(rows(b) * row_bytes)), row_bytes,
          k ? kActQ8K : kActQ8};
}

// Quantizes every row of b into the scratch for weight a (quant_place); one launch, ordered
// before the dot products by the in-order queue, unless the scratch holds them already.
QuantAct quantize_act(const LaunchContext& c, const zen_tensor& a, const zen_tensor& b) {
  const QuantAct q = quant_place(c, a, b);
  const QuantRows& m = c.memo->held;
  if (m.valid && m.mem == q.mem && m.fmt == q.fmt && m.rows.buffer == b.buffer &&
      m.rows.offset == b.offset && zen::fusion::same_shape(m.rows, b) &&
      zen::fusion::same_layout(m.rows, b))
    return q;
  Launch l(c, "k_quantize_rows");
  size_t local = l.local_size(256);  // no more items than the row has runs of 16
  while (local > 1 && static_cast<int64_t>(local / 2) >= b.ne[0] / 16) local /= 2;
  l.tensor(&b).mem(q.mem).i64(q.row_bytes).i32(q.fmt).run_groups(rows(b), local);
  c.memo->held = {true, q.mem, q.fmt, b};
  return q;
}

// The weight of the quantized MATMUL at position pos that reads node `producer` as its
// activations, on the decode path (c.matvec: the GPU kernels), or nullptr: that producer may
// quantize its rows as it writes them (k_norm, k_glu_quant), and the memo then spares the
// matmul its k_quantize_rows.
const zen_tensor* quantizing_consumer(const LaunchContext& c, const zen_graph& g, uint32_t pos,
                                      int32_t producer) {
  if (!c.matvec || pos >= g.n_nodes || !op_supported(g, g.nodes[pos])) return nullptr;
  const zen_tensor& mm = *zen_graph_tensor(&g, g.nodes[pos]);
  const zen_tensor* a = graph_src(g, mm, 0);
  if (mm.op != ZEN_OP_MATMUL || mm.src[1] != producer || !a || !quant_block(a->type))
    return nullptr;
  return a;
}

// Whether a quantized MATMUL of n columns takes k_matvec_q8: on the GPU path, up to 8 columns
// (a few sequences' decode step) unless the tiled k_gemm_q8 is asked for from fewer.
bool takes_matvec(const LaunchContext& c, int64_t n) {
  constexpr int64_t kMatvecMaxColumns = 8;
  return c.matvec && n <= kMatvecMaxColumns &&
         (n == 1 || c.gemm_min_columns == 0 || n < c.gemm_min_columns);
}

// Whether k_matvec_q8 splits a row of this type into 32-element steps (its `split`).
bool split_type(uint32_t t) {
  return t == ZEN_TYPE_Q4_K || t == ZEN_TYPE_Q5_K || t == ZEN_TYPE_Q6_K;
}

// Weight matrices k_matvec_q8 may take in one launch: quantized, one activation format, all
// split or none.
bool matvec_together(const zen::fusion::SharedMatmuls& m, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (!quant_block(m.a[i]->type) || k_quant(m.a[i]->type) != k_quant(m.a[0]->type) ||
        split_type(m.a[i]->type) != split_type(m.a[0]->type) || m.mm[i]->ne[1] != 1 ||
        m.a[i]->ne[0] != m.a[0]->ne[0])
      return false;
  return true;
}

// Decode (one column): per_row items per output element (kernels/76_matvec_q8.cl), no more
// than the row has blocks (or 32-element steps, split), so no item is left without one, and as
// many rows per work-group as fill it. With a fused residual ADD (f) the same store writes the
// sum; with several matrices (mm, n of them) their rows go in the same launch.
void matvec(const LaunchContext& c, const zen_tensor& t, const zen_tensor& a, const QuantAct& q,
            const zen::fusion::MatmulAdd* f = nullptr,
            const zen::fusion::SharedMatmuls* mm = nullptr, uint32_t n = 1) {
  constexpr size_t kMaxLocal = 64;  // MV_MAX_LOCAL
  Launch l(c, "k_matvec_q8");
  const size_t local = l.local_size(kMaxLocal);
  const bool split = split_type(a.type) && local >= 8;
  const int64_t units = a.ne[0] / (split ? 32 : quant_block(a.type));
  size_t per_row = local;
  while (per_row > (split ? 8u : 1u) && static_cast<int64_t>(per_row / 2) >= units) per_row /= 2;
  const int64_t rows_per_group = static_cast<int64_t>(local / per_row);
  int64_t outputs = t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3];
  if (n > 1) outputs = t.ne[0] + mm->mm[1]->ne[0] + (n > 2 ? mm->mm[2]->ne[0] : 0);
  l.tensor(&t).tensor(&a).mem(q.mem).i64(q.row_bytes).i32(ti(a.type));
  l.tensor(f ? f->res : nullptr).tensor(f ? f->add : nullptr).i32(f != nullptr);
  l.i32(static_cast<int32_t>(per_row)).i32(split);
  for (uint32_t i = 1; i < 3; ++i)
    l.tensor(i < n ? mm->mm[i] : nullptr)
        .tensor(i < n ? mm->a[i] : nullptr)
        .i32(i < n ? ti(mm->a[i]->type) : 0);
  l.i32(static_cast<int32_t>(n));
  l.run_groups((outputs + rows_per_group - 1) / rows_per_group, local);
}

// The weight types kernels/77_gemm_q8.cl decodes (step_weights: every block format but Q2_K,
// Q3_K and IQ4_XS).
bool gemm_tiled_type(uint32_t t) {
  return quant_block(t) && t != ZEN_TYPE_Q2_K && t != ZEN_TYPE_Q3_K && t != ZEN_TYPE_IQ4_XS;
}

// Prefill (several columns) in 64 x 64 output tiles, a 256-item work-group each
// (kernels/77_gemm_q8.cl); false where the device cannot run such a group.
bool gemm(const LaunchContext& c, const zen_tensor& t, const zen_tensor& a, const QuantAct& q) {
  constexpr int64_t kTile = 64;   // GT_M, GT_N
  constexpr size_t kGroup = 256;  // GT_WG
  Launch l(c, "k_gemm_q8");
  if (l.local_size(kGroup) != kGroup) return false;
  const int64_t tiles = (t.ne[0] + kTile - 1) / kTile * ((t.ne[1] + kTile - 1) / kTile);
  l.tensor(&t).tensor(&a).mem(q.mem).i64(q.row_bytes).i32(ti(a.type));
  l.run_groups(tiles * t.ne[2] * t.ne[3], kGroup);
  return true;
}

// RMS_NORM / LAYER_NORM, with the MUL by its weight row when f is given (fused), and then with
// q the product's rows quantized for the matmul that reads them.
void norm(const LaunchContext& c, const zen_tensor& t, const zen_tensor& x,
          const zen::fusion::NormMul* f = nullptr, const QuantAct* q = nullptr) {
  constexpr size_t kMaxLocal = 256;  // NORM_WG
  Launch l(c, "k_norm");
  l.tensor(&t).tensor(&x).tensor(f ? f->w : nullptr).tensor(f ? f->mul : nullptr);
  l.f32(zen_param_f32(&t, 0)).i32(t.op == ZEN_OP_LAYER_NORM).i32(ti(t.type)).i32(f != nullptr);
  l.mem(q ? q->mem : c.dummy).i64(q ? q->row_bytes : 0).i32(q ? q->fmt : 0);
  size_t local = l.local_size(kMaxLocal);
  while (local > 1 && static_cast<int64_t>(local / 2) >= t.ne[0]) local /= 2;
  l.run_groups(rows(t), local);
}

// The pair index where n_rot full rotations fit into the original context (YaRN).
double yarn_corr_dim(double n_dims, double n_ctx_orig, double n_rot, double base) {
  return n_dims * std::log(n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * std::log(base));
}

// The positions, frequency factors and angle parameters of k_rope and k_norm_rope, in their
// argument order (ROPE node t, its sources s).
void rope_args(Launch& l, const zen_tensor& t, const zen_tensor* const* s) {
  const int32_t n_dims = t.params[ZEN_ROPE_N_DIMS], mode = t.params[ZEN_ROPE_MODE];
  const double base = zen_param_f32(&t, ZEN_ROPE_FREQ_BASE);
  const double freq_scale = zen_param_f32(&t, ZEN_ROPE_FREQ_SCALE);
  const double ext = zen_param_f32(&t, ZEN_ROPE_EXT_FACTOR);
  double mscale = zen_param_f32(&t, ZEN_ROPE_ATTN_FACTOR), lo = 0, hi = 0;
  if (ext != 0.0) {  // as the CPU device: the ramp bounds and magnitude in double
    const double ctx = t.params[ZEN_ROPE_CTX_ORIG], nd = n_dims;
    lo = std::max(0.0,
                  std::floor(yarn_corr_dim(nd, ctx, zen_param_f32(&t, ZEN_ROPE_BETA_FAST), base)));
    hi = std::min(nd - 1.0,
                  std::ceil(yarn_corr_dim(nd, ctx, zen_param_f32(&t, ZEN_ROPE_BETA_SLOW), base)));
    mscale *= 1.0 + 0.1 * std::log(1.0 / freq_scale);
  }
  l.tensor(s[1]).tensor(s[2]).i32(s[2] != nullptr).i32(n_dims);
  l.i32(mode == ZEN_ROPE_NEOX || mode == ZEN_ROPE_MROPE);
  l.f32(static_cast<float>(base)).f32(static_cast<float>(freq_scale));
  l.f32(static_cast<float>(ext)).f32(static_cast<float>(mscale));
  l.f32(static_cast<float>(lo)).f32(static_cast<float>(hi));
}

void rope(const LaunchContext& c, const zen_tensor& t, const zen_tensor* const* s) {
  const int32_t n_dims = t.params[ZEN_ROPE_N_DIMS];
  cl_int4 sections;
  for (int a = 0; a < 4; ++a) sections.s[a] = t.params[ZEN_ROPE_SECTION_0 + a];
  Launch l(c, "k_rope");
  l.tensor(&t).tensor(s[0]);
  rope_args(l, t, s);
  l.i32(ti(t.type)).i32(t.params[ZEN_ROPE_MODE] == ZEN_ROPE_MROPE).int4(sections);
  l.run(rows(t) * (n_dims / 2 + (t.ne[0] - n_dims)));
}

// zen/fusion.hpp norm_mul_rope: a work-group per row (head) norms, weighs and rotates it.
void norm_rope(const LaunchContext& c, const zen_graph& g, const zen::fusion::NormMulRope& f) {
  constexpr size_t kMaxLocal = 256;  // NORM_WG
  const zen_tensor& t = *f.rope;
  const zen_tensor* s[ZEN_MAX_SRC];
  for (int i = 0; i < ZEN_MAX_SRC; ++i) s[i] = graph_src(g, t, i);
  Launch l(c, "k_norm_rope");
  l.tensor(f.nm.norm).tensor(f.nm.x).tensor(f.nm.w).tensor(f.nm.mul);
  l.f32(zen_param_f32(f.nm.norm, 0)).tensor(&t);
  rope_args(l, t, s);
  size_t local = l.local_size(kMaxLocal);
  while (local > 1 && static_cast<int64_t>(local / 2) >= t.ne[0]) local /= 2;
  l.run_groups(rows(t), local);
}

// SET_ROWS t of rows r by ids; with pair, the next one (zen/fusion.hpp set_rows_pair, same ids)
// in the same launch.
void set_rows(const LaunchContext& c, const zen_tensor& t, const zen_tensor& r,
              const zen_tensor& ids, const zen_tensor* pair = nullptr,
              const zen_tensor* pair_rows = nullptr) {
  Launch l(c, "k_set_rows");
  l.mem(c.errors).tensor(&t).tensor(&r).tensor(&ids).i32(ti(t.type)).i32(pair != nullptr);
  l.tensor(pair).tensor(pair_rows).i32(pair ? ti(pair->type) : 0);
  l.run(r.ne[0] * r.ne[1] + (pair_rows ? pair_rows->ne[0] * pair_rows->ne[1] : 0));
}

// k_attention: a work-group per (query head, query, sequence); k_attention_tiled (prefill on
// GPUs): per (head, 16 queries, sequence), for head dimensions up to 128.
void attention(const LaunchContext& c, const zen_tensor& t, const zen_tensor* const* s) {
  constexpr size_t kAttentionGroup = 64;                   // ATTN_WG
  constexpr int64_t kTileQueries = 16, kTileMaxDim = 128;  // ATT_QT, ATT_TILE_D
  constexpr size_t kTileGroup = 64;                        // ATT_WG
  const zen_tensor &q = *s[0], *mask = s[3];
  const bool tiled = c.attention_min_queries > 0 && q.ne[1] >= c.attention_min_queries &&
                     q.ne[0] <= kTileMaxDim && s[2]->ne[0] <= kTileMaxDim;
  Launch l(c, tiled ? "k_attention_tiled" : "k_attention");
  int64_t groups = q.ne[1] * q.ne[2] * q.ne[3];
  if (tiled) groups = (q.ne[1] + kTileQueries - 1) / kTileQueries * q.ne[2] * q.ne[3];
  l.tensor(&t)
      .tensor(s[0])
      .tensor(s[1])
      .tensor(s[2])
      .tensor(mask)
      .i32(ti(q.type))
      .i32(ti(s[1]->type))
      .i32(ti(s[2]->type))
      .i32(mask != nullptr)
      .i32(mask ? ti(mask->type) : 0)
      .f32(zen_param_f32(&t, ZEN_ATTN_SCALE))
      .f32(zen_param_f32(&t, ZEN_ATTN_SOFTCAP))
      .i32(t.params[ZEN_ATTN_CAUSAL])
      .i32(t.params[ZEN_ATTN_WINDOW])
      .i32(t.params[ZEN_ATTN_POS0])
      .run_groups(groups, tiled ? kTileGroup : kAttentionGroup);
}

void enqueue_node(const LaunchContext& c, const zen_graph& g, int32_t node) {
  if (!op_supported(g, node))
    throw zen::Error(ZEN_ERR_UNSUPPORTED, "opencl: no kernel for node " + std::to_string(node));
  const zen_tensor& t = *zen_graph_tensor(&g, node);
  const zen_tensor* s[ZEN_MAX_SRC];
  for (int i = 0; i < ZEN_MAX_SRC; ++i) s[i] = graph_src(g, t, i);
  switch (t.op) {
    case ZEN_OP_NONE:
    case ZEN_OP_VIEW:
      return;
    case ZEN_OP_GET_ROWS:
      if (quant_block(s[0]->type)) {
        Launch(c, "k_get_rows_q")
            .mem(c.errors)
            .tensor(&t)
            .tensor(s[0])
            .tensor(s[1])
            .i32(ti(s[0]->type))
            .run(rows(t) * (t.ne[0] / quant_block(s[0]->type)));
      } else {
        Launch(c, "k_get_rows")
            .mem(c.errors)
            .tensor(&t)
            .tensor(s[0])
            .tensor(s[1])
            .i32(ti(s[0]->type))
            .run(elems(t));
      }
      return;
    case ZEN_OP_MATMUL:
      if (quant_block(s[0]->type)) {
        const QuantAct q = quantize_act(c, *s[0], *s[1]);
        if (takes_matvec(c, t.ne[1])) return matvec(c, t, *s[0], q);
        if (c.gemm_min_columns > 0 && t.ne[1] >= c.gemm_min_columns &&
            gemm_tiled_type(s[0]->type) && gemm(c, t, *s[0], q))
          return;
        Launch(c, "k_matmul_q8")
            .tensor(&t)
            .tensor(s[0])
            .mem(q.mem)
            .i64(q.row_bytes)
            .i32(ti(s[0]->type))
            .run(t.ne[0] * ((t.ne[1] + 3) / 4) * t.ne[2] * t.ne[3]);  // MM_COLS = 4
        return;
      }
      Launch(c, "k_matmul")
          .tensor(&t)
          .tensor(s[0])
          .tensor(s[1])
          .i32(ti(s[0]->type))
          .run(t.ne[0] * ((t.ne[1] + 3) / 4) * t.ne[2] * t.ne[3]);  // MM_COLS = 4
      return;
    case ZEN_OP_MATMUL_ID:
      if (quant_block(s[0]->type)) {
        const QuantAct q = quantize_act(c, *s[0], *s[1]);
        Launch(c, "k_matmul_id_q8")
            .tensor(&t)
            .tensor(s[0])
            .tensor(s[2])
            .mem(q.mem)
            .i64(q.row_bytes)
            .i64(s[1]->ne[1])
            .i32(ti(s[0]->type))
            .run(t.ne[0] * t.ne[1] * t.ne[2]);
        return;
      }
      Launch(c, "k_matmul_id")
          .tensor(&t)
          .tensor(s[0])
          .tensor(s[1])
          .tensor(s[2])
          .i32(ti(s[0]->type))
          .run(t.ne[0] * t.ne[1] * t.ne[2]);
      return;
    case ZEN_OP_ADD:
    case ZEN_OP_MUL:
      Launch(c, "k_binary")
          .tensor(&t)
          .tensor(s[0])
          .tensor(s[1])
          .i32(t.op == ZEN_OP_MUL)
          .run(elems(t));
      return;
    case ZEN_OP_SCALE:
    case ZEN_OP_SILU:
    case ZEN_OP_TANH:
    case ZEN_OP_GELU: {
      // U_SCALE 0, U_SILU 1, U_GELU_TANH 2, U_GELU_ERF 3, U_TANH 4 (kernels/20_elementwise.cl)
      const int op = t.op == ZEN_OP_SCALE  ? 0
                     : t.op == ZEN_OP_SILU ? 1
                     : t.op == ZEN_OP_TANH ? 4
                     : t.params[0] == 0    ? 2
                                           : 3;
      const bool sc = t.op == ZEN_OP_SCALE;
      Launch(c, "k_unary")
          .tensor(&t)
          .tensor(s[0])
          .i32(op)
          .f32(sc ? zen_param_f32(&t, 0) : 0.0f)
          .f32(sc ? zen_param_f32(&t, 1) : 0.0f)
          .i32(ti(t.type))
          .run(elems(t));
      return;
    }
    case ZEN_OP_GLU:
      Launch(c, "k_glu")
          .tensor(&t)
          .tensor(s[0])
          .tensor(s[1])
          .i32(t.params[0])
          .i32(ti(t.type))
          .run(elems(t));
      return;
    case ZEN_OP_RMS_NORM:
    case ZEN_OP_LAYER_NORM:
      return norm(c, t, *s[0]);
    case ZEN_OP_SOFTMAX:
      Launch(c, "k_softmax")
          .tensor(&t)
          .tensor(s[0])
          .tensor(s[1])
          .i32(ti(s[0]->type))
          .i32(s[1] != nullptr)
          .i32(s[1] ? ti(s[1]->type) : 0)
          .f32(zen_param_f32(&t, 0))
          .run(rows(t));
      return;
    case ZEN_OP_ROPE:
      return rope(c, t, s);
    case ZEN_OP_ATTENTION:
      return attention(c, t, s);
    case ZEN_OP_ARGSORT:
    case ZEN_OP_TOP_K:
      // argsort params[0]: 1 = descending; top_k is the k largest, largest first.
      Launch(c, "k_sort")
          .tensor(&t)
          .tensor(s[0])
          .i32(t.op == ZEN_OP_TOP_K ? 1 : t.params[0] == 1)
          .i32(ti(s[0]->type))
          .run(elems(*s[0]));
      return;
    case ZEN_OP_CPY:
      if (quant_block(s[0]->type)) {
        Launch(c, "k_cpy_q")
            .tensor(&t)
            .tensor(s[0])
            .i32(ti(s[0]->type))
            .run(rows(*s[0]) * (s[0]->ne[0] / quant_block(s[0]->type)));
        return;
      }
      Launch(c, "k_cpy").tensor(&t).tensor(s[0]).i32(ti(t.type)).i32(ti(s[0]->type)).run(elems(t));
      return;
    case ZEN_OP_SET_ROWS:
      return set_rows(c, t, *s[1], *s[2]);
    case ZEN_OP_CONCAT: {
      // Each source into its slice of dst (every source has dst's shape but along dim).
      const int dim = t.params[0];
      int64_t start = 0;
      for (int i = 0; i < ZEN_MAX_SRC && s[i]; ++i) {
        const cl_long st = start;
        Launch(c, "k_concat_part")
            .tensor(&t)
            .tensor(s[i])
            .i32(dim)
            .i64(st)
            .i32(t.type == F16 || t.type == BF16 ? 2 : 4)
            .run(elems(*s[i]));
        start += s[i]->ne[dim];
      }
      return;
    }
    case ZEN_OP_CONV1D:
    case ZEN_OP_CONV2D:
    case ZEN_OP_CONV_TRANSPOSE1D:
    case ZEN_OP_GROUP_NORM:
    case ZEN_OP_UPSAMPLE:
      return enqueue_image_op(c, t, s);
    default:
      throw zen::Error(ZEN_ERR_UNSUPPORTED, "opencl: no kernel for op " + std::to_string(t.op));
  }
}

// Two nodes as one kernel where zen/fusion.hpp finds a pattern this device computes fused.
uint32_t enqueue_fused(const LaunchContext& c, const zen_graph& g, uint32_t pos) {
  if (!c.fuse || pos + 1 >= g.n_nodes || !op_supported(g, g.nodes[pos]) ||
      !op_supported(g, g.nodes[pos + 1]))
    return 0;
  if (const auto f = zen::fusion::set_rows_pair(g, pos); f && c.matvec) {
    set_rows(c, *f->first, *graph_src(g, *f->first, 1), *graph_src(g, *f->first, 2), f->second,
             graph_src(g, *f->second, 1));
    return 2;
  }
  // On the GPU path, a head's norm, weight and rope in one pass (no MROPE: one position).
  if (const auto f = zen::fusion::norm_mul_rope(g, pos);
      f && c.matvec && f->nm.norm->op == ZEN_OP_RMS_NORM &&
      f->rope->params[ZEN_ROPE_MODE] != ZEN_ROPE_MROPE && op_supported(g, g.nodes[pos + 2])) {
    norm_rope(c, g, *f);
    return 3;
  }
  if (const auto f = zen::fusion::norm_mul(g, pos)) {
    std::optional<QuantAct> q;
    if (const zen_tensor* a = quantizing_consumer(c, g, pos + 2, g.nodes[pos + 1])) {
      q = quant_place(c, *a, *f->mul);
      c.memo->staged = {true, q->mem, q->fmt, *f->mul};
    }
    norm(c, *f->norm, *f->x, &*f, q ? &*q : nullptr);
    return 2;
  }
  // A GLU whose product a quantized matmul reads next: written and quantized in one launch.
  if (const zen_tensor& t = *zen_graph_tensor(&g, g.nodes[pos]);
      t.op == ZEN_OP_GLU && t.type == ZEN_TYPE_F32 && graph_src(g, t, 0)->type == ZEN_TYPE_F32 &&
      graph_src(g, t, 1)->type == ZEN_TYPE_F32) {  // k_glu_quant reads F32 only
    if (const zen_tensor* a = quantizing_consumer(c, g, pos + 1, g.nodes[pos])) {
      const QuantAct q = quant_place(c, *a, t);
      Launch l(c, "k_glu_quant");
      l.tensor(&t).tensor(graph_src(g, t, 0)).tensor(graph_src(g, t, 1)).i32(t.params[0]);
      l.mem(q.mem).i64(q.row_bytes).i32(q.fmt);
      l.run_groups(rows(t), l.local_size(256));
      c.memo->staged = {true, q.mem, q.fmt, t};
      return 1;
    }
  }
  // Decode's projections sharing their activations (q/k/v, gate/up) in one launch.
  if (const auto m = zen::fusion::shared_matmuls(g, pos); m && c.matvec) {
    uint32_t n = m->n;
    while (n > 1 && !matvec_together(*m, n)) --n;
    for (uint32_t i = 2; i < n; ++i)
      if (!op_supported(g, g.nodes[pos + i])) n = i;
    if (n > 1) {
      const QuantAct q = quantize_act(c, *m->a[0], *m->b);
      matvec(c, *m->mm[0], *m->a[0], q, nullptr, &*m, n);
      return n;
    }
  }
  if (const auto f = zen::fusion::matmul_add(g, pos);
      f && takes_matvec(c, f->mm->ne[1]) && quant_block(f->a->type)) {
    const QuantAct q = quantize_act(c, *f->a, *f->b);
    matvec(c, *f->mm, *f->a, q, &*f);
    return 2;
  }
  return 0;
}

}  // namespace

uint32_t enqueue_nodes(const LaunchContext& c, const zen_graph& g, uint32_t pos) {
  uint32_t n = enqueue_fused(c, g, pos);
  if (n == 0) {
    enqueue_node(c, g, g.nodes[pos]);
    n = 1;
  }
  for (uint32_t i = 0; i < n; ++i) c.memo->wrote(*zen_graph_tensor(&g, g.nodes[pos + i]));
  if (c.memo->staged.valid) {  // rows these nodes wrote, quantized as they were written
    c.memo->held = c.memo->staged;
    c.memo->staged.valid = false;
  }
  return n;
}

void QuantMemo::wrote(const zen_tensor& t) {
  const zen_tensor& rows = held.rows;
  if (!held.valid || t.op == ZEN_OP_NONE || t.op == ZEN_OP_VIEW || t.buffer != rows.buffer) return;
  const uint64_t size = t.type == ZEN_TYPE_F32 || t.type == ZEN_TYPE_I32 ? 4
                        : t.type == F16 || t.type == BF16                ? 2
                                                                         : 0;
  // A quantized destination (size unknown here): its whole buffer.
  if (size == 0 || (t.offset < rows.offset + zen::fusion::f32_extent(rows) &&
                    rows.offset < t.offset + zen::fusion::extent(t, size)))
    held.valid = false;
}

}  // namespace zen_opencl
