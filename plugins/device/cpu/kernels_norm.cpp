// Row reductions over ne0: rms_norm, layer_norm, softmax (with optional mask and scale), and
// group_norm over (ne0, ne1, channels of a group). Contiguous F32 rows take the vector path
// (vec.h); anything else (strided views, F16/BF16) the scalar path, which sums in double.
// Threads split rows (groups for group_norm).
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels.h"
#include "tensor_access.h"
#include "vec.h"

namespace ZEN_CPU_NS {
namespace {

template <class T>
bool packed_row(const zen_tensor& t) {
  return t.nb[0] == sizeof(T);
}

// The fused MUL of a norm (zen/fusion.hpp norm_mul): row i of the product = the row just
// written times the weight row, as the MUL kernel computes it.
void fused_mul_row(const KernelArgs& k, const RowIndex& i) {
  const zen_tensor &dst = *k.dst, &p = *k.fused, &w = *k.fused_src;
  if (dst.nb[0] == sizeof(float) && p.nb[0] == sizeof(float) && w.nb[0] == sizeof(float)) {
    const float* x = reinterpret_cast<const float*>(at(k.d, dst, 0, i.i1, i.i2, i.i3));
    const float* y = reinterpret_cast<const float*>(at(k.fs, w, 0, 0, 0, 0));
    float* o = reinterpret_cast<float*>(at(k.fd, p, 0, i.i1, i.i2, i.i3));
    for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0) o[i0] = x[i0] * y[i0];
    return;
  }
  for (int64_t i0 = 0; i0 < dst.ne[0]; ++i0)
    store<float>(
        at(k.fd, p, i0, i.i1, i.i2, i.i3),
        load<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3)) * load<float>(at(k.fs, w, i0, 0, 0, 0)));
}

// rms_norm (kLayer false): x / sqrt(mean(x^2) + eps); layer_norm: (x - mean) / sqrt(var + eps).
template <class T, bool kLayer>
void norm(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &a = *k.src[0];
  const float eps = zen_param_f32(k.dst, 0);
  const int64_t n = a.ne[0];
  const bool fast = std::is_same_v<T, float> && packed_row<float>(a) && packed_row<float>(dst);
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    if (fast) {
      const float* x = reinterpret_cast<const float*>(at(k.s[0], a, 0, i.i1, i.i2, i.i3));
      float* y = reinterpret_cast<float*>(at(k.d, dst, 0, i.i1, i.i2, i.i3));
      if constexpr (kLayer) {
        const float mean = vec::sum(x, n) / static_cast<float>(n);
        const float var = vec::sum_sq_dev(x, n, mean) / static_cast<float>(n);
        vec::add_mul(y, x, -mean, 1.0f / std::sqrt(var + eps), n);
      } else {
        const float ms = vec::sum_sq(x, n) / static_cast<float>(n);
        vec::mul_add(y, x, 1.0f / std::sqrt(ms + eps), 0.0f, n);
      }
      if (k.fused) fused_mul_row(k, i);
      continue;
    }
    auto x = [&](int64_t i0) { return double(load<T>(at(k.s[0], a, i0, i.i1, i.i2, i.i3))); };
    double mean = 0.0;
    if constexpr (kLayer) {
      for (int64_t i0 = 0; i0 < n; ++i0) mean += x(i0);
      mean /= static_cast<double>(n);
    }
    double sum = 0.0;
    for (int64_t i0 = 0; i0 < n; ++i0) sum += (x(i0) - mean) * (x(i0) - mean);
    const double scale = 1.0 / std::sqrt(sum / static_cast<double>(n) + eps);
    for (int64_t i0 = 0; i0 < n; ++i0)
      store<T>(at(k.d, dst, i0, i.i1, i.i2, i.i3), static_cast<float>((x(i0) - mean) * scale));
    if constexpr (std::is_same_v<T, float>)
      if (k.fused) fused_mul_row(k, i);
  }
}

// a [W, H, C, N]: each of the `groups` groups of C / groups channels of each sample is
// normalized as one set of W * H * C / groups values.
template <class T>
void group_norm(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &a = *k.src[0];
  const int64_t groups = k.dst->params[0];
  const double eps = zen_param_f32(k.dst, 1);
  const int64_t cpg = a.ne[2] / groups;
  const bool fast = std::is_same_v<T, float> && packed_row<float>(a) && packed_row<float>(dst);
  const double count = static_cast<double>(a.ne[0] * a.ne[1] * cpg);
  const Range r = share(groups * a.ne[3], ith, nth);
  for (int64_t u = r.begin; u < r.end; ++u) {
    const int64_t g = u % groups, i3 = u / groups;
    const int64_t c0 = g * cpg, c1 = c0 + cpg;
    double sum = 0.0, sq = 0.0;
    for (int64_t i2 = c0; i2 < c1; ++i2)
      for (int64_t i1 = 0; i1 < a.ne[1]; ++i1) {
        if (fast) {
          const float* x = reinterpret_cast<const float*>(at(k.s[0], a, 0, i1, i2, i3));
          sum += vec::sum(x, a.ne[0]);
          continue;
        }
        for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) sum += load<T>(at(k.s[0], a, i0, i1, i2, i3));
      }
    const double mean = sum / count;
    for (int64_t i2 = c0; i2 < c1; ++i2)
      for (int64_t i1 = 0; i1 < a.ne[1]; ++i1) {
        if (fast) {
          const float* x = reinterpret_cast<const float*>(at(k.s[0], a, 0, i1, i2, i3));
          sq += vec::sum_sq_dev(x, a.ne[0], static_cast<float>(mean));
          continue;
        }
        for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) {
          const double d = load<T>(at(k.s[0], a, i0, i1, i2, i3)) - mean;
          sq += d * d;
        }
      }
    const double scale = 1.0 / std::sqrt(sq / count + eps);
    for (int64_t i2 = c0; i2 < c1; ++i2)
      for (int64_t i1 = 0; i1 < a.ne[1]; ++i1) {
        if (fast) {
          vec::add_mul(reinterpret_cast<float*>(at(k.d, dst, 0, i1, i2, i3)),
                       reinterpret_cast<const float*>(at(k.s[0], a, 0, i1, i2, i3)),
                       static_cast<float>(-mean), static_cast<float>(scale), a.ne[0]);
          continue;
        }
        for (int64_t i0 = 0; i0 < a.ne[0]; ++i0)
          store<T>(at(k.d, dst, i0, i1, i2, i3),
                   static_cast<float>((load<T>(at(k.s[0], a, i0, i1, i2, i3)) - mean) * scale));
      }
  }
}

// dst (F32) = softmax(x * scale + mask) per row; mask row i1, repeated over dims 2 and 3.
// A row whose every value is -inf (fully masked) gives zeros.
template <class X, class MaskT, bool kMasked>
void softmax(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &x = *k.src[0];
  const zen_tensor* mask = k.src[1];
  const float scale = zen_param_f32(k.dst, 0);
  const int64_t n = x.ne[0];
  const bool fast = std::is_same_v<X, float> && packed_row<float>(x) && packed_row<float>(dst) &&
                    (!kMasked || packed_row<MaskT>(*mask));
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    const char* mrow = nullptr;
    if constexpr (kMasked)
      mrow = at(k.s[1], *mask, 0, i.i1, i.i2 % mask->ne[2], i.i3 % mask->ne[3]);
    if (fast) {
      const float* xs = reinterpret_cast<const float*>(at(k.s[0], x, 0, i.i1, i.i2, i.i3));
      float* y = reinterpret_cast<float*>(at(k.d, dst, 0, i.i1, i.i2, i.i3));
      vec::mul_add(y, xs, scale, 0.0f, n);
      if constexpr (kMasked) {
        if constexpr (std::is_same_v<MaskT, float>) {
          const float* m = reinterpret_cast<const float*>(mrow);
          for (int64_t i0 = 0; i0 < n; ++i0) y[i0] += m[i0];
        } else {
          for (int64_t i0 = 0; i0 < n; ++i0) y[i0] += load<MaskT>(mrow + i0 * sizeof(MaskT));
        }
      }
      const float m = vec::max(y, n);
      if (m == -std::numeric_limits<float>::infinity()) {
        for (int64_t i0 = 0; i0 < n; ++i0) y[i0] = 0.0f;
        continue;
      }
      const float s = vec::exp_sub_sum(y, y, m, n);
      vec::mul_add(y, y, 1.0f / s, 0.0f, n);
      continue;
    }
    auto value = [&](int64_t i0) {
      float v = load<X>(at(k.s[0], x, i0, i.i1, i.i2, i.i3)) * scale;
      if constexpr (kMasked) v += load<MaskT>(mrow + i0 * static_cast<int64_t>(mask->nb[0]));
      return v;
    };
    float max = -std::numeric_limits<float>::infinity();
    for (int64_t i0 = 0; i0 < n; ++i0) max = std::max(max, value(i0));
    if (max == -std::numeric_limits<float>::infinity()) {
      for (int64_t i0 = 0; i0 < n; ++i0) store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3), 0.0f);
      continue;
    }
    double sum = 0.0;
    for (int64_t i0 = 0; i0 < n; ++i0) {
      const double e = std::exp(static_cast<double>(value(i0)) - max);
      sum += e;
      store<float>(at(k.d, dst, i0, i.i1, i.i2, i.i3), static_cast<float>(e));
    }
    const double inv = 1.0 / sum;
    for (int64_t i0 = 0; i0 < n; ++i0) {
      char* p = at(k.d, dst, i0, i.i1, i.i2, i.i3);
      store<float>(p, static_cast<float>(load<float>(p) * inv));
    }
  }
}

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16;
constexpr KernelEntry kKernels[] = {
    {ZEN_OP_RMS_NORM, F32, F32, kNoSrc, norm<float, false>},
    {ZEN_OP_RMS_NORM, F16, F16, kNoSrc, norm<f16_t, false>},
    {ZEN_OP_RMS_NORM, BF16, BF16, kNoSrc, norm<bf16_t, false>},
    {ZEN_OP_LAYER_NORM, F32, F32, kNoSrc, norm<float, true>},
    {ZEN_OP_LAYER_NORM, F16, F16, kNoSrc, norm<f16_t, true>},
    {ZEN_OP_LAYER_NORM, BF16, BF16, kNoSrc, norm<bf16_t, true>},
    {ZEN_OP_GROUP_NORM, F32, F32, kNoSrc, group_norm<float>},
    {ZEN_OP_GROUP_NORM, F16, F16, kNoSrc, group_norm<f16_t>},
    {ZEN_OP_GROUP_NORM, BF16, BF16, kNoSrc, group_norm<bf16_t>},
    {ZEN_OP_SOFTMAX, F32, F32, kNoSrc, softmax<float, float, false>},
    {ZEN_OP_SOFTMAX, F32, F32, F32, softmax<float, float, true>},
    {ZEN_OP_SOFTMAX, F32, F32, F16, softmax<float, f16_t, true>},
    {ZEN_OP_SOFTMAX, F32, F16, kNoSrc, softmax<f16_t, float, false>},
    {ZEN_OP_SOFTMAX, F32, F16, F32, softmax<f16_t, float, true>},
    {ZEN_OP_SOFTMAX, F32, F16, F16, softmax<f16_t, f16_t, true>},
};

}  // namespace

std::span<const KernelEntry> norm_kernels() { return kKernels; }

bool fuses_mul(KernelFn fn) { return fn == norm<float, false> || fn == norm<float, true>; }

}  // namespace ZEN_CPU_NS
