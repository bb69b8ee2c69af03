// Each node as one kernel launch (several for concat): the argument order of every kernel in
// kernels/*.cl is spelled out here.
#include "ops.h"

#include <cmath>
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

struct QuantAct {
  cl_mem mem;         // the scratch holding every activation row of b
  int64_t row_bytes;  // bytes of one quantized row
};

// Quantizes every row of b (F32) into the scratch in the format the CPU pairs with weight a's
// type (plugins/device/cpu/matmul/vec_dot.cpp: Q8_K for the K-quants, Q8 blocks of 32 for the
// rest, IQ4_XS included); one launch, ordered before the dot products by the in-order queue.
QuantAct quantize_act(const LaunchContext& c, const zen_tensor& a, const zen_tensor& b) {
  const uint32_t t = a.type;
  const bool k = t == ZEN_TYPE_Q2_K || t == ZEN_TYPE_Q3_K || t == ZEN_TYPE_Q4_K ||
                 t == ZEN_TYPE_Q5_K || t == ZEN_TYPE_Q6_K;
  const int64_t K = a.ne[0], bs = k ? 256 : 32;
  const int64_t row_bytes = K / bs * (k ? kActQ8KBytes : kActQ8Bytes);
  const cl_mem mem = c.scratch->get(static_cast<uint64_t>(rows(b) * row_bytes));
  const int32_t fmt = k ? kActQ8K : kActQ8;
  QuantMemo& m = *c.memo;
  if (m.valid && m.mem == mem && m.fmt == fmt && m.rows.buffer == b.buffer &&
      m.rows.offset == b.offset && zen::fusion::same_shape(m.rows, b) &&
      zen::fusion::same_layout(m.rows, b))
    return {mem, row_bytes};
  Launch(c, "k_quantize_act").tensor(&b).mem(mem).i64(row_bytes).i32(fmt).run(rows(b) * (K / bs));
  m = {true, mem, fmt, b};
  return {mem, row_bytes};
}

// Decode (one column): per_row items per output element (kernels/76_matvec_q8.cl), no more
// than the row has blocks, so no item is left without one, and as many rows per work-group as
// fill it. With a fused residual ADD (f) the same store writes the sum.
void matvec(const LaunchContext& c, const zen_tensor& t, const zen_tensor& a, const QuantAct& q,
            const zen::fusion::MatmulAdd* f = nullptr) {
  constexpr size_t kMaxLocal = 64;  // MV_MAX_LOCAL
  const int64_t nblk = a.ne[0] / quant_block(a.type);
  Launch l(c, "k_matvec_q8");
  const size_t local = l.local_size(kMaxLocal);
  size_t per_row = local;
  while (per_row > 1 && static_cast<int64_t>(per_row / 2) >= nblk) per_row /= 2;
  const int64_t rows_per_group = static_cast<int64_t>(local / per_row);
  const int64_t outputs = t.ne[0] * t.ne[2] * t.ne[3];
  l.tensor(&t).tensor(&a).mem(q.mem).i64(q.row_bytes).i32(ti(a.type));
  l.tensor(f ? f->res : nullptr).tensor(f ? f->add : nullptr).i32(f != nullptr);
  l.i32(static_cast<int32_t>(per_row));
  l.run_groups((outputs + rows_per_group - 1) / rows_per_group, local);
}

// RMS_NORM / LAYER_NORM, with the MUL by its weight row when f is given (fused).
void norm(const LaunchContext& c, const zen_tensor& t, const zen_tensor& x,
          const zen::fusion::NormMul* f = nullptr) {
  constexpr size_t kMaxLocal = 256;  // NORM_WG
  Launch l(c, "k_norm");
  l.tensor(&t).tensor(&x).tensor(f ? f->w : nullptr).tensor(f ? f->mul : nullptr);
  l.f32(zen_param_f32(&t, 0)).i32(t.op == ZEN_OP_LAYER_NORM).i32(ti(t.type)).i32(f != nullptr);
  size_t local = l.local_size(kMaxLocal);
  while (local > 1 && static_cast<int64_t>(local / 2) >= t.ne[0]) local /= 2;
  l.run_groups(rows(t), local);
}

// The pair index where n_rot full rotations fit into the original context (YaRN).
double yarn_corr_dim(double n_dims, double n_ctx_orig, double n_rot, double base) {
  return n_dims * std::log(n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * std::log(base));
}

void rope(const LaunchContext& c, const zen_tensor& t, const zen_tensor* const* s) {
  const int32_t n_dims = t.params[ZEN_ROPE_N_DIMS], mode = t.params[ZEN_ROPE_MODE];
  cl_int4 sections;
  for (int a = 0; a < 4; ++a) sections.s[a] = t.params[ZEN_ROPE_SECTION_0 + a];
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
  Launch(c, "k_rope")
      .tensor(&t)
      .tensor(s[0])
      .tensor(s[1])
      .tensor(s[2])
      .i32(s[2] != nullptr)
      .i32(n_dims)
      .i32(mode == ZEN_ROPE_NEOX || mode == ZEN_ROPE_MROPE)
      .f32(static_cast<float>(base))
      .f32(static_cast<float>(freq_scale))
      .f32(static_cast<float>(ext))
      .f32(static_cast<float>(mscale))
      .f32(static_cast<float>(lo))
      .f32(static_cast<float>(hi))
      .i32(ti(t.type))
      .i32(mode == ZEN_ROPE_MROPE)
      .int4(sections)
      .run(rows(t) * (n_dims / 2 + (t.ne[0] - n_dims)));
}

void attention(const LaunchContext& c, const zen_tensor& t, const zen_tensor* const* s) {
  constexpr size_t kAttentionGroup = 64;  // ATTN_WG
  const zen_tensor &q = *s[0], *mask = s[3];
  Launch(c, "k_attention")
      .tensor(&t)
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
      .run_groups(q.ne[1] * q.ne[2] * q.ne[3], kAttentionGroup);
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
        if (c.matvec && t.ne[1] == 1) return matvec(c, t, *s[0], q);
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
    case ZEN_OP_GELU: {
      // U_SCALE 0, U_SILU 1, U_GELU_TANH 2, U_GELU_ERF 3 (kernels/20_elementwise.cl)
      const int op = t.op == ZEN_OP_SCALE ? 0 : t.op == ZEN_OP_SILU ? 1 : t.params[0] == 0 ? 2 : 3;
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
      Launch(c, "k_set_rows")
          .mem(c.errors)
          .tensor(&t)
          .tensor(s[1])
          .tensor(s[2])
          .i32(ti(t.type))
          .run(s[1]->ne[0] * s[1]->ne[1]);
      return;
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
  if (pos + 1 >= g.n_nodes || !op_supported(g, g.nodes[pos]) || !op_supported(g, g.nodes[pos + 1]))
    return 0;
  if (const auto f = zen::fusion::norm_mul(g, pos)) {
    norm(c, *f->norm, *f->x, &*f);
    return 2;
  }
  if (const auto f = zen::fusion::matmul_add(g, pos);
      f && c.matvec && f->mm->ne[1] == 1 && quant_block(f->a->type)) {
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
  return n;
}

void QuantMemo::wrote(const zen_tensor& t) {
  if (!valid || t.op == ZEN_OP_NONE || t.op == ZEN_OP_VIEW || t.buffer != rows.buffer) return;
  const uint64_t size = t.type == ZEN_TYPE_F32 || t.type == ZEN_TYPE_I32 ? 4
                        : t.type == F16 || t.type == BF16                ? 2
                                                                         : 0;
  // A quantized destination (size unknown here): its whole buffer.
  if (size == 0 || (t.offset < rows.offset + zen::fusion::f32_extent(rows) &&
                    rows.offset < t.offset + zen::fusion::extent(t, size)))
    valid = false;
}

}  // namespace zen_opencl
