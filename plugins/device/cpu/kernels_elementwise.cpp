// Element-wise F32 ops: add and mul with src1 broadcast over src0, scale, silu.
#include <cmath>

#include "kernels.h"
#include "tensor_access.h"

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
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    const char* brow = at(k.s[1], b, 0, i.i1 % b.ne[1], i.i2 % b.ne[2], i.i3 % b.ne[3]);
    for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0)
      store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3),
                   Op::apply(load<float>(at(k.s[0], a, i0, i.i1, i.i2, i.i3)),
                             load<float>(brow + (i0 % b.ne[0]) * static_cast<int64_t>(b.nb[0]))));
  }
}

// Row-wise map of src0 into dst.
template <class F>
void map_rows(const KernelArgs& k, int ith, int nth, F&& f) {
  const zen_tensor &dst = *k.dst, &a = *k.src[0];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0)
      store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3),
                   f(load<float>(at(k.s[0], a, i0, i.i1, i.i2, i.i3))));
  }
}

void scale(const KernelArgs& k, int ith, int nth) {
  const float s = zen_param_f32(k.dst, 0), bias = zen_param_f32(k.dst, 1);
  map_rows(k, ith, nth, [=](float x) { return x * s + bias; });
}

void silu(const KernelArgs& k, int ith, int nth) {
  map_rows(k, ith, nth, [](float x) { return x / (1.0f + std::exp(-x)); });
}

constexpr uint32_t F32 = ZEN_TYPE_F32;
constexpr KernelEntry kBinary[] = {
    {ZEN_OP_ADD, F32, F32, F32, binary<Add>},
    {ZEN_OP_MUL, F32, F32, F32, binary<Mul>},
};
constexpr KernelEntry kUnary[] = {
    {ZEN_OP_SCALE, F32, F32, kNoSrc, scale},
    {ZEN_OP_SILU, F32, F32, kNoSrc, silu},
};

}  // namespace

std::span<const KernelEntry> binary_kernels() { return kBinary; }
std::span<const KernelEntry> unary_kernels() { return kUnary; }

}  // namespace ZEN_CPU_NS
