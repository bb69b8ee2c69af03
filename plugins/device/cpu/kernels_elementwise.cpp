// Element-wise ops: add and mul (F32) with src1 broadcast over src0; scale and silu (F32 with
// a vector path for packed rows, F16 and BF16 through the scalar path).
#include <cmath>
#include <type_traits>

#include "kernels.h"
#include "tensor_access.h"
#include "vec.h"

namespace ZEN_CPU_NS {
namespace {

struct Add {
  static float apply(float x, float y) { return x + y; }
};
struct Mul {
  static float apply(float x, float y) { return x * y; }
};

// dst = a op b, where b's dim i repeats a.ne[i] / b.ne[i] times.
template <class Op>
void binary(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &a = *k.src[0], &b = *k.src[1];
  constexpr uint64_t f = sizeof(float);
  // Packed rows with b's row as long as dst's (a norm's weight, a residual): a plain loop the
  // compiler vectorizes; anything else through the strided accessors.
  const bool packed = a.nb[0] == f && b.nb[0] == f && dst.nb[0] == f && b.ne[0] == dst.ne[0];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    const char* brow = at(k.s[1], b, 0, i.i1 % b.ne[1], i.i2 % b.ne[2], i.i3 % b.ne[3]);
    if (packed) {
      float* y = reinterpret_cast<float*>(at(k.d, dst, 0, i.i1, i.i2, i.i3));
      const float* x = reinterpret_cast<const float*>(at(k.s[0], a, 0, i.i1, i.i2, i.i3));
      const float* w = reinterpret_cast<const float*>(brow);
      for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0) y[i0] = Op::apply(x[i0], w[i0]);
      continue;
    }
    for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0)
      store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3),
                   Op::apply(load<float>(at(k.s[0], a, i0, i.i1, i.i2, i.i3)),
                             load<float>(brow + (i0 % b.ne[0]) * static_cast<int64_t>(b.nb[0]))));
  }
}

// Row-wise map of src0 into dst: `vf(y, x, n)` on packed F32 rows, else `f` per element
// through the strided accessors (views, F16, BF16).
template <class T, class F, class VF>
void map_rows(const KernelArgs& k, int ith, int nth, F&& f, VF&& vf) {
  const zen_tensor &dst = *k.dst, &a = *k.src[0];
  const bool fast =
      std::is_same_v<T, float> && a.nb[0] == sizeof(float) && dst.nb[0] == sizeof(float);
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    if (fast) {
      vf(reinterpret_cast<float*>(at(k.d, dst, 0, i.i1, i.i2, i.i3)),
         reinterpret_cast<const float*>(at(k.s[0], a, 0, i.i1, i.i2, i.i3)), dst.ne[0]);
      continue;
    }
    for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0)
      store<T>(at(k.d, dst, i0, i.i1, i.i2, i.i3), f(load<T>(at(k.s[0], a, i0, i.i1, i.i2, i.i3))));
  }
}

template <class T>
void scale(const KernelArgs& k, int ith, int nth) {
  const float s = zen_param_f32(k.dst, 0), bias = zen_param_f32(k.dst, 1);
  map_rows<T>(
      k, ith, nth, [=](float x) { return x * s + bias; },
      [=](float* y, const float* x, int64_t n) { vec::mul_add(y, x, s, bias, n); });
}

template <class T>
void silu(const KernelArgs& k, int ith, int nth) {
  map_rows<T>(
      k, ith, nth, [](float x) { return x / (1.0f + std::exp(-x)); },
      [](float* y, const float* x, int64_t n) { vec::silu(y, x, nullptr, n); });
}

template <class T>
void tanh_rows(const KernelArgs& k, int ith, int nth) {
  map_rows<T>(
      k, ith, nth, [](float x) { return std::tanh(x); },
      [](float* y, const float* x, int64_t n) {
        for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
      });
}

constexpr uint32_t F32 = ZEN_TYPE_F32;
constexpr KernelEntry kBinary[] = {
    {ZEN_OP_ADD, F32, F32, F32, binary<Add>},
    {ZEN_OP_MUL, F32, F32, F32, binary<Mul>},
};
constexpr KernelEntry kUnary[] = {
    {ZEN_OP_SCALE, F32, F32, kNoSrc, scale<float>},
    {ZEN_OP_SCALE, ZEN_TYPE_F16, ZEN_TYPE_F16, kNoSrc, scale<f16_t>},
    {ZEN_OP_SCALE, ZEN_TYPE_BF16, ZEN_TYPE_BF16, kNoSrc, scale<bf16_t>},
    {ZEN_OP_SILU, F32, F32, kNoSrc, silu<float>},
    {ZEN_OP_SILU, ZEN_TYPE_F16, ZEN_TYPE_F16, kNoSrc, silu<f16_t>},
    {ZEN_OP_SILU, ZEN_TYPE_BF16, ZEN_TYPE_BF16, kNoSrc, silu<bf16_t>},
    {ZEN_OP_TANH, F32, F32, kNoSrc, tanh_rows<float>},
};

}  // namespace

std::span<const KernelEntry> binary_kernels() { return kBinary; }
std::span<const KernelEntry> unary_kernels() { return kUnary; }

}  // namespace ZEN_CPU_NS
