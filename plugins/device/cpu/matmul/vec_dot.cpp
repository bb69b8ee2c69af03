// Dot products of a weight row with an activation row (see vec_dot.h). Every type has a scalar
// body (the only one in the x86-64-v2 variant and the reference the SIMD bodies mirror);
// AVX2 bodies cover every type, and every type but F32 has a 4-column dot (one weight row x 4
// activation rows, for short batches), with VNNI's vpdpbusd replacing maddubs+madd in the int8
// products where the avx512 variant has it; NEON dotprod bodies cover Q4_0 and Q8_0; the other
// formats run their scalar body there.
#include "vec_dot.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__AVX2__) || defined(__F16C__)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#include <zen/quant_blocks.hpp>  // the non-linear grids kvalues_iq4nl, kvalues_mxfp4

#include "../fp16.h"
#include "../vec.h"
#include "k_scales.h"
#include "unpack_avx2.h"

namespace ZEN_CPU_NS::mm {
namespace {

using namespace zen::quant;

#if defined(__F16C__)
inline float h2f(uint16_t h) { return _cvtsh_ss(h); }  // exact, like f16_to_f32
#else
inline float h2f(uint16_t h) { return f16_to_f32(h); }
#endif

// ---- scalar bodies -------------------------------------------------------------------------

[[maybe_unused]] float dot_f32_scalar(int64_t k, const void* w, const void* a) {
  const float *x = static_cast<const float*>(w), *y = static_cast<const float*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k; ++i) s += x[i] * y[i];
  return s;
}
[[maybe_unused]] float dot_f16_scalar(int64_t k, const void* w, const void* a) {
  const uint16_t* x = static_cast<const uint16_t*>(w);
  const float* y = static_cast<const float*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k; ++i) s += f16_to_f32(x[i]) * y[i];
  return s;
}
[[maybe_unused]] float dot_bf16_scalar(int64_t k, const void* w, const void* a) {
  const uint16_t* x = static_cast<const uint16_t*>(w);
  const float* y = static_cast<const float*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k; ++i) s += bf16_to_f32(x[i]) * y[i];
  return s;
}

[[maybe_unused]] float dot_q4_0_scalar(int64_t k, const void* w, const void* a) {
  const block_q4_0* x = static_cast<const block_q4_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i) {
    int sumi = 0;
    for (int j = 0; j < 16; ++j)
      sumi += ((x[i].qs[j] & 0xF) - 8) * y[i].qs[j] + ((x[i].qs[j] >> 4) - 8) * y[i].qs[j + 16];
    s += h2f(x[i].d) * y[i].d * static_cast<float>(sumi);
  }
  return s;
}
[[maybe_unused]] float dot_q4_1_scalar(int64_t k, const void* w, const void* a) {
  const block_q4_1* x = static_cast<const block_q4_1*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i) {
    int sumi = 0;
    for (int j = 0; j < 16; ++j)
      sumi += (x[i].qs[j] & 0xF) * y[i].qs[j] + (x[i].qs[j] >> 4) * y[i].qs[j + 16];
    s += h2f(x[i].d) * y[i].d * static_cast<float>(sumi) + h2f(x[i].m) * y[i].s;
  }
  return s;
}
// The fifth bit of element j of a Q5 block, as 16 or 0.
inline int q5_high(uint32_t qh, int j) { return static_cast<int>((qh >> j) & 1u) << 4; }
[[maybe_unused]] float dot_q5_0_scalar(int64_t k, const void* w, const void* a) {
  const block_q5_0* x = static_cast<const block_q5_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i) {
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, 4);
    int sumi = 0;
    for (int j = 0; j < 16; ++j)
      sumi += (((x[i].qs[j] & 0xF) | q5_high(qh, j)) - 16) * y[i].qs[j] +
              (((x[i].qs[j] >> 4) | q5_high(qh, j + 16)) - 16) * y[i].qs[j + 16];
    s += h2f(x[i].d) * y[i].d * static_cast<float>(sumi);
  }
  return s;
}
[[maybe_unused]] float dot_q5_1_scalar(int64_t k, const void* w, const void* a) {
  const block_q5_1* x = static_cast<const block_q5_1*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i) {
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, 4);
    int sumi = 0;
    for (int j = 0; j < 16; ++j)
      sumi += ((x[i].qs[j] & 0xF) | q5_high(qh, j)) * y[i].qs[j] +
              ((x[i].qs[j] >> 4) | q5_high(qh, j + 16)) * y[i].qs[j + 16];
    s += h2f(x[i].d) * y[i].d * static_cast<float>(sumi) + h2f(x[i].m) * y[i].s;
  }
  return s;
}
[[maybe_unused]] float dot_q8_0_scalar(int64_t k, const void* w, const void* a) {
  const block_q8_0* x = static_cast<const block_q8_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i) {
    int sumi = 0;
    for (int j = 0; j < 32; ++j) sumi += x[i].qs[j] * y[i].qs[j];
    s += h2f(x[i].d) * y[i].d * static_cast<float>(sumi);
  }
  return s;
}

[[maybe_unused]] float dot_q2_K_scalar(int64_t k, const void* w, const void* a) {
  const block_q2_K* x = static_cast<const block_q2_K*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / QK_K; ++i) {
    int sumi = 0, summ = 0;
    for (int g = 0; g < 16; ++g) {  // sub-block g: elements 16g .. 16g + 15
      const uint8_t* q = x[i].qs + 32 * (g / 8) + 16 * (g % 2);
      const int shift = 2 * ((g % 8) / 2);
      int d = 0;
      for (int l = 0; l < 16; ++l) d += ((q[l] >> shift) & 3) * y[i].qs[16 * g + l];
      sumi += (x[i].scales[g] & 0xF) * d;
      summ += (x[i].scales[g] >> 4) * y[i].bsums[g];
    }
    s += y[i].d *
         (h2f(x[i].d) * static_cast<float>(sumi) - h2f(x[i].dmin) * static_cast<float>(summ));
  }
  return s;
}

// Signed 6-bit scale g (0..15) of Q3_K's packed 12 bytes, minus its offset 32.
inline int scale_q3_K(const uint8_t* sc, int g) {
  const int lo = g < 8 ? sc[g] & 0xF : sc[g - 8] >> 4;
  const int hi = (sc[8 + g % 4] >> (2 * (g / 4))) & 3;
  return (lo | (hi << 4)) - 32;
}
[[maybe_unused]] float dot_q3_K_scalar(int64_t k, const void* w, const void* a) {
  const block_q3_K* x = static_cast<const block_q3_K*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / QK_K; ++i) {
    int sumi = 0;
    for (int g = 0; g < 16; ++g) {
      const int h = g / 8, j = (g % 8) / 2, sub = g % 2;
      const uint8_t* q = x[i].qs + 32 * h + 16 * sub;
      const uint8_t* hm = x[i].hmask + 16 * sub;
      const int bit = 4 * h + j;
      int d = 0;
      for (int l = 0; l < 16; ++l) {
        const int v = ((q[l] >> (2 * j)) & 3) - (((hm[l] >> bit) & 1) ? 0 : 4);
        d += v * y[i].qs[16 * g + l];
      }
      sumi += scale_q3_K(x[i].scales, g) * d;
    }
    s += y[i].d * h2f(x[i].d) * static_cast<float>(sumi);
  }
  return s;
}
[[maybe_unused]] float dot_q4_K_scalar(int64_t k, const void* w, const void* a) {
  const block_q4_K* x = static_cast<const block_q4_K*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / QK_K; ++i) {
    int sumi = 0, summ = 0;
    for (int j = 0; j < 4; ++j) {  // 64 elements: low nibbles then high nibbles of 32 bytes
      int sc0, m0, sc1, m1;
      scale_min_k4(2 * j, x[i].scales, sc0, m0);
      scale_min_k4(2 * j + 1, x[i].scales, sc1, m1);
      const uint8_t* q = x[i].qs + 32 * j;
      const int8_t* yq = y[i].qs + 64 * j;
      int d0 = 0, d1 = 0;
      for (int l = 0; l < 32; ++l) {
        d0 += (q[l] & 0xF) * yq[l];
        d1 += (q[l] >> 4) * yq[l + 32];
      }
      sumi += sc0 * d0 + sc1 * d1;
      summ += m0 * (y[i].bsums[4 * j] + y[i].bsums[4 * j + 1]) +
              m1 * (y[i].bsums[4 * j + 2] + y[i].bsums[4 * j + 3]);
    }
    s += y[i].d *
         (h2f(x[i].d) * static_cast<float>(sumi) - h2f(x[i].dmin) * static_cast<float>(summ));
  }
  return s;
}
[[maybe_unused]] float dot_q5_K_scalar(int64_t k, const void* w, const void* a) {
  const block_q5_K* x = static_cast<const block_q5_K*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / QK_K; ++i) {
    int sumi = 0, summ = 0;
    for (int j = 0; j < 4; ++j) {
      int sc0, m0, sc1, m1;
      scale_min_k4(2 * j, x[i].scales, sc0, m0);
      scale_min_k4(2 * j + 1, x[i].scales, sc1, m1);
      const uint8_t* q = x[i].qs + 32 * j;
      const int8_t* yq = y[i].qs + 64 * j;
      int d0 = 0, d1 = 0;
      for (int l = 0; l < 32; ++l) {
        const int h0 = ((x[i].qh[l] >> (2 * j)) & 1) << 4;
        const int h1 = ((x[i].qh[l] >> (2 * j + 1)) & 1) << 4;
        d0 += ((q[l] & 0xF) | h0) * yq[l];
        d1 += ((q[l] >> 4) | h1) * yq[l + 32];
      }
      sumi += sc0 * d0 + sc1 * d1;
      summ += m0 * (y[i].bsums[4 * j] + y[i].bsums[4 * j + 1]) +
              m1 * (y[i].bsums[4 * j + 2] + y[i].bsums[4 * j + 3]);
    }
    s += y[i].d *
         (h2f(x[i].d) * static_cast<float>(sumi) - h2f(x[i].dmin) * static_cast<float>(summ));
  }
  return s;
}
[[maybe_unused]] float dot_q6_K_scalar(int64_t k, const void* w, const void* a) {
  const block_q6_K* x = static_cast<const block_q6_K*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / QK_K; ++i) {
    int sumi = 0;
    for (int h = 0; h < 2; ++h) {  // 128 elements: four runs of 32
      const uint8_t* ql = x[i].ql + 64 * h;
      const uint8_t* qh = x[i].qh + 32 * h;
      const int8_t* yq = y[i].qs + 128 * h;
      for (int r = 0; r < 4; ++r)
        for (int l = 0; l < 32; ++l) {
          const int lo = r < 2 ? ql[l + 32 * (r % 2)] & 0xF : ql[l + 32 * (r % 2)] >> 4;
          const int q = (lo | (((qh[l] >> (2 * r)) & 3) << 4)) - 32;
          sumi += x[i].scales[8 * h + 2 * r + l / 16] * q * yq[32 * r + l];
        }
    }
    s += y[i].d * h2f(x[i].d) * static_cast<float>(sumi);
  }
  return s;
}

// The non-linear 4-bit formats: a 16-entry int8 grid (the reference codec's tables) times a
// per-32 scale. MXFP4's scale is the E8M0 exponent, 2^(e - 128) with the grid doubled.
inline float e8m0_half(uint8_t e) {
  const uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline int iq4_xs_scale(const block_iq4_xs& x, int ib) {
  return (((x.scales_l[ib / 2] >> (4 * (ib % 2))) & 0xF) | (((x.scales_h >> (2 * ib)) & 3) << 4)) -
         32;
}
inline int grid_dot32(const int8_t* grid, const uint8_t* qs, const int8_t* y) {
  int sumi = 0;
  for (int j = 0; j < 16; ++j) sumi += grid[qs[j] & 0xF] * y[j] + grid[qs[j] >> 4] * y[j + 16];
  return sumi;
}
[[maybe_unused]] float dot_iq4_nl_scalar(int64_t k, const void* w, const void* a) {
  const block_iq4_nl* x = static_cast<const block_iq4_nl*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i)
    s += h2f(x[i].d) * y[i].d * static_cast<float>(grid_dot32(kvalues_iq4nl, x[i].qs, y[i].qs));
  return s;
}
[[maybe_unused]] float dot_mxfp4_scalar(int64_t k, const void* w, const void* a) {
  const block_mxfp4* x = static_cast<const block_mxfp4*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i)
    s += e8m0_half(x[i].e) * y[i].d *
         static_cast<float>(grid_dot32(kvalues_mxfp4, x[i].qs, y[i].qs));
  return s;
}
[[maybe_unused]] float dot_iq4_xs_scalar(int64_t k, const void* w, const void* a) {
  const block_iq4_xs* x = static_cast<const block_iq4_xs*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float s = 0.0f;
  for (int64_t i = 0; i < k / QK_K; ++i) {
    const float d = h2f(x[i].d);
    for (int ib = 0; ib < 8; ++ib) {
      const act_q8& yb = y[8 * i + ib];
      s += d * static_cast<float>(iq4_xs_scale(x[i], ib)) * yb.d *
           static_cast<float>(grid_dot32(kvalues_iq4nl, x[i].qs + 16 * ib, yb.qs));
    }
  }
  return s;
}

// ---- AVX2 bodies ---------------------------------------------------------------------------
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define ZEN_MM_AVX2 1

using vec::hsum;  // the float horizontal sum the row kernels use (vec.h)
inline int hsum_i32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}
// Sum of products of unsigned bytes u and signed bytes s, per 4 bytes, in int32.
inline __m256i dot_u8s8(__m256i u, __m256i s) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}
// The same for two signed vectors: |x| * (y with x's sign).
inline __m256i dot_s8s8(__m256i x, __m256i y) {
  return dot_u8s8(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
}
inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// Two accumulators per output, as dot4_f32_avx2 keeps for each of its 4 columns: a column's
// sum is the same bits whichever of the two computes it (so a sequence's logits do not depend
// on the batch it shares).
float dot_f32_avx2(int64_t k, const void* w, const void* a) {
  const float *x = static_cast<const float*>(w), *y = static_cast<const float*>(a);
  __m256 s0 = _mm256_setzero_ps(), s1 = s0;
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
  }
  for (; i + 8 <= k; i += 8)
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
  float s = hsum(_mm256_add_ps(s0, s1));
  for (; i < k; ++i) s += x[i] * y[i];
  return s;
}
// Four activation columns against one weight row: the row is loaded once for the four (the
// single dot loads it per column), 8 independent FMA chains.
void dot4_f32_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const float* x = static_cast<const float*>(w);
  const float* y[4];
  for (int c = 0; c < 4; ++c) y[c] = static_cast<const float*>(a[c]);
  __m256 s0[4], s1[4];
  for (int c = 0; c < 4; ++c) s0[c] = s1[c] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    const __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
    for (int c = 0; c < 4; ++c) {
      s0[c] = _mm256_fmadd_ps(v0, _mm256_loadu_ps(y[c] + i), s0[c]);
      s1[c] = _mm256_fmadd_ps(v1, _mm256_loadu_ps(y[c] + i + 8), s1[c]);
    }
  }
  for (; i + 8 <= k; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    for (int c = 0; c < 4; ++c) s0[c] = _mm256_fmadd_ps(v, _mm256_loadu_ps(y[c] + i), s0[c]);
  }
  for (int c = 0; c < 4; ++c) {
    float t = hsum(_mm256_add_ps(s0[c], s1[c]));
    for (int64_t j = i; j < k; ++j) t += x[j] * y[c][j];
    out[c] = t;
  }
}
inline __m256 load_f16x8(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline __m256 load_bf16x8(const uint16_t* p) {
  const __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}
template <bool BF16>
float dot_half_avx2(int64_t k, const void* w, const void* a) {
  const uint16_t* x = static_cast<const uint16_t*>(w);
  const float* y = static_cast<const float*>(a);
  auto ld = [](const uint16_t* p) { return BF16 ? load_bf16x8(p) : load_f16x8(p); };
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 32 <= k; i += 32) {
    s0 = _mm256_fmadd_ps(ld(x + i), _mm256_loadu_ps(y + i), s0);
    s1 = _mm256_fmadd_ps(ld(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
    s2 = _mm256_fmadd_ps(ld(x + i + 16), _mm256_loadu_ps(y + i + 16), s2);
    s3 = _mm256_fmadd_ps(ld(x + i + 24), _mm256_loadu_ps(y + i + 24), s3);
  }
  for (; i + 8 <= k; i += 8) s0 = _mm256_fmadd_ps(ld(x + i), _mm256_loadu_ps(y + i), s0);
  float s = hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < k; ++i) s += (BF16 ? bf16_to_f32(x[i]) : f16_to_f32(x[i])) * y[i];
  return s;
}
// F16 / BF16 weights x 4 activation columns: each converted weight vector feeds 4 FMAs; two
// accumulators per column (8 chains) keep the FMA latency hidden. One row is read per call, so
// the row after it (contiguous, k halves on) is prefetched in step, a line per 32 elements, as
// the 8-row kernels do for their next rows. (F32 weights have none: the same scheme measured
// 1.2x slower at 4 columns than 4 single-column passes.)
template <bool BF16>
void dot4_half_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const uint16_t* x = static_cast<const uint16_t*>(w);
  const auto ld = [](const uint16_t* p) { return BF16 ? load_bf16x8(p) : load_f16x8(p); };
  const float* y[4];
  for (int c = 0; c < 4; ++c) y[c] = static_cast<const float*>(a[c]);
  __m256 s0[4], s1[4];
  for (int c = 0; c < 4; ++c) s0[c] = s1[c] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    if (i % 32 == 0) _mm_prefetch(reinterpret_cast<const char*>(x + k + i), _MM_HINT_T0);
    const __m256 v0 = ld(x + i), v1 = ld(x + i + 8);
    for (int c = 0; c < 4; ++c) {
      s0[c] = _mm256_fmadd_ps(v0, _mm256_loadu_ps(y[c] + i), s0[c]);
      s1[c] = _mm256_fmadd_ps(v1, _mm256_loadu_ps(y[c] + i + 8), s1[c]);
    }
  }
  for (; i + 8 <= k; i += 8) {
    const __m256 v = ld(x + i);
    for (int c = 0; c < 4; ++c) s0[c] = _mm256_fmadd_ps(v, _mm256_loadu_ps(y[c] + i), s0[c]);
  }
  for (int c = 0; c < 4; ++c) {
    float t = hsum(_mm256_add_ps(s0[c], s1[c]));
    for (int64_t j = i; j < k; ++j) t += (BF16 ? bf16_to_f32(x[j]) : f16_to_f32(x[j])) * y[c][j];
    out[c] = t;
  }
}

float dot_q8_0_avx2(int64_t k, const void* w, const void* a) {
  const block_q8_0* x = static_cast<const block_q8_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  const int64_t nb = k / 32;
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 2 <= nb; i += 2) {  // two independent chains hide the FMA latency
    const __m256i p0 = dot_s8s8(load256(x[i].qs), load256(y[i].qs));
    const __m256i p1 = dot_s8s8(load256(x[i + 1].qs), load256(y[i + 1].qs));
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(h2f(x[i].d) * y[i].d), _mm256_cvtepi32_ps(p0), acc0);
    acc1 =
        _mm256_fmadd_ps(_mm256_set1_ps(h2f(x[i + 1].d) * y[i + 1].d), _mm256_cvtepi32_ps(p1), acc1);
  }
  for (; i < nb; ++i) {
    const __m256i p = dot_s8s8(load256(x[i].qs), load256(y[i].qs));
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(h2f(x[i].d) * y[i].d), _mm256_cvtepi32_ps(p), acc0);
  }
  return hsum(_mm256_add_ps(acc0, acc1));
}
// Two accumulators per column (even and odd blocks): 8 independent FMA chains.
void dot4_q8_0_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const block_q8_0* x = static_cast<const block_q8_0*>(w);
  __m256 acc[2][4];
  for (int c = 0; c < 4; ++c) acc[0][c] = acc[1][c] = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / 32; ++i) {
    const __m256i q = load256(x[i].qs);
    const __m256i aq = _mm256_sign_epi8(q, q);
    const float dx = h2f(x[i].d);
    __m256* ac = acc[i & 1];
    for (int c = 0; c < 4; ++c) {
      const act_q8* y = static_cast<const act_q8*>(a[c]) + i;
      const __m256i p = dot_u8s8(aq, _mm256_sign_epi8(load256(y->qs), q));
      ac[c] = _mm256_fmadd_ps(_mm256_set1_ps(dx * y->d), _mm256_cvtepi32_ps(p), ac[c]);
    }
  }
  for (int c = 0; c < 4; ++c) out[c] = hsum(_mm256_add_ps(acc[0][c], acc[1][c]));
}
// Q4_0 as unsigned nibbles q (maddubs needs no sign fix-up): sum (q - 8) y = sum q y - 8 sum y,
// and the activation block's s = d_y * sum y gives the second term.
float dot_q4_0_avx2(int64_t k, const void* w, const void* a) {
  const block_q4_0* x = static_cast<const block_q4_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  const int64_t nb = k / 32;
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  float off = 0.0f;
  int64_t i = 0;
  for (; i + 2 <= nb; i += 2) {  // two independent chains hide the FMA latency
    const __m256i p0 = dot_u8s8(unpack_nibbles(x[i].qs), load256(y[i].qs));
    const __m256i p1 = dot_u8s8(unpack_nibbles(x[i + 1].qs), load256(y[i + 1].qs));
    const float d0 = h2f(x[i].d), d1 = h2f(x[i + 1].d);
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(d0 * y[i].d), _mm256_cvtepi32_ps(p0), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_set1_ps(d1 * y[i + 1].d), _mm256_cvtepi32_ps(p1), acc1);
    off += d0 * y[i].s + d1 * y[i + 1].s;
  }
  for (; i < nb; ++i) {
    const __m256i p = dot_u8s8(unpack_nibbles(x[i].qs), load256(y[i].qs));
    const float d = h2f(x[i].d);
    acc0 = _mm256_fmadd_ps(_mm256_set1_ps(d * y[i].d), _mm256_cvtepi32_ps(p), acc0);
    off += d * y[i].s;
  }
  return hsum(_mm256_add_ps(acc0, acc1)) - 8.0f * off;
}
void dot4_q4_0_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const block_q4_0* x = static_cast<const block_q4_0*>(w);
  __m256 acc[2][4];  // even and odd blocks: 8 independent FMA chains
  for (int c = 0; c < 4; ++c) acc[0][c] = acc[1][c] = _mm256_setzero_ps();
  float off[4] = {0, 0, 0, 0};
  for (int64_t i = 0; i < k / 32; ++i) {
    const __m256i q = unpack_nibbles(x[i].qs);
    const float dx = h2f(x[i].d);
    __m256* ac = acc[i & 1];
    for (int c = 0; c < 4; ++c) {
      const act_q8* y = static_cast<const act_q8*>(a[c]) + i;
      const __m256i p = dot_u8s8(q, load256(y->qs));
      ac[c] = _mm256_fmadd_ps(_mm256_set1_ps(dx * y->d), _mm256_cvtepi32_ps(p), ac[c]);
      off[c] += dx * y->s;
    }
  }
  for (int c = 0; c < 4; ++c) out[c] = hsum(_mm256_add_ps(acc[0][c], acc[1][c])) - 8.0f * off[c];
}
// Eight int32 vectors' lane sums, in one vector (element r: the sum of v[r]): two levels of
// hadds leave each 128-bit lane's half of rows 0..3 (and 4..7), added crosswise.
inline __m256i reduce8(const __m256i* v) {
  const __m256i h0 =
      _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
  const __m256i h1 =
      _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
  return _mm256_add_epi32(_mm256_permute2x128_si256(h0, h1, 0x20),
                          _mm256_permute2x128_si256(h0, h1, 0x31));
}
// The same for eight 4-lane vectors.
inline __m256i reduce8(const __m128i* v) {
  const __m128i lo = _mm_hadd_epi32(_mm_hadd_epi32(v[0], v[1]), _mm_hadd_epi32(v[2], v[3]));
  const __m128i hi = _mm_hadd_epi32(_mm_hadd_epi32(v[4], v[5]), _mm_hadd_epi32(v[6], v[7]));
  return _mm256_set_m128i(hi, lo);
}

// The 8 rows' F16 scales d[0..8) (16-byte aligned: the load never splits a cache line) times
// the activation block's scale, in one vector.
inline __m256 row_scales8(const uint16_t* d, float yd) {
  return _mm256_mul_ps(_mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(d))),
                       _mm256_set1_ps(yd));
}

// Eight consecutive weight rows (wrow bytes apart) x one activation row: decode's GEMV, for
// the 32-element formats with one F16 scale d per block. row_sums(b, y) gives the 8 rows' exact
// integer sums for one block (b[r]: row r's block) in one vector; they are converted, scaled
// and accumulated once for all 8 rows; the next 8 rows are prefetched in step.
template <class Block, class RowSums>
void dot8_blocks(int64_t k, const void* w, size_t wrow, const void* a, float* out,
                 RowSums row_sums) {
  const char* x = static_cast<const char*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / 32; ++i) {
    prefetch_next_rows<Block>(x, wrow, i);
    const Block* b[8];
    alignas(16) uint16_t d[8];
    for (int r = 0; r < 8; ++r) {
      b[r] = reinterpret_cast<const Block*>(x + r * wrow) + i;
      d[r] = b[r]->d;
    }
    acc = _mm256_fmadd_ps(row_scales8(d, y[i].d), _mm256_cvtepi32_ps(row_sums(b, y[i])), acc);
  }
  _mm256_storeu_ps(out, acc);
}
// Q4_0: rows r and r + 4 share a vector (one per 128-bit lane), so one AND and one shift unpack
// two rows' nibbles against the activation's halves broadcast to both lanes; three hadds leave
// rows 0..3 in the low lane and 4..7 in the high one. The -8 offset is taken off in int16
// (|sum| <= 7620 + 4064), so each block's integer is the scalar body's sum (q - 8) y.
void dot8_q4_0_avx2(int64_t k, const void* w, size_t wrow, const void* a, float* out) {
  const auto row_sums = [](const block_q4_0* const* b, const act_q8& y) {
    const __m256i m4 = _mm256_set1_epi8(0x0F), ones8 = _mm256_set1_epi8(1);
    const __m256i lo =
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y.qs)));
    const __m256i hi =
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y.qs + 16)));
    // 8 x the activation's pair sums, to take off every row's pair sums
    const __m256i off = _mm256_slli_epi16(
        _mm256_add_epi16(_mm256_maddubs_epi16(ones8, lo), _mm256_maddubs_epi16(ones8, hi)), 3);
    __m256i s[4];
    for (int p = 0; p < 4; ++p) {
      const __m256i q = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(b[p + 4]->qs),
                                            reinterpret_cast<const __m128i*>(b[p]->qs));
      const __m256i ql = _mm256_and_si256(q, m4);
      const __m256i qh = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
      const __m256i t =
          _mm256_add_epi16(_mm256_maddubs_epi16(ql, lo), _mm256_maddubs_epi16(qh, hi));
      s[p] = _mm256_madd_epi16(_mm256_sub_epi16(t, off), _mm256_set1_epi16(1));
    }
    return _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
  };
  dot8_blocks<block_q4_0>(k, w, wrow, a, out, row_sums);
}
// Q8_0: one row per vector (the sign trick, as dot_s8s8), the 8 rows' sums gathered by reduce8.
void dot8_q8_0_avx2(int64_t k, const void* w, size_t wrow, const void* a, float* out) {
  const auto row_sums = [](const block_q8_0* const* b, const act_q8& y) {
    const __m256i yv = load256(y.qs);
    __m256i s[8];
    for (int r = 0; r < 8; ++r) s[r] = dot_s8s8(load256(b[r]->qs), yv);
    return reduce8(s);
  };
  dot8_blocks<block_q8_0>(k, w, wrow, a, out, row_sums);
}
float dot_q4_1_avx2(int64_t k, const void* w, const void* a) {
  const block_q4_1* x = static_cast<const block_q4_1*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  __m256 acc = _mm256_setzero_ps();
  float sm = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i) {
    const __m256i p = dot_u8s8(unpack_nibbles(x[i].qs), load256(y[i].qs));
    acc = _mm256_fmadd_ps(_mm256_set1_ps(h2f(x[i].d) * y[i].d), _mm256_cvtepi32_ps(p), acc);
    sm += h2f(x[i].m) * y[i].s;
  }
  return hsum(acc) + sm;
}

// Byte shuffles that fill the low 128-bit lane with int16 number lo of that lane and the high
// lane with number hi: one instruction per sub-block scale vector, where two scalar broadcasts
// and an insert were a third of Q6_K's instructions. A table in memory, so that the shuffles
// read their patterns as memory operands: built in registers, they were rebuilt in every block.
struct ScalePicks {
  alignas(32) uint8_t p[8][8][32];
};
constexpr ScalePicks make_scale_picks() {
  ScalePicks t{};
  for (int lo = 0; lo < 8; ++lo)
    for (int hi = 0; hi < 8; ++hi)
      for (int b = 0; b < 16; ++b) {
        t.p[lo][hi][b] = static_cast<uint8_t>(2 * lo + b % 2);
        t.p[lo][hi][16 + b] = static_cast<uint8_t>(2 * hi + b % 2);
      }
  return t;
}
constexpr ScalePicks kScalePicks = make_scale_picks();
inline __m256i scale_pick(int lo, int hi) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(kScalePicks.p[lo][hi]));
}

// The integer sums of one Q4_K (Q5 = false) or Q5_K super-block x with NC activation blocks
// y[c]: sumi[c] (8 int32 lanes) the scaled quant products, pm[c] (4 lanes) the mins x the
// activations' 16-group sums. Per 64 elements, 32 bytes whose low nibbles are sub-block 2j and
// high nibbles 2j + 1 (Q5_K: plus bits 2j and 2j + 1 of qh as bit 4), unpacked once for all
// NC columns.
template <int NC, class Block>
inline void q45_K_sums(const Block& x, const act_q8k* const* y, __m256i* sumi, __m128i* pm) {
  constexpr bool Q5 = std::is_same_v<Block, block_q5_K>;
  const __m128i sm = unpack_scales_k4_avx2(x.scales);  // 8 scales then 8 mins
  const __m128i mins = _mm_cvtepu8_epi16(_mm_srli_si128(sm, 8));
  // the 8 scales as int16 in both 128-bit lanes, for scale_pick
  const __m256i scales = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(sm));
  for (int c = 0; c < NC; ++c) {
    // mins x (sums of the activations' pairs of 16-groups), int16 lanes -> int32
    const __m128i bs0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(y[c]->bsums));
    const __m128i bs1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(y[c]->bsums + 8));
    pm[c] = _mm_madd_epi16(mins, _mm_hadd_epi16(bs0, bs1));
    sumi[c] = _mm256_setzero_si256();
  }
  [[maybe_unused]] __m256i hb{};
  if constexpr (Q5) hb = load256(x.qh);
  for (int j = 0; j < 4; ++j) {
    __m256i lo, hi;
    unpack_q45_K<Q5>(x.qs, hb, j, lo, hi);
    const __m256i s0 = _mm256_shuffle_epi8(scales, scale_pick(2 * j, 2 * j));
    const __m256i s1 = _mm256_shuffle_epi8(scales, scale_pick(2 * j + 1, 2 * j + 1));
    for (int c = 0; c < NC; ++c) {
      const int8_t* yq = y[c]->qs + 64 * j;
      const __m256i pl = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(yq)), s0);
      const __m256i ph = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(yq + 32)), s1);
      sumi[c] = _mm256_add_epi32(sumi[c], _mm256_add_epi32(pl, ph));
    }
  }
}

// Q4_K / Q5_K x NC activation rows.
template <int NC, bool Q5>
void q45_K_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  using Block = std::conditional_t<Q5, block_q5_K, block_q4_K>;
  const Block* x = static_cast<const Block*>(w);
  __m256 acc[NC];
  __m128 accm[NC];
  for (int c = 0; c < NC; ++c) {
    acc[c] = _mm256_setzero_ps();
    accm[c] = _mm_setzero_ps();
  }
  for (int64_t i = 0; i < k / QK_K; ++i) {
    const act_q8k* y[NC];
    for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8k*>(a[c]) + i;
    __m256i sumi[NC];
    __m128i pm[NC];
    q45_K_sums<NC>(x[i], y, sumi, pm);
    const float d = h2f(x[i].d), dmin = h2f(x[i].dmin);
    for (int c = 0; c < NC; ++c) {
      accm[c] = _mm_fmadd_ps(_mm_set1_ps(y[c]->d * dmin), _mm_cvtepi32_ps(pm[c]), accm[c]);
      acc[c] = _mm256_fmadd_ps(_mm256_set1_ps(y[c]->d * d), _mm256_cvtepi32_ps(sumi[c]), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) {
    __m128 m = _mm_add_ps(accm[c], _mm_movehl_ps(accm[c], accm[c]));
    m = _mm_add_ss(m, _mm_movehdup_ps(m));
    out[c] = hsum(acc[c]) - _mm_cvtss_f32(m);
  }
}

// Q4_K / Q5_K, eight rows x one activation row (decode): dot8_blocks' scheme with the mins'
// second scale dmin, so a second accumulator.
template <bool Q5>
void dot8_q45_K_avx2(int64_t k, const void* w, size_t wrow, const void* a, float* out) {
  using Block = std::conditional_t<Q5, block_q5_K, block_q4_K>;
  const char* x = static_cast<const char*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  __m256 acc = _mm256_setzero_ps(), accm = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / QK_K; ++i) {
    prefetch_next_rows<Block>(x, wrow, i);
    const act_q8k* yi = y + i;
    __m256i sumi[8];
    __m128i pm[8];
    alignas(16) uint16_t d[8], dmin[8];
    for (int r = 0; r < 8; ++r) {
      const Block& b = reinterpret_cast<const Block*>(x + r * wrow)[i];
      q45_K_sums<1>(b, &yi, sumi + r, pm + r);
      d[r] = b.d;
      dmin[r] = b.dmin;
    }
    acc = _mm256_fmadd_ps(row_scales8(d, yi->d), _mm256_cvtepi32_ps(reduce8(sumi)), acc);
    accm = _mm256_fmadd_ps(row_scales8(dmin, yi->d), _mm256_cvtepi32_ps(reduce8(pm)), accm);
  }
  _mm256_storeu_ps(out, _mm256_sub_ps(acc, accm));
}
float dot_q4_K_avx2(int64_t k, const void* w, const void* a) {
  float r;
  q45_K_avx2<1, false>(k, w, &a, &r);
  return r;
}
float dot_q5_K_avx2(int64_t k, const void* w, const void* a) {
  float r;
  q45_K_avx2<1, true>(k, w, &a, &r);
  return r;
}

// Q5_0: q - 16 = nibble | 0xF0 where the fifth bit is clear (two's complement of nibble - 16).
float dot_q5_0_avx2(int64_t k, const void* w, const void* a) {
  const block_q5_0* x = static_cast<const block_q5_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  const __m256i f0 = _mm256_set1_epi8(static_cast<char>(0xF0));
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / 32; ++i) {
    const __m256i q =
        _mm256_or_si256(unpack_nibbles(x[i].qs), _mm256_andnot_si256(bits_to_bytes(x[i].qh), f0));
    const __m256i p = dot_s8s8(q, load256(y[i].qs));
    acc = _mm256_fmadd_ps(_mm256_set1_ps(h2f(x[i].d) * y[i].d), _mm256_cvtepi32_ps(p), acc);
  }
  return hsum(acc);
}
// Q5_1: q = nibble | 0x10 where the fifth bit is set, unsigned; the min through s.
float dot_q5_1_avx2(int64_t k, const void* w, const void* a) {
  const block_q5_1* x = static_cast<const block_q5_1*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  __m256 acc = _mm256_setzero_ps();
  float sm = 0.0f;
  for (int64_t i = 0; i < k / 32; ++i) {
    const __m256i q = unpack_q5(x[i].qs, x[i].qh);
    const __m256i p = dot_u8s8(q, load256(y[i].qs));
    acc = _mm256_fmadd_ps(_mm256_set1_ps(h2f(x[i].d) * y[i].d), _mm256_cvtepi32_ps(p), acc);
    sm += h2f(x[i].m) * y[i].s;
  }
  return hsum(acc) + sm;
}

// Scale vector for a run of 32 quants spanning 16-groups g and g + 1: int16 lanes 0..7 (the
// pairs of elements 0..15) take sc[g], lanes 8..15 take sc[g + 1].
inline __m256i pair_scales(int a, int b) {
  return _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(b)),
                          _mm_set1_epi16(static_cast<int16_t>(a)));
}

// Q2_K: per 128 elements, 32 bytes whose bit pairs r (0..3) are the runs of 32 elements
// 32 r .. 32 r + 31 (16-groups 2r, 2r + 1); the mins go through the activations' bsums.
float dot_q2_K_avx2(int64_t k, const void* w, const void* a) {
  const block_q2_K* x = static_cast<const block_q2_K*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  const __m256i m3 = _mm256_set1_epi8(3);
  __m256 acc = _mm256_setzero_ps();
  float sm = 0.0f;
  for (int64_t i = 0; i < k / QK_K; ++i) {
    const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[i].scales));
    const __m256i mins =
        _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc8, 4), _mm_set1_epi8(15)));
    const int summ = hsum_i32(_mm256_madd_epi16(mins, load256(y[i].bsums)));
    __m256i sumi = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const __m256i qb = load256(x[i].qs + 32 * h);
      for (int r = 0; r < 4; ++r) {
        const __m256i q = _mm256_and_si256(_mm256_srli_epi16(qb, 2 * r), m3);
        const int g = 8 * h + 2 * r;
        const __m256i p = _mm256_maddubs_epi16(q, load256(y[i].qs + 128 * h + 32 * r));
        sumi = _mm256_add_epi32(
            sumi, _mm256_madd_epi16(p, pair_scales(x[i].scales[g] & 15, x[i].scales[g + 1] & 15)));
      }
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * h2f(x[i].d)), _mm256_cvtepi32_ps(sumi), acc);
    sm += y[i].d * h2f(x[i].dmin) * static_cast<float>(summ);
  }
  return hsum(acc) - sm;
}

// Q3_K: as Q2_K's bit pairs, minus 4 where the run's hmask bit (4 h + r) is clear: signed
// quants in [-4, 3] through the sign trick; 16 signed 6-bit scales.
float dot_q3_K_avx2(int64_t k, const void* w, const void* a) {
  const block_q3_K* x = static_cast<const block_q3_K*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  const __m256i m3 = _mm256_set1_epi8(3), four = _mm256_set1_epi8(4);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / QK_K; ++i) {
    int sc[16];
    for (int g = 0; g < 16; ++g) sc[g] = scale_q3_K(x[i].scales, g);
    const __m256i hm = load256(x[i].hmask);
    __m256i sumi = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const __m256i qb = load256(x[i].qs + 32 * h);
      for (int r = 0; r < 4; ++r) {
        const __m256i bit = _mm256_set1_epi8(static_cast<char>(1 << (4 * h + r)));
        const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(hm, bit), bit);
        const __m256i q = _mm256_sub_epi8(_mm256_and_si256(_mm256_srli_epi16(qb, 2 * r), m3),
                                          _mm256_andnot_si256(set, four));
        const __m256i yq = load256(y[i].qs + 128 * h + 32 * r);
        const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(q, q), _mm256_sign_epi8(yq, q));
        const int g = 8 * h + 2 * r;
        sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, pair_scales(sc[g], sc[g + 1])));
      }
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * h2f(x[i].d)), _mm256_cvtepi32_ps(sumi), acc);
  }
  return hsum(acc);
}

// Q2_K, Q3_K and Q6_K super-blocks as eight runs of 32 unsigned quants, run r of half h
// (elements 128 h + 32 r ..) spanning 16-groups 8 h + 2 r and 8 h + 2 r + 1, with 16 int16
// group scales; a signed type's quants are stored offset by 2^kOffShift, taken off through the
// activations' bsums. Q2_K's mins (second scale dmin) are kept apart, as in dot_q2_K_avx2.
struct KQ2 {
  using Block = block_q2_K;
  static constexpr int kOffShift = -1;  // unsigned quants 0..3
  static __m256i scales(const Block& x) {
    const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x.scales));
    return _mm256_cvtepu8_epi16(_mm_and_si128(sc8, _mm_set1_epi8(15)));
  }
  static void unpack(const Block& x, int h, __m256i* q) {
    const __m256i qb = load256(x.qs + 32 * h), m3 = _mm256_set1_epi8(3);
    for (int r = 0; r < 4; ++r) q[r] = _mm256_and_si256(_mm256_srli_epi16(qb, 2 * r), m3);
  }
};
struct KQ3 {
  using Block = block_q3_K;
  static constexpr int kOffShift = 2;  // q + 4 in 0..7: the hmask bit set adds 4
  static __m256i scales(const Block& x) {
    alignas(32) int16_t sc[16];
    for (int g = 0; g < 16; ++g) sc[g] = static_cast<int16_t>(scale_q3_K(x.scales, g));
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(sc));
  }
  static void unpack(const Block& x, int h, __m256i* q) {
    const __m256i qb = load256(x.qs + 32 * h), hm = load256(x.hmask);
    const __m256i m3 = _mm256_set1_epi8(3), four = _mm256_set1_epi8(4);
    for (int r = 0; r < 4; ++r) {
      const __m256i bit = _mm256_set1_epi8(static_cast<char>(1 << (4 * h + r)));
      const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(hm, bit), bit);
      q[r] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qb, 2 * r), m3),
                             _mm256_and_si256(set, four));
    }
  }
};
struct KQ6 {
  using Block = block_q6_K;
  static constexpr int kOffShift = 5;  // q + 32 in 0..63
  static __m256i scales(const Block& x) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x.scales)));
  }
  static void unpack(const Block& x, int h, __m256i* q) {
    unpack_q6_K(x.ql + 64 * h, x.qh + 32 * h, q);
  }
};

// The integer sums of one such super-block x with NC activation blocks y[c] (8 int32 lanes
// each): each run unpacked once for all NC columns; the offset taken off in the int32 sums
// (|sum| < 2^26: exact).
template <class KQ, int NC>
inline void k_group_sums(const typename KQ::Block& x, const act_q8k* const* y, __m256i* sumi) {
  const __m256i sc16 = KQ::scales(x);
  for (int c = 0; c < NC; ++c) {
    sumi[c] = _mm256_setzero_si256();
    if constexpr (KQ::kOffShift >= 0) {
      // -2^kOffShift * scale_g * bsum_g, the offset's share, in 8 lanes
      const __m256i pc = _mm256_madd_epi16(sc16, load256(y[c]->bsums));
      sumi[c] = _mm256_sub_epi32(sumi[c], _mm256_slli_epi32(pc, KQ::kOffShift));
    }
  }
  for (int h = 0; h < 2; ++h) {
    __m256i q[4];
    KQ::unpack(x, h, q);
    // scales 8h .. 8h + 7 in both 128-bit lanes; run r takes 2r (low lane), 2r + 1 (high)
    const __m256i sch = _mm256_permute2x128_si256(sc16, sc16, h == 0 ? 0x00 : 0x11);
    for (int r = 0; r < 4; ++r) {
      const __m256i scv = _mm256_shuffle_epi8(sch, scale_pick(2 * r, 2 * r + 1));
      for (int c = 0; c < NC; ++c) {
        const __m256i p = _mm256_maddubs_epi16(q[r], load256(y[c]->qs + 128 * h + 32 * r));
        sumi[c] = _mm256_add_epi32(sumi[c], _mm256_madd_epi16(p, scv));
      }
    }
  }
}

// Q2_K, Q3_K, Q6_K x NC activation rows.
template <class KQ, int NC>
void k_groups_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  using Block = typename KQ::Block;
  constexpr bool kMins = std::is_same_v<Block, block_q2_K>;
  const Block* x = static_cast<const Block*>(w);
  __m256 acc[NC];
  float sm[NC];
  for (int c = 0; c < NC; ++c) {
    acc[c] = _mm256_setzero_ps();
    sm[c] = 0.0f;
  }
  for (int64_t i = 0; i < k / QK_K; ++i) {
    const act_q8k* y[NC];
    for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8k*>(a[c]) + i;
    __m256i sumi[NC];
    k_group_sums<KQ, NC>(x[i], y, sumi);
    const float dx = h2f(x[i].d);
    for (int c = 0; c < NC; ++c)
      acc[c] = _mm256_fmadd_ps(_mm256_set1_ps(y[c]->d * dx), _mm256_cvtepi32_ps(sumi[c]), acc[c]);
    if constexpr (kMins) {
      const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[i].scales));
      const __m256i mins =
          _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc8, 4), _mm_set1_epi8(15)));
      const float dmin = h2f(x[i].dmin);
      for (int c = 0; c < NC; ++c) {
        const int summ = hsum_i32(_mm256_madd_epi16(mins, load256(y[c]->bsums)));
        sm[c] += y[c]->d * dmin * static_cast<float>(summ);
      }
    }
  }
  for (int c = 0; c < NC; ++c) out[c] = hsum(acc[c]) - sm[c];
}

// Q6_K, eight rows x one activation row (decode): dot8_blocks' scheme for super-blocks, written
// out (through a dot8_blocks generalized to Q8_K blocks, its per-block functor gathering the
// row pointers first and summing in a second pass, the hot GEMV ran 4 % more cycles).
void dot8_q6_K_avx2(int64_t k, const void* w, size_t wrow, const void* a, float* out) {
  const char* x = static_cast<const char*>(w);
  const act_q8k* y = static_cast<const act_q8k*>(a);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / QK_K; ++i) {
    prefetch_next_rows<block_q6_K>(x, wrow, i);
    const act_q8k* yi = y + i;
    __m256i sumi[8];
    alignas(16) uint16_t d[8];
    for (int r = 0; r < 8; ++r) {
      const block_q6_K& b = reinterpret_cast<const block_q6_K*>(x + r * wrow)[i];
      k_group_sums<KQ6, 1>(b, &yi, sumi + r);
      d[r] = b.d;
    }
    acc = _mm256_fmadd_ps(row_scales8(d, yi->d), _mm256_cvtepi32_ps(reduce8(sumi)), acc);
  }
  _mm256_storeu_ps(out, acc);
}
float dot_q6_K_avx2(int64_t k, const void* w, const void* a) {
  float r;
  k_groups_avx2<KQ6, 1>(k, w, &a, &r);
  return r;
}
// Non-linear grids: the nibbles index the grid with one byte shuffle.
inline __m256i grid_lookup(__m256i grid, const uint8_t* qs) {
  return _mm256_shuffle_epi8(grid, unpack_nibbles(qs));
}
inline __m256i load_grid(const int8_t* g) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(g)));
}
template <bool MX>
float dot_grid32_avx2(int64_t k, const void* w, const void* a) {
  using Block = std::conditional_t<MX, block_mxfp4, block_iq4_nl>;
  const Block* x = static_cast<const Block*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  const __m256i grid = load_grid(MX ? kvalues_mxfp4 : kvalues_iq4nl);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / 32; ++i) {
    const __m256i p = dot_s8s8(grid_lookup(grid, x[i].qs), load256(y[i].qs));
    float d;
    if constexpr (MX)
      d = e8m0_half(x[i].e);
    else
      d = h2f(x[i].d);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(d * y[i].d), _mm256_cvtepi32_ps(p), acc);
  }
  return hsum(acc);
}
float dot_iq4_xs_avx2(int64_t k, const void* w, const void* a) {
  const block_iq4_xs* x = static_cast<const block_iq4_xs*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  const __m256i grid = load_grid(kvalues_iq4nl);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < k / QK_K; ++i) {
    const float d = h2f(x[i].d);
    for (int ib = 0; ib < 8; ++ib) {
      const act_q8& yb = y[8 * i + ib];
      const __m256i p = dot_s8s8(grid_lookup(grid, x[i].qs + 16 * ib), load256(yb.qs));
      const float sc = d * static_cast<float>(iq4_xs_scale(x[i], ib)) * yb.d;
      acc = _mm256_fmadd_ps(_mm256_set1_ps(sc), _mm256_cvtepi32_ps(p), acc);
    }
  }
  return hsum(acc);
}

// One 32-element unit of a weight row, as the 4-column kernels read it: its quants q (signed
// bytes, or unsigned when the type has a min), its scale d and min m (0 without one).
struct Unit {
  __m256i q;
  float d, m;
};
// The 32-element formats (and IQ4_XS's 32-element sub-blocks) x 4 activation rows: unit(u)
// unpacks unit u once for the 4 columns; Signed takes the sign trick's |q| once too. With a
// min (Q4_1, Q5_1), q is unsigned and m * s (s = d_y * sum y) adds the min's share. Even and
// odd units accumulate apart: 8 independent FMA chains, as dot4_q8_0_avx2.
template <bool Signed, class UnitFn>
void dot4_units_avx2(int64_t k, const void* const* a, float* out, UnitFn unit) {
  __m256 acc[2][4];
  for (int c = 0; c < 4; ++c) acc[0][c] = acc[1][c] = _mm256_setzero_ps();
  float sm[4] = {0, 0, 0, 0};
  const auto step = [&](int64_t u, __m256* ac) {
    const Unit x = unit(u);
    const __m256i uq = Signed ? _mm256_sign_epi8(x.q, x.q) : x.q;
    for (int c = 0; c < 4; ++c) {
      const act_q8* y = static_cast<const act_q8*>(a[c]) + u;
      const __m256i yq = load256(y->qs);
      const __m256i p = dot_u8s8(uq, Signed ? _mm256_sign_epi8(yq, x.q) : yq);
      ac[c] = _mm256_fmadd_ps(_mm256_set1_ps(x.d * y->d), _mm256_cvtepi32_ps(p), ac[c]);
      if constexpr (!Signed) sm[c] += x.m * y->s;
    }
  };
  const int64_t nu = k / 32;
  int64_t u = 0;
  for (; u + 2 <= nu; u += 2) {  // fixed accumulators per step: they stay in registers
    step(u, acc[0]);
    step(u + 1, acc[1]);
  }
  if (u < nu) step(u, acc[0]);
  for (int c = 0; c < 4; ++c) out[c] = hsum(_mm256_add_ps(acc[0][c], acc[1][c])) + sm[c];
}
void dot4_q4_1_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const block_q4_1* x = static_cast<const block_q4_1*>(w);
  dot4_units_avx2<false>(k, a, out, [x](int64_t u) {
    return Unit{unpack_nibbles(x[u].qs), h2f(x[u].d), h2f(x[u].m)};
  });
}
void dot4_q5_0_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const block_q5_0* x = static_cast<const block_q5_0*>(w);
  const __m256i f0 = _mm256_set1_epi8(static_cast<char>(0xF0));
  dot4_units_avx2<true>(k, a, out, [x, f0](int64_t u) {  // as dot_q5_0_avx2
    const __m256i q =
        _mm256_or_si256(unpack_nibbles(x[u].qs), _mm256_andnot_si256(bits_to_bytes(x[u].qh), f0));
    return Unit{q, h2f(x[u].d), 0.0f};
  });
}
void dot4_q5_1_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const block_q5_1* x = static_cast<const block_q5_1*>(w);
  dot4_units_avx2<false>(k, a, out, [x](int64_t u) {
    return Unit{unpack_q5(x[u].qs, x[u].qh), h2f(x[u].d), h2f(x[u].m)};
  });
}
template <bool MX>
void dot4_grid32_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  using Block = std::conditional_t<MX, block_mxfp4, block_iq4_nl>;
  const Block* x = static_cast<const Block*>(w);
  const __m256i grid = load_grid(MX ? kvalues_mxfp4 : kvalues_iq4nl);
  dot4_units_avx2<true>(k, a, out, [x, grid](int64_t u) {
    float d;
    if constexpr (MX)
      d = e8m0_half(x[u].e);
    else
      d = h2f(x[u].d);
    return Unit{grid_lookup(grid, x[u].qs), d, 0.0f};
  });
}
// IQ4_XS: unit u is sub-block u % 8 of super-block u / 8, its scale d * the 6-bit sub-scale.
void dot4_iq4_xs_avx2(int64_t k, const void* w, const void* const* a, float* out) {
  const block_iq4_xs* x = static_cast<const block_iq4_xs*>(w);
  const __m256i grid = load_grid(kvalues_iq4nl);
  dot4_units_avx2<true>(k, a, out, [x, grid](int64_t u) {
    const block_iq4_xs& b = x[u / 8];
    const int ib = static_cast<int>(u % 8);
    return Unit{grid_lookup(grid, b.qs + 16 * ib),
                h2f(b.d) * static_cast<float>(iq4_xs_scale(b, ib)), 0.0f};
  });
}
#endif  // AVX2

// ---- NEON dotprod bodies -------------------------------------------------------------------
#if defined(__ARM_NEON) && defined(__ARM_FEATURE_DOTPROD)
#define ZEN_MM_NEON 1
float dot_q8_0_neon(int64_t k, const void* w, const void* a) {
  const block_q8_0* x = static_cast<const block_q8_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float32x4_t acc = vdupq_n_f32(0.0f);
  for (int64_t i = 0; i < k / 32; ++i) {
    int32x4_t p = vdotq_s32(vdupq_n_s32(0), vld1q_s8(x[i].qs), vld1q_s8(y[i].qs));
    p = vdotq_s32(p, vld1q_s8(x[i].qs + 16), vld1q_s8(y[i].qs + 16));
    acc = vmlaq_n_f32(acc, vcvtq_f32_s32(p), h2f(x[i].d) * y[i].d);
  }
  return vaddvq_f32(acc);
}
float dot_q4_0_neon(int64_t k, const void* w, const void* a) {
  const block_q4_0* x = static_cast<const block_q4_0*>(w);
  const act_q8* y = static_cast<const act_q8*>(a);
  float32x4_t acc = vdupq_n_f32(0.0f);
  const int8x16_t off = vdupq_n_s8(8);
  for (int64_t i = 0; i < k / 32; ++i) {
    const uint8x16_t b = vld1q_u8(x[i].qs);
    const int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(b, vdupq_n_u8(0x0F))), off);
    const int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(b, 4)), off);
    int32x4_t p = vdotq_s32(vdupq_n_s32(0), lo, vld1q_s8(y[i].qs));
    p = vdotq_s32(p, hi, vld1q_s8(y[i].qs + 16));
    acc = vmlaq_n_f32(acc, vcvtq_f32_s32(p), h2f(x[i].d) * y[i].d);
  }
  return vaddvq_f32(acc);
}
#endif

#if defined(ZEN_MM_AVX2)
constexpr WeightType kF32{1, 4, Act::F32, dot_f32_avx2, dot4_f32_avx2};
constexpr WeightType kF16{1, 2, Act::F32, dot_half_avx2<false>, dot4_half_avx2<false>};
constexpr WeightType kBF16{1, 2, Act::F32, dot_half_avx2<true>, dot4_half_avx2<true>};
constexpr WeightType kQ4_0{
    32, sizeof(block_q4_0), Act::Q8, dot_q4_0_avx2, dot4_q4_0_avx2, dot8_q4_0_avx2};
constexpr WeightType kQ4_1{32, sizeof(block_q4_1), Act::Q8, dot_q4_1_avx2, dot4_q4_1_avx2};
constexpr WeightType kQ8_0{
    32, sizeof(block_q8_0), Act::Q8, dot_q8_0_avx2, dot4_q8_0_avx2, dot8_q8_0_avx2};
constexpr WeightType kQ4_K{256,           sizeof(block_q4_K),   Act::Q8K,
                           dot_q4_K_avx2, q45_K_avx2<4, false>, dot8_q45_K_avx2<false>};
constexpr WeightType kQ5_K{256,           sizeof(block_q5_K),  Act::Q8K,
                           dot_q5_K_avx2, q45_K_avx2<4, true>, dot8_q45_K_avx2<true>};
constexpr WeightType kQ5_0{32, sizeof(block_q5_0), Act::Q8, dot_q5_0_avx2, dot4_q5_0_avx2};
constexpr WeightType kQ5_1{32, sizeof(block_q5_1), Act::Q8, dot_q5_1_avx2, dot4_q5_1_avx2};
constexpr WeightType kQ6_K{256,           sizeof(block_q6_K),    Act::Q8K,
                           dot_q6_K_avx2, k_groups_avx2<KQ6, 4>, dot8_q6_K_avx2};
constexpr WeightType kQ2_K{256, sizeof(block_q2_K), Act::Q8K, dot_q2_K_avx2, k_groups_avx2<KQ2, 4>};
constexpr WeightType kIQ4_NL{32, sizeof(block_iq4_nl), Act::Q8, dot_grid32_avx2<false>,
                             dot4_grid32_avx2<false>};
constexpr WeightType kMXFP4{32, sizeof(block_mxfp4), Act::Q8, dot_grid32_avx2<true>,
                            dot4_grid32_avx2<true>};
constexpr WeightType kIQ4_XS{256, sizeof(block_iq4_xs), Act::Q8, dot_iq4_xs_avx2, dot4_iq4_xs_avx2};
constexpr WeightType kQ3_K{256, sizeof(block_q3_K), Act::Q8K, dot_q3_K_avx2, k_groups_avx2<KQ3, 4>};
#else
constexpr WeightType kF32{1, 4, Act::F32, dot_f32_scalar, nullptr};
constexpr WeightType kF16{1, 2, Act::F32, dot_f16_scalar, nullptr};
constexpr WeightType kBF16{1, 2, Act::F32, dot_bf16_scalar, nullptr};
#if defined(ZEN_MM_NEON)
constexpr WeightType kQ4_0{32, sizeof(block_q4_0), Act::Q8, dot_q4_0_neon, nullptr};
constexpr WeightType kQ8_0{32, sizeof(block_q8_0), Act::Q8, dot_q8_0_neon, nullptr};
#else
constexpr WeightType kQ4_0{32, sizeof(block_q4_0), Act::Q8, dot_q4_0_scalar, nullptr};
constexpr WeightType kQ8_0{32, sizeof(block_q8_0), Act::Q8, dot_q8_0_scalar, nullptr};
#endif
constexpr WeightType kQ4_1{32, sizeof(block_q4_1), Act::Q8, dot_q4_1_scalar, nullptr};
constexpr WeightType kQ4_K{256, sizeof(block_q4_K), Act::Q8K, dot_q4_K_scalar, nullptr};
constexpr WeightType kQ6_K{256, sizeof(block_q6_K), Act::Q8K, dot_q6_K_scalar, nullptr};
constexpr WeightType kQ5_0{32, sizeof(block_q5_0), Act::Q8, dot_q5_0_scalar, nullptr};
constexpr WeightType kQ5_1{32, sizeof(block_q5_1), Act::Q8, dot_q5_1_scalar, nullptr};
constexpr WeightType kQ5_K{256, sizeof(block_q5_K), Act::Q8K, dot_q5_K_scalar, nullptr};
constexpr WeightType kQ2_K{256, sizeof(block_q2_K), Act::Q8K, dot_q2_K_scalar, nullptr};
constexpr WeightType kIQ4_NL{32, sizeof(block_iq4_nl), Act::Q8, dot_iq4_nl_scalar, nullptr};
constexpr WeightType kMXFP4{32, sizeof(block_mxfp4), Act::Q8, dot_mxfp4_scalar, nullptr};
constexpr WeightType kIQ4_XS{256, sizeof(block_iq4_xs), Act::Q8, dot_iq4_xs_scalar, nullptr};
constexpr WeightType kQ3_K{256, sizeof(block_q3_K), Act::Q8K, dot_q3_K_scalar, nullptr};
#endif

}  // namespace

const WeightType* weight_type(uint32_t type) {
  switch (type) {
    case ZEN_TYPE_F32:
      return &kF32;
    case ZEN_TYPE_F16:
      return &kF16;
    case ZEN_TYPE_BF16:
      return &kBF16;
    case ZEN_TYPE_Q4_0:
      return &kQ4_0;
    case ZEN_TYPE_Q4_1:
      return &kQ4_1;
    case ZEN_TYPE_Q5_0:
      return &kQ5_0;
    case ZEN_TYPE_Q5_1:
      return &kQ5_1;
    case ZEN_TYPE_Q8_0:
      return &kQ8_0;
    case ZEN_TYPE_Q2_K:
      return &kQ2_K;
    case ZEN_TYPE_Q3_K:
      return &kQ3_K;
    case ZEN_TYPE_Q4_K:
      return &kQ4_K;
    case ZEN_TYPE_Q5_K:
      return &kQ5_K;
    case ZEN_TYPE_Q6_K:
      return &kQ6_K;
    case ZEN_TYPE_IQ4_NL:
      return &kIQ4_NL;
    case ZEN_TYPE_IQ4_XS:
      return &kIQ4_XS;
    case ZEN_TYPE_MXFP4:
      return &kMXFP4;
    default:
      return nullptr;
  }
}

namespace {

// Rounds n (a multiple of 32) floats at x (stride xs bytes) to int8 with step amax / 127
// (q = nearest(x * 127 / amax), ties to even, as nearbyint in the default rounding mode) and
// returns the step. The AVX2 body gives the same bytes as the scalar one.
float quantize_block(const char* x, int64_t xs, int n, int8_t* q) {
#if defined(ZEN_MM_AVX2)
  if (xs == sizeof(float)) {
    const float* f = reinterpret_cast<const float*>(x);
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 vmax = _mm256_setzero_ps();
    for (int j = 0; j < n; j += 8)
      vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_loadu_ps(f + j), abs_mask));
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    const float amax = _mm_cvtss_f32(m);
    const __m256 id = _mm256_set1_ps(amax > 0.0f ? 127.0f / amax : 0.0f);
    const __m256i hi = _mm256_set1_epi32(127), lo = _mm256_set1_epi32(-127);
    // packs interleaves 128-bit lanes; this puts the 4-byte groups back in order
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int j = 0; j < n; j += 32) {
      __m256i v[4];
      for (int t = 0; t < 4; ++t) {
        const __m256i r = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(f + j + 8 * t), id));
        v[t] = _mm256_max_epi32(_mm256_min_epi32(r, hi), lo);
      }
      const __m256i b =
          _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + j), _mm256_permutevar8x32_epi32(b, order));
    }
    return amax / 127.0f;
  }
#endif
  auto ld = [&](int64_t i) {
    float v;
    std::memcpy(&v, x + i * xs, sizeof v);
    return v;
  };
  float amax = 0.0f;
  for (int j = 0; j < n; ++j) amax = std::fmax(amax, std::fabs(ld(j)));
  const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
  for (int j = 0; j < n; ++j) {
    const int v = static_cast<int>(std::nearbyint(ld(j) * id));
    q[j] = static_cast<int8_t>(v < -127 ? -127 : v > 127 ? 127 : v);
  }
  return amax / 127.0f;
}

int sum16(const int8_t* q) {
  int s = 0;
  for (int j = 0; j < 16; ++j) s += q[j];
  return s;
}

}  // namespace

void quantize_act(Act act, const char* x, int64_t xs, int64_t k, void* out) {
  switch (act) {
    case Act::F32: {
      float* o = static_cast<float*>(out);
      if (xs == sizeof(float)) {
        std::memcpy(o, x, static_cast<size_t>(k) * sizeof(float));
      } else {
        for (int64_t i = 0; i < k; ++i) std::memcpy(o + i, x + i * xs, sizeof(float));
      }
      return;
    }
    case Act::Q8: {  // d = amax / 127, q = round(x / d): |x - d q| <= d / 2
      act_q8* o = static_cast<act_q8*>(out);
      for (int64_t b = 0; b < k / 32; ++b) {
        o[b].d = quantize_block(x + 32 * b * xs, xs, 32, o[b].qs);
        o[b].s = o[b].d * static_cast<float>(sum16(o[b].qs) + sum16(o[b].qs + 16));
      }
      return;
    }
    case Act::Q8K: {
      act_q8k* o = static_cast<act_q8k*>(out);
      for (int64_t b = 0; b < k / QK_K; ++b) {
        o[b].d = quantize_block(x + QK_K * b * xs, xs, QK_K, o[b].qs);
        for (int g = 0; g < QK_K / 16; ++g)
          o[b].bsums[g] = static_cast<int16_t>(sum16(o[b].qs + 16 * g));
      }
      return;
    }
  }
}

}  // namespace ZEN_CPU_NS::mm
