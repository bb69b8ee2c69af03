// Rotary position embedding of x [D, H, T] by positions pos I32 [T], optional frequency factors
// F32 [n_dims / 2] (llama3 / long-rope scaling as GGUF ships them in rope_freqs), with linear
// scaling (freq_scale) and YaRN (ext_factor ramp between interpolated and extrapolated angles,
// magnitude scale). Pair i of the first n_dims elements rotates by
//   theta_i = pos * base^(-2i / n_dims) / freq_factor_i   (then freq_scale / YaRN as below);
// NORMAL mode pairs (2i, 2i + 1), NEOX pairs (i, i + n_dims / 2); elements past n_dims are
// copied. Angles are computed and reduced to [-pi, pi] in double per token (positions reach 1e5
// and more, where a float angle would already be off by 1e-2 rad), sin/cos and the rotation in
// float.
// ZEN_ROPE_MROPE (multi-axis, image/video models): NEOX pairs; pair i (frequency index i as
// above) takes its position from axis a (time, height, width, extra; positions [4 T],
// axis-major) where sections[a] holds i % sum(sections).
//
// Threads split rows (head, token); each keeps its token's cos/sin table in its own slice of
// the work buffer and refreshes it when the token changes.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels.h"
#include "tensor_access.h"
#include "vec.h"

namespace ZEN_CPU_NS {
namespace {

struct RopeParams {
  int64_t n_dims;
  bool neox;
  double freq_scale, ext_factor, mscale;
  double corr_lo, corr_hi;  // YaRN ramp between these pair indexes
  bool multi;               // ZEN_ROPE_MROPE: pair i's position comes from its section's axis
  int64_t sections[4], section_sum;
};

// The pair index where n_rot full rotations fit into the original context.
double yarn_corr_dim(double n_dims, double n_ctx_orig, double n_rot, double base) {
  return n_dims * std::log(n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * std::log(base));
}

RopeParams params(const zen_tensor& t) {
  RopeParams p{};
  p.n_dims = t.params[ZEN_ROPE_N_DIMS];
  p.neox = t.params[ZEN_ROPE_MODE] == ZEN_ROPE_NEOX || t.params[ZEN_ROPE_MODE] == ZEN_ROPE_MROPE;
  p.multi = t.params[ZEN_ROPE_MODE] == ZEN_ROPE_MROPE;
  p.section_sum = 0;
  for (int a = 0; a < 4; ++a) p.section_sum += p.sections[a] = t.params[ZEN_ROPE_SECTION_0 + a];
  const double base = zen_param_f32(&t, ZEN_ROPE_FREQ_BASE);
  p.freq_scale = zen_param_f32(&t, ZEN_ROPE_FREQ_SCALE);
  p.ext_factor = zen_param_f32(&t, ZEN_ROPE_EXT_FACTOR);
  p.mscale = zen_param_f32(&t, ZEN_ROPE_ATTN_FACTOR);
  if (p.ext_factor != 0.0) {
    const double ctx = t.params[ZEN_ROPE_CTX_ORIG], nd = static_cast<double>(p.n_dims);
    const double fast = zen_param_f32(&t, ZEN_ROPE_BETA_FAST);
    const double slow = zen_param_f32(&t, ZEN_ROPE_BETA_SLOW);
    p.corr_lo = std::max(0.0, std::floor(yarn_corr_dim(nd, ctx, fast, base)));
    p.corr_hi = std::min(nd - 1.0, std::ceil(yarn_corr_dim(nd, ctx, slow, base)));
    p.mscale *= 1.0 + 0.1 * std::log(1.0 / p.freq_scale);
  }
  return p;
}

// Per-thread tables: inverse frequencies (double, per call), then cos and sin (float, per
// token). NEOX: c[i], s[i] for pair i. NORMAL: duplicated per element, c[2i] = c[2i+1] = cos,
// s[2i] = -sin, s[2i+1] = +sin, so y[j] = x[j] c[j] + x[j ^ 1] s[j].
uint64_t slice_bytes(int64_t n_dims) {
  return (static_cast<uint64_t>(n_dims / 2) * 8 + static_cast<uint64_t>(n_dims) * 8 + 63) / 64 * 64;
}

uint64_t rope_work(const zen_tensor& dst, const zen_tensor* const*, int nth) {
  return static_cast<uint64_t>(nth) * slice_bytes(dst.params[ZEN_ROPE_N_DIMS]);
}

// pos[a]: the token's position on axis a (all four equal unless multi-axis).
void fill_table(const RopeParams& p, const double* inv_freq, const double* pos, float* c,
                float* s) {
  const int64_t half = p.n_dims / 2;
  for (int64_t i = 0; i < half; ++i) {
    int axis = 0;
    if (p.multi) {
      int64_t sector = i % p.section_sum;
      while (axis < 3 && sector >= p.sections[axis]) sector -= p.sections[axis++];
    }
    const double extrap = pos[axis] * inv_freq[i];
    double theta = p.freq_scale * extrap;
    if (p.ext_factor != 0.0) {
      const double y =
          (static_cast<double>(i) - p.corr_lo) / std::max(0.001, p.corr_hi - p.corr_lo);
      const double ramp = (1.0 - std::min(1.0, std::max(0.0, y))) * p.ext_factor;
      theta = theta * (1.0 - ramp) + extrap * ramp;
    }
    // Reduce to [-pi, pi] in double (exact enough for any position), then a float sin/cos:
    // the reduced angle's rounding (< 2e-7 rad) is what the float result carries anyway.
    const double red = theta - 2.0 * M_PI * std::nearbyint(theta * (0.5 / M_PI));
    const float fr = static_cast<float>(red), ms = static_cast<float>(p.mscale);
    const float cv = std::cos(fr) * ms, sv = std::sin(fr) * ms;
    if (p.neox) {
      c[i] = cv;
      s[i] = sv;
    } else {
      c[2 * i] = c[2 * i + 1] = cv;
      s[2 * i] = -sv;
      s[2 * i + 1] = sv;
    }
  }
}

void rotate_f32(const RopeParams& p, const float* c, const float* s, const float* x, float* y,
                int64_t ne0) {
  const int64_t n = p.n_dims;
  if (p.neox) {
    const int64_t h = n / 2;
    int64_t i = 0;
#if ZEN_VEC_AVX2
    for (; i + 8 <= h; i += 8) {
      const __m256 x0 = _mm256_loadu_ps(x + i), x1 = _mm256_loadu_ps(x + i + h);
      const __m256 cv = _mm256_loadu_ps(c + i), sv = _mm256_loadu_ps(s + i);
      _mm256_storeu_ps(y + i, _mm256_fmsub_ps(x0, cv, _mm256_mul_ps(x1, sv)));
      _mm256_storeu_ps(y + i + h, _mm256_fmadd_ps(x0, sv, _mm256_mul_ps(x1, cv)));
    }
#endif
    for (; i < h; ++i) {
      const float x0 = x[i], x1 = x[i + h];
      y[i] = x0 * c[i] - x1 * s[i];
      y[i + h] = x0 * s[i] + x1 * c[i];
    }
  } else {
    int64_t j = 0;
#if ZEN_VEC_AVX2
    for (; j + 8 <= n; j += 8) {
      const __m256 xv = _mm256_loadu_ps(x + j);
      const __m256 sw = _mm256_permute_ps(xv, 0xB1);  // swap each adjacent pair
      _mm256_storeu_ps(y + j, _mm256_fmadd_ps(xv, _mm256_loadu_ps(c + j),
                                              _mm256_mul_ps(sw, _mm256_loadu_ps(s + j))));
    }
#endif
    for (; j < n; j += 2) {
      const float x0 = x[j], x1 = x[j + 1];
      y[j] = x0 * c[j] + x1 * s[j];
      y[j + 1] = x1 * c[j + 1] + x0 * s[j + 1];
    }
  }
  if (y != x)
    for (int64_t j = n; j < ne0; ++j) y[j] = x[j];
}

template <class T>
void rope(const KernelArgs& k, int ith, int nth) {
  const zen_tensor &dst = *k.dst, &x = *k.src[0], &pos = *k.src[1];
  const zen_tensor* ff = k.src[2];
  const RopeParams p = params(dst);
  const int64_t half = p.n_dims / 2;
  char* slice = static_cast<char*>(k.work) + static_cast<uint64_t>(ith) * slice_bytes(p.n_dims);
  double* inv_freq = reinterpret_cast<double*>(slice);
  float* c = reinterpret_cast<float*>(inv_freq + half);
  float* s = c + p.n_dims;
  const double base = zen_param_f32(&dst, ZEN_ROPE_FREQ_BASE);
  for (int64_t i = 0; i < half; ++i) {
    inv_freq[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(p.n_dims));
    if (ff) inv_freq[i] /= load<float>(k.s[2] + i * static_cast<int64_t>(ff->nb[0]));
  }
  const bool fast =
      std::is_same_v<T, float> && x.nb[0] == sizeof(float) && dst.nb[0] == sizeof(float);
  const Range r = share(rows(dst), ith, nth);
  int64_t table_for = -1;  // the token whose angles are in c, s
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);  // i1 head, i2 token
    if (i.i2 != table_for) {
      double pv[4];
      for (int a = 0; a < 4; ++a) {
        const int64_t at_pos = p.multi ? a * x.ne[2] + i.i2 : i.i2;
        int32_t v;
        std::memcpy(&v, k.s[1] + at_pos * static_cast<int64_t>(pos.nb[0]), sizeof v);
        pv[a] = v;
      }
      fill_table(p, inv_freq, pv, c, s);
      table_for = i.i2;
    }
    if (fast) {
      rotate_f32(p, c, s, reinterpret_cast<const float*>(at(k.s[0], x, 0, i.i1, i.i2, i.i3)),
                 reinterpret_cast<float*>(at(k.d, dst, 0, i.i1, i.i2, i.i3)), x.ne[0]);
      continue;
    }
    auto ld = [&](int64_t j) { return load<T>(at(k.s[0], x, j, i.i1, i.i2, i.i3)); };
    auto st = [&](int64_t j, float v) { store<T>(at(k.d, dst, j, i.i1, i.i2, i.i3), v); };
    for (int64_t q = 0; q < half; ++q) {
      const int64_t j0 = p.neox ? q : 2 * q, j1 = p.neox ? q + half : 2 * q + 1;
      const float cv = p.neox ? c[q] : c[2 * q], sv = p.neox ? s[q] : s[2 * q + 1];
      const float x0 = ld(j0), x1 = ld(j1);
      st(j0, x0 * cv - x1 * sv);
      st(j1, x0 * sv + x1 * cv);
    }
    for (int64_t j = p.n_dims; j < x.ne[0]; ++j) st(j, ld(j));
  }
}

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16, I32 = ZEN_TYPE_I32;
constexpr KernelEntry kKernels[] = {
    {ZEN_OP_ROPE, F32, F32, I32, rope<float>, rope_work},
    {ZEN_OP_ROPE, F16, F16, I32, rope<f16_t>, rope_work},
    {ZEN_OP_ROPE, BF16, BF16, I32, rope<bf16_t>, rope_work},
};

}  // namespace

std::span<const KernelEntry> rope_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
