// gelu (tanh approximation or erf) and glu: act(a) * b with act silu (swiglu), gelu-tanh or
// gelu-erf. Packed F32 rows take the vector path (vec.h); views and F16/BF16 the scalar one.
// Threads split rows.
#include <cmath>
#include <type_traits>

#include "kernels.h"
#include "tensor_access.h"
#include "vec.h"

namespace ZEN_CPU_NS {
namespace {

enum Act { kSilu = 0, kGeluTanh = 1, kGeluErf = 2 };

float act(int mode, float x) {
  switch (mode) {
    case kSilu:
      return x / (1.0f + std::exp(-x));
    case kGeluTanh:
      return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    default:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
  }
}

void act_row(int mode, float* y, const float* x, const float* g, int64_t n) {
  switch (mode) {
    case kSilu:
      return vec::silu(y, x, g, n);
    case kGeluTanh:
      return vec::gelu_tanh(y, x, g, n);
    default:
      return vec::gelu_erf(y, x, g, n);
  }
}

// dst = act(src0) (* src1 when kGated).
template <class T, bool kGated>
void activation(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &a = *k.src[0];
  const zen_tensor* b = kGated ? k.src[1] : nullptr;
  // gelu: 0 tanh, 1 erf; glu: 0 swiglu, 1 geglu-tanh, 2 geglu-erf.
  const int mode = kGated ? k.dst->params[0] : (k.dst->params[0] == 0 ? kGeluTanh : kGeluErf);
  const bool fast = std::is_same_v<T, float> && a.nb[0] == sizeof(float) &&
                    dst.nb[0] == sizeof(float) && (!kGated || b->nb[0] == sizeof(float));
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    if (fast) {
      act_row(
          mode, reinterpret_cast<float*>(at(k.d, dst, 0, i.i1, i.i2, i.i3)),
          reinterpret_cast<const float*>(at(k.s[0], a, 0, i.i1, i.i2, i.i3)),
          kGated ? reinterpret_cast<const float*>(at(k.s[1], *b, 0, i.i1, i.i2, i.i3)) : nullptr,
          dst.ne[0]);
      continue;
    }
    for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0) {
      float v = act(mode, load<T>(at(k.s[0], a, i0, i.i1, i.i2, i.i3)));
      if constexpr (kGated) v *= load<T>(at(k.s[1], *b, i0, i.i1, i.i2, i.i3));
      store<T>(at(k.d, dst, i0, i.i1, i.i2, i.i3), v);
    }
  }
}

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16;
constexpr KernelEntry kKernels[] = {
    {ZEN_OP_GELU, F32, F32, kNoSrc, activation<float, false>},
    {ZEN_OP_GELU, F16, F16, kNoSrc, activation<f16_t, false>},
    {ZEN_OP_GELU, BF16, BF16, kNoSrc, activation<bf16_t, false>},
    {ZEN_OP_GLU, F32, F32, F32, activation<float, true>},
    {ZEN_OP_GLU, F16, F16, F16, activation<f16_t, true>},
    {ZEN_OP_GLU, BF16, BF16, BF16, activation<bf16_t, true>},
};

}  // namespace

std::span<const KernelEntry> activation_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
