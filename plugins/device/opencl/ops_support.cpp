// supports_op: the ops, types and shapes the kernels implement (see docs/OPENCL-DEVICE.md).
#include "ops.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#include <zen/device.hpp>
#include <zen/plugin.hpp>

namespace zen_opencl {
namespace {

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16, I32 = ZEN_TYPE_I32;
constexpr uint32_t kNone = 0xffffffffu;  // an absent source's "type"
constexpr int64_t kMaxHeadDim = 256;     // ATTN_MAX_D in kernels/80_attention.cl

bool is_float(uint32_t t) { return t == F32 || t == F16; }
bool is_real(uint32_t t) { return t == F32 || t == F16 || t == BF16; }  // load_f/store_f types
bool in(uint32_t t, std::initializer_list<uint32_t> set) {
  return std::find(set.begin(), set.end(), t) != set.end();
}

uint32_t type_of(const zen_tensor* t) { return t ? t->type : kNone; }

// What shape inference guarantees (core/graph/infer.cpp), so k_conv never divides by 0.
bool conv_geom_ok(int32_t stride, int32_t pad, int32_t dilation) {
  return stride >= 1 && pad >= 0 && dilation >= 1;
}

// ZEN_OPENCL_REFUSE_OPS="9,18": op ids this device refuses. A debugging aid (moves one op
// family back to the CPU to find which kernel a wrong result comes from), and how ops_mixed
// still gets a graph split around a refused op now that this device runs every op it uses.
bool refused_by_env(uint32_t op) { return zen::op_refused_by_env("ZEN_OPENCL_REFUSE_OPS", op); }

// Attention K / V: float rows, or Q8_0 rows of whole blocks (load_elem in 00_common.cl).
bool kv_ok(const zen_tensor& t) {
  return is_real(t.type) || (t.type == ZEN_TYPE_Q8_0 && t.ne[0] % 32 == 0);
}

// Weights the matmul kernels take: float or a decoded block format whose blocks tile K.
bool weight_ok(const zen_tensor& a) {
  if (is_real(a.type)) return true;
  const int64_t bs = quant_block(a.type);
  return bs > 0 && a.ne[0] % bs == 0;
}

bool supported(const zen_graph& g, const zen_tensor& t) {
  const zen_tensor *s0 = graph_src(g, t, 0), *s1 = graph_src(g, t, 1), *s2 = graph_src(g, t, 2),
                   *s3 = graph_src(g, t, 3);
  const uint32_t d = t.type, a = type_of(s0), b = type_of(s1), c = type_of(s2);
  switch (t.op) {
    case ZEN_OP_NONE:
    case ZEN_OP_VIEW:
      return true;
    case ZEN_OP_GET_ROWS:
      return d == F32 && b == I32 &&
             (is_real(a) || (quant_block(a) && s0->ne[0] % quant_block(a) == 0));
    case ZEN_OP_MATMUL:
      return d == F32 && b == F32 && s0 && weight_ok(*s0) && s0->ne[2] > 0 && s0->ne[3] > 0 &&
             s1->ne[2] % s0->ne[2] == 0 && s1->ne[3] % s0->ne[3] == 0;
    case ZEN_OP_MATMUL_ID:
      return d == F32 && b == F32 && c == I32 && s0 && weight_ok(*s0);
    case ZEN_OP_ADD:
    case ZEN_OP_MUL:
      return d == F32 && a == F32 && b == F32;
    case ZEN_OP_SCALE:
    case ZEN_OP_SILU:
    case ZEN_OP_TANH:
    case ZEN_OP_GELU:
    case ZEN_OP_RMS_NORM:
    case ZEN_OP_LAYER_NORM:
      return is_real(d) && a == d && !s1;
    case ZEN_OP_GLU:
      return is_real(d) && a == d && b == d;
    case ZEN_OP_GROUP_NORM:
      return is_real(d) && a == d && !s1 && t.params[0] > 0 && s0->ne[2] % t.params[0] == 0;
    case ZEN_OP_CONV1D:
    case ZEN_OP_CONV_TRANSPOSE1D:
      return d == F32 && is_real(a) && is_real(b) &&
             conv_geom_ok(t.params[0], t.params[1], t.params[2]);
    case ZEN_OP_CONV2D:
      return d == F32 && is_real(a) && is_real(b) &&
             conv_geom_ok(t.params[0], t.params[2], t.params[4]) &&
             conv_geom_ok(t.params[1], t.params[3], t.params[5]);
    case ZEN_OP_UPSAMPLE:
      return d == F32 && is_real(a) && !s1 && (t.params[4] == 0 || t.params[4] == 1);
    case ZEN_OP_SOFTMAX:
      return d == F32 && is_float(a) && (!s1 || is_float(b));
    case ZEN_OP_ROPE: {
      const int32_t mode = t.params[ZEN_ROPE_MODE], n_dims = t.params[ZEN_ROPE_N_DIMS];
      return is_real(d) && a == d && b == I32 && (c == kNone || c == F32) &&
             (mode == ZEN_ROPE_NORMAL || mode == ZEN_ROPE_NEOX || mode == ZEN_ROPE_MROPE) &&
             n_dims > 0 && n_dims % 2 == 0 && n_dims <= s0->ne[0];
    }
    case ZEN_OP_ATTENTION:
      return d == F32 && is_real(a) && s1 && kv_ok(*s1) && s2 && kv_ok(*s2) &&
             (!s3 || is_float(s3->type)) && s0->ne[0] <= kMaxHeadDim && s2->ne[0] <= kMaxHeadDim &&
             s1->ne[2] > 0 && s0->ne[2] % s1->ne[2] == 0;
    case ZEN_OP_ARGSORT:
    case ZEN_OP_TOP_K:
      return d == I32 && is_real(a);
    case ZEN_OP_CPY:
      return (is_real(d) && is_real(a)) || (d == I32 && a == I32) ||
             (d == F32 && quant_block(a) && s0->ne[0] % quant_block(a) == 0);
    case ZEN_OP_SET_ROWS:
      return is_real(d) && a == d && b == F32 && c == I32;
    case ZEN_OP_CONCAT: {
      if (!in(d, {F32, F16, BF16, I32}) || t.params[0] < 0 || t.params[0] >= ZEN_MAX_DIMS)
        return false;
      for (int i = 0; i < ZEN_MAX_SRC; ++i) {
        const zen_tensor* x = graph_src(g, t, i);
        if (i == 0 && !x) return false;
        if (x && x->type != d) return false;
        if (!x) {  // sources are the leading slots, none after the first gap
          for (int j = i + 1; j < ZEN_MAX_SRC; ++j)
            if (graph_src(g, t, j)) return false;
          break;
        }
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

int64_t quant_block(uint32_t type) {
  switch (type) {
    case ZEN_TYPE_Q4_0:
    case ZEN_TYPE_Q4_1:
    case ZEN_TYPE_Q5_0:
    case ZEN_TYPE_Q5_1:
    case ZEN_TYPE_Q8_0:
    case ZEN_TYPE_IQ4_NL:
    case ZEN_TYPE_MXFP4:
      return 32;
    case ZEN_TYPE_Q2_K:
    case ZEN_TYPE_Q3_K:
    case ZEN_TYPE_IQ4_XS:
    case ZEN_TYPE_Q4_K:
    case ZEN_TYPE_Q5_K:
    case ZEN_TYPE_Q6_K:
      return 256;
    default:
      return 0;
  }
}

const zen_tensor* graph_src(const zen_graph& g, const zen_tensor& t, int i) {
  const int32_t s = t.src[i];
  return s >= 0 && static_cast<uint32_t>(s) < g.n_tensors ? zen_graph_tensor(&g, s) : nullptr;
}

bool op_supported(const zen_graph& g, int32_t node) {
  if (node < 0 || static_cast<uint32_t>(node) >= g.n_tensors) return false;
  const zen_tensor& t = *zen_graph_tensor(&g, node);
  return !refused_by_env(t.op) && supported(g, t);
}

}  // namespace zen_opencl
