// Row reductions over ne0: rms_norm and softmax (with optional mask and scale). Sums run in
// double; a long row of floats loses nothing that way.
#include <cmath>
#include <limits>

#include "kernels.h"
#include "tensor_access.h"

namespace ZEN_CPU_NS {
namespace {

void rms_norm(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &a = *k.src[0];
  const double eps = zen_param_f32(k.dst, 0);
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    double sum = 0.0;
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) {
      const double x = load<float>(at(k.s[0], a, i0, i.i1, i.i2, i.i3));
      sum += x * x;
    }
    const double scale = 1.0 / std::sqrt(sum / static_cast<double>(a.ne[0]) + eps);
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0)
      store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3),
                   static_cast<float>(load<float>(at(k.s[0], a, i0, i.i1, i.i2, i.i3)) * scale));
  }
}

// dst = softmax(x * scale + mask) per row; the mask repeats over dims 2 and 3.
template <class MaskT, bool kMasked>
void softmax(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &x = *k.src[0];
  const zen_tensor* mask = k.src[1];
  const float scale = zen_param_f32(k.dst, 0);
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    auto value = [&](int64_t i0) {
      float v = load<float>(at(k.s[0], x, i0, i.i1, i.i2, i.i3)) * scale;
      if constexpr (kMasked)
        v += load<MaskT>(at(k.s[1], *mask, i0, i.i1, i.i2 % mask->ne[2], i.i3 % mask->ne[3]));
      return v;
    };
    float max = -std::numeric_limits<float>::infinity();
    for (int64_t i0 = 0; i0 < x.ne[0]; ++i0) max = std::max(max, value(i0));
    if (max == -std::numeric_limits<float>::infinity()) {  // fully masked: no valid column
      for (int64_t i0 = 0; i0 < x.ne[0]; ++i0)
        store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3), 0.0f);
      continue;
    }
    double sum = 0.0;
    for (int64_t i0 = 0; i0 < x.ne[0]; ++i0) {
      const double e = std::exp(static_cast<double>(value(i0)) - max);
      sum += e;
      store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3), static_cast<float>(e));
    }
    const double inv = 1.0 / sum;
    for (int64_t i0 = 0; i0 < x.ne[0]; ++i0) {
      char* p = at(k.d, dst, i0, i.i1, i.i2, i.i3);
      store<float>(p, static_cast<float>(load<float>(p) * inv));
    }
  }
}

constexpr uint32_t F32 = ZEN_TYPE_F32;
constexpr KernelEntry kKernels[] = {
    {ZEN_OP_RMS_NORM, F32, F32, kNoSrc, rms_norm},
    {ZEN_OP_SOFTMAX, F32, F32, kNoSrc, softmax<float, false>},
    {ZEN_OP_SOFTMAX, F32, F32, ZEN_TYPE_F32, softmax<float, true>},
    {ZEN_OP_SOFTMAX, F32, F32, ZEN_TYPE_F16, softmax<f16_t, true>},
};

}  // namespace

std::span<const KernelEntry> norm_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
