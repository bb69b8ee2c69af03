#include "vk_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <zen/fusion.hpp>

#include "vk_device.h"
#include "vk_util.h"

namespace zen_vk {
namespace {

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16, I32 = ZEN_TYPE_I32;

bool is_half(uint32_t t) { return t == F16 || t == BF16; }
bool is_float(uint32_t t) { return t == F32 || is_half(t); }

const zen_tensor* src(const zen_graph& g, const zen_tensor& t, int i) {
  const int32_t s = t.src[i];
  return s >= 0 && static_cast<uint32_t>(s) < g.n_tensors ? zen_graph_tensor(&g, s) : nullptr;
}

// Elements per block and bytes per block of the types the shaders read (0: unsupported).
struct TypeInfo {
  uint32_t block, bytes;
};
TypeInfo type_info(uint32_t t) {
  switch (t) {
    case ZEN_TYPE_F32:
      return {1, 4};
    case ZEN_TYPE_F16:
      return {1, 2};
    case ZEN_TYPE_BF16:
      return {1, 2};
    case ZEN_TYPE_I32:
      return {1, 4};
    case ZEN_TYPE_Q4_0:
      return {32, 18};
    case ZEN_TYPE_Q4_1:
      return {32, 20};
    case ZEN_TYPE_Q5_0:
      return {32, 22};
    case ZEN_TYPE_Q5_1:
      return {32, 24};
    case ZEN_TYPE_Q8_0:
      return {32, 34};
    case ZEN_TYPE_Q8_1:
      return {32, 36};
    case ZEN_TYPE_Q8_K:
      return {256, 292};
    case ZEN_TYPE_IQ4_NL:
      return {32, 18};
    case ZEN_TYPE_MXFP4:
      return {32, 17};
    case ZEN_TYPE_Q2_K:
      return {256, 84};
    case ZEN_TYPE_Q3_K:
      return {256, 110};
    case ZEN_TYPE_IQ4_XS:
      return {256, 136};
    case ZEN_TYPE_Q4_K:
      return {256, 144};
    case ZEN_TYPE_Q5_K:
      return {256, 176};
    case ZEN_TYPE_Q6_K:
      return {256, 210};
    default:
      return {0, 0};
  }
}
// Types dq32() decodes (shaders/quant.glsl).
bool decodable(uint32_t t) { return t != I32 && type_info(t).block != 0; }
// Weight types of MATMUL/MATMUL_ID (the activation formats Q8_1 and Q8_K are not).
bool weight_type(uint32_t t) { return decodable(t) && t != ZEN_TYPE_Q8_1 && t != ZEN_TYPE_Q8_K; }

// Bytes of one row (dim 0) of t.
uint64_t row_bytes(const zen_tensor& t) {
  const TypeInfo ti = type_info(t.type);
  if (ti.block > 1) return static_cast<uint64_t>(t.ne[0]) / ti.block * ti.bytes;
  return t.ne[0] > 0 ? static_cast<uint64_t>(t.ne[0] - 1) * t.nb[0] + ti.bytes : 0;
}
// Bytes from t's first element to one past its last.
uint64_t extent(const zen_tensor& t) {
  uint64_t e = row_bytes(t);
  for (int d = 1; d < ZEN_MAX_DIMS; ++d)
    if (t.ne[d] > 1) e += static_cast<uint64_t>(t.ne[d] - 1) * t.nb[d];
  return e;
}
// Rows of a whole tensor bound at once, or one or more windows of rows (2D tensors only).
bool bindable(const VulkanDevice& dev, const zen_tensor& t, bool windowable = false) {
  for (int d = 0; d < ZEN_MAX_DIMS; ++d)
    if (t.ne[d] <= 0 || t.ne[d] >= (int64_t{1} << 31) || t.nb[d] >= (uint64_t{1} << 32))
      return false;
  const uint64_t slack = 64;  // binding alignment
  if (extent(t) + slack <= dev.max_range()) return true;
  return windowable && t.ne[2] == 1 && t.ne[3] == 1 && row_bytes(t) + slack <= dev.max_range();
}
bool packed_row(const zen_tensor& t) {
  const TypeInfo ti = type_info(t.type);
  return ti.block > 1 ? t.nb[0] == ti.bytes : true;
}
bool same_shape(const zen_tensor& a, const zen_tensor& b) {
  for (int d = 0; d < ZEN_MAX_DIMS; ++d)
    if (a.ne[d] != b.ne[d]) return false;
  return true;
}
bool contiguous(const zen_tensor& t) {
  uint64_t nb = type_info(t.type).bytes;
  for (int d = 0; d < ZEN_MAX_DIMS; ++d) {
    if (t.ne[d] > 1 && t.nb[d] != nb) return false;
    nb *= static_cast<uint64_t>(t.ne[d]);
  }
  return true;
}

uint32_t u(int64_t v) { return static_cast<uint32_t>(v); }
uint32_t u(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t f(float v) { return std::bit_cast<uint32_t>(v); }

// Push constants, word by word in each shader's PC block order.
struct Push {
  std::vector<uint32_t> w;
  Push& operator<<(uint32_t v) {
    w.push_back(v);
    return *this;
  }
  Push& ne(const zen_tensor& t) {
    for (int d = 0; d < 4; ++d) w.push_back(u(t.ne[d]));
    return *this;
  }
  Push& nb(const zen_tensor& t) {
    for (int d = 0; d < 4; ++d) w.push_back(u(t.nb[d]));
    return *this;
  }
  const void* data() const { return w.data(); }
  size_t bytes() const {
    if (w.size() * 4 > kPushBytes) fail("push constants overflow");
    return w.size() * 4;
  }
};

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t nelements(const zen_tensor& t) {
  return static_cast<uint64_t>(t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]);
}
uint64_t nrows(const zen_tensor& t) { return static_cast<uint64_t>(t.ne[1] * t.ne[2] * t.ne[3]); }

// Quantized weights take int8 activations (quantize_act.comp) in blocks of 256 (Q8_K: the
// K-quants) or 32 (Q8: every other block format, IQ4_XS too), as the CPU's vec_dot pairs
// them; 0 for float weights.
uint64_t act_block(uint32_t weight_type) {
  if (type_info(weight_type).block == 1) return 0;
  return weight_type >= ZEN_TYPE_Q2_K && weight_type <= ZEN_TYPE_Q6_K ? 256 : 32;
}
// Bytes of one column's activation blocks: Q8: d, s, 32 q (40 bytes per 32); Q8_K: d, 256 q
// (260 per 256).
uint64_t act_col_bytes(const zen_tensor& a) {
  const uint64_t block = act_block(a.type), K = static_cast<uint64_t>(a.ne[0]);
  return block == 0 ? 0 : block == 256 ? K / 256 * 260 : K / 32 * 40;
}
bool act_fits(const VulkanDevice& dev, const zen_tensor& a, const zen_tensor& b) {
  return act_col_bytes(a) * static_cast<uint64_t>(b.ne[1] * b.ne[2] * b.ne[3]) <= dev.max_range();
}

// ARGSORT/TOP_K sort chunks of this many elements in shared memory (argsort.comp); longer
// rows keep each chunk's sorted indices in the scratch for argsort_merge.comp.
constexpr uint64_t kSortChunk = 1024;
uint64_t sort_chunks(const zen_tensor& a) {
  return ceil_div(static_cast<uint64_t>(a.ne[0]), kSortChunk);
}
uint64_t sort_scratch_bytes(const zen_tensor& a) {
  return nrows(a) * sort_chunks(a) * kSortChunk * 4;
}

// ---- supports ------------------------------------------------------------------------------

bool supports_node(const VulkanDevice& dev, const zen_graph& g, const zen_tensor& t) {
  const zen_tensor* s0 = src(g, t, 0);
  const zen_tensor* s1 = src(g, t, 1);
  const zen_tensor* s2 = src(g, t, 2);
  const zen_tensor* s3 = src(g, t, 3);
  auto all_bindable = [&](std::initializer_list<const zen_tensor*> ts) {
    for (const zen_tensor* x : ts)
      if (x && !bindable(dev, *x)) return false;
    return true;
  };
  switch (t.op) {
    case ZEN_OP_NONE:
    case ZEN_OP_VIEW:
      return true;
    case ZEN_OP_GET_ROWS:
      return s0 && s1 && t.type == F32 && decodable(s0->type) && packed_row(*s0) &&
             s1->type == I32 && bindable(dev, *s0, true) && all_bindable({s1, &t}) &&
             t.ne[0] == s0->ne[0];
    case ZEN_OP_MATMUL:
      return s0 && s1 && t.type == F32 && weight_type(s0->type) && packed_row(*s0) &&
             s1->type == F32 && s0->ne[0] == s1->ne[0] && s1->ne[2] % s0->ne[2] == 0 &&
             s1->ne[3] % s0->ne[3] == 0 && bindable(dev, *s0, true) && all_bindable({s1, &t}) &&
             act_fits(dev, *s0, *s1);
    case ZEN_OP_MATMUL_ID:
      return s0 && s1 && s2 && t.type == F32 && weight_type(s0->type) && packed_row(*s0) &&
             s1->type == F32 && s2->type == I32 && s0->ne[3] == 1 && t.ne[3] == 1 &&
             (s1->ne[1] == 1 || s1->ne[1] == s2->ne[0]) && all_bindable({s0, s1, s2, &t}) &&
             act_fits(dev, *s0, *s1);
    case ZEN_OP_ADD:
    case ZEN_OP_MUL:
      return s0 && s1 && t.type == F32 && s0->type == F32 && s1->type == F32 &&
             same_shape(t, *s0) && all_bindable({s0, s1, &t});
    case ZEN_OP_GLU:
      return s0 && s1 && is_float(t.type) && s0->type == t.type && s1->type == t.type &&
             same_shape(t, *s0) && same_shape(t, *s1) && t.params[0] >= 0 && t.params[0] <= 2 &&
             all_bindable({s0, s1, &t});
    case ZEN_OP_GROUP_NORM:
      if (t.params[0] <= 0 || s0 == nullptr || s0->ne[2] % t.params[0] != 0) return false;
      [[fallthrough]];
    case ZEN_OP_SCALE:
    case ZEN_OP_SILU:
    case ZEN_OP_TANH:
    case ZEN_OP_GELU:
    case ZEN_OP_RMS_NORM:
    case ZEN_OP_LAYER_NORM:
      return s0 && is_float(t.type) && s0->type == t.type && same_shape(t, *s0) &&
             all_bindable({s0, &t});
    case ZEN_OP_SOFTMAX:
      return s0 && t.type == F32 && (s0->type == F32 || s0->type == F16) && same_shape(t, *s0) &&
             (!s1 || ((s1->type == F32 || s1->type == F16) && s1->ne[0] >= t.ne[0] &&
                      s1->ne[1] >= t.ne[1])) &&
             all_bindable({s0, s1, &t});
    case ZEN_OP_ROPE: {
      const int32_t mode = t.params[ZEN_ROPE_MODE], n_dims = t.params[ZEN_ROPE_N_DIMS];
      if (mode == ZEN_ROPE_MROPE) {  // sections travel in 8 bits each
        int32_t sum = 0;
        for (int a = 0; a < 4; ++a) {
          const int32_t sec = t.params[ZEN_ROPE_SECTION_0 + a];
          if (sec < 0 || sec > 255) return false;
          sum += sec;
        }
        if (sum == 0 || !s1 || s1->ne[0] < 4 * t.ne[2]) return false;
      }
      return s0 && s1 && is_float(t.type) && s0->type == t.type && s1->type == I32 &&
             (!s2 || s2->type == F32) &&
             (mode == ZEN_ROPE_NORMAL || mode == ZEN_ROPE_NEOX || mode == ZEN_ROPE_MROPE) &&
             n_dims > 0 && n_dims % 2 == 0 && n_dims <= t.ne[0] && same_shape(t, *s0) &&
             dev.physical().float64 && all_bindable({s0, s1, s2, &t});
    }
    case ZEN_OP_ATTENTION: {
      if (!s0 || !s1 || !s2 || t.type != F32 || !is_float(s0->type) ||
          s0->nb[0] != type_info(s0->type).bytes)
        return false;
      // Broadcast dims travel in 8 bits each (push constants are 128 bytes). Q8_0 K/V rows
      // are packed blocks.
      for (const zen_tensor* kv : {s1, s2})
        if (!(is_float(kv->type) ||
              (kv->type == ZEN_TYPE_Q8_0 && packed_row(*kv) && kv->ne[0] % 32 == 0)) ||
            kv->ne[3] >= 256)
          return false;
      if (s3 && ((s3->type != F32 && s3->type != F16) || s3->nb[0] != type_info(s3->type).bytes ||
                 s3->ne[2] >= 256 || s3->ne[3] >= 256))
        return false;
      const int64_t D = s0->ne[0], Dv = s2->ne[0], Hq = s0->ne[2], Hkv = s1->ne[2];
      return D <= 256 && Dv <= 256 && s1->ne[0] == D && Hkv > 0 && Hq % Hkv == 0 && contiguous(t) &&
             t.ne[0] == Dv && all_bindable({s0, s1, s2, s3, &t});
    }
    case ZEN_OP_CPY:
      if (s0 && type_info(s0->type).block > 1)  // block formats dequantized to F32
        return t.type == F32 && same_shape(t, *s0) && packed_row(*s0) && bindable(dev, *s0, true) &&
               bindable(dev, t);
      return s0 && same_shape(t, *s0) &&
             ((is_float(t.type) && is_float(s0->type)) || (t.type == I32 && s0->type == I32)) &&
             all_bindable({s0, &t});
    case ZEN_OP_SET_ROWS:
      // Writes in place into its destination (a KV cache): the scheduler keeps such state on
      // one device, in a persistent device copy when the device is not host-visible.
      return s0 && s1 && s2 && is_float(t.type) && s1->type == F32 && s2->type == I32 &&
             s1->ne[2] == 1 && s1->ne[3] == 1 && s1->ne[0] == t.ne[0] && all_bindable({s1, s2, &t});
    case ZEN_OP_CONCAT: {
      const int32_t dim = t.params[0];
      if (dim < 0 || dim >= ZEN_MAX_DIMS || !(is_float(t.type) || t.type == I32)) return false;
      for (int i = 0; i < ZEN_MAX_SRC; ++i)
        if (const zen_tensor* s = src(g, t, i); s && (s->type != t.type || !bindable(dev, *s)))
          return false;
      return s0 && bindable(dev, t);
    }
    case ZEN_OP_CONV1D:
    case ZEN_OP_CONV2D:
    case ZEN_OP_CONV_TRANSPOSE1D: {
      const bool two = t.op == ZEN_OP_CONV2D;
      for (int i = 0; i < (two ? 6 : 3); ++i) {  // strides and dilations positive, pads >= 0
        const bool pad = two ? (i == 2 || i == 3) : i == 1;
        if (t.params[i] < (pad ? 0 : 1)) return false;
      }
      return s0 && s1 && t.type == F32 && is_float(s0->type) && is_float(s1->type) &&
             contiguous(t) && all_bindable({s0, s1, &t});
    }
    case ZEN_OP_UPSAMPLE:
      return s0 && t.type == F32 && is_float(s0->type) && (t.params[4] == 0 || t.params[4] == 1) &&
             all_bindable({s0, &t});
    case ZEN_OP_ARGSORT:
    case ZEN_OP_TOP_K:
      return s0 && t.type == I32 && is_float(s0->type) && t.ne[0] <= s0->ne[0] &&
             (static_cast<uint64_t>(s0->ne[0]) <= kSortChunk ||
              sort_scratch_bytes(*s0) <= dev.max_range()) &&
             all_bindable({s0, &t});
    default:
      return false;
  }
}

// ---- recorders -----------------------------------------------------------------------------

// GET_ROWS, or (ids null) CPY of a block-format tensor to F32: row n of t is row n of table.
void rec_get_rows(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& table,
                  const zen_tensor* ids) {
  const uint64_t R = static_cast<uint64_t>(table.ne[1]);
  const uint64_t rows_per =
      table.ne[2] == 1 && table.ne[3] == 1 && table.ne[1] > 1
          ? std::max<uint64_t>(1, (dev.max_range() - 64 - row_bytes(table)) / table.nb[1] + 1)
          : R;
  const Binding bd = dev.bind(t, extent(t));
  const Binding bi = ids ? dev.bind(*ids, extent(*ids)) : bd;
  const uint64_t chunks = ceil_div(static_cast<uint64_t>(t.ne[0]), 32);
  for (uint64_t r0 = 0; r0 < R; r0 += rows_per) {
    const uint64_t rw = std::min(rows_per, R - r0);
    const Binding bt =
        dev.bind(table, rw == R ? extent(table) : (rw - 1) * table.nb[1] + row_bytes(table),
                 r0 * table.nb[1]);
    Push p;
    p << bt.residual << bi.residual << bd.residual << table.type;
    p.ne(t).nb(table);
    if (ids)
      p << u(ids->nb[0]) << u(ids->nb[1]) << u(ids->nb[2]);
    else
      p << 0u << 0u << 0u;
    p << u(R);
    p.nb(t) << u(r0) << u(rw) << (ids ? 0u : 1u);
    dev.dispatch(Shader::kGetRows, {bt, bi, bd, dev.status_binding()}, p.data(), p.bytes(),
                 ceil_div(chunks * nrows(t), 64));
  }
}

// The ADD of a residual fused into a MATMUL's store (matmul_pc.glsl, store_dst): the
// residual and the sum, bound together as binding 5 (they share the arena), at byte offsets
// res_at and sum_at of it.
struct FusedAdd {
  Binding span;
  uint32_t res_at = 0, sum_at = 0;
};

void rec_matmul(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& a, const zen_tensor& b,
                const zen_tensor* ids, const FusedAdd* add = nullptr) {
  constexpr uint64_t kCols = 8;  // columns per workgroup (NC in matmul.comp)
  const bool id_mode = ids != nullptr;
  const uint64_t M = static_cast<uint64_t>(a.ne[1]);
  const uint64_t rows_per =
      !id_mode && a.ne[2] == 1 && a.ne[3] == 1 && M > 1
          ? std::max<uint64_t>(1, (dev.max_range() - 64 - row_bytes(a)) / a.nb[1] + 1)
          : M;
  const Binding bb = dev.bind(b, extent(b)), bd = dev.bind(t, extent(t));
  const Binding bi = id_mode ? dev.bind(*ids, extent(*ids)) : bd;
  // Quantized weights: b's columns quantized once into the scratch, as the CPU does.
  const uint64_t col_bytes = act_col_bytes(a), cols = nrows(b);
  // The formats of QFORMATS_EXT have their own pipeline (shaders/quant.glsl says why).
  const bool ext = a.type == ZEN_TYPE_Q2_K || a.type == ZEN_TYPE_Q3_K ||
                   a.type == ZEN_TYPE_IQ4_NL || a.type == ZEN_TYPE_IQ4_XS ||
                   a.type == ZEN_TYPE_MXFP4;
  Binding bq = bd;
  if (col_bytes) {
    const uint32_t qk = u(act_block(a.type));
    // The same activations quantized the same way just before (q/k/v, gate/up) are reused.
    std::vector<uint64_t> key = {reinterpret_cast<uint64_t>(bb.buffer), bb.lo, bb.hi, qk};
    for (int d = 0; d < ZEN_MAX_DIMS; ++d) key.insert(key.end(), {u(b.ne[d]), b.nb[d]});
    const auto [scratch, held] = dev.quantized_scratch(key, col_bytes * cols);
    bq = scratch;
    if (!held) {
      Push p;
      p << bb.residual;
      p.nb(b) << u(b.ne[1]) << u(b.ne[2]) << u(b.ne[3]) << u(a.ne[0]) << qk;
      dev.dispatch(Shader::kQuantizeAct, {bb, bq}, p.data(), p.bytes(),
                   ceil_div(static_cast<uint64_t>(a.ne[0]) / qk * cols, 64));
      dev.remember_quantized(bb, std::move(key));
    }
  }
  // Decode on a GPU: a subgroup per row (matvec.comp); at most 2 columns, as each reads the
  // weights again (batched decode wants a multi-column subgroup kernel: not written yet).
  const bool matvec = dev.matvec_rows() > 0 && (id_mode || t.ne[1] <= 2);
  // Prefill on a GPU: 64 x 64 tiles through shared memory (matmul_tiled.comp).
  const bool tiled = dev.tiled_gemm() && !id_mode && col_bytes && t.ne[1] >= 16;
  for (uint64_t m0 = 0; m0 < M; m0 += rows_per) {
    const uint64_t mw = std::min(rows_per, M - m0);
    const Binding ba =
        dev.bind(a, mw == M ? extent(a) : (mw - 1) * a.nb[1] + row_bytes(a), m0 * a.nb[1]);
    Push p;
    p << ba.residual << bb.residual << bd.residual << bi.residual;
    p.ne(t).nb(t);
    p << u(type_info(a.type).block == 1 ? a.nb[0] : 0) << u(a.nb[1]) << u(a.nb[2]) << u(a.nb[3]);
    p << u(a.ne[0]) << u(a.ne[2]) << u(a.ne[3]) << u(a.ne[2]);
    p.nb(b);
    p << a.type << u(m0) << u(mw) << (id_mode ? 1u : 0u);
    // The fused ADD's span is binding 5 (absent otherwise: the scratch is not written here).
    auto run = [&](Shader s, uint64_t groups) {
      if (add)
        dev.dispatch(s, {ba, bb, bd, bi, bq, add->span}, p.data(), p.bytes(), groups);
      else
        dev.dispatch(s, {ba, bb, bd, bi, bq}, p.data(), p.bytes(), groups);
    };
    if (add)
      p << add->res_at << add->sum_at << u(b.ne[1]) << 1u;
    else
      p << (id_mode ? u(ids->nb[0]) : 0u) << (id_mode ? u(ids->nb[1]) : 0u) << u(b.ne[1]) << 0u;
    if (tiled) {  // one workgroup per (64-row tile, 64-column tile, batch)
      run(Shader::kMatmulTiled, ceil_div(mw, 64) * ceil_div(static_cast<uint64_t>(t.ne[1]), 64) *
                                    static_cast<uint64_t>(t.ne[2] * t.ne[3]));
      continue;
    }
    if (matvec) {  // one workgroup per (matvec_rows() rows, column or slot, batch)
      const uint64_t slots = static_cast<uint64_t>(t.ne[1] * t.ne[2] * (id_mode ? 1 : t.ne[3]));
      run(Shader::kMatvec, ceil_div(mw, dev.matvec_rows()) * slots);
      continue;
    }
    // Workgroups: one per (64-row tile, column group or slot, batch).
    uint64_t items = ceil_div(mw, 64);
    if (id_mode)
      items *= static_cast<uint64_t>(t.ne[1] * t.ne[2]);
    else
      items *= ceil_div(static_cast<uint64_t>(t.ne[1]), kCols) *
               static_cast<uint64_t>(t.ne[2] * t.ne[3]);
    run(ext ? Shader::kMatmulExt : Shader::kMatmul, items);
  }
}

void rec_binary(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& a, const zen_tensor& b,
                uint32_t op) {
  const Binding ba = dev.bind(a, extent(a)), bb = dev.bind(b, extent(b)),
                bd = dev.bind(t, extent(t));
  Push p;
  p << ba.residual << bb.residual << bd.residual << op;
  p.ne(t).nb(a).ne(b).nb(b).nb(t) << t.type;
  dev.dispatch(Shader::kBinary, {ba, bb, bd}, p.data(), p.bytes(), ceil_div(nelements(t), 256));
}

void rec_unary(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& a, uint32_t op, float s,
               float bias) {
  const Binding ba = dev.bind(a, extent(a)), bd = dev.bind(t, extent(t));
  Push p;
  p << ba.residual << bd.residual << op << f(s) << f(bias);
  p.ne(t).nb(a).nb(t) << t.type;
  dev.dispatch(Shader::kUnary, {ba, bd}, p.data(), p.bytes(), ceil_div(nelements(t), 256));
}

// RMS_NORM (mode 0), LAYER_NORM (1), GROUP_NORM (2): one workgroup per normalized set.
void rec_norm(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& a, uint32_t mode) {
  const Binding ba = dev.bind(a, extent(a)), bd = dev.bind(t, extent(t));
  const uint32_t groups = mode == 2 ? u(int64_t{t.params[0]}) : 0u;
  Push p;
  p << ba.residual << bd.residual << f(zen_param_f32(&t, mode == 2 ? 1 : 0));
  p.ne(t).nb(a).nb(t) << t.type << mode << groups;
  p << 0u << 0u << 0u << 0u << 0u << 0u << 0u << 0u;  // no fused MUL (rec_norm_mul)
  dev.dispatch(Shader::kRmsNorm, {ba, bd}, p.data(), p.bytes(),
               mode == 2 ? groups * static_cast<uint64_t>(t.ne[3]) : nrows(t));
}

void rec_softmax(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& a,
                 const zen_tensor* mask) {
  const Binding ba = dev.bind(a, extent(a)), bd = dev.bind(t, extent(t));
  const Binding bm = mask ? dev.bind(*mask, extent(*mask)) : ba;
  Push p;
  p << ba.residual << bm.residual << bd.residual
    << ((mask ? (mask->type == F32 ? 1u : 2u) : 0u) | (a.type == F16 ? 16u : 0u));
  p << f(zen_param_f32(&t, 0));
  p.ne(t).nb(a);
  p << (mask ? u(mask->ne[2]) : 1u) << (mask ? u(mask->ne[3]) : 1u);
  if (mask)
    p.nb(*mask);
  else
    p << 0u << 0u << 0u << 0u;
  p.nb(t);
  dev.dispatch(Shader::kSoftmax, {ba, bm, bd}, p.data(), p.bytes(), nrows(t));
}

double yarn_corr_dim(double n_dims, double n_ctx_orig, double n_rot, double base) {
  return n_dims * std::log(n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * std::log(base));
}

void rec_rope(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& x, const zen_tensor& pos,
              const zen_tensor* ff) {
  const int64_t n_dims = t.params[ZEN_ROPE_N_DIMS];
  const double base = zen_param_f32(&t, ZEN_ROPE_FREQ_BASE);
  const float freq_scale = zen_param_f32(&t, ZEN_ROPE_FREQ_SCALE);
  const float ext = zen_param_f32(&t, ZEN_ROPE_EXT_FACTOR);
  double mscale = zen_param_f32(&t, ZEN_ROPE_ATTN_FACTOR), lo = 0.0, hi = 0.0;
  if (ext != 0.0f) {  // as the CPU device (kernels_rope.cpp)
    const double ctx = t.params[ZEN_ROPE_CTX_ORIG], nd = static_cast<double>(n_dims);
    lo = std::max(0.0,
                  std::floor(yarn_corr_dim(nd, ctx, zen_param_f32(&t, ZEN_ROPE_BETA_FAST), base)));
    hi = std::min(nd - 1.0,
                  std::ceil(yarn_corr_dim(nd, ctx, zen_param_f32(&t, ZEN_ROPE_BETA_SLOW), base)));
    mscale *= 1.0 + 0.1 * std::log(1.0 / freq_scale);
  }
  const double r = std::pow(base, -2.0 / static_cast<double>(n_dims));
  const uint64_t rbits = std::bit_cast<uint64_t>(r);
  const Binding bx = dev.bind(x, extent(x)), bp = dev.bind(pos, extent(pos)),
                bd = dev.bind(t, extent(t));
  const Binding bf = ff ? dev.bind(*ff, extent(*ff)) : bp;
  Push p;
  p << bx.residual << bp.residual << bf.residual << bd.residual;
  p.ne(t).nb(x).nb(t);
  const int32_t mode = t.params[ZEN_ROPE_MODE];
  const bool multi = mode == ZEN_ROPE_MROPE;
  p << u(n_dims)
    << ((mode == ZEN_ROPE_NEOX || multi ? 1u : 0u) | (ff ? 2u : 0u) | (multi ? 4u : 0u));
  p << static_cast<uint32_t>(rbits) << static_cast<uint32_t>(rbits >> 32);
  p << f(freq_scale) << f(ext) << f(static_cast<float>(lo)) << f(static_cast<float>(hi))
    << f(static_cast<float>(mscale));
  p << u(pos.nb[0]) << (ff ? u(ff->nb[0]) : 0u) << t.type;
  uint32_t sections = 0;
  for (int a = 0; multi && a < 4; ++a)
    sections |= static_cast<uint32_t>(t.params[ZEN_ROPE_SECTION_0 + a]) << (8 * a);
  p << sections;
  const uint64_t per_row = static_cast<uint64_t>(n_dims / 2 + (t.ne[0] - n_dims));
  dev.dispatch(Shader::kRope, {bx, bp, bf, bd}, p.data(), p.bytes(),
               ceil_div(per_row * nrows(t), 64));
}

// Split-K attention (attention_sg.comp with a part length, then attention_merge.comp): keys
// per part, 0 for no split. A decode step has few jobs (groups of up to 4 query heads sharing
// a kv head, times queries and sequences: 8 for a Qwen3-0.6B token), far fewer subgroups than
// a GPU keeps in flight, and each job walks the whole KV. So a long KV is split until there
// are about kJobsPerUnit subgroups per compute unit (kDefaultUnits when the driver does not
// say), in parts of at least kMinPart keys (each part costs the merge one more read of Dv + 2
// floats per row), at most kMaxParts. Prefill has jobs enough and is not split. Forced
// (ZEN_VULKAN_ATTENTION=split): parts of 32 keys (at most kMaxParts), so that the op tests'
// short caches split too. Part lengths are multiples of 32; the last part may be shorter.
uint32_t attention_part(const VulkanDevice& dev, uint64_t jobs, uint64_t L, uint64_t rows,
                        uint64_t Dv) {
  constexpr uint64_t kMinPart = 128, kMaxParts = 64, kJobsPerUnit = 8, kDefaultUnits = 64;
  using Split = VulkanDevice::AttentionSplit;
  uint64_t parts = 1;
  if (dev.attention_split() == Split::kAlways) {
    parts = ceil_div(L, 32);
  } else if (dev.attention_split() == Split::kAuto) {
    const uint64_t units = dev.compute_units() ? dev.compute_units() : kDefaultUnits;
    parts = std::min(ceil_div(units * kJobsPerUnit, jobs), L / kMinPart);
  }
  parts = std::min(parts, kMaxParts);
  if (parts <= 1) return 0;
  uint64_t part = ceil_div(ceil_div(L, parts), 32) * 32;
  // The scratch holds (m, l, Dv outputs) per part and row: fewer parts where that is large.
  const uint64_t cap = std::min<uint64_t>(64ull << 20, dev.max_range());
  while (part < L && ceil_div(L, part) * rows * (Dv + 2) * 4 > cap) part *= 2;
  return part < L ? static_cast<uint32_t>(part) : 0;
}

void rec_attention(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& q, const zen_tensor& k,
                   const zen_tensor& v, const zen_tensor* mask) {
  const Binding bq = dev.bind(q, extent(q)), bk = dev.bind(k, extent(k)),
                bv = dev.bind(v, extent(v)), bd = dev.bind(t, extent(t));
  const Binding bm = mask ? dev.bind(*mask, extent(*mask)) : bq;
  const uint32_t mtype = mask ? (mask->type == F32 ? 1u : 2u) : 0u;
  auto code = [](uint32_t t) {
    return t == F16 ? 1u : (t == BF16 ? 2u : (t == ZEN_TYPE_Q8_0 ? 3u : 0u));
  };
  const uint32_t flags = code(k.type) | (code(v.type) << 2) | (mtype << 4) |
                         (t.params[ZEN_ATTN_CAUSAL] != 0 ? 64u : 0u) | (code(q.type) << 7);
  const uint64_t T = q.ne[1], Hq = q.ne[2], S = q.ne[3], L = k.ne[1], Hkv = k.ne[2], Dv = v.ne[0],
                 rows = Hq * T * S;
  // attention_sg.comp: one subgroup per (part, group of up to 4 query heads of a kv head, t, s).
  const bool sg = dev.attention_subgroup();
  const uint64_t jobs = ceil_div(Hq / Hkv, 4) * Hkv * T * S;
  const uint32_t part = sg ? attention_part(dev, jobs, L, rows, Dv) : 0;
  const uint64_t parts = part ? ceil_div(L, part) : 1;
  const Binding out = part ? dev.scratch(parts * rows * (Dv + 2) * 4) : bd;

  Push p;
  p << bq.residual << bk.residual << bv.residual << bm.residual << out.residual;
  p << (u(q.ne[0]) | u(v.ne[0]) << 16) << u(T) << u(Hq) << u(S) << u(L) << u(Hkv);
  p << u(q.nb[1]) << u(q.nb[2]) << u(q.nb[3]);
  p << u(k.nb[1]) << u(k.nb[2]) << u(k.nb[3]);
  p << u(v.nb[1]) << u(v.nb[2]) << u(v.nb[3]);
  if (mask)
    p << u(mask->nb[1]) << u(mask->nb[2]) << u(mask->nb[3]);
  else
    p << 0u << 0u << 0u;
  const uint32_t m2 = mask ? u(mask->ne[2]) : 1u, m3 = mask ? u(mask->ne[3]) : 1u;
  p << (u(k.ne[3]) | (u(v.ne[3]) << 8) | (m2 << 16) | (m3 << 24));
  p << u(k.nb[0]) << u(v.nb[0]);
  p << f(zen_param_f32(&t, ZEN_ATTN_SCALE)) << f(zen_param_f32(&t, ZEN_ATTN_SOFTCAP)) << flags;
  p << static_cast<uint32_t>(t.params[ZEN_ATTN_WINDOW])
    << static_cast<uint32_t>(t.params[ZEN_ATTN_POS0]) << part;
  if (!sg) {
    dev.dispatch(Shader::kAttention, {bq, bk, bv, bm, bd}, p.data(), p.bytes(), rows);
    return;
  }
  const uint64_t per_group = 64 / dev.physical().subgroup_size;  // subgroups per workgroup
  dev.dispatch(Shader::kAttentionSg, {bq, bk, bv, bm, out}, p.data(), p.bytes(),
               ceil_div(jobs * parts, per_group));
  if (!part) return;
  Push pm;
  pm << out.residual << bd.residual << u(Dv) << u(rows) << u(parts);
  dev.dispatch(Shader::kAttentionMerge, {out, bd}, pm.data(), pm.bytes(), rows);
}

// CONV1D, CONV2D, CONV_TRANSPOSE1D (conv.comp): each tensor's dims mapped onto the 2D
// convolution's (x, y, channel, outer); a 1D op has no y.
void rec_conv(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& k, const zen_tensor& x) {
  const bool two = t.op == ZEN_OP_CONV2D, transpose = t.op == ZEN_OP_CONV_TRANSPOSE1D;
  const Binding bk = dev.bind(k, extent(k)), bx = dev.bind(x, extent(x)),
                bd = dev.bind(t, extent(t));
  const int c = two ? 2 : 1;  // channel dim of kernel and input
  const uint64_t knb_ic = transpose ? k.nb[2] : k.nb[c], knb_oc = transpose ? k.nb[1] : k.nb[c + 1];
  const int32_t* pr = t.params;
  Push p;
  p << bk.residual << bx.residual << bd.residual
    << (k.type | (x.type << 8) | (transpose ? 1u << 16 : 0u));
  p << u(k.ne[0]) << (two ? u(k.ne[1]) : 1u) << u(transpose ? k.ne[2] : k.ne[c]) << u(x.ne[0]);
  p << u(k.nb[0]) << (two ? u(k.nb[1]) : 0u) << u(knb_ic) << u(knb_oc);
  p << (two ? u(x.ne[1]) : 1u) << u(x.nb[0]) << (two ? u(x.nb[1]) : 0u) << u(x.nb[c]);
  p << u(x.nb[c + 1]) << u(t.ne[0]) << (two ? u(t.ne[1]) : 1u) << u(t.ne[c]);
  p << u(t.ne[c + 1]);
  if (two)
    for (int i = 0; i < 6; ++i) p << static_cast<uint32_t>(pr[i]);
  else
    p << static_cast<uint32_t>(pr[0]) << 1u << static_cast<uint32_t>(pr[1]) << 0u
      << static_cast<uint32_t>(pr[2]) << 1u;
  dev.dispatch(Shader::kConv, {bk, bx, bd}, p.data(), p.bytes(), ceil_div(nelements(t), 64));
}

void rec_upsample(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& a) {
  const Binding ba = dev.bind(a, extent(a)), bd = dev.bind(t, extent(t));
  Push p;
  p << ba.residual << bd.residual << a.type << static_cast<uint32_t>(t.params[4]);
  p.ne(a).nb(a).ne(t).nb(t);
  dev.dispatch(Shader::kUpsample, {ba, bd}, p.data(), p.bytes(), ceil_div(nelements(t), 64));
}

// Copies src (shape `shape`'s ne) into dst at byte offset rel, converting types.
void rec_copy(VulkanDevice& dev, const zen_tensor& dst, uint64_t rel, const zen_tensor& s) {
  const Binding bs = dev.bind(s, extent(s));
  zen_tensor view = dst;  // dst strides over the source's shape
  for (int d = 0; d < ZEN_MAX_DIMS; ++d) view.ne[d] = s.ne[d];
  const Binding bd = dev.bind(dst, extent(view), rel);
  Push p;
  p << bs.residual << bd.residual << s.type << dst.type;
  p.ne(s).nb(s).nb(dst);
  dev.dispatch(Shader::kCopy, {bs, bd}, p.data(), p.bytes(), ceil_div(nelements(s), 256));
}

void rec_set_rows(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& rows,
                  const zen_tensor& ids) {
  const Binding bs = dev.bind(rows, extent(rows)), bi = dev.bind(ids, extent(ids)),
                bd = dev.bind(t, extent(t));
  Push p;
  p << bs.residual << bi.residual << bd.residual << t.type;
  p << u(rows.ne[0]) << u(rows.ne[1]) << u(t.ne[1]) << u(ids.nb[0]);
  p << u(rows.nb[0]) << u(rows.nb[1]) << u(t.nb[0]) << u(t.nb[1]);
  dev.dispatch(Shader::kSetRows, {bs, bi, bd, dev.status_binding()}, p.data(), p.bytes(),
               ceil_div(static_cast<uint64_t>(rows.ne[0] * rows.ne[1]), 256));
}

void rec_sort(VulkanDevice& dev, const zen_tensor& t, const zen_tensor& a, bool desc) {
  const Binding ba = dev.bind(a, extent(a)), bd = dev.bind(t, extent(t));
  const uint64_t nch = sort_chunks(a);
  // Rows of one chunk are sorted straight into dst; longer ones chunk by chunk into the
  // scratch (rows of nch * kSortChunk indices), then merged by rank.
  const Binding bs = nch > 1 ? dev.scratch(sort_scratch_bytes(a)) : bd;
  uint32_t P = 1;
  while (P < static_cast<uint32_t>(std::min<uint64_t>(a.ne[0], kSortChunk))) P <<= 1;
  const uint64_t sw = nch * kSortChunk * 4;  // scratch bytes per row
  Push p;
  p << ba.residual << bs.residual << a.type << (desc ? 1u : 0u);
  p.ne(a).nb(a);
  if (nch > 1)
    p << 4u << u(sw) << u(sw * static_cast<uint64_t>(a.ne[1]))
      << u(sw * static_cast<uint64_t>(a.ne[1] * a.ne[2]));
  else
    p.nb(t);
  p << P << (nch > 1 ? u(kSortChunk) : u(t.ne[0])) << u(nch);
  dev.dispatch(Shader::kArgsort, {ba, bs}, p.data(), p.bytes(), nrows(a) * nch);
  if (nch == 1) return;
  Push m;
  m << ba.residual << bs.residual << bd.residual << a.type;
  m.ne(a).nb(a).nb(t);
  m << (desc ? 1u : 0u) << u(t.ne[0]) << u(nch);
  dev.dispatch(Shader::kArgsortMerge, {ba, bs, bd}, m.data(), m.bytes(),
               ceil_div(nelements(a), 64));
}

// ZEN_VULKAN_REFUSE_OPS="2,12": op ids this device refuses (a debugging aid: moves ops back
// to the CPU one family at a time to find which shader a wrong result comes from).
bool refused_by_env(uint32_t op) { return zen::op_refused_by_env("ZEN_VULKAN_REFUSE_OPS", op); }

}  // namespace

bool supports(const VulkanDevice& dev, const zen_graph& g, int32_t node) {
  if (node < 0 || static_cast<uint32_t>(node) >= g.n_tensors) return false;
  const zen_tensor& t = *zen_graph_tensor(&g, node);
  if (refused_by_env(t.op)) return false;
  if (t.op != ZEN_OP_NONE && t.op != ZEN_OP_VIEW && !bindable(dev, t, false)) return false;
  return supports_node(dev, g, t);
}

namespace {

// ---- fusion ----------------------------------------------------------------------------------
// A fused kernel writes every tensor the unfused nodes would (another segment or a later node
// may read the intermediate) and computes each value with the same float operations; it only
// saves the dispatch, and the barrier, between them: results are bit-identical to unfused.

// A norm and its weight's MUL (zen/fusion.hpp norm_mul): rms_norm.comp writes both.
bool rec_norm_mul(VulkanDevice& dev, const zen_graph& g, uint32_t pos) {
  const auto m = zen::fusion::norm_mul(g, pos);
  if (!m || !supports_node(dev, g, *m->norm) || !supports_node(dev, g, *m->mul)) return false;
  const zen_tensor &norm = *m->norm, &x = *m->x, &w = *m->w, &mul = *m->mul;
  const uint32_t mode = norm.op == ZEN_OP_RMS_NORM ? 0u : 1u;
  const Binding ba = dev.bind(x, extent(x)), bd = dev.bind(norm, extent(norm)),
                bw = dev.bind(w, extent(w)), bp = dev.bind(mul, extent(mul));
  Push p;
  p << ba.residual << bd.residual << f(zen_param_f32(&norm, 0));
  p.ne(norm).nb(x).nb(norm) << norm.type << mode << 0u;
  p << 1u << bw.residual << bp.residual << u(w.nb[0]);
  p.nb(mul);
  dev.dispatch(Shader::kRmsNorm, {ba, bd, bw, bp}, p.data(), p.bytes(), nrows(norm));
  return true;
}

// A matmul and its residual ADD (zen/fusion.hpp matmul_add): the matmul's store writes the
// sum too, through one binding spanning the residual and the sum, so both must be in the
// product's buffer within one binding's reach.
bool rec_matmul_add(VulkanDevice& dev, const zen_graph& g, uint32_t pos) {
  const auto m = zen::fusion::matmul_add(g, pos);
  if (!m || !supports_node(dev, g, *m->mm) || !supports_node(dev, g, *m->add)) return false;
  const zen_tensor &mm = *m->mm, &res = *m->res, &add = *m->add;
  if (res.buffer != mm.buffer || add.buffer != mm.buffer) return false;
  const zen_tensor& base = res.offset <= add.offset ? res : add;
  const uint64_t hi = std::max(res.offset + extent(res), add.offset + extent(add));
  if (hi - base.offset + 64 > dev.max_range()) return false;
  FusedAdd fa;
  fa.span = dev.bind(base, hi - base.offset);
  fa.res_at = fa.span.residual + u(res.offset - base.offset);
  fa.sum_at = fa.span.residual + u(add.offset - base.offset);
  rec_matmul(dev, mm, *m->a, *m->b, nullptr, &fa);
  return true;
}

// Nodes from position pos recorded as one fused kernel: how many (0: none applies).
uint32_t record_fused(VulkanDevice& dev, const zen_graph& g, uint32_t pos) {
  if (rec_norm_mul(dev, g, pos)) return 2;
  if (rec_matmul_add(dev, g, pos)) return 2;
  return 0;
}

void record_node(VulkanDevice& dev, const zen_graph& g, int32_t node) {
  const zen_tensor& t = *zen_graph_tensor(&g, node);
  if (t.op == ZEN_OP_NONE || t.op == ZEN_OP_VIEW) return;
  if (!supports_node(dev, g, t))
    throw zen::Error(ZEN_ERR_UNSUPPORTED, "vulkan: no shader for node " + std::to_string(node) +
                                              " (op " + std::to_string(t.op) + ")");
  const zen_tensor* s0 = src(g, t, 0);
  const zen_tensor* s1 = src(g, t, 1);
  const zen_tensor* s2 = src(g, t, 2);
  const zen_tensor* s3 = src(g, t, 3);
  switch (t.op) {
    case ZEN_OP_GET_ROWS:
      return rec_get_rows(dev, t, *s0, s1);
    case ZEN_OP_MATMUL:
      return rec_matmul(dev, t, *s0, *s1, nullptr);
    case ZEN_OP_MATMUL_ID:
      return rec_matmul(dev, t, *s0, *s1, s2);
    case ZEN_OP_ADD:
      return rec_binary(dev, t, *s0, *s1, 0);
    case ZEN_OP_MUL:
      return rec_binary(dev, t, *s0, *s1, 1);
    case ZEN_OP_GLU:
      return rec_binary(dev, t, *s0, *s1, 2 + static_cast<uint32_t>(t.params[0]));
    case ZEN_OP_SCALE:
      return rec_unary(dev, t, *s0, 0, zen_param_f32(&t, 0), zen_param_f32(&t, 1));
    case ZEN_OP_SILU:
      return rec_unary(dev, t, *s0, 1, 0, 0);
    case ZEN_OP_GELU:
      return rec_unary(dev, t, *s0, t.params[0] == 0 ? 2 : 3, 0, 0);
    case ZEN_OP_TANH:
      return rec_unary(dev, t, *s0, 4, 0, 0);
    case ZEN_OP_RMS_NORM:
      return rec_norm(dev, t, *s0, 0);
    case ZEN_OP_LAYER_NORM:
      return rec_norm(dev, t, *s0, 1);
    case ZEN_OP_GROUP_NORM:
      return rec_norm(dev, t, *s0, 2);
    case ZEN_OP_SOFTMAX:
      return rec_softmax(dev, t, *s0, s1);
    case ZEN_OP_ROPE:
      return rec_rope(dev, t, *s0, *s1, s2);
    case ZEN_OP_ATTENTION:
      return rec_attention(dev, t, *s0, *s1, *s2, s3);
    case ZEN_OP_CPY:
      if (type_info(s0->type).block > 1) return rec_get_rows(dev, t, *s0, nullptr);
      return rec_copy(dev, t, 0, *s0);
    case ZEN_OP_SET_ROWS:
      return rec_set_rows(dev, t, *s1, *s2);
    case ZEN_OP_CONCAT: {
      const int dim = t.params[0];
      uint64_t start = 0;
      for (int i = 0; i < ZEN_MAX_SRC; ++i) {
        const zen_tensor* s = src(g, t, i);
        if (!s) break;
        rec_copy(dev, t, start * t.nb[dim], *s);
        start += static_cast<uint64_t>(s->ne[dim]);
      }
      return;
    }
    case ZEN_OP_CONV1D:
    case ZEN_OP_CONV2D:
    case ZEN_OP_CONV_TRANSPOSE1D:
      return rec_conv(dev, t, *s0, *s1);
    case ZEN_OP_UPSAMPLE:
      return rec_upsample(dev, t, *s0);
    case ZEN_OP_ARGSORT:
      return rec_sort(dev, t, *s0, t.params[0] == 1);
    case ZEN_OP_TOP_K:
      return rec_sort(dev, t, *s0, true);
    default:
      fail("op " + std::to_string(t.op) + " has no recorder");
  }
}

}  // namespace

uint32_t record(VulkanDevice& dev, const zen_graph& g, uint32_t pos) {
  if (const uint32_t fused = record_fused(dev, g, pos)) return fused;
  record_node(dev, g, g.nodes[pos]);
  return 1;
}

}  // namespace zen_vk
