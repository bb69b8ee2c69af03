// Row primitives on contiguous F32 arrays for the norm, softmax, rope and activation kernels:
// AVX2/FMA (also used by the AVX-512 variants: these ops are memory- or exp-bound and the
// 256-bit code keeps one path to review), NEON, and a portable scalar path. Reductions keep several
// independent accumulators; their rounding is far below the kernels' float outputs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>

#include "fp16.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ZEN_VEC_AVX2 1
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#define ZEN_VEC_NEON 1
#endif

namespace ZEN_CPU_NS::vec {

#if ZEN_VEC_AVX2
inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
inline float hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
// e^x for x <= ~88 (inputs below -87 give 0): range reduction by ln 2 in two parts and a
// degree-6 polynomial on [-ln2/2, ln2/2]; about 2 ulp.
inline __m256 exp(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.3762626647949f), lo = _mm256_set1_ps(-87.3365478515625f);
  const __m256 under = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
  x = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n: n in [-126, 128); build it in two halves so n = 128 does not overflow the exponent.
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i h = _mm256_srai_epi32(ni, 1);
  const __m256 s1 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, _mm256_set1_epi32(127)), 23));
  const __m256 s2 = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, h), _mm256_set1_epi32(127)), 23));
  return _mm256_andnot_ps(under, _mm256_mul_ps(_mm256_mul_ps(p, s1), s2));
}
#endif

#if ZEN_VEC_NEON
// e^x as the AVX2 version: same range reduction and polynomial.
inline float32x4_t exp(float32x4_t x) {
  const float32x4_t hi = vdupq_n_f32(88.3762626647949f), lo = vdupq_n_f32(-87.3365478515625f);
  const uint32x4_t under = vcltq_f32(x, lo);
  x = vminq_f32(vmaxq_f32(x, lo), hi);
  const float32x4_t n = vrndnq_f32(vmulq_n_f32(x, 1.44269504088896341f));
  float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
  r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
  float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
  p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
  p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
  p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), p, vmulq_f32(r, r));
  const int32x4_t ni = vcvtq_s32_f32(n);
  const int32x4_t h = vshrq_n_s32(ni, 1);
  const float32x4_t s1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(h, vdupq_n_s32(127)), 23));
  const float32x4_t s2 =
      vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vsubq_s32(ni, h), vdupq_n_s32(127)), 23));
  const float32x4_t e = vmulq_f32(vmulq_f32(p, s1), s2);
  return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(e), under));
}
#endif

// sum of x[i]^2
inline float sum_sq(const float* x, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if ZEN_VEC_AVX2
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  for (; i + 32 <= n; i += 32) {
    __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
    __m256 v2 = _mm256_loadu_ps(x + i + 16), v3 = _mm256_loadu_ps(x + i + 24);
    a0 = _mm256_fmadd_ps(v0, v0, a0);
    a1 = _mm256_fmadd_ps(v1, v1, a1);
    a2 = _mm256_fmadd_ps(v2, v2, a2);
    a3 = _mm256_fmadd_ps(v3, v3, a3);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    a0 = _mm256_fmadd_ps(v, v, a0);
  }
  s = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
#elif ZEN_VEC_NEON
  float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0;
  for (; i + 8 <= n; i += 8) {
    float32x4_t v0 = vld1q_f32(x + i), v1 = vld1q_f32(x + i + 4);
    a0 = vfmaq_f32(a0, v0, v0);
    a1 = vfmaq_f32(a1, v1, v1);
  }
  s = vaddvq_f32(vaddq_f32(a0, a1));
#endif
  for (; i < n; ++i) s += x[i] * x[i];
  return s;
}

inline float sum(const float* x, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if ZEN_VEC_AVX2
  __m256 a0 = _mm256_setzero_ps(), a1 = a0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(x + i + 8));
  }
  s = hsum(_mm256_add_ps(a0, a1));
#elif ZEN_VEC_NEON
  float32x4_t a0 = vdupq_n_f32(0.0f);
  for (; i + 4 <= n; i += 4) a0 = vaddq_f32(a0, vld1q_f32(x + i));
  s = vaddvq_f32(a0);
#endif
  for (; i < n; ++i) s += x[i];
  return s;
}

// sum of (x[i] - mean)^2
inline float sum_sq_dev(const float* x, int64_t n, float mean) {
  int64_t i = 0;
  float s = 0.0f;
#if ZEN_VEC_AVX2
  const __m256 m = _mm256_set1_ps(mean);
  __m256 a0 = _mm256_setzero_ps(), a1 = a0;
  for (; i + 16 <= n; i += 16) {
    __m256 v0 = _mm256_sub_ps(_mm256_loadu_ps(x + i), m);
    __m256 v1 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8), m);
    a0 = _mm256_fmadd_ps(v0, v0, a0);
    a1 = _mm256_fmadd_ps(v1, v1, a1);
  }
  s = hsum(_mm256_add_ps(a0, a1));
#elif ZEN_VEC_NEON
  const float32x4_t m = vdupq_n_f32(mean);
  float32x4_t a0 = vdupq_n_f32(0.0f);
  for (; i + 4 <= n; i += 4) {
    float32x4_t v = vsubq_f32(vld1q_f32(x + i), m);
    a0 = vfmaq_f32(a0, v, v);
  }
  s = vaddvq_f32(a0);
#endif
  for (; i < n; ++i) s += (x[i] - mean) * (x[i] - mean);
  return s;
}

inline float max(const float* x, int64_t n) {
  int64_t i = 0;
  float m = -INFINITY;
#if ZEN_VEC_AVX2
  __m256 a = _mm256_set1_ps(-INFINITY);
  for (; i + 8 <= n; i += 8) a = _mm256_max_ps(a, _mm256_loadu_ps(x + i));
  m = hmax(a);
#elif ZEN_VEC_NEON
  float32x4_t a = vdupq_n_f32(-INFINITY);
  for (; i + 4 <= n; i += 4) a = vmaxq_f32(a, vld1q_f32(x + i));
  m = vmaxvq_f32(a);
#endif
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// y[i] = (x[i] + b) * s   (y may be x)
inline void add_mul(float* y, const float* x, float b, float s, int64_t n) {
  int64_t i = 0;
#if ZEN_VEC_AVX2
  const __m256 vb = _mm256_set1_ps(b), vs = _mm256_set1_ps(s);
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_add_ps(_mm256_loadu_ps(x + i), vb), vs));
#elif ZEN_VEC_NEON
  const float32x4_t vb = vdupq_n_f32(b), vs = vdupq_n_f32(s);
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vmulq_f32(vaddq_f32(vld1q_f32(x + i), vb), vs));
#endif
  for (; i < n; ++i) y[i] = (x[i] + b) * s;
}

// y[i] = x[i] * s + b   (y may be x)
inline void mul_add(float* y, const float* x, float s, float b, int64_t n) {
  int64_t i = 0;
#if ZEN_VEC_AVX2
  const __m256 vb = _mm256_set1_ps(b), vs = _mm256_set1_ps(s);
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), vs, vb));
#elif ZEN_VEC_NEON
  const float32x4_t vb = vdupq_n_f32(b), vs = vdupq_n_f32(s);
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_f32(vb, vld1q_f32(x + i), vs));
#endif
  for (; i < n; ++i) y[i] = x[i] * s + b;
}

// y[i] = e^(x[i] - m), returns the sum of y   (y may be x)
inline float exp_sub_sum(float* y, const float* x, float m, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if ZEN_VEC_AVX2
  const __m256 vm = _mm256_set1_ps(m);
  __m256 a = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    __m256 e = exp(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    _mm256_storeu_ps(y + i, e);
    a = _mm256_add_ps(a, e);
  }
  s = hsum(a);
#elif ZEN_VEC_NEON
  const float32x4_t vm = vdupq_n_f32(m);
  float32x4_t a = vdupq_n_f32(0.0f);
  for (; i + 4 <= n; i += 4) {
    const float32x4_t e = exp(vsubq_f32(vld1q_f32(x + i), vm));
    vst1q_f32(y + i, e);
    a = vaddq_f32(a, e);
  }
  s = vaddvq_f32(a);
#endif
  for (; i < n; ++i) s += (y[i] = std::exp(x[i] - m));
  return s;
}

// y[i] = x[i] / (1 + e^-x[i]) * (g ? g[i] : 1)
inline void silu(float* y, const float* x, const float* g, int64_t n) {
  int64_t i = 0;
#if ZEN_VEC_AVX2
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 r = _mm256_div_ps(v, _mm256_add_ps(one, exp(_mm256_sub_ps(zero, v))));
    if (g) r = _mm256_mul_ps(r, _mm256_loadu_ps(g + i));
    _mm256_storeu_ps(y + i, r);
  }
#elif ZEN_VEC_NEON
  const float32x4_t one = vdupq_n_f32(1.0f);
  for (; i + 4 <= n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    float32x4_t r = vdivq_f32(v, vaddq_f32(one, exp(vnegq_f32(v))));
    if (g) r = vmulq_f32(r, vld1q_f32(g + i));
    vst1q_f32(y + i, r);
  }
#endif
  for (; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * (g ? g[i] : 1.0f);
}

// gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//                         = x / (1 + e^(-2 u)),  u = sqrt(2/pi) (x + 0.044715 x^3)
inline void gelu_tanh(float* y, const float* x, const float* g, int64_t n) {
  constexpr float c = 0.7978845608028654f, k = 0.044715f;
  int64_t i = 0;
#if ZEN_VEC_AVX2
  const __m256 one = _mm256_set1_ps(1.0f), m2c = _mm256_set1_ps(-2.0f * c), vk = _mm256_set1_ps(k);
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 t = _mm256_mul_ps(m2c, _mm256_fmadd_ps(_mm256_mul_ps(vk, v), _mm256_mul_ps(v, v), v));
    __m256 r = _mm256_div_ps(v, _mm256_add_ps(one, exp(t)));
    if (g) r = _mm256_mul_ps(r, _mm256_loadu_ps(g + i));
    _mm256_storeu_ps(y + i, r);
  }
#endif
  for (; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + std::tanh(c * (v + k * v * v * v))) * (g ? g[i] : 1.0f);
  }
}

// gelu, exact: x/2 (1 + erf(x / sqrt 2)). The vector path writes it through erfc(z), z = |x| /
// sqrt 2, with Numerical Recipes' fit (fractional error < 1.2e-7, the Vulkan device's): x -
// x/2 erfc(z) for x >= 0 and x/2 erfc(z) below, so the negative side, where 1 + erf is small,
// keeps its relative accuracy. (BERT-family encoders spend 15 % of their time here otherwise.)
inline void gelu_erf(float* y, const float* x, const float* g, int64_t n) {
  int64_t i = 0;
#if ZEN_VEC_AVX2
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f),
               rsqrt2 = _mm256_set1_ps(0.70710678118654752f), zero = _mm256_setzero_ps();
  constexpr float c[] = {0.17087277f,  -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                         -0.18628806f, 0.09678418f,  0.37409196f, 1.00002368f};
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 z = _mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v), rsqrt2);
    const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(half, z, one));
    __m256 p = _mm256_set1_ps(c[0]);
    for (float ci : std::span(c).subspan(1)) p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(ci));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.26551223f));
    const __m256 ec = _mm256_mul_ps(t, exp(_mm256_fnmadd_ps(z, z, p)));  // erfc(z)
    const __m256 tail = _mm256_mul_ps(_mm256_mul_ps(half, v), ec);       // x/2 erfc(z)
    __m256 r = _mm256_blendv_ps(_mm256_sub_ps(v, tail), tail, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
    if (g) r = _mm256_mul_ps(r, _mm256_loadu_ps(g + i));
    _mm256_storeu_ps(y + i, r);
  }
#endif
  for (; i < n; ++i)
    y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f)) * (g ? g[i] : 1.0f);
}

// n floats to F16 bits, rounded to nearest even (f32_to_f16's rounding; F16C where built in).
inline void to_f16(uint16_t* y, const float* x, int64_t n) {
  int64_t i = 0;
#if ZEN_VEC_AVX2 && defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i) y[i] = f32_to_f16(x[i]);
}

}  // namespace ZEN_CPU_NS::vec
