// Fused attention of the CPU device: flash-style online softmax, never materialising the score
// matrix. For each (query row, head) the keys are streamed in blocks of kBlockKeys, keeping the
// running max m, the running sum l and the unnormalised output accumulator in float:
//
//   s_j = scale * q.k_j;  s_j = cap * tanh(s_j / cap) (soft-cap);  s_j += mask[j]
//   keys outside the causal / sliding-window range are skipped (-inf)
//   out = sum_j exp(s_j - m) v_j / sum_j exp(s_j - m);  a row that sees no key outputs zeros
//
// Layout (core/graph/infer.h): q [D, T, Hq, S], k [D, L, Hkv, S'], v [Dv, L, Hkv, S'],
// optional mask F32/F16 [L, T' >= T, M2, M3], dst F32 [Dv, Hq, T, S]. Query head h reads kv head
// h / (Hq / Hkv) (GQA / MQA); query t sits at kv position pos0 + t.
//
// K and V may be F32, F16, BF16 or Q8_0 (each independently); Q any float type. The dot
// products and the V accumulation are vectorised for AVX-512, AVX2/FMA(/F16C) and NEON with a
// scalar fallback. Threads split the (row, kv part) items with share(); when there are few rows
// (decode) the visible KV range of each row is split into parts whose partial (m, l, acc) go to
// args.work, and after sync_threads() the parts are merged with log-sum-exp rescaling.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>

#if defined(__AVX2__) || defined(__AVX512F__)
// GCC 12's AVX-512 headers build "undefined" vectors as `__m256d __Y = __Y;`, which its own
// -Wuninitialized then reports wherever _mm512_reduce_add_ps / conversions are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif
#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#include <zen/quant_blocks.hpp>

#include "kernels.h"
#include "tensor_access.h"
#include "vec.h"

namespace ZEN_CPU_NS {
namespace {

constexpr int64_t kBlockKeys = 64;  // keys scored per online-softmax step
constexpr int64_t kMinPart = 128;   // fewest keys a split-KV part is given
constexpr int64_t kItemsPerThread = 4;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

using zen::quant::block_q8_0;
using zen::quant::QK8_0;

inline float ld_f32(const char* p) {
  float v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint16_t ld_u16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// A block's half scale d as float (F16C when the variant has it: exact either way).
inline float half_at(const char* p) {
#if defined(__F16C__)
  return _cvtsh_ss(ld_u16(p));
#else
  return f16_to_f32(ld_u16(p));
#endif
}

#if defined(__AVX2__) && !defined(__AVX512F__)
inline float hsum(__m256 v) {
  __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  __m128 sh = _mm_movehdup_ps(lo);
  lo = _mm_add_ps(lo, sh);
  sh = _mm_movehl_ps(sh, lo);
  return _mm_cvtss_f32(_mm_add_ss(lo, sh));
}
#endif

// ---- row primitives over n elements of one K or V row -------------------------------------
// dot(q, row) and acc += p * row, with the row in the storage type.
using DotFn = float (*)(const float* q, const char* row, int64_t n);
using AxpyFn = void (*)(float* acc, float p, const char* row, int64_t n);

float dot_f32(const float* q, const char* row, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if defined(__AVX512F__)
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
  const float* r = reinterpret_cast<const float*>(row);
  for (; i + 32 <= n; i += 32) {
    a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), _mm512_loadu_ps(r + i), a0);
    a1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i + 16), _mm512_loadu_ps(r + i + 16), a1);
  }
  for (; i + 16 <= n; i += 16)
    a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), _mm512_loadu_ps(r + i), a0);
  s = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
#elif defined(__AVX2__) && defined(__FMA__)
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  const float* r = reinterpret_cast<const float*>(row);
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), _mm256_loadu_ps(r + i), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), _mm256_loadu_ps(r + i + 8), a1);
  }
  for (; i + 8 <= n; i += 8)
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), _mm256_loadu_ps(r + i), a0);
  s = hsum(_mm256_add_ps(a0, a1));
#elif defined(__ARM_NEON)
  float32x4_t a0 = vdupq_n_f32(0.0f), a1 = vdupq_n_f32(0.0f);
  const float* r = reinterpret_cast<const float*>(row);
  for (; i + 8 <= n; i += 8) {
    a0 = vfmaq_f32(a0, vld1q_f32(q + i), vld1q_f32(r + i));
    a1 = vfmaq_f32(a1, vld1q_f32(q + i + 4), vld1q_f32(r + i + 4));
  }
  s = vaddvq_f32(vaddq_f32(a0, a1));
#endif
  for (; i < n; ++i) s += q[i] * ld_f32(row + 4 * i);
  return s;
}

void axpy_f32(float* acc, float p, const char* row, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  const __m512 vp = _mm512_set1_ps(p);
  const float* r = reinterpret_cast<const float*>(row);
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(acc + i,
                     _mm512_fmadd_ps(vp, _mm512_loadu_ps(r + i), _mm512_loadu_ps(acc + i)));
#elif defined(__AVX2__) && defined(__FMA__)
  const __m256 vp = _mm256_set1_ps(p);
  const float* r = reinterpret_cast<const float*>(row);
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(acc + i,
                     _mm256_fmadd_ps(vp, _mm256_loadu_ps(r + i), _mm256_loadu_ps(acc + i)));
#elif defined(__ARM_NEON)
  const float* r = reinterpret_cast<const float*>(row);
  for (; i + 4 <= n; i += 4)
    vst1q_f32(acc + i, vfmaq_n_f32(vld1q_f32(acc + i), vld1q_f32(r + i), p));
#endif
  for (; i < n; ++i) acc[i] += p * ld_f32(row + 4 * i);
}

float dot_f16(const float* q, const char* row, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if defined(__AVX512F__)
  __m512 a0 = _mm512_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    const __m512 k =
        _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * i)));
    a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), k, a0);
  }
  s = _mm512_reduce_add_ps(a0);
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    const __m256 k0 =
        _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i)));
    const __m256 k1 =
        _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i + 16)));
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), k0, a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), k1, a1);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 k =
        _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i)));
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), k, a0);
  }
  s = hsum(_mm256_add_ps(a0, a1));
#elif defined(__ARM_NEON)
  float32x4_t a0 = vdupq_n_f32(0.0f);
  for (; i + 4 <= n; i += 4) {
    const float32x4_t k = vcvt_f32_f16(
        vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t*>(row + 2 * i))));
    a0 = vfmaq_f32(a0, vld1q_f32(q + i), k);
  }
  s = vaddvq_f32(a0);
#endif
  for (; i < n; ++i) s += q[i] * f16_to_f32(ld_u16(row + 2 * i));
  return s;
}

void axpy_f16(float* acc, float p, const char* row, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  const __m512 vp = _mm512_set1_ps(p);
  for (; i + 16 <= n; i += 16) {
    const __m512 v =
        _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * i)));
    _mm512_storeu_ps(acc + i, _mm512_fmadd_ps(vp, v, _mm512_loadu_ps(acc + i)));
  }
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
  const __m256 vp = _mm256_set1_ps(p);
  for (; i + 8 <= n; i += 8) {
    const __m256 v =
        _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i)));
    _mm256_storeu_ps(acc + i, _mm256_fmadd_ps(vp, v, _mm256_loadu_ps(acc + i)));
  }
#elif defined(__ARM_NEON)
  for (; i + 4 <= n; i += 4) {
    const float32x4_t v = vcvt_f32_f16(
        vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t*>(row + 2 * i))));
    vst1q_f32(acc + i, vfmaq_n_f32(vld1q_f32(acc + i), v, p));
  }
#endif
  for (; i < n; ++i) acc[i] += p * f16_to_f32(ld_u16(row + 2 * i));
}

float dot_bf16(const float* q, const char* row, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if defined(__AVX512F__)
  __m512 a0 = _mm512_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    const __m512i w =
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * i)));
    a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)), a0);
  }
  s = _mm512_reduce_add_ps(a0);
#elif defined(__AVX2__) && defined(__FMA__)
  __m256 a0 = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    const __m256i w =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i)));
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)), a0);
  }
  s = hsum(a0);
#elif defined(__ARM_NEON)
  float32x4_t a0 = vdupq_n_f32(0.0f);
  for (; i + 4 <= n; i += 4) {
    const uint32x4_t w = vshll_n_u16(vld1_u16(reinterpret_cast<const uint16_t*>(row + 2 * i)), 16);
    a0 = vfmaq_f32(a0, vld1q_f32(q + i), vreinterpretq_f32_u32(w));
  }
  s = vaddvq_f32(a0);
#endif
  for (; i < n; ++i) s += q[i] * bf16_to_f32(ld_u16(row + 2 * i));
  return s;
}

void axpy_bf16(float* acc, float p, const char* row, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  const __m512 vp = _mm512_set1_ps(p);
  for (; i + 16 <= n; i += 16) {
    const __m512i w =
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * i)));
    const __m512 v = _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
    _mm512_storeu_ps(acc + i, _mm512_fmadd_ps(vp, v, _mm512_loadu_ps(acc + i)));
  }
#elif defined(__AVX2__) && defined(__FMA__)
  const __m256 vp = _mm256_set1_ps(p);
  for (; i + 8 <= n; i += 8) {
    const __m256i w =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i)));
    const __m256 v = _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
    _mm256_storeu_ps(acc + i, _mm256_fmadd_ps(vp, v, _mm256_loadu_ps(acc + i)));
  }
#elif defined(__ARM_NEON)
  for (; i + 4 <= n; i += 4) {
    const uint32x4_t w = vshll_n_u16(vld1_u16(reinterpret_cast<const uint16_t*>(row + 2 * i)), 16);
    vst1q_f32(acc + i, vfmaq_n_f32(vld1q_f32(acc + i), vreinterpretq_f32_u32(w), p));
  }
#endif
  for (; i < n; ++i) acc[i] += p * bf16_to_f32(ld_u16(row + 2 * i));
}

// Q8_0 rows: n / 32 blocks of (half d, 32 int8 q), x = d * q, dequantised on the fly.
float dot_q8_0(const float* q, const char* row, int64_t n) {
  const int64_t nb = n / QK8_0;
#if defined(__AVX512F__)
  __m512 tot = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, q += QK8_0) {
    const char* blk = row + b * static_cast<int64_t>(sizeof(block_q8_0));
    const char* qs = blk + offsetof(block_q8_0, qs);
    const __m512 x0 = _mm512_cvtepi32_ps(
        _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs))));
    const __m512 x1 = _mm512_cvtepi32_ps(
        _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + 16))));
    const __m512 bs =
        _mm512_fmadd_ps(_mm512_loadu_ps(q + 16), x1, _mm512_mul_ps(_mm512_loadu_ps(q), x0));
    tot = _mm512_fmadd_ps(_mm512_set1_ps(half_at(blk)), bs, tot);
  }
  return _mm512_reduce_add_ps(tot);
#elif defined(__AVX2__) && defined(__FMA__)
  __m256 tot = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, q += QK8_0) {
    const char* blk = row + b * static_cast<int64_t>(sizeof(block_q8_0));
    const char* qs = blk + offsetof(block_q8_0, qs);
    __m256 bs = _mm256_setzero_ps();
    for (int j = 0; j < QK8_0; j += 8) {
      const __m256 x = _mm256_cvtepi32_ps(
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(qs + j))));
      bs = _mm256_fmadd_ps(_mm256_loadu_ps(q + j), x, bs);
    }
    tot = _mm256_fmadd_ps(_mm256_set1_ps(half_at(blk)), bs, tot);
  }
  return hsum(tot);
#elif defined(__ARM_NEON)
  float32x4_t tot = vdupq_n_f32(0.0f);
  for (int64_t b = 0; b < nb; ++b, q += QK8_0) {
    const char* blk = row + b * static_cast<int64_t>(sizeof(block_q8_0));
    const int8_t* qs = reinterpret_cast<const int8_t*>(blk + offsetof(block_q8_0, qs));
    float32x4_t bs = vdupq_n_f32(0.0f);
    for (int j = 0; j < QK8_0; j += 16) {
      const int8x16_t x = vld1q_s8(qs + j);
      const int16x8_t lo = vmovl_s8(vget_low_s8(x)), hi = vmovl_s8(vget_high_s8(x));
      bs = vfmaq_f32(bs, vld1q_f32(q + j), vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))));
      bs = vfmaq_f32(bs, vld1q_f32(q + j + 4), vcvtq_f32_s32(vmovl_s16(vget_high_s16(lo))));
      bs = vfmaq_f32(bs, vld1q_f32(q + j + 8), vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))));
      bs = vfmaq_f32(bs, vld1q_f32(q + j + 12), vcvtq_f32_s32(vmovl_s16(vget_high_s16(hi))));
    }
    tot = vfmaq_n_f32(tot, bs, half_at(blk));
  }
  return vaddvq_f32(tot);
#else
  float tot = 0.0f;
  for (int64_t b = 0; b < nb; ++b, q += QK8_0) {
    const char* blk = row + b * static_cast<int64_t>(sizeof(block_q8_0));
    const int8_t* qs = reinterpret_cast<const int8_t*>(blk + offsetof(block_q8_0, qs));
    float bs = 0.0f;
    for (int j = 0; j < QK8_0; ++j) bs += q[j] * static_cast<float>(qs[j]);
    tot += half_at(blk) * bs;
  }
  return tot;
#endif
}

void axpy_q8_0(float* acc, float p, const char* row, int64_t n) {
  const int64_t nb = n / QK8_0;
  for (int64_t b = 0; b < nb; ++b, acc += QK8_0) {
    const char* blk = row + b * static_cast<int64_t>(sizeof(block_q8_0));
    const int8_t* qs = reinterpret_cast<const int8_t*>(blk + offsetof(block_q8_0, qs));
    const float pd = p * half_at(blk);
#if defined(__AVX512F__)
    const __m512 vp = _mm512_set1_ps(pd);
    for (int j = 0; j < QK8_0; j += 16) {
      const __m512 x = _mm512_cvtepi32_ps(
          _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + j))));
      _mm512_storeu_ps(acc + j, _mm512_fmadd_ps(vp, x, _mm512_loadu_ps(acc + j)));
    }
#elif defined(__AVX2__) && defined(__FMA__)
    const __m256 vp = _mm256_set1_ps(pd);
    for (int j = 0; j < QK8_0; j += 8) {
      const __m256 x = _mm256_cvtepi32_ps(
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(qs + j))));
      _mm256_storeu_ps(acc + j, _mm256_fmadd_ps(vp, x, _mm256_loadu_ps(acc + j)));
    }
#elif defined(__ARM_NEON)
    for (int j = 0; j < QK8_0; j += 16) {
      const int8x16_t x = vld1q_s8(qs + j);
      const int16x8_t lo = vmovl_s8(vget_low_s8(x)), hi = vmovl_s8(vget_high_s8(x));
      vst1q_f32(acc + j,
                vfmaq_n_f32(vld1q_f32(acc + j), vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))), pd));
      vst1q_f32(acc + j + 4, vfmaq_n_f32(vld1q_f32(acc + j + 4),
                                         vcvtq_f32_s32(vmovl_s16(vget_high_s16(lo))), pd));
      vst1q_f32(acc + j + 8, vfmaq_n_f32(vld1q_f32(acc + j + 8),
                                         vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))), pd));
      vst1q_f32(acc + j + 12, vfmaq_n_f32(vld1q_f32(acc + j + 12),
                                          vcvtq_f32_s32(vmovl_s16(vget_high_s16(hi))), pd));
    }
#else
    for (int j = 0; j < QK8_0; ++j) acc[j] += pd * static_cast<float>(qs[j]);
#endif
  }
}

// ---- softmax weights: w[j] = exp(s[j] - m), 0 where s[j] - m < -87 (or -inf/NaN) ---------
// e^d below e^-87 is under float's smallest normal relative to the max term (weight 1), so
// dropping it changes nothing. exp(d) = 2^n e^r with n = round(d / ln 2), r = d - n ln 2
// (two-part ln 2), |r| <= ln2 / 2, e^r by its degree-7 Taylor polynomial (truncation error
// < 6e-9 relative), so the weight is within ~2 ulp of exp. Returns sum w[j].
constexpr float kExpFloor = -87.0f, kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f,
                kLn2Lo = -2.12194440e-4f;
constexpr float kE2 = 1.0f / 2, kE3 = 1.0f / 6, kE4 = 1.0f / 24, kE5 = 1.0f / 120, kE6 = 1.0f / 720,
                kE7 = 1.0f / 5040;

inline float exp_weight(float d) {
  if (!(d >= kExpFloor)) return 0.0f;
  const float n = std::nearbyint(d * kLog2e);
  float r = d - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kE7;
  p = p * r + kE6;
  p = p * r + kE5;
  p = p * r + kE4;
  p = p * r + kE3;
  p = p * r + kE2;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * std::bit_cast<float>(static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23);
}

float exp_block(const float* s, float m, float* w, int64_t n) {
  int64_t j = 0;
  float sum = 0.0f;
#if defined(__AVX512F__)
  const __m512 vm = _mm512_set1_ps(m), lo = _mm512_set1_ps(kExpFloor);
  __m512 vs = _mm512_setzero_ps();
  for (; j + 16 <= n; j += 16) {
    __m512 d = _mm512_sub_ps(_mm512_loadu_ps(s + j), vm);
    const __mmask16 keep = _mm512_cmp_ps_mask(d, lo, _CMP_GE_OQ);
    d = _mm512_max_ps(d, lo);  // NaN -> lo (the second operand)
    const __m512 nf = _mm512_roundscale_ps(_mm512_mul_ps(d, _mm512_set1_ps(kLog2e)),
                                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(kLn2Hi), d);
    r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(kLn2Lo), r);
    __m512 p = _mm512_set1_ps(kE7);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE5));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    const __m512i e =
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(nf), _mm512_set1_epi32(127)), 23);
    const __m512 y = _mm512_maskz_mov_ps(keep, _mm512_mul_ps(p, _mm512_castsi512_ps(e)));
    _mm512_storeu_ps(w + j, y);
    vs = _mm512_add_ps(vs, y);
  }
  sum = _mm512_reduce_add_ps(vs);
#elif defined(__AVX2__) && defined(__FMA__)
  const __m256 vm = _mm256_set1_ps(m), lo = _mm256_set1_ps(kExpFloor);
  __m256 vs = _mm256_setzero_ps();
  for (; j + 8 <= n; j += 8) {
    __m256 d = _mm256_sub_ps(_mm256_loadu_ps(s + j), vm);
    const __m256 keep = _mm256_cmp_ps(d, lo, _CMP_GE_OQ);
    d = _mm256_max_ps(d, lo);  // NaN -> lo (the second operand)
    const __m256 nf = _mm256_round_ps(_mm256_mul_ps(d, _mm256_set1_ps(kLog2e)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(kLn2Hi), d);
    r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(kLn2Lo), r);
    __m256 p = _mm256_set1_ps(kE7);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i e =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(nf), _mm256_set1_epi32(127)), 23);
    const __m256 y = _mm256_and_ps(keep, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
    _mm256_storeu_ps(w + j, y);
    vs = _mm256_add_ps(vs, y);
  }
  sum = hsum(vs);
#elif defined(__ARM_NEON)
  const float32x4_t vm = vdupq_n_f32(m), lo = vdupq_n_f32(kExpFloor);
  float32x4_t vs = vdupq_n_f32(0.0f);
  for (; j + 4 <= n; j += 4) {
    float32x4_t d = vsubq_f32(vld1q_f32(s + j), vm);
    const uint32x4_t keep = vcgeq_f32(d, lo);  // false for NaN
    d = vmaxnmq_f32(d, lo);                    // NaN -> lo
    const float32x4_t nf = vrndnq_f32(vmulq_n_f32(d, kLog2e));
    float32x4_t r = vfmsq_n_f32(d, nf, kLn2Hi);
    r = vfmsq_n_f32(r, nf, kLn2Lo);
    float32x4_t p = vdupq_n_f32(kE7);
    p = vfmaq_f32(vdupq_n_f32(kE6), p, r);
    p = vfmaq_f32(vdupq_n_f32(kE5), p, r);
    p = vfmaq_f32(vdupq_n_f32(kE4), p, r);
    p = vfmaq_f32(vdupq_n_f32(kE3), p, r);
    p = vfmaq_f32(vdupq_n_f32(kE2), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(nf), vdupq_n_s32(127)), 23);
    const float32x4_t y = vreinterpretq_f32_u32(
        vandq_u32(keep, vreinterpretq_u32_f32(vmulq_f32(p, vreinterpretq_f32_s32(e)))));
    vst1q_f32(w + j, y);
    vs = vaddq_f32(vs, y);
  }
  sum = vaddvq_f32(vs);
#endif
  for (; j < n; ++j) {
    w[j] = exp_weight(s[j] - m);
    sum += w[j];
  }
  return sum;
}

void scale_row(float* acc, float f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] *= f;
}

// acc[0..dv) += w[j] * rows[j][0..dv) for j < n (rows stride floats apart), zero weights
// skipped, keys in order: the same FMAs, in the same order per element, as one axpy per key,
// but each 64-float (AVX-512) or 32-float chunk of acc stays in registers over the n keys.
void accumulate_rows(float* acc, const float* w, const float* rows, int64_t stride, int64_t n,
                     int64_t dv) {
  int64_t e = 0;
#if defined(__AVX512F__)
  for (; e + 64 <= dv; e += 64) {
    __m512 a[4];
    for (int v = 0; v < 4; ++v) a[v] = _mm512_loadu_ps(acc + e + 16 * v);
    for (int64_t j = 0; j < n; ++j) {
      if (w[j] == 0.0f) continue;
      const __m512 vw = _mm512_set1_ps(w[j]);
      const float* r = rows + j * stride + e;
      for (int v = 0; v < 4; ++v) a[v] = _mm512_fmadd_ps(vw, _mm512_loadu_ps(r + 16 * v), a[v]);
    }
    for (int v = 0; v < 4; ++v) _mm512_storeu_ps(acc + e + 16 * v, a[v]);
  }
#endif
#if defined(__AVX2__) && defined(__FMA__)
  for (; e + 32 <= dv; e += 32) {
    __m256 a0 = _mm256_loadu_ps(acc + e), a1 = _mm256_loadu_ps(acc + e + 8);
    __m256 a2 = _mm256_loadu_ps(acc + e + 16), a3 = _mm256_loadu_ps(acc + e + 24);
    for (int64_t j = 0; j < n; ++j) {
      if (w[j] == 0.0f) continue;
      const __m256 vw = _mm256_set1_ps(w[j]);
      const float* r = rows + j * stride + e;
      a0 = _mm256_fmadd_ps(vw, _mm256_loadu_ps(r), a0);
      a1 = _mm256_fmadd_ps(vw, _mm256_loadu_ps(r + 8), a1);
      a2 = _mm256_fmadd_ps(vw, _mm256_loadu_ps(r + 16), a2);
      a3 = _mm256_fmadd_ps(vw, _mm256_loadu_ps(r + 24), a3);
    }
    _mm256_storeu_ps(acc + e, a0);
    _mm256_storeu_ps(acc + e + 8, a1);
    _mm256_storeu_ps(acc + e + 16, a2);
    _mm256_storeu_ps(acc + e + 24, a3);
  }
#endif
  if (e == dv) return;
  for (int64_t j = 0; j < n; ++j)
    if (w[j] != 0.0f)
      axpy_f32(acc + e, w[j], reinterpret_cast<const char*>(rows + j * stride + e), dv - e);
}

#if defined(__AVX512F__)
// The sums of a0..a3 in elements 0, 4, 8 and 12, each added in _mm512_reduce_add_ps's order
// (high 256 + low, high 128 + low, then elements 0 + 2 and 1 + 3, then those two): 13
// operations for four sums, where one _mm512_reduce_add_ps takes 8.
inline __m512 reduce4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
  const __m512 u01 = _mm512_add_ps(_mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(3, 2, 3, 2)),
                                   _mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(1, 0, 1, 0)));
  const __m512 u23 = _mm512_add_ps(_mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(3, 2, 3, 2)),
                                   _mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(1, 0, 1, 0)));
  const __m512 v = _mm512_add_ps(_mm512_shuffle_f32x4(u01, u23, _MM_SHUFFLE(3, 1, 3, 1)),
                                 _mm512_shuffle_f32x4(u01, u23, _MM_SHUFFLE(2, 0, 2, 0)));
  const __m512 w = _mm512_add_ps(v, _mm512_permute_ps(v, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm512_add_ps(w, _mm512_permute_ps(w, _MM_SHUFFLE(2, 3, 0, 1)));
}

inline __m512 f16x16(const char* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// Key rows as score_tiles reads them: row(j) the address of row j, load(row, e) its 16 floats
// from element e (the addresses are taken once per tile, not once per load).
struct F32Rows {
  using Row = const float*;
  const float* k;
  int64_t ks;  // floats between rows
  Row row(int64_t j) const { return k + j * ks; }
  static __m512 load(Row r, int64_t e) { return _mm512_loadu_ps(r + e); }
};
struct F16Rows {
  using Row = const char*;
  const char* const* rows;
  Row row(int64_t j) const { return rows[j]; }
  static __m512 load(Row r, int64_t e) { return f16x16(r + 2 * e); }
};

// out[i * os + j] = q row i . key row j for i < nq, j < nk; d a multiple of 16. Tiles of 2
// lanes x 4 keys share each load (dot_f32 alone loads twice per FMA, so it ran at half the FMA
// rate); each output keeps dot_f32's two accumulators, and reduce4 its order, so the results
// are dot_f32's bit for bit, whatever the tile. A missing lane or key repeats the last one
// (its output dropped).
template <class Rows>
void score_tiles(const float* q, int64_t qs, int64_t nq, const Rows& rows, int64_t nk, int64_t d,
                 float* out, int64_t os) {
  for (int64_t i = 0; i < nq; i += 2) {
    const int nl = nq - i >= 2 ? 2 : 1;
    const float* qr[2] = {q + i * qs, q + (i + nl - 1) * qs};
    for (int64_t j = 0; j < nk; j += 4) {
      const int64_t nkk = std::min<int64_t>(4, nk - j);
      typename Rows::Row kr[4];
      for (int kk = 0; kk < 4; ++kk) kr[kk] = rows.row(j + std::min<int64_t>(kk, nkk - 1));
      __m512 a[2][4][2];
      for (auto& ar : a)
        for (auto& ak : ar) ak[0] = ak[1] = _mm512_setzero_ps();
      const auto step = [&](int64_t e, int h) {
        const __m512 x0 = _mm512_loadu_ps(qr[0] + e), x1 = _mm512_loadu_ps(qr[1] + e);
        for (int kk = 0; kk < 4; ++kk) {
          const __m512 y = Rows::load(kr[kk], e);
          a[0][kk][h] = _mm512_fmadd_ps(x0, y, a[0][kk][h]);
          a[1][kk][h] = _mm512_fmadd_ps(x1, y, a[1][kk][h]);
        }
      };
      int64_t e = 0;
      for (; e + 32 <= d; e += 32) {
        step(e, 0);
        step(e + 16, 1);
      }
      if (e < d) step(e, 0);
      for (int r = 0; r < 2; ++r) {  // bound 2, not nl: GCC kept a[][][] on the stack (pp512 -10 %)
        if (r == nl) break;
        const __m512 sums =
            reduce4(_mm512_add_ps(a[r][0][0], a[r][0][1]), _mm512_add_ps(a[r][1][0], a[r][1][1]),
                    _mm512_add_ps(a[r][2][0], a[r][2][1]), _mm512_add_ps(a[r][3][0], a[r][3][1]));
        // Elements 0, 4, 8, 12 to the first four, stored together (a tile's missing keys masked).
        const __m128 four = _mm512_castps512_ps128(_mm512_permutexvar_ps(
            _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), sums));
        _mm_mask_storeu_ps(out + (i + r) * os + j, static_cast<__mmask8>((1u << nkk) - 1), four);
      }
    }
  }
}

#endif

// out[i * os + j] = dot_f32(q row i, k row j) for i < nq, j < nk (rows qs / ks floats apart).
// Register tiles share each load among several outputs (dot_f32 alone loads twice per FMA,
// so it ran at half the FMA rate); each output keeps dot_f32's accumulators and order, so the
// results are dot_f32's bit for bit. AVX-512: score_tiles when d is a multiple of 16; AVX2:
// 2 x 2 tiles when d is a multiple of 8.
void score_tile(const float* q, int64_t qs, int64_t nq, const float* k, int64_t ks, int64_t nk,
                int64_t d, float* out, int64_t os) {
  int64_t i = 0;
#if defined(__AVX512F__)
  if (d % 16 == 0) return score_tiles(q, qs, nq, F32Rows{k, ks}, nk, d, out, os);
#elif defined(__AVX2__) && defined(__FMA__)
  for (; d % 8 == 0 && i + 2 <= nq; i += 2) {
    const float *q0 = q + i * qs, *q1 = q0 + qs;
    int64_t j = 0;
    for (; j + 2 <= nk; j += 2) {
      const float *k0 = k + j * ks, *k1 = k0 + ks;
      __m256 a[4][2];  // (q0 k0, q0 k1, q1 k0, q1 k1) x (even, odd 8-groups of 16)
      for (auto& ai : a) ai[0] = ai[1] = _mm256_setzero_ps();
      const auto step = [&](int64_t e, int h) {
        const __m256 x0 = _mm256_loadu_ps(q0 + e), x1 = _mm256_loadu_ps(q1 + e);
        const __m256 y0 = _mm256_loadu_ps(k0 + e), y1 = _mm256_loadu_ps(k1 + e);
        a[0][h] = _mm256_fmadd_ps(x0, y0, a[0][h]);
        a[1][h] = _mm256_fmadd_ps(x0, y1, a[1][h]);
        a[2][h] = _mm256_fmadd_ps(x1, y0, a[2][h]);
        a[3][h] = _mm256_fmadd_ps(x1, y1, a[3][h]);
      };
      int64_t e = 0;
      for (; e + 16 <= d; e += 16) {
        step(e, 0);
        step(e + 8, 1);
      }
      if (e < d) step(e, 0);
      out[i * os + j] = hsum(_mm256_add_ps(a[0][0], a[0][1]));
      out[i * os + j + 1] = hsum(_mm256_add_ps(a[1][0], a[1][1]));
      out[(i + 1) * os + j] = hsum(_mm256_add_ps(a[2][0], a[2][1]));
      out[(i + 1) * os + j + 1] = hsum(_mm256_add_ps(a[3][0], a[3][1]));
    }
    for (; j < nk; ++j) {
      const char* kj = reinterpret_cast<const char*>(k + j * ks);
      out[i * os + j] = dot_f32(q0, kj, d);
      out[(i + 1) * os + j] = dot_f32(q1, kj, d);
    }
  }
#endif
  for (; i < nq; ++i)
    for (int64_t j = 0; j < nk; ++j)
      out[i * os + j] = dot_f32(q + i * qs, reinterpret_cast<const char*>(k + j * ks), d);
}

#if defined(__AVX512F__)
// F16 K and V rows read in their own type, converted in registers: no widened copy written
// and read back. The arithmetic is score_tile's (dot_f32's two accumulators,
// _mm512_reduce_add_ps's order) and accumulate_rows' (one FMA per key and element, in key
// order, zero weights skipped), so results are bit-identical to widening first, and a
// lane's result does not depend on which path its item took (one lane had used dot_f16's
// single accumulator).
constexpr bool kF16Rows = true;
// Items of up to this many lanes (a decode step's: one query row, its GQA heads) take them; a
// prompt's items (up to kMaxLanes) convert each row once for all lanes instead (widen_row):
// each lane pair converting it again made pp512 8-14 % slower. Qwen3-0.6B-shape Q4_K_M, 2
// threads, widened / in registers: bd1 at 1024 keys 51.7 / 59.5-64.2 t/s, bd16 105-110 /
// 110-113; Gemma 3 270M (4 lanes) even.
constexpr int64_t kF16MaxLanes = 4;

// out[i * os + j] = q row i . F16 row krow[j], for i < nq, j < nk; d a multiple of 16.
void score_f16(const float* q, int64_t qs, int64_t nq, const char* const* krow, int64_t nk,
               int64_t d, float* out, int64_t os) {
  score_tiles(q, qs, nq, F16Rows{krow}, nk, d, out, os);
}

// acc[i][0..dv) += w[i * ws + j] * F16 row vrow[j] for lanes i < nl and keys j < nk in order,
// zero weights skipped; NE 16-float chunks of two lanes' outputs stay in registers over the
// keys, each V chunk converted once for both.
template <int NE>
void accumulate_f16_chunks(float* const* acc, const float* w, int64_t ws, int64_t nl,
                           const char* const* vrow, int64_t nk, int64_t dv) {
  for (int64_t i = 0; i < nl; i += 2) {
    const bool two = i + 1 < nl;
    const float* w0 = w + i * ws;
    const float* w1 = two ? w0 + ws : w0;
    for (int64_t e = 0; e < dv; e += 16 * NE) {
      __m512 a0[NE], a1[NE];
      for (int v = 0; v < NE; ++v) {
        a0[v] = _mm512_loadu_ps(acc[i] + e + 16 * v);
        a1[v] = two ? _mm512_loadu_ps(acc[i + 1] + e + 16 * v) : _mm512_setzero_ps();
      }
      for (int64_t j = 0; j < nk; ++j) {
        const bool use0 = w0[j] != 0.0f, use1 = two && w1[j] != 0.0f;
        if (!use0 && !use1) continue;
        const __m512 b0 = _mm512_set1_ps(w0[j]), b1 = _mm512_set1_ps(w1[j]);
        const char* r = vrow[j] + 2 * e;
        for (int v = 0; v < NE; ++v) {
          const __m512 y = f16x16(r + 32 * v);
          if (use0) a0[v] = _mm512_fmadd_ps(b0, y, a0[v]);
          if (use1) a1[v] = _mm512_fmadd_ps(b1, y, a1[v]);
        }
      }
      for (int v = 0; v < NE; ++v) {
        _mm512_storeu_ps(acc[i] + e + 16 * v, a0[v]);
        if (two) _mm512_storeu_ps(acc[i + 1] + e + 16 * v, a1[v]);
      }
    }
  }
}
void accumulate_f16(float* const* acc, const float* w, int64_t ws, int64_t nl,
                    const char* const* vrow, int64_t nk, int64_t dv) {
  if (dv % 128 == 0) return accumulate_f16_chunks<8>(acc, w, ws, nl, vrow, nk, dv);
  if (dv % 64 == 0) return accumulate_f16_chunks<4>(acc, w, ws, nl, vrow, nk, dv);
  accumulate_f16_chunks<1>(acc, w, ws, nl, vrow, nk, dv);
}
#else
constexpr bool kF16Rows = false;
constexpr int64_t kF16MaxLanes = 0;
void score_f16(const float*, int64_t, int64_t, const char* const*, int64_t, int64_t, float*,
               int64_t) {}
void accumulate_f16(float* const*, const float*, int64_t, int64_t, const char* const*, int64_t,
                    int64_t) {}
#endif

bool is_block_type(uint32_t t) { return t == ZEN_TYPE_Q8_0; }
int64_t elem_size(uint32_t t) { return t == ZEN_TYPE_F32 ? 4 : 2; }

DotFn dot_for(uint32_t t) {
  switch (t) {
    case ZEN_TYPE_F16:
      return dot_f16;
    case ZEN_TYPE_BF16:
      return dot_bf16;
    case ZEN_TYPE_Q8_0:
      return dot_q8_0;
    default:
      return dot_f32;
  }
}
AxpyFn axpy_for(uint32_t t) {
  switch (t) {
    case ZEN_TYPE_F16:
      return axpy_f16;
    case ZEN_TYPE_BF16:
      return axpy_bf16;
    case ZEN_TYPE_Q8_0:
      return axpy_q8_0;
    default:
      return axpy_f32;
  }
}

// Element i of a strided float row as float (views with nb[0] != element size).
float load_elem(uint32_t t, const char* p) {
  switch (t) {
    case ZEN_TYPE_F16:
      return f16_to_f32(ld_u16(p));
    case ZEN_TYPE_BF16:
      return bf16_to_f32(ld_u16(p));
    default:
      return ld_f32(p);
  }
}

int64_t pad16(int64_t n) { return (n + 15) / 16 * 16; }

// Bytes of one contiguous K or V row of n elements.
int64_t row_bytes(uint32_t t, int64_t n) {
  return is_block_type(t) ? n / QK8_0 * static_cast<int64_t>(sizeof(block_q8_0)) : n * elem_size(t);
}

// Asks for the cache lines of [row, row + bytes) into L2, ahead of their use.
void prefetch_row(const char* row, int64_t bytes) {
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(row + b, 0, 2);
}

// n elements of a float-type K or V row (element stride nb0 bytes) as F32 in out: one
// conversion serves every query row and head of a work item.
void widen_row(uint32_t t, const char* row, int64_t nb0, float* out, int64_t n) {
  int64_t i = 0;
  if (t == ZEN_TYPE_F16 && nb0 == 2) {
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(
          out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i))));
#elif defined(__ARM_NEON)
    for (; i + 4 <= n; i += 4)
      vst1q_f32(out + i, vcvt_f32_f16(vreinterpret_f16_u16(
                             vld1_u16(reinterpret_cast<const uint16_t*>(row + 2 * i)))));
#endif
  } else if (t == ZEN_TYPE_F32 && nb0 == 4) {
    std::memcpy(out, row, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  for (; i < n; ++i) out[i] = load_elem(t, row + i * nb0);
}

// Everything the work size and the kernel derive from the node: both must agree.
//
// Work items are (block of query rows, kv head, head chunk). An item's lanes are its (query
// row, query head) pairs: up to kMaxHeads query heads sharing one kv head (GQA/MQA), times the
// rows of the block. Each K/V row is read from memory, and converted to float, once per item
// rather than once per lane, then reused from L1.
//
// Which rows share a block follows what they see. Without a mask, blocks are `rows` consecutive
// rows (a causal prefill: each row sees the one before's keys and one more). With a mask, the
// kernel first reads each mask row into a bitmap of the kChunk-key chunks it opens; consecutive
// rows join a block while they see mostly the same chunks. Rows of one prompt chunk then share
// their keys as before, while the rows of a batched decode step (one row per sequence of a
// paged cache, each seeing only its own blocks) get items of their own, and every item walks
// only the chunks its lanes can see: a step's attention costs the keys its rows see, not rows x
// the whole cache. Sequences that share a prefix (n > 1 choices, one system prompt) share items.
struct Plan {
  int64_t D, Dv, T, Hq, S, L, Hkv;
  int64_t group;    // query heads per kv head
  int64_t chunk;    // query heads per work item (<= kMaxHeads)
  int64_t chunks;   // chunks per kv head
  int64_t rows;     // most query rows per work item
  int64_t parts;    // KV parts per item (1: no split) at the fewest items (blocks of `rows`)
  int64_t scratch;  // floats of per-thread scratch
  int64_t partial;  // floats of one (query row, part) partial: m, l, acc[Dv] (padded)
  int64_t mrows;    // mask rows read into bitmaps (T x M2 x M3; 0 without a mask)
  int64_t words;    // 64-bit words of one row's chunk bitmap
  int64_t lanes() const { return rows * chunk; }  // <= kMaxLanes
  uint64_t float_bytes(int nth) const {
    uint64_t f = static_cast<uint64_t>(nth) * static_cast<uint64_t>(scratch);
    if (parts > 1) f += static_cast<uint64_t>(T * Hq * S * parts * partial);
    return f * sizeof(float);
  }
  // After the floats: the mask rows' bitmaps, then the row blocks (s, t0, nt) and their count.
  uint64_t bytes(int nth) const {
    return float_bytes(nth) + static_cast<uint64_t>(mrows * words) * sizeof(uint64_t) +
           static_cast<uint64_t>(3 * S * T + 1) * sizeof(int64_t);
  }
};

constexpr int64_t kMaxHeads = 8;
constexpr int64_t kMaxLanes = 16;
constexpr int64_t kVRows = 16;  // V rows widened together (16 x Dv floats stay in L1)
constexpr int64_t kChunk = 16;  // keys per bitmap bit: the KV cache's block size

// Floats of one widened K or V row in the shared buffer.
int64_t row_floats(const Plan& p) { return std::max(pad16(p.D), pad16(p.Dv)); }

// KV parts are made only for decode-like nodes (items < kItemsPerThread * nth) with at least
// 2 * kMinPart keys; one thread still splits the KV of 1..3 items, so the merge path runs (and
// is tested) whatever the thread count.
int64_t kv_parts(int64_t items, int64_t L, int nth) {
  const int64_t want = kItemsPerThread * std::max(nth, 1);
  items = std::max<int64_t>(items, 1);
  const int64_t parts = items < want ? std::min((want + items - 1) / items, L / kMinPart) : 1;
  return std::max<int64_t>(parts, 1);
}

Plan make_plan(const zen_tensor* const* src, int nth) {
  const zen_tensor &q = *src[0], &k = *src[1], &v = *src[2];
  Plan p{};
  p.D = q.ne[0];
  p.Dv = v.ne[0];
  p.T = q.ne[1];
  p.Hq = q.ne[2];
  p.S = q.ne[3];
  p.L = k.ne[1];
  p.Hkv = k.ne[2];
  p.group = p.Hq / p.Hkv;
  p.chunks = (p.group + kMaxHeads - 1) / kMaxHeads;
  p.chunk = (p.group + p.chunks - 1) / p.chunks;
  p.rows = std::clamp<int64_t>(kMaxLanes / p.chunk, 1, std::max<int64_t>(p.T, 1));
  p.parts = kv_parts(p.S * ((p.T + p.rows - 1) / p.rows) * p.Hkv * p.chunks, p.L, nth);
  p.words = (p.L + kChunk * 64 - 1) / (kChunk * 64);
  if (const zen_tensor* m = src[3]) p.mrows = p.T * m->ne[2] * m->ne[3];
  // per lane: q, acc, scores, (m, l); shared: kVRows K or V rows as float; the item's bitmap
  p.scratch = p.lanes() * (pad16(p.D) + pad16(p.Dv) + kBlockKeys + 16) + kVRows * row_floats(p) +
              pad16(2 * p.words);
  p.partial = pad16(p.Dv + 2);
  return p;
}

uint64_t attention_work(const zen_tensor& dst, const zen_tensor* const* src, int nth) {
  (void)dst;
  return make_plan(src, nth).bytes(nth);
}

struct Ctx {
  const zen_tensor *q, *k, *v, *mask;
  const char *qd, *kd, *vd, *md;
  float scale, softcap;
  int64_t window, pos0;
  bool causal;
  DotFn kdot;
  AxpyFn vaxpy;
  bool kstrided, vstrided;  // float rows whose nb[0] is not the element size: widened first
};

// The kv range [lo, hi) query t may see.
void visible(const Ctx& c, int64_t L, int64_t t, int64_t& lo, int64_t& hi) {
  const int64_t qpos = c.pos0 + t;
  lo = 0;
  hi = L;
  if (c.causal) hi = std::min(hi, qpos + 1);
  if (c.window > 0) lo = std::max<int64_t>(0, qpos - c.window + 1);
  if (hi < lo) hi = lo;
}

// Query row (t, h, s) loaded, converted to float and pre-scaled: with a soft-cap the dot is
// scale / cap * q.k so that the capped score is cap * tanh(dot).
void load_query(const Ctx& c, const Plan& p, int64_t t, int64_t h, int64_t s, float* qf) {
  const float f = c.softcap > 0.0f ? c.scale / c.softcap : c.scale;
  const char* row = at(c.qd, *c.q, 0, t, h, s);
  const int64_t nb0 = static_cast<int64_t>(c.q->nb[0]);
  for (int64_t i = 0; i < p.D; ++i) qf[i] = f * load_elem(c.q->type, row + i * nb0);
}

// One work item's state: its lanes (query row t[i], query head h[i]) of kv head hk in
// sequence s, each attending to keys [lo[i], hi[i]).
struct Group {
  int64_t s, hk, nl;
  int64_t t[kMaxLanes], h[kMaxLanes], lo[kMaxLanes], hi[kMaxLanes];
  float* qf;              // nl rows of pad16(D)
  float* sc;              // nl rows of kBlockKeys scores
  float* m;               // running max per lane
  float* l;               // running sum per lane
  float* acc[kMaxLanes];  // unnormalised output per lane
  float* rows;            // up to kVRows K or V rows as float (prow apart)
  uint64_t* vis;          // chunks some lane sees (with a mask), p.words words
};

// Bitmaps of the mask rows: bit c of row r is set when mask row r opens a key of chunk c
// (some value above -inf). Row r = ((s % M3) * M2 + h % M2) * T + t.
int64_t mask_row(const zen_tensor& mask, int64_t T, int64_t t, int64_t h, int64_t s) {
  return ((s % mask.ne[3]) * mask.ne[2] + h % mask.ne[2]) * T + t;
}

void mask_bitmap(const zen_tensor& mask, const char* md, int64_t T, int64_t L, int64_t r,
                 uint64_t* bits, int64_t words) {
  std::fill(bits, bits + words, 0);
  const int64_t t = r % T, m2 = (r / T) % mask.ne[2], m3 = r / (T * mask.ne[2]);
  const char* row = at(md, mask, 0, t, m2, m3);
  const int64_t nb0 = static_cast<int64_t>(mask.nb[0]);
  const bool f16 = mask.type == ZEN_TYPE_F16;
  for (int64_t c0 = 0; c0 < L; c0 += kChunk) {
    const int64_t c1 = std::min(L, c0 + kChunk);
    bool open = false;
    if (!f16 && nb0 == sizeof(float)) {  // contiguous F32 (the runtime's masks): vectorizes
      const float* f = reinterpret_cast<const float*>(row) + c0;
      for (int64_t j = 0; j < c1 - c0; ++j) open |= f[j] > kNegInf;
    } else if (f16) {
      for (int64_t j = c0; j < c1; ++j) open |= ld_u16(row + j * nb0) != 0xfc00;  // -inf
    } else {
      for (int64_t j = c0; j < c1; ++j) open |= ld_f32(row + j * nb0) > kNegInf;
    }
    if (open) bits[c0 / kChunk / 64] |= uint64_t{1} << (c0 / kChunk % 64);
  }
}

// Splits each sequence's rows into blocks of at most p.rows rows: a row joins the block before
// it while at least half of what they see together is seen by both (a prompt's rows), or when
// either sees nothing. Without bitmaps, blocks of p.rows rows. Writes (s, t0, nt) triples and
// returns their count. `seen` is p.words words of scratch.
int64_t row_blocks(const Plan& p, const zen_tensor* mask, const uint64_t* bits, uint64_t* seen,
                   int64_t* out) {
  int64_t n = 0;
  const auto close = [&](int64_t s, int64_t t0, int64_t nt) {
    out[3 * n] = s;
    out[3 * n + 1] = t0;
    out[3 * n + 2] = nt;
    ++n;
  };
  for (int64_t s = 0; s < p.S; ++s) {
    int64_t t0 = 0, nt = 0;
    for (int64_t t = 0; t < p.T; ++t) {
      const uint64_t* b = bits ? bits + mask_row(*mask, p.T, t, 0, s) * p.words : nullptr;
      bool join = nt > 0 && nt < p.rows;
      if (join && b) {
        int64_t both = 0, either = 0, own = 0, had = 0;
        for (int64_t w = 0; w < p.words; ++w) {
          both += std::popcount(b[w] & seen[w]);
          either += std::popcount(b[w] | seen[w]);
          own += std::popcount(b[w]);
          had += std::popcount(seen[w]);
        }
        join = own == 0 || had == 0 || 2 * both >= either;
      }
      if (!join) {
        if (nt > 0) close(s, t0, nt);
        t0 = t;
        nt = 0;
        if (b) std::fill(seen, seen + p.words, 0);
      }
      ++nt;
      if (b)
        for (int64_t w = 0; w < p.words; ++w) seen[w] |= b[w];
    }
    if (nt > 0) close(s, t0, nt);
  }
  return n;
}

// The first chunk at or after c (below c1) whose bit is set; c1 if none.
int64_t next_chunk(const uint64_t* vis, int64_t c, int64_t c1) {
  while (c < c1) {
    const uint64_t w = vis[c / 64] >> (c % 64);
    if (w) return std::min(c1, c + std::countr_zero(w));
    c = (c / 64 + 1) * 64;
  }
  return c1;
}

// Online softmax of each lane over its keys: leaves m, l and acc per lane (l == 0 when the
// lane saw no key). The keys are walked once for all lanes, in blocks from the lowest lo;
// bits: the mask rows' chunk bitmaps (nullptr without a mask: every chunk).
// next_hk: the kv head of the item this thread takes next when it has the same rows (its keys
// are this item's), else -1: its first rows are prefetched while this item ends.
void attend(const Ctx& c, const Plan& p, const uint64_t* bits, Group& g, int64_t next_hk = -1) {
  const int64_t pD = pad16(p.D), prow = row_floats(p);
  int64_t k0 = p.L, k1 = 0;
  for (int64_t i = 0; i < g.nl; ++i) {
    std::fill(g.acc[i], g.acc[i] + p.Dv, 0.0f);
    g.m[i] = kNegInf;
    g.l[i] = 0.0f;
    if (g.lo[i] < g.hi[i]) {
      k0 = std::min(k0, g.lo[i]);
      k1 = std::max(k1, g.hi[i]);
    }
  }
  const char* kbase = at(c.kd, *c.k, 0, 0, g.hk, g.s % c.k->ne[3]);
  const char* vbase = at(c.vd, *c.v, 0, 0, g.hk, g.s % c.v->ne[3]);
  const int64_t knb1 = static_cast<int64_t>(c.k->nb[1]), vnb1 = static_cast<int64_t>(c.v->nb[1]);
  const int64_t knb0 = static_cast<int64_t>(c.k->nb[0]), vnb0 = static_cast<int64_t>(c.v->nb[0]);
  const char* mrow[kMaxLanes] = {};
  int64_t mnb0 = 0;
  if (c.mask) {
    for (int64_t i = 0; i < g.nl; ++i)
      mrow[i] = at(c.md, *c.mask, 0, g.t[i], g.h[i] % c.mask->ne[2], g.s % c.mask->ne[3]);
    mnb0 = static_cast<int64_t>(c.mask->nb[0]);
  }
  const bool mask_f16 = c.mask && c.mask->type == ZEN_TYPE_F16;
  // With a mask, only the chunks some lane's mask row opens are walked (Plan); lanes of one row
  // share a mask row unless the mask has one per head.
  const uint64_t* vis = nullptr;
  if (bits) {
    std::fill(g.vis, g.vis + p.words, 0);
    int64_t last = -1;
    for (int64_t i = 0; i < g.nl; ++i) {
      const int64_t r = mask_row(*c.mask, p.T, g.t[i], g.h[i], g.s);
      if (r == last) continue;
      last = r;
      for (int64_t w = 0; w < p.words; ++w) g.vis[w] |= bits[r * p.words + w];
    }
    vis = g.vis;
  }
  // F16 rows (the KV cache's) of decode-sized items are converted in registers (score_f16,
  // accumulate_f16). Otherwise one lane reads K and V in their own type, and several share
  // one float copy of each row.
  const bool f16 = kF16Rows && g.nl <= kF16MaxLanes;
  const bool f16_k = f16 && c.k->type == ZEN_TYPE_F16 && !c.kstrided && p.D % 16 == 0;
  const bool f16_v = f16 && c.v->type == ZEN_TYPE_F16 && !c.vstrided && p.Dv % 16 == 0;
  const bool widen_k = !f16_k && (c.kstrided || (g.nl > 1 && !is_block_type(c.k->type)));
  const bool widen_v = !f16_v && (c.vstrided || (g.nl > 1 && !is_block_type(c.v->type)));
  const bool all_dots = widen_k || f16_k;  // every listed key scored, hidden ones too
  // Each online-softmax step takes the next kBlockKeys keys of [k0, k1) in open chunks. The
  // keys of the step after are listed one step ahead and their K and V rows prefetched: a
  // paged cache's rows are scattered blocks that the hardware prefetchers do not foresee.
  const int64_t kbytes = c.kstrided ? 0 : row_bytes(c.k->type, p.D);
  const int64_t vbytes = c.vstrided ? 0 : row_bytes(c.v->type, p.Dv);
  int64_t keys[2][kBlockKeys];
  int64_t next = k0;
  const int64_t c_end = (k1 + kChunk - 1) / kChunk;
  const auto list_keys = [&](int64_t* key) {
    int64_t n = 0;
    while (n < kBlockKeys && next < k1) {
      if (vis) {
        const int64_t ch = next_chunk(vis, next / kChunk, c_end);
        if (ch == c_end) break;
        next = std::max(next, ch * kChunk);
      }
      const int64_t end = std::min({k1, (next / kChunk + 1) * kChunk, next + kBlockKeys - n});
      while (next < end) key[n++] = next++;
    }
    for (int64_t jj = 0; jj < n; ++jj) {
      prefetch_row(kbase + key[jj] * knb1, kbytes);
      prefetch_row(vbase + key[jj] * vnb1, vbytes);
    }
    return n;
  };
  int64_t n_next = list_keys(keys[0]);
  int64_t first[kBlockKeys];  // the first step's keys: the next item's first too
  const int64_t n_first = next_hk >= 0 ? n_next : 0;
  std::copy(keys[0], keys[0] + n_first, first);
  for (int step = 0;; ++step) {
    const int64_t n = n_next;
    if (n == 0) break;
    const int64_t* key = keys[step & 1];
    n_next = list_keys(keys[(step + 1) & 1]);
    if (n_next == 0 && next_hk >= 0) {  // the last step: the next head's first rows
      const char* kb = at(c.kd, *c.k, 0, 0, next_hk, g.s % c.k->ne[3]);
      const char* vb = at(c.vd, *c.v, 0, 0, next_hk, g.s % c.v->ne[3]);
      for (int64_t jj = 0; jj < n_first; ++jj) {
        prefetch_row(kb + first[jj] * knb1, kbytes);
        prefetch_row(vb + first[jj] * vnb1, vbytes);
      }
    }
    // Visibility and mask value of each (lane, key) first, in the scores. A key hidden from
    // every lane (outside its range or masked) is never read: a paged cache's mask hides most
    // cells (other sequences' blocks), so the cost follows the visible keys, not the cache.
    // Lane by lane, so the loops vectorize; a lane with the previous one's mask row and range
    // (another query head of the same row) copies its values.
    bool seen[kBlockKeys];
    std::fill(seen, seen + n, false);
    for (int64_t i = 0; i < g.nl; ++i) {
      float* sc = g.sc + i * kBlockKeys;
      const int64_t lo = g.lo[i], hi = g.hi[i];
      if (i > 0 && mrow[i] == mrow[i - 1] && lo == g.lo[i - 1] && hi == g.hi[i - 1]) {
        std::copy(sc - kBlockKeys, sc - kBlockKeys + n, sc);
        continue;
      }
      if (!c.mask)
        for (int64_t jj = 0; jj < n; ++jj) sc[jj] = key[jj] >= lo && key[jj] < hi ? 0.0f : kNegInf;
      else if (mask_f16)
        for (int64_t jj = 0; jj < n; ++jj)
          sc[jj] = key[jj] >= lo && key[jj] < hi ? f16_to_f32(ld_u16(mrow[i] + key[jj] * mnb0))
                                                 : kNegInf;
      else
        for (int64_t jj = 0; jj < n; ++jj)
          sc[jj] = key[jj] >= lo && key[jj] < hi ? ld_f32(mrow[i] + key[jj] * mnb0) : kNegInf;
      for (int64_t jj = 0; jj < n; ++jj) seen[jj] = seen[jj] || sc[jj] > kNegInf;
    }
    for (int64_t r0 = 0; r0 < n; r0 += kVRows) {  // dot products of up to kVRows keys
      const int64_t rn = std::min(kVRows, n - r0);
      float dots[kMaxLanes * kVRows];
      if (f16_k) {
        const char* rows[kVRows];
        for (int64_t jj = r0; jj < r0 + rn; ++jj) rows[jj - r0] = kbase + key[jj] * knb1;
        score_f16(g.qf, pD, g.nl, rows, rn, p.D, dots, kVRows);
      } else if (widen_k) {  // the keys widened once, scored by every lane in register tiles
        for (int64_t jj = r0; jj < r0 + rn; ++jj)
          if (seen[jj])
            widen_row(c.k->type, kbase + key[jj] * knb1, knb0, g.rows + (jj - r0) * prow, p.D);
          else
            std::fill(g.rows + (jj - r0) * prow, g.rows + (jj - r0) * prow + p.D, 0.0f);
        score_tile(g.qf, pD, g.nl, g.rows, prow, rn, p.D, dots, kVRows);
      } else {
        for (int64_t jj = r0; jj < r0 + rn; ++jj)
          for (int64_t i = 0; i < g.nl; ++i)
            if (g.sc[i * kBlockKeys + jj] > kNegInf)
              dots[i * kVRows + jj - r0] = c.kdot(g.qf + i * pD, kbase + key[jj] * knb1, p.D);
      }
      for (int64_t i = 0; i < g.nl; ++i) {
        float* sc = g.sc + i * kBlockKeys + r0;
        const float* d = dots + i * kVRows;
        if (c.softcap > 0.0f || !all_dots) {  // (dots of hidden keys are not computed there)
          for (int64_t jj = 0; jj < rn; ++jj) {
            if (!(sc[jj] > kNegInf)) continue;
            float x = d[jj];
            if (c.softcap > 0.0f) x = c.softcap * std::tanh(x);
            if (c.mask) x += sc[jj];
            sc[jj] = x;
          }
        } else if (c.mask) {
          for (int64_t jj = 0; jj < rn; ++jj) sc[jj] = sc[jj] > kNegInf ? d[jj] + sc[jj] : sc[jj];
        } else {
          for (int64_t jj = 0; jj < rn; ++jj) sc[jj] = sc[jj] > kNegInf ? d[jj] : sc[jj];
        }
      }
    }
    bool any = false;
    for (int64_t i = 0; i < g.nl; ++i) {
      const float* sc = g.sc + i * kBlockKeys;
      const float bm = vec::max(sc, n);
      if (bm > g.m[i]) {
        if (g.l[i] > 0.0f) {
          const float f = std::exp(g.m[i] - bm);
          scale_row(g.acc[i], f, p.Dv);
          g.l[i] *= f;
        }
        g.m[i] = bm;
      }
      any = any || bm > kNegInf;
    }
    if (!any) continue;                   // the whole block is hidden from every lane
    for (int64_t i = 0; i < g.nl; ++i) {  // scores -> weights, in place
      float* sc = g.sc + i * kBlockKeys;
      if (g.m[i] > kNegInf)
        g.l[i] += exp_block(sc, g.m[i], sc, n);
      else
        std::fill(sc, sc + n, 0.0f);
    }
    if (f16_v) {
      const char* rows[kBlockKeys];
      for (int64_t jj = 0; jj < n; ++jj) rows[jj] = vbase + key[jj] * vnb1;
      accumulate_f16(g.acc, g.sc, kBlockKeys, g.nl, rows, n, p.Dv);
      continue;
    }
    if (!widen_v) {
      for (int64_t jj = 0; jj < n; ++jj)
        for (int64_t i = 0; i < g.nl; ++i) {
          const float w = g.sc[i * kBlockKeys + jj];
          if (w != 0.0f) c.vaxpy(g.acc[i], w, vbase + key[jj] * vnb1, p.Dv);
        }
      continue;
    }
    for (int64_t r0 = 0; r0 < n; r0 += kVRows) {  // widen up to kVRows V rows, then each lane
      const int64_t rn = std::min(kVRows, n - r0);
      bool used[kVRows] = {};  // a row no lane weighs is neither read nor widened
      for (int64_t i = 0; i < g.nl; ++i)
        for (int64_t jj = 0; jj < rn; ++jj)
          used[jj] = used[jj] || g.sc[i * kBlockKeys + r0 + jj] != 0.0f;
      for (int64_t jj = r0; jj < r0 + rn; ++jj) {
        if (used[jj - r0])
          widen_row(c.v->type, vbase + key[jj] * vnb1, vnb0, g.rows + (jj - r0) * prow, p.Dv);
      }
      for (int64_t i = 0; i < g.nl; ++i)
        accumulate_rows(g.acc[i], g.sc + i * kBlockKeys + r0, g.rows, prow, rn, p.Dv);
    }
  }
}

void attention(const KernelArgs& a, int ith, int nth) {
  const Plan p = make_plan(a.src, nth);
  Ctx c{};
  c.q = a.src[0];
  c.k = a.src[1];
  c.v = a.src[2];
  c.mask = a.src[3];
  c.qd = a.s[0];
  c.kd = a.s[1];
  c.vd = a.s[2];
  c.md = a.s[3];
  if (!c.md) c.mask = nullptr;
  const zen_tensor& dst = *a.dst;
  c.scale = zen_param_f32(&dst, ZEN_ATTN_SCALE);
  c.softcap = zen_param_f32(&dst, ZEN_ATTN_SOFTCAP);
  c.causal = dst.params[ZEN_ATTN_CAUSAL] != 0;
  c.window = dst.params[ZEN_ATTN_WINDOW];
  c.pos0 = dst.params[ZEN_ATTN_POS0];
  c.kdot = dot_for(c.k->type);
  c.vaxpy = axpy_for(c.v->type);
  c.kstrided =
      !is_block_type(c.k->type) && c.k->nb[0] != static_cast<uint64_t>(elem_size(c.k->type));
  c.vstrided =
      !is_block_type(c.v->type) && c.v->nb[0] != static_cast<uint64_t>(elem_size(c.v->type));

  const int64_t pD = pad16(p.D), pDv = pad16(p.Dv);
  float* scratch = static_cast<float*>(a.work) + static_cast<int64_t>(ith) * p.scratch;
  Group g{};
  g.qf = scratch;
  float* accs = g.qf + p.lanes() * pD;
  g.sc = accs + p.lanes() * pDv;
  g.m = g.sc + p.lanes() * kBlockKeys;
  g.l = g.m + p.lanes() * 8;
  g.rows = g.m + p.lanes() * 16;
  g.vis = reinterpret_cast<uint64_t*>(g.rows + kVRows * row_floats(p));
  float* partials = static_cast<float*>(a.work) + static_cast<int64_t>(nth) * p.scratch;
  uint64_t* bits = reinterpret_cast<uint64_t*>(static_cast<char*>(a.work) + p.float_bytes(nth));
  int64_t* blocks = reinterpret_cast<int64_t*>(bits + p.mrows * p.words);

  // The mask rows' chunk bitmaps (threads share the rows), then the row blocks (thread 0).
  const bool mapped = c.mask && p.mrows > 0;
  if (mapped) {
    const Range mr = share(p.mrows, ith, nth);
    for (int64_t r = mr.begin; r < mr.end; ++r)
      mask_bitmap(*c.mask, c.md, p.T, p.L, r, bits + r * p.words, p.words);
    sync_threads(a);
  }
  if (ith == 0)
    blocks[3 * p.S * p.T] = row_blocks(p, c.mask, mapped ? bits : nullptr, g.vis, blocks);
  sync_threads(a);
  const int64_t items = blocks[3 * p.S * p.T] * p.Hkv * p.chunks;
  // Finer row blocks than the plan's fewest make more items, so never more parts than planned.
  const int64_t parts = p.parts > 1 ? std::min(p.parts, kv_parts(items, p.L, nth)) : 1;
  const uint64_t* vis_bits = mapped ? bits : nullptr;

  // Item index -> (row block, hk, chunk), in the dst's order (heads fastest); lanes are
  // row-major, heads fastest, each with its whole visible range.
  const auto setup = [&](int64_t item) {
    const int64_t ci = item % p.chunks;
    g.hk = (item / p.chunks) % p.Hkv;
    const int64_t* b = blocks + 3 * (item / (p.chunks * p.Hkv));
    g.s = b[0];
    const int64_t t0 = b[1], nt = b[2];
    const int64_t h0 = g.hk * p.group + ci * p.chunk;
    const int64_t nh = std::min(p.chunk, p.group - ci * p.chunk);
    g.nl = nt * nh;
    for (int64_t i = 0; i < g.nl; ++i) {
      g.t[i] = t0 + i / nh;
      g.h[i] = h0 + i % nh;
      load_query(c, p, g.t[i], g.h[i], g.s, g.qf + i * pD);
      visible(c, p.L, g.t[i], g.lo[i], g.hi[i]);
    }
  };
  const auto out_row = [&](int64_t t, int64_t h, int64_t s) {
    return reinterpret_cast<float*>(at(a.d, dst, 0, h, t, s));
  };
  const auto qrow = [&](int64_t t, int64_t h, int64_t s) { return (s * p.T + t) * p.Hq + h; };

  if (parts == 1) {
    for (int64_t i = 0; i < p.lanes(); ++i) g.acc[i] = accs + i * pDv;
    // With many row blocks, threads take whole row blocks (all their heads' items, in head
    // order) as they become free, the last first: under a causal mask late rows see more
    // keys, so the longest work goes out first. With few (a decode step of a sequence or
    // three), threads take every nth item, so each has heads to do. Either way, a thread's
    // next item is often the next head of the same rows, whose keys are the same: one KV
    // cell holds every head's row, and that head's first rows are prefetched while the item
    // ends (a batched decode step's items are a sequence's few hundred keys, and their first
    // rows had been waited on from memory).
    const int64_t per_block = p.Hkv * p.chunks, nblocks = items / per_block;
    const auto run = [&](int64_t item, int64_t next) {
      setup(item);
      const bool same_rows = next >= 0 && next / per_block == item / per_block;
      const int64_t next_hk = same_rows ? (next / p.chunks) % p.Hkv : -1;
      attend(c, p, vis_bits, g, next_hk != g.hk ? next_hk : -1);
      for (int64_t i = 0; i < g.nl; ++i) {
        float* o = out_row(g.t[i], g.h[i], g.s);
        const float inv = g.l[i] > 0.0f ? 1.0f / g.l[i] : 0.0f;
        for (int64_t e = 0; e < p.Dv; ++e) o[e] = g.acc[i][e] * inv;
      }
    };
    if (nblocks < kItemsPerThread * nth || !a.cursor) {
      for (int64_t item = ith; item < items; item += nth)
        run(item, item + nth < items ? item + nth : -1);
      return;
    }
    for (int64_t rb = nblocks - 1 - a.cursor->fetch_add(1, std::memory_order_relaxed); rb >= 0;
         rb = nblocks - 1 - a.cursor->fetch_add(1, std::memory_order_relaxed))
      for (int64_t hc = 0; hc < per_block; ++hc)
        run(rb * per_block + hc, hc + 1 < per_block ? rb * per_block + hc + 1 : -1);
    return;
  }

  // Split KV: each (item, part) leaves (m, l, acc) of each of its lanes in that query row's
  // partial slot for the part; then the parts of each row are merged:
  // M = max m_p, out = sum e^(m_p - M) acc_p / sum e^(m_p - M) l_p.
  const Range ir = share(items * parts, ith, nth);
  for (int64_t w = ir.begin; w < ir.end; ++w) {
    const int64_t item = w / parts, part = w % parts;
    setup(item);
    float* slot[kMaxLanes];
    for (int64_t i = 0; i < g.nl; ++i) {
      const int64_t len = (g.hi[i] - g.lo[i] + parts - 1) / parts;
      g.lo[i] = std::min(g.hi[i], g.lo[i] + part * len);
      g.hi[i] = std::min(g.hi[i], g.lo[i] + len);
      slot[i] = partials + (qrow(g.t[i], g.h[i], g.s) * parts + part) * p.partial;
      g.acc[i] = slot[i] + 2;
    }
    attend(c, p, vis_bits, g);
    for (int64_t i = 0; i < g.nl; ++i) {
      slot[i][0] = g.m[i];
      slot[i][1] = g.l[i];
    }
  }
  sync_threads(a);
  const Range rr = share(p.T * p.Hq * p.S, ith, nth);
  for (int64_t r = rr.begin; r < rr.end; ++r) {
    const int64_t h = r % p.Hq, t = (r / p.Hq) % p.T, s = r / (p.Hq * p.T);
    const float* row_parts = partials + r * parts * p.partial;
    float mx = kNegInf;
    for (int64_t q = 0; q < parts; ++q)
      if (row_parts[q * p.partial + 1] > 0.0f) mx = std::max(mx, row_parts[q * p.partial]);
    float* o = out_row(t, h, s);
    std::fill(o, o + p.Dv, 0.0f);
    if (!(mx > kNegInf)) continue;  // no part saw a key: zeros
    float l = 0.0f;
    for (int64_t q = 0; q < parts; ++q) {
      const float* slot = row_parts + q * p.partial;
      if (!(slot[1] > 0.0f)) continue;
      const float f = std::exp(slot[0] - mx);
      l += f * slot[1];
      axpy_f32(o, f, reinterpret_cast<const char*>(slot + 2), p.Dv);
    }
    scale_row(o, 1.0f / l, p.Dv);
  }
}

constexpr KernelEntry kAttention[] = {
    {ZEN_OP_ATTENTION, ZEN_TYPE_F32, kAnyType, kAnyType, attention, attention_work},
};

}  // namespace

std::span<const KernelEntry> attention_kernels() { return kAttention; }

}  // namespace ZEN_CPU_NS
