#include "graph/infer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <zen/plugin.hpp>

#include "types/type_traits.h"

namespace zen::graph {
namespace {

using Shape = std::array<int64_t, ZEN_MAX_DIMS>;

bool is_float(zen_type t) { return t == ZEN_TYPE_F32 || t == ZEN_TYPE_F16 || t == ZEN_TYPE_BF16; }

// One op's checks: sources, params with defaults, and errors prefixed with the op's name.
class Rule {
 public:
  Rule(zen_op op, std::span<const Tensor* const> srcs, std::span<const int32_t> params)
      : op_(op), srcs_(srcs), given_(params) {
    for (size_t i = 0; i < params.size() && i < ZEN_MAX_OP_PARAMS; ++i) out_.params[i] = params[i];
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ZEN_ERR_INVALID_ARG, op_label(op_) + ": " + what);
  }

  void n_srcs(size_t lo, size_t hi) const {
    if (srcs_.size() < lo || srcs_.size() > hi) {
      std::string want =
          lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      fail("takes " + want + " sources, got " + std::to_string(srcs_.size()));
    }
  }
  void max_params(size_t n) const {
    if (given_.size() > n)
      fail("takes at most " + std::to_string(n) + " params, got " + std::to_string(given_.size()));
  }
  bool has(size_t i) const { return i < srcs_.size(); }
  const Tensor& src(size_t i) const { return *srcs_[i]; }
  const Shape& ne(size_t i) const { return srcs_[i]->ne; }
  // "src1 [48, 7]"
  std::string s(size_t i) const { return "src" + std::to_string(i) + " " + format_shape(ne(i)); }

  void floating(size_t i) const {
    if (!is_float(src(i).type))
      fail("src" + std::to_string(i) + " must be F32, F16 or BF16, got " + describe(src(i)));
  }
  void type_is(size_t i, zen_type t) const {
    if (src(i).type != t)
      fail("src" + std::to_string(i) + " must be " + type_name(t) + ", got " + describe(src(i)));
  }
  void mask_type(size_t i) const {
    if (src(i).type != ZEN_TYPE_F32 && src(i).type != ZEN_TYPE_F16)
      fail("mask src" + std::to_string(i) + " must be F32 or F16, got " + describe(src(i)));
  }
  void max_dims(size_t i, int n) const {
    for (int d = n; d < ZEN_MAX_DIMS; ++d)
      if (ne(i)[d] != 1) fail(s(i) + " must have at most " + std::to_string(n) + " dims");
  }
  void same_dim(size_t i, int di, size_t j, int dj, const char* what) const {
    if (ne(i)[di] != ne(j)[dj])
      fail(s(i) + " and " + s(j) + " disagree in " + what + " (" + std::to_string(ne(i)[di]) +
           " vs " + std::to_string(ne(j)[dj]) + ")");
  }
  // ne(big)[d] is a whole multiple of ne(small)[d] for d in dims: small broadcasts over big.
  void broadcasts(size_t small, size_t big, int first_dim) const {
    for (int d = first_dim; d < ZEN_MAX_DIMS; ++d)
      if (ne(big)[d] % ne(small)[d] != 0)
        fail(s(small) + " cannot broadcast over " + s(big) + " (dim " + std::to_string(d) + ": " +
             std::to_string(ne(big)[d]) + " is not a multiple of " + std::to_string(ne(small)[d]) +
             ")");
  }

  // Parameter slot `i`: the given value, or `def` when the caller left it out.
  int32_t i32(size_t i, int32_t def) {
    if (i >= given_.size()) out_.params[i] = def;
    return out_.params[i];
  }
  float f32(size_t i, float def) {
    if (i >= given_.size()) out_.params[i] = param_bits(def);
    return param_float(out_.params[i]);
  }
  int32_t required_i32(size_t i, const char* what) {
    if (i >= given_.size()) fail("needs param " + std::to_string(i) + " (" + what + ")");
    return out_.params[i];
  }
  float required_f32(size_t i, const char* what) { return param_float(required_i32(i, what)); }

  Inferred& result(zen_type type, const Shape& ne) {
    out_.type = type;
    out_.ne = ne;
    return out_;
  }

 private:
  zen_op op_;
  std::span<const Tensor* const> srcs_;
  std::span<const int32_t> given_;
  Inferred out_{};
};

void check_block_aligned(const Rule& r, size_t i) {
  const Tensor& t = r.src(i);
  int64_t bs = block_size(t.type);
  if (t.ne[0] % bs != 0)
    r.fail("src" + std::to_string(i) + " " + describe(t) + ": ne0 is not a multiple of the " +
           type_name(t.type) + " block size " + std::to_string(bs));
}

Inferred get_rows(Rule& r) {
  r.n_srcs(2, 2);
  r.max_params(0);
  r.type_is(1, ZEN_TYPE_I32);
  r.max_dims(1, 3);
  r.same_dim(0, 2, 1, 1, "batch dim 2");
  r.same_dim(0, 3, 1, 2, "batch dim 3");
  check_block_aligned(r, 0);
  const Shape& t = r.ne(0);
  return r.result(ZEN_TYPE_F32, {t[0], r.ne(1)[0], t[2], t[3]});
}

// In place: the result is src0 itself (Graph::op makes it alias src0's memory).
Inferred set_rows(Rule& r) {
  r.n_srcs(3, 3);
  r.max_params(0);
  r.floating(0);
  r.type_is(1, ZEN_TYPE_F32);
  r.type_is(2, ZEN_TYPE_I32);
  r.max_dims(0, 2);
  r.max_dims(1, 2);
  r.max_dims(2, 1);
  r.same_dim(0, 0, 1, 0, "row length");
  r.same_dim(1, 1, 2, 0, "rows written");
  if (r.ne(1)[1] > r.ne(0)[1])
    r.fail(std::to_string(r.ne(1)[1]) + " rows cannot be written into the " +
           std::to_string(r.ne(0)[1]) + " of " + r.s(0));
  return r.result(r.src(0).type, r.ne(0));
}

Inferred matmul(Rule& r) {
  r.n_srcs(2, 2);
  r.max_params(0);
  r.type_is(1, ZEN_TYPE_F32);
  r.same_dim(0, 0, 1, 0, "K");
  r.broadcasts(0, 1, 2);
  check_block_aligned(r, 0);
  const Shape& b = r.ne(1);
  return r.result(ZEN_TYPE_F32, {r.ne(0)[1], b[1], b[2], b[3]});
}

Inferred matmul_id(Rule& r) {
  r.n_srcs(3, 3);
  r.max_params(0);
  r.type_is(1, ZEN_TYPE_F32);
  r.type_is(2, ZEN_TYPE_I32);
  r.max_dims(0, 3);
  r.max_dims(1, 3);
  r.max_dims(2, 2);
  r.same_dim(0, 0, 1, 0, "K");
  if (r.ne(1)[1] != 1) r.same_dim(1, 1, 2, 0, "experts used per token");
  r.same_dim(1, 2, 2, 1, "tokens");
  check_block_aligned(r, 0);
  const Shape& ids = r.ne(2);
  return r.result(ZEN_TYPE_F32, {r.ne(0)[1], ids[0], ids[1], 1});
}

Inferred binary(Rule& r) {
  r.n_srcs(2, 2);
  r.max_params(0);
  r.floating(0);
  r.floating(1);
  r.broadcasts(1, 0, 0);
  return r.result(r.src(0).type, r.ne(0));
}

Inferred scale(Rule& r) {
  r.n_srcs(1, 1);
  r.max_params(2);
  r.floating(0);
  r.required_f32(0, "f32 scale");
  r.f32(1, 0.0f);
  return r.result(r.src(0).type, r.ne(0));
}

Inferred norm(Rule& r) {
  r.n_srcs(1, 1);
  r.max_params(1);
  r.floating(0);
  if (!(r.required_f32(0, "f32 eps") >= 0.0f)) r.fail("eps must be >= 0");
  return r.result(r.src(0).type, r.ne(0));
}

Inferred group_norm(Rule& r) {
  r.n_srcs(1, 1);
  r.max_params(2);
  r.floating(0);
  int32_t groups = r.required_i32(0, "i32 groups");
  if (!(r.required_f32(1, "f32 eps") >= 0.0f)) r.fail("eps must be >= 0");
  if (groups <= 0 || r.ne(0)[2] % groups != 0)
    r.fail(r.s(0) + ": " + std::to_string(r.ne(0)[2]) + " channels cannot form " +
           std::to_string(groups) + " groups");
  return r.result(r.src(0).type, r.ne(0));
}

Inferred rope(Rule& r) {
  r.n_srcs(2, 3);
  r.max_params(ZEN_ROPE_N_PARAMS);
  r.floating(0);
  r.max_dims(0, 3);
  r.type_is(1, ZEN_TYPE_I32);
  r.max_dims(1, 1);
  int32_t n_dims = r.required_i32(ZEN_ROPE_N_DIMS, "i32 n_dims");
  if (n_dims <= 0 || n_dims % 2 != 0 || n_dims > r.ne(0)[0])
    r.fail("n_dims " + std::to_string(n_dims) + " must be even and in 2.." +
           std::to_string(r.ne(0)[0]) + " for " + r.s(0));
  int32_t mode = r.i32(ZEN_ROPE_MODE, ZEN_ROPE_NORMAL);
  if (mode != ZEN_ROPE_NORMAL && mode != ZEN_ROPE_NEOX && mode != ZEN_ROPE_MROPE)
    r.fail("unknown mode " + std::to_string(mode));
  if (mode == ZEN_ROPE_MROPE) {  // four position axes, axis-major
    if (r.ne(1)[0] != 4 * r.ne(0)[2])
      r.fail("multi-axis positions " + r.s(1) + " need 4 x " + std::to_string(r.ne(0)[2]) +
             " values for " + r.s(0));
  } else {
    r.same_dim(0, 2, 1, 0, "tokens");
  }
  r.i32(ZEN_ROPE_CTX_ORIG, 0);
  r.f32(ZEN_ROPE_FREQ_BASE, 10000.0f);
  r.f32(ZEN_ROPE_FREQ_SCALE, 1.0f);
  r.f32(ZEN_ROPE_EXT_FACTOR, 0.0f);
  r.f32(ZEN_ROPE_ATTN_FACTOR, 1.0f);
  r.f32(ZEN_ROPE_BETA_FAST, 32.0f);
  r.f32(ZEN_ROPE_BETA_SLOW, 1.0f);
  int64_t sections = 0;
  for (int i = ZEN_ROPE_SECTION_0; i <= ZEN_ROPE_SECTION_3; ++i) {
    const int32_t s = r.i32(static_cast<size_t>(i), 0);
    if (s < 0) r.fail("rope section " + std::to_string(s) + " must be >= 0");
    sections += s;
  }
  if (mode == ZEN_ROPE_MROPE && sections == 0) r.fail("multi-axis rope needs sections");
  if (r.has(2)) {
    r.type_is(2, ZEN_TYPE_F32);
    r.max_dims(2, 1);
    if (r.ne(2)[0] < n_dims / 2)
      r.fail("freq factors " + r.s(2) + " need n_dims / 2 = " + std::to_string(n_dims / 2) +
             " values");
  }
  return r.result(r.src(0).type, r.ne(0));
}

Inferred softmax(Rule& r) {
  r.n_srcs(1, 2);
  r.max_params(1);
  r.floating(0);
  r.f32(0, 1.0f);
  if (r.has(1)) {
    r.mask_type(1);
    r.same_dim(0, 0, 1, 0, "columns");
    if (r.ne(1)[1] < r.ne(0)[1]) r.fail("mask " + r.s(1) + " has fewer rows than " + r.s(0));
    r.broadcasts(1, 0, 2);
  }
  return r.result(ZEN_TYPE_F32, r.ne(0));
}

Inferred attention(Rule& r) {
  r.n_srcs(3, 4);
  r.max_params(ZEN_ATTN_N_PARAMS);
  r.floating(0);
  for (size_t i = 1; i < 3; ++i)  // a KV cache may also be Q8_0 (blocks along the head dim)
    if (r.src(i).type != ZEN_TYPE_Q8_0) r.floating(i);
  r.same_dim(0, 0, 1, 0, "head dim");
  r.same_dim(1, 1, 2, 1, "kv length");
  r.same_dim(1, 2, 2, 2, "kv heads");
  r.same_dim(1, 3, 2, 3, "sequences");
  if (r.ne(0)[2] % r.ne(1)[2] != 0)
    r.fail(std::to_string(r.ne(0)[2]) + " query heads in " + r.s(0) + " are not a multiple of " +
           std::to_string(r.ne(1)[2]) + " kv heads in " + r.s(1));
  r.broadcasts(1, 0, 3);
  r.f32(ZEN_ATTN_SCALE, 1.0f / std::sqrt(static_cast<float>(r.ne(0)[0])));
  if (!(r.f32(ZEN_ATTN_SOFTCAP, 0.0f) >= 0.0f)) r.fail("softcap must be >= 0");
  const int32_t causal = r.i32(ZEN_ATTN_CAUSAL, 0);
  if (causal != 0 && causal != 1) r.fail("causal must be 0 or 1, got " + std::to_string(causal));
  if (r.i32(ZEN_ATTN_WINDOW, 0) < 0) r.fail("window must be >= 0");
  const int64_t tail = r.ne(1)[1] - r.ne(0)[1];
  if (r.i32(ZEN_ATTN_POS0, static_cast<int32_t>(std::max<int64_t>(tail, 0))) < 0)
    r.fail("pos0 must be >= 0");
  if (r.has(3)) {
    r.mask_type(3);
    r.same_dim(1, 1, 3, 0, "kv length");
    if (r.ne(3)[1] < r.ne(0)[1])
      r.fail("mask " + r.s(3) + " has fewer rows than the " + std::to_string(r.ne(0)[1]) +
             " queries of " + r.s(0));
    r.broadcasts(3, 0, 2);
  }
  const Shape& q = r.ne(0);
  return r.result(ZEN_TYPE_F32, {r.ne(2)[0], q[2], q[1], q[3]});
}

Inferred unary(Rule& r, size_t max_params) {
  r.n_srcs(1, 1);
  r.max_params(max_params);
  r.floating(0);
  return r.result(r.src(0).type, r.ne(0));
}

Inferred gelu(Rule& r) {
  int32_t mode = r.i32(0, 0);
  if (mode != 0 && mode != 1) r.fail("unknown mode " + std::to_string(mode));
  return unary(r, 1);
}

Inferred glu(Rule& r) {
  r.n_srcs(2, 2);
  r.max_params(1);
  r.floating(0);
  r.floating(1);
  if (r.ne(0) != r.ne(1)) r.fail(r.s(0) + " and " + r.s(1) + " must have the same shape");
  int32_t variant = r.i32(0, 0);
  if (variant < 0 || variant > 2) r.fail("unknown variant " + std::to_string(variant));
  return r.result(r.src(0).type, r.ne(0));
}

Inferred argsort(Rule& r) {
  r.n_srcs(1, 1);
  r.max_params(1);
  r.floating(0);
  int32_t order = r.i32(0, 0);
  if (order != 0 && order != 1) r.fail("unknown order " + std::to_string(order));
  return r.result(ZEN_TYPE_I32, r.ne(0));
}

Inferred top_k(Rule& r) {
  r.n_srcs(1, 1);
  r.max_params(1);
  r.floating(0);
  int32_t k = r.required_i32(0, "i32 k");
  if (k < 1 || k > r.ne(0)[0])
    r.fail("k = " + std::to_string(k) + " is outside 1.." + std::to_string(r.ne(0)[0]) + " for " +
           r.s(0));
  Shape ne = r.ne(0);
  ne[0] = k;
  return r.result(ZEN_TYPE_I32, ne);
}

// Stride >= 1, pad >= 0, dilation >= 1, read from consecutive param slots with defaults.
struct ConvGeom {
  int64_t stride, pad, dilation;
};
ConvGeom conv_geom(Rule& r, size_t s, size_t p, size_t d) {
  ConvGeom g{r.i32(s, 1), r.i32(p, 0), r.i32(d, 1)};
  if (g.stride < 1 || g.pad < 0 || g.dilation < 1)
    r.fail("needs stride >= 1, pad >= 0, dilation >= 1; got " + std::to_string(g.stride) + ", " +
           std::to_string(g.pad) + ", " + std::to_string(g.dilation));
  return g;
}
int64_t conv_out(const Rule& r, int64_t in, int64_t k, const ConvGeom& g) {
  int64_t span = g.dilation * (k - 1) + 1;
  int64_t out = in + 2 * g.pad - span >= 0 ? (in + 2 * g.pad - span) / g.stride + 1 : 0;
  if (out < 1)
    r.fail("kernel span " + std::to_string(span) + " does not fit input length " +
           std::to_string(in) + " with pad " + std::to_string(g.pad));
  return out;
}

Inferred conv1d(Rule& r) {
  r.n_srcs(2, 2);
  r.max_params(3);
  r.floating(0);
  r.floating(1);
  r.max_dims(0, 3);
  r.max_dims(1, 3);
  r.same_dim(0, 1, 1, 1, "input channels");
  ConvGeom g = conv_geom(r, 0, 1, 2);
  int64_t ol = conv_out(r, r.ne(1)[0], r.ne(0)[0], g);
  return r.result(ZEN_TYPE_F32, {ol, r.ne(0)[2], r.ne(1)[2], 1});
}

Inferred conv2d(Rule& r) {
  r.n_srcs(2, 2);
  r.max_params(6);
  r.floating(0);
  r.floating(1);
  r.same_dim(0, 2, 1, 2, "input channels");
  // Slots: s0, s1, p0, p1, d0, d1.
  ConvGeom gx = conv_geom(r, 0, 2, 4), gy = conv_geom(r, 1, 3, 5);
  int64_t ow = conv_out(r, r.ne(1)[0], r.ne(0)[0], gx);
  int64_t oh = conv_out(r, r.ne(1)[1], r.ne(0)[1], gy);
  return r.result(ZEN_TYPE_F32, {ow, oh, r.ne(0)[3], r.ne(1)[3]});
}

Inferred conv_transpose1d(Rule& r) {
  r.n_srcs(2, 2);
  r.max_params(3);
  r.floating(0);
  r.floating(1);
  r.max_dims(0, 3);
  r.max_dims(1, 3);
  r.same_dim(0, 2, 1, 1, "input channels");
  ConvGeom g = conv_geom(r, 0, 1, 2);
  int64_t ol = (r.ne(1)[0] - 1) * g.stride - 2 * g.pad + g.dilation * (r.ne(0)[0] - 1) + 1;
  if (ol < 1) r.fail("pad " + std::to_string(g.pad) + " leaves no output");
  return r.result(ZEN_TYPE_F32, {ol, r.ne(0)[1], r.ne(1)[2], 1});
}

Inferred concat(Rule& r, size_t n) {
  r.n_srcs(2, ZEN_MAX_SRC);
  r.max_params(1);
  int32_t dim = r.i32(0, 0);
  if (dim < 0 || dim >= ZEN_MAX_DIMS) r.fail("dim " + std::to_string(dim) + " is outside 0..3");
  Shape ne = r.ne(0);
  for (size_t i = 1; i < n; ++i) {
    if (r.src(i).type != r.src(0).type)
      r.fail("src" + std::to_string(i) + " " + describe(r.src(i)) + " differs in type from src0 " +
             describe(r.src(0)));
    for (int d = 0; d < ZEN_MAX_DIMS; ++d)
      if (d != dim) r.same_dim(0, d, i, d, ("dim " + std::to_string(d)).c_str());
    ne[dim] += r.ne(i)[dim];
  }
  return r.result(r.src(0).type, ne);
}

Inferred cpy(Rule& r) {
  r.n_srcs(1, 1);
  r.max_params(1);
  int32_t type = r.i32(0, r.src(0).type);
  const TypeTraits* t = type_traits(static_cast<uint32_t>(type));
  if (!t) r.fail("unknown destination type " + std::to_string(type));
  if (r.ne(0)[0] % t->block_size != 0)
    r.fail(r.s(0) + ": ne0 is not a multiple of the " + std::string(t->name) + " block size " +
           std::to_string(t->block_size));
  return r.result(static_cast<zen_type>(type), r.ne(0));
}

Inferred upsample(Rule& r) {
  r.n_srcs(1, 1);
  r.max_params(5);
  r.floating(0);
  Shape ne{};
  for (int d = 0; d < ZEN_MAX_DIMS; ++d) {
    ne[d] = r.required_i32(d, "i32 target ne0..ne3");
    if (ne[d] < 1) r.fail("target ne" + std::to_string(d) + " must be >= 1");
  }
  int32_t mode = r.i32(4, 0);
  if (mode != 0 && mode != 1) r.fail("unknown mode " + std::to_string(mode));
  return r.result(ZEN_TYPE_F32, ne);
}

Inferred custom(Rule& r) {
  r.n_srcs(0, ZEN_MAX_SRC);
  r.required_i32(0, "i32 kernel id lo");
  r.required_i32(1, "i32 kernel id hi");
  int32_t type = r.required_i32(2, "i32 result type");
  if (!type_traits(static_cast<uint32_t>(type)))
    r.fail("unknown result type " + std::to_string(type));
  Shape ne{};
  for (int d = 0; d < ZEN_MAX_DIMS; ++d) {
    ne[d] = r.required_i32(3 + d, "i32 result ne0..ne3");
    if (ne[d] < 1) r.fail("result ne" + std::to_string(d) + " must be >= 1");
  }
  return r.result(static_cast<zen_type>(type), ne);
}

}  // namespace

Inferred infer(zen_op op, std::span<const Tensor* const> srcs, std::span<const int32_t> params) {
  Rule r(op, srcs, params);
  if (params.size() > ZEN_MAX_OP_PARAMS)
    r.fail("takes at most " + std::to_string(ZEN_MAX_OP_PARAMS) + " params");
  if (srcs.size() > ZEN_MAX_SRC)
    r.fail("takes at most " + std::to_string(ZEN_MAX_SRC) + " sources");
  for (const Tensor* t : srcs)
    if (!t) r.fail("a source is missing");

  Inferred out;
  switch (op) {
    case ZEN_OP_GET_ROWS:
      out = get_rows(r);
      break;
    case ZEN_OP_MATMUL:
      out = matmul(r);
      break;
    case ZEN_OP_MATMUL_ID:
      out = matmul_id(r);
      break;
    case ZEN_OP_ADD:
    case ZEN_OP_MUL:
      out = binary(r);
      break;
    case ZEN_OP_SCALE:
      out = scale(r);
      break;
    case ZEN_OP_RMS_NORM:
    case ZEN_OP_LAYER_NORM:
      out = norm(r);
      break;
    case ZEN_OP_GROUP_NORM:
      out = group_norm(r);
      break;
    case ZEN_OP_ROPE:
      out = rope(r);
      break;
    case ZEN_OP_SOFTMAX:
      out = softmax(r);
      break;
    case ZEN_OP_ATTENTION:
      out = attention(r);
      break;
    case ZEN_OP_SILU:
    case ZEN_OP_TANH:
      out = unary(r, 0);
      break;
    case ZEN_OP_GELU:
      out = gelu(r);
      break;
    case ZEN_OP_GLU:
      out = glu(r);
      break;
    case ZEN_OP_ARGSORT:
      out = argsort(r);
      break;
    case ZEN_OP_TOP_K:
      out = top_k(r);
      break;
    case ZEN_OP_CONV1D:
      out = conv1d(r);
      break;
    case ZEN_OP_CONV2D:
      out = conv2d(r);
      break;
    case ZEN_OP_CONV_TRANSPOSE1D:
      out = conv_transpose1d(r);
      break;
    case ZEN_OP_CONCAT:
      out = concat(r, srcs.size());
      break;
    case ZEN_OP_CPY:
      out = cpy(r);
      break;
    case ZEN_OP_UPSAMPLE:
      out = upsample(r);
      break;
    case ZEN_OP_CUSTOM:
      out = custom(r);
      break;
    case ZEN_OP_SET_ROWS:
      out = set_rows(r);
      break;
    case ZEN_OP_NONE:
      r.fail("not an op: leaves come from input() and weight()");
    case ZEN_OP_VIEW:
      r.fail("not an op: views come from view()");
    default:
      r.fail("unknown op id");
  }
  int64_t n = 1;
  for (int64_t d : out.ne)
    if (d < 1 || __builtin_mul_overflow(n, d, &n))
      r.fail("result shape " + format_shape(out.ne) + " is empty or too large");
  return out;
}

}  // namespace zen::graph
