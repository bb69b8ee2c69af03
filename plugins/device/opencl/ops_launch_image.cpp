// The convolution-network ops (audio codecs, image VAEs): CONV1D, CONV2D, CONV_TRANSPOSE1D,
// GROUP_NORM and UPSAMPLE, each one launch; the argument order of kernels/42_group_norm.cl,
// 85_conv.cl and 87_upsample.cl is spelled out here.
#include <array>
#include <string>

#include <zen/plugin.hpp>

#include "launch.h"
#include "ops.h"

namespace zen_opencl {
namespace {

int64_t elems(const zen_tensor& t) { return t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]; }

// t as k_conv reads it, 4D (x, y, channel, outer): dim d is t's dim from[d], or a dim of
// extent 1 for -1. Only ne/nb change; the buffer and offset stay t's.
zen_tensor as_4d(const zen_tensor& t, std::array<int, 4> from) {
  zen_tensor v = t;
  for (int d = 0; d < 4; ++d) {
    v.ne[d] = from[d] < 0 ? 1 : t.ne[from[d]];
    v.nb[d] = from[d] < 0 ? 0 : t.nb[from[d]];
  }
  return v;
}

void conv(const LaunchContext& c, const zen_tensor& t, const zen_tensor& w, const zen_tensor& x) {
  const int32_t* p = t.params;
  constexpr std::array<int, 4> k1d{0, -1, 1, 2};  // [L, C, N] as [L, 1, C, N]
  zen_tensor dv = t, wv = w, xv = x;
  std::array<int32_t, 6> geom{};  // s0, s1, p0, p1, d0, d1
  switch (t.op) {
    case ZEN_OP_CONV2D:  // every operand already is (x, y, channel, outer)
      geom = {p[0], p[1], p[2], p[3], p[4], p[5]};
      break;
    case ZEN_OP_CONV1D:  // kernel [K, Cin, Cout], x [L, Cin, N], dst [OL, Cout, N]
      dv = as_4d(t, k1d), wv = as_4d(w, k1d), xv = as_4d(x, k1d);
      geom = {p[0], 1, p[1], 0, p[2], 1};
      break;
    default:  // CONV_TRANSPOSE1D: kernel [K, Cout, Cin] read as [K, 1, Cin, Cout]
      dv = as_4d(t, k1d), wv = as_4d(w, {0, -1, 2, 1}), xv = as_4d(x, k1d);
      geom = {p[0], 1, p[1], 0, p[2], 1};
      break;
  }
  Launch l(c, "k_conv");
  l.tensor(&dv).tensor(&wv).tensor(&xv);
  l.i32(static_cast<int32_t>(w.type)).i32(static_cast<int32_t>(x.type));
  l.i32(t.op == ZEN_OP_CONV_TRANSPOSE1D);
  for (int32_t g : geom) l.i32(g);
  l.run(elems(t));
}

// One work-group per (group, sample) (kernels/42_group_norm.cl).
void group_norm(const LaunchContext& c, const zen_tensor& t, const zen_tensor& a) {
  constexpr size_t kMaxLocal = 256;  // GN_MAX_LOCAL
  const int32_t groups = t.params[0];
  Launch l(c, "k_group_norm");
  l.tensor(&t).tensor(&a).i32(groups).f32(zen_param_f32(&t, 1)).i32(static_cast<int32_t>(t.type));
  l.run_groups(groups * a.ne[3], l.local_size(kMaxLocal));
}

}  // namespace

void enqueue_image_op(const LaunchContext& c, const zen_tensor& t, const zen_tensor* const* s) {
  switch (t.op) {
    case ZEN_OP_CONV1D:
    case ZEN_OP_CONV2D:
    case ZEN_OP_CONV_TRANSPOSE1D:
      return conv(c, t, *s[0], *s[1]);
    case ZEN_OP_GROUP_NORM:
      return group_norm(c, t, *s[0]);
    case ZEN_OP_UPSAMPLE:
      Launch(c, "k_upsample")
          .tensor(&t)
          .tensor(s[0])
          .i32(t.params[4] == 1)
          .i32(static_cast<int32_t>(s[0]->type))
          .run(elems(t));
      return;
    default:
      throw zen::Error(ZEN_ERR_INTERNAL, "opencl: op " + std::to_string(t.op) + " is no image op");
  }
}

}  // namespace zen_opencl
