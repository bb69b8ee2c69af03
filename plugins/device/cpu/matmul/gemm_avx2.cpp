// AVX2 kernels of the packed GEMM (gemm.h), their AVX-512 VNNI bodies, and the table of the
// types that have one. Each call computes 8 rows x NC columns (NC <= 4; 8 with VNNI) over the
// whole of k: per 4-element group, one
// weight vector (8 rows x 4 quants) is loaded once and meets each column's broadcast group in
// one maddubs. Unsigned quants below 16 (32, 64) allow 8 (4, 2) groups to add up in int16
// before madd widens them: 2 * 15 * 127 * 8 = 30480 <= 32767, likewise 2 * 31 * 127 * 4 and
// 2 * 63 * 127 * 2. Q8_0's signed quants go through the sign trick and widen every group.
// Registers: NC float accumulators, NC int16 and NC int32 partial sums, the weight vector and
// a constant: at most 14 of the 16.
#include "gemm.h"

#include <cstring>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "gemm_pack.h"
#include "quant/blocks.h"
#include "vec_dot.h"
#endif

#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define ZEN_GEMM_VNNI 1
#else
#define ZEN_GEMM_VNNI 0
#endif

namespace ZEN_CPU_NS::mm {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
// 4 bytes at p in every 32-bit lane.
inline __m256i broadcast4(const void* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// Panels the device keeps (packed_weights.h) stream from memory through the kernel, which
// spends hundreds of instructions on each block: the hardware prefetchers fall behind, so the
// kernels fetch the block two ahead (in the next panel at a panel's end: kept panels are
// contiguous; in scratch it is in cache already).
template <class P>
inline void prefetch_ahead(const P* p) {
  const char* c = reinterpret_cast<const char*>(p + 2);
  for (size_t l = 0; l < sizeof(P); l += 64) _mm_prefetch(c + l, _MM_HINT_T0);
}

// 8 unsigned bytes (one per panel row) as int32 lanes, and as the same value in both int16
// halves of each lane (what madd pairs with two int16 partial sums of one row).
inline __m256i scale_lanes(const uint8_t* p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
inline __m256i scale_pairs(const uint8_t* p) {
  const __m256i s = scale_lanes(p);
  return _mm256_or_si256(s, _mm256_slli_epi32(s, 16));
}

// 8 int8 (Q6_K's scales, one per panel row) as int32 lanes; two such as the int16 pair
// (lo, hi) in each lane.
inline __m256i signed_lanes(const int8_t* p) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
inline __m256i int16_pairs(__m256i lo, __m256i hi) {
  return _mm256_or_si256(_mm256_and_si256(lo, _mm256_set1_epi32(0xffff)),
                         _mm256_slli_epi32(hi, 16));
}

// PanelQ6K's groups 4 u .. 4 u + 3 (16-group u) as PanelK holds them: 6-bit quants from the
// nibbles of ql[2 u], ql[2 u + 1] and the bit pairs of qh[u]. 16-bit shifts: the bits that
// cross into a neighbouring byte are masked off.
inline void q6_groups(const PanelQ6K& p, int u, __m256i* g) {
  const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x30);
  const __m256i l0 = load256(p.ql[2 * u]), l1 = load256(p.ql[2 * u + 1]), h = load256(p.qh[u]);
  g[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(h, 4), m2));
  g[1] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                         _mm256_and_si256(_mm256_slli_epi16(h, 2), m2));
  g[2] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(h, m2));
  g[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                         _mm256_and_si256(_mm256_srli_epi16(h, 2), m2));
}

#if ZEN_GEMM_VNNI
// AVX-512 VNNI bodies of the same kernels: vpdpbusd multiplies the unsigned weight bytes by
// the signed activation bytes and adds each 4-byte group into an int32 lane in one
// instruction, with the activation group broadcast straight from memory; AVX2 spends a
// broadcast, a maddubs and an int16 add there, plus a madd per few groups. The integer sums
// are the same exact integers, and the float steps are the AVX2 kernels' in the same order,
// so both variants give identical results.
template <int NC, int G, bool SIGNED>
void kernel32(int64_t k, const void* panel, const void* const* a, float* out) {
  const Panel32* p = static_cast<const Panel32*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    prefetch_ahead(p);
    __m256i s32[NC];
    for (int c = 0; c < NC; ++c) s32[c] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int g = 0; g < 8; ++g) {
      const __m256i w = load256(p->q[g]);
      if constexpr (SIGNED) {  // Q8_0: |w| times the activations with w's sign
        const __m256i aw = _mm256_sign_epi8(w, w);
        for (int c = 0; c < NC; ++c)
          s32[c] =
              _mm256_dpbusd_epi32(s32[c], aw, _mm256_sign_epi8(broadcast4(y[c][b].qs + 4 * g), w));
      } else {
        for (int c = 0; c < NC; ++c)
          s32[c] = _mm256_dpbusd_epi32(s32[c], w, broadcast4(y[c][b].qs + 4 * g));
      }
    }
    const __m256 d = _mm256_loadu_ps(p->d);
    for (int c = 0; c < NC; ++c) {
      const __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(s32[c]), _mm256_set1_ps(y[c][b].d));
      acc[c] = _mm256_fmadd_ps(d, t, acc[c]);
      if constexpr (!SIGNED)
        acc[c] = _mm256_fmadd_ps(_mm256_loadu_ps(p->o), _mm256_set1_ps(y[c][b].s), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// Per scale run (32 elements for Q4_K/Q5_K, whose 16-groups 2j and 2j + 1 share scale j;
// 16 for Q6_K, G = 2): its groups into a fresh int32 sum per column, then times the run's
// scale (the panel keeps it twice per lane as int16 for AVX2's madd; the arithmetic shift
// takes the upper copy, sign-extended). One multiply per 32 elements, not per 16, and the
// bsum products through vpdpwssd: the same exact integers as before, with 12 % fewer
// instructions per column and super-block.
template <int NC, int G>
void kernelK(int64_t k, const void* panel, const void* const* a, float* out) {
  constexpr int kRun = G == 4 ? 2 : 1;  // 16-groups per scale
  const PanelK* p = static_cast<const PanelK*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC];
    for (int c = 0; c < NC; ++c) si[c] = _mm256_setzero_si256();
    for (int h = 0; h < 16; h += kRun) {
      const __m256i sc = _mm256_srai_epi32(load256(p->sc[h]), 16);
      __m256i t[NC];
      for (int c = 0; c < NC; ++c) t[c] = _mm256_setzero_si256();
#pragma GCC unroll 8
      for (int j = 0; j < 4 * kRun; ++j) {
        const int g = 4 * h + j;
        const __m256i w = load256(p->q[g]);
        for (int c = 0; c < NC; ++c)
          t[c] = _mm256_dpbusd_epi32(t[c], w, broadcast4(y[c][b].qs + 4 * g));
      }
      for (int c = 0; c < NC; ++c) si[c] = _mm256_add_epi32(si[c], _mm256_mullo_epi32(t[c], sc));
    }
    const __m256 d = _mm256_loadu_ps(p->d), db = _mm256_loadu_ps(p->db);
    for (int c = 0; c < NC; ++c) {
      __m256i sm = _mm256_setzero_si256();
      for (int i = 0; i < 8; ++i)
        sm = _mm256_dpwssd_epi32(sm, load256(p->bc[i]), broadcast4(y[c][b].bsums + 2 * i));
      const __m256 t =
          _mm256_fmadd_ps(db, _mm256_cvtepi32_ps(sm), _mm256_mul_ps(d, _mm256_cvtepi32_ps(si[c])));
      acc[c] = _mm256_fmadd_ps(t, _mm256_set1_ps(y[c][b].d), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}
// Q4_K from PanelQ4K: kernelK<NC, 4>'s sums and float steps, the groups unpacked from the
// nibble pairs and the scales and mins widened from bytes in registers.
template <int NC>
void kernelQ4K(int64_t k, const void* panel, const void* const* a, float* out) {
  const PanelQ4K* p = static_cast<const PanelQ4K*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC];
    for (int c = 0; c < NC; ++c) si[c] = _mm256_setzero_si256();
    for (int j = 0; j < 8; ++j) {  // 32 elements (groups 8 j .. 8 j + 7) per scale
      const __m256i sc = scale_lanes(p->sm[j]);
      __m256i t[NC];
      for (int c = 0; c < NC; ++c) t[c] = _mm256_setzero_si256();
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        const int g = 8 * j + 2 * v;
        const __m256i q = load256(p->q[4 * j + v]);
        const __m256i lo = _mm256_and_si256(q, m4),
                      hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
        for (int c = 0; c < NC; ++c) {
          t[c] = _mm256_dpbusd_epi32(t[c], lo, broadcast4(y[c][b].qs + 4 * g));
          t[c] = _mm256_dpbusd_epi32(t[c], hi, broadcast4(y[c][b].qs + 4 * g + 4));
        }
      }
      for (int c = 0; c < NC; ++c) si[c] = _mm256_add_epi32(si[c], _mm256_mullo_epi32(t[c], sc));
    }
    __m256i bc[8];
    for (int i = 0; i < 8; ++i) bc[i] = scale_pairs(p->sm[8 + i]);
    const __m256 d = _mm256_loadu_ps(p->d), db = _mm256_loadu_ps(p->db);
    for (int c = 0; c < NC; ++c) {
      __m256i sm = _mm256_setzero_si256();
      for (int i = 0; i < 8; ++i)
        sm = _mm256_dpwssd_epi32(sm, bc[i], broadcast4(y[c][b].bsums + 2 * i));
      const __m256 t =
          _mm256_fmadd_ps(db, _mm256_cvtepi32_ps(sm), _mm256_mul_ps(d, _mm256_cvtepi32_ps(si[c])));
      acc[c] = _mm256_fmadd_ps(t, _mm256_set1_ps(y[c][b].d), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}
// Q4_0 from PanelQ40: kernel32<NC, 8, false>'s sums and float steps, o = -8 d.
template <int NC>
void kernelQ40(int64_t k, const void* panel, const void* const* a, float* out) {
  const PanelQ40* p = static_cast<const PanelQ40*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    prefetch_ahead(p);
    __m256i s32[NC];
    for (int c = 0; c < NC; ++c) s32[c] = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      const __m256i q = load256(p->q[v]);
      const __m256i lo = _mm256_and_si256(q, m4),
                    hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
      for (int c = 0; c < NC; ++c) {
        s32[c] = _mm256_dpbusd_epi32(s32[c], lo, broadcast4(y[c][b].qs + 8 * v));
        s32[c] = _mm256_dpbusd_epi32(s32[c], hi, broadcast4(y[c][b].qs + 8 * v + 4));
      }
    }
    const __m256 d = _mm256_loadu_ps(p->d), o = _mm256_mul_ps(d, _mm256_set1_ps(-8.0f));
    for (int c = 0; c < NC; ++c) {
      const __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(s32[c]), _mm256_set1_ps(y[c][b].d));
      acc[c] = _mm256_fmadd_ps(d, t, acc[c]);
      acc[c] = _mm256_fmadd_ps(o, _mm256_set1_ps(y[c][b].s), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// Q6_K from PanelQ6K: kernelK<NC, 2>'s sums and float steps.
template <int NC>
void kernelQ6K(int64_t k, const void* panel, const void* const* a, float* out) {
  const PanelQ6K* p = static_cast<const PanelQ6K*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC];
    for (int c = 0; c < NC; ++c) si[c] = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      const __m256i sc = signed_lanes(p->sc[h]);
      __m256i g[4], t[NC];
      q6_groups(*p, h, g);
      for (int c = 0; c < NC; ++c) {
        t[c] = _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j)
          t[c] = _mm256_dpbusd_epi32(t[c], g[j], broadcast4(y[c][b].qs + 16 * h + 4 * j));
        si[c] = _mm256_add_epi32(si[c], _mm256_mullo_epi32(t[c], sc));
      }
    }
    __m256i bc[8];
    for (int i = 0; i < 8; ++i)
      bc[i] = int16_pairs(signed_lanes(p->sc[2 * i]), signed_lanes(p->sc[2 * i + 1]));
    const __m256 d = _mm256_loadu_ps(p->d), db = _mm256_mul_ps(d, _mm256_set1_ps(-32.0f));
    for (int c = 0; c < NC; ++c) {
      __m256i sm = _mm256_setzero_si256();
      for (int i = 0; i < 8; ++i)
        sm = _mm256_dpwssd_epi32(sm, bc[i], broadcast4(y[c][b].bsums + 2 * i));
      const __m256 t =
          _mm256_fmadd_ps(db, _mm256_cvtepi32_ps(sm), _mm256_mul_ps(d, _mm256_cvtepi32_ps(si[c])));
      acc[c] = _mm256_fmadd_ps(t, _mm256_set1_ps(y[c][b].d), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}
#else
// s16[c] = sum over groups g0 .. g0 + n - 1 of maddubs(weight group g of the panel, column c's
// group g broadcast): int16 lanes; n is small enough not to saturate (see above).
template <int NC>
inline void group_sums(const uint8_t (*q)[kPanelRows][4], const int8_t* const* yq, int g0, int n,
                       __m256i* s16) {
  for (int c = 0; c < NC; ++c) s16[c] = _mm256_setzero_si256();
  for (int g = g0; g < g0 + n; ++g) {
    const __m256i w = load256(q[g]);
    for (int c = 0; c < NC; ++c)
      s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(w, broadcast4(yq[c] + 4 * g)));
  }
}

// 32-element formats. G: groups summed in int16 before widening (8 for quants < 16, 4 for
// < 32); SIGNED: Q8_0 (int8 quants, no offset; G unused).
template <int NC, int G, bool SIGNED>
void kernel32(int64_t k, const void* panel, const void* const* a, float* out) {
  const Panel32* p = static_cast<const Panel32*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    prefetch_ahead(p);
    __m256i s32[NC];
    for (int c = 0; c < NC; ++c) s32[c] = _mm256_setzero_si256();
    if constexpr (SIGNED) {
      for (int g = 0; g < 8; ++g) {
        const __m256i w = load256(p->q[g]), aw = _mm256_sign_epi8(w, w);
        for (int c = 0; c < NC; ++c) {
          const __m256i yv = _mm256_sign_epi8(broadcast4(y[c][b].qs + 4 * g), w);
          s32[c] = _mm256_add_epi32(s32[c], _mm256_madd_epi16(_mm256_maddubs_epi16(aw, yv), ones));
        }
      }
    } else {
      const int8_t* yq[NC];
      for (int c = 0; c < NC; ++c) yq[c] = y[c][b].qs;
      for (int g0 = 0; g0 < 8; g0 += G) {
        __m256i s16[NC];
        group_sums<NC>(p->q, yq, g0, G, s16);
        for (int c = 0; c < NC; ++c)
          s32[c] = _mm256_add_epi32(s32[c], _mm256_madd_epi16(s16[c], ones));
      }
    }
    const __m256 d = _mm256_loadu_ps(p->d);
    for (int c = 0; c < NC; ++c) {
      const __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(s32[c]), _mm256_set1_ps(y[c][b].d));
      acc[c] = _mm256_fmadd_ps(d, t, acc[c]);
      if constexpr (!SIGNED)
        acc[c] = _mm256_fmadd_ps(_mm256_loadu_ps(p->o), _mm256_set1_ps(y[c][b].s), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// K-quants. G: groups summed in int16 before madd by the 16-group's scales (4 for quants
// < 32, 2 for Q6_K's < 64). The int32 sums over a super-block stay below 2^31:
// 63 * 127 * 128 * 256 < 2^28.
template <int NC, int G>
void kernelK(int64_t k, const void* panel, const void* const* a, float* out) {
  const PanelK* p = static_cast<const PanelK*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC], sm[NC];
    for (int c = 0; c < NC; ++c) si[c] = sm[c] = _mm256_setzero_si256();
    const int8_t* yq[NC];
    for (int c = 0; c < NC; ++c) yq[c] = y[c][b].qs;
    for (int h = 0; h < 16; ++h) {
      const __m256i sc = load256(p->sc[h]);
      for (int g0 = 4 * h; g0 < 4 * h + 4; g0 += G) {
        __m256i s16[NC];
        group_sums<NC>(p->q, yq, g0, G, s16);
        for (int c = 0; c < NC; ++c) si[c] = _mm256_add_epi32(si[c], _mm256_madd_epi16(s16[c], sc));
      }
    }
    for (int i = 0; i < 8; ++i) {
      const __m256i bc = load256(p->bc[i]);
      for (int c = 0; c < NC; ++c)
        sm[c] = _mm256_add_epi32(sm[c], _mm256_madd_epi16(bc, broadcast4(y[c][b].bsums + 2 * i)));
    }
    const __m256 d = _mm256_loadu_ps(p->d), db = _mm256_loadu_ps(p->db);
    for (int c = 0; c < NC; ++c) {
      const __m256 t = _mm256_fmadd_ps(db, _mm256_cvtepi32_ps(sm[c]),
                                       _mm256_mul_ps(d, _mm256_cvtepi32_ps(si[c])));
      acc[c] = _mm256_fmadd_ps(t, _mm256_set1_ps(y[c][b].d), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// Q4_K from PanelQ4K: kernelK<NC, 4>'s sums and float steps, the groups unpacked from the
// nibble pairs (4 groups, one 16-group, per int16 sum) and the scales widened from bytes.
template <int NC>
void kernelQ4K(int64_t k, const void* panel, const void* const* a, float* out) {
  const PanelQ4K* p = static_cast<const PanelQ4K*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC], sm[NC];
    for (int c = 0; c < NC; ++c) si[c] = sm[c] = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {  // 16-group h: groups 4 h .. 4 h + 3, vectors 2 h, 2 h + 1
      const __m256i sc = scale_pairs(p->sm[h / 2]);
      __m256i s16[NC];
      for (int c = 0; c < NC; ++c) s16[c] = _mm256_setzero_si256();
      for (int v = 2 * h; v < 2 * h + 2; ++v) {
        const __m256i q = load256(p->q[v]);
        const __m256i lo = _mm256_and_si256(q, m4),
                      hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
        for (int c = 0; c < NC; ++c) {
          const int8_t* yq = y[c][b].qs + 8 * v;
          s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(lo, broadcast4(yq)));
          s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(hi, broadcast4(yq + 4)));
        }
      }
      for (int c = 0; c < NC; ++c) si[c] = _mm256_add_epi32(si[c], _mm256_madd_epi16(s16[c], sc));
    }
    for (int i = 0; i < 8; ++i) {
      const __m256i bc = scale_pairs(p->sm[8 + i]);
      for (int c = 0; c < NC; ++c)
        sm[c] = _mm256_add_epi32(sm[c], _mm256_madd_epi16(bc, broadcast4(y[c][b].bsums + 2 * i)));
    }
    const __m256 d = _mm256_loadu_ps(p->d), db = _mm256_loadu_ps(p->db);
    for (int c = 0; c < NC; ++c) {
      const __m256 t = _mm256_fmadd_ps(db, _mm256_cvtepi32_ps(sm[c]),
                                       _mm256_mul_ps(d, _mm256_cvtepi32_ps(si[c])));
      acc[c] = _mm256_fmadd_ps(t, _mm256_set1_ps(y[c][b].d), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// Q4_0 from PanelQ40: kernel32<NC, 8, false>'s sums and float steps, o = -8 d.
template <int NC>
void kernelQ40(int64_t k, const void* panel, const void* const* a, float* out) {
  const PanelQ40* p = static_cast<const PanelQ40*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  const __m256i m4 = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi16(1);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    prefetch_ahead(p);
    __m256i s16[NC];
    for (int c = 0; c < NC; ++c) s16[c] = _mm256_setzero_si256();
    for (int v = 0; v < 4; ++v) {
      const __m256i q = load256(p->q[v]);
      const __m256i lo = _mm256_and_si256(q, m4),
                    hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
      for (int c = 0; c < NC; ++c) {
        const int8_t* yq = y[c][b].qs + 8 * v;
        s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(lo, broadcast4(yq)));
        s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(hi, broadcast4(yq + 4)));
      }
    }
    const __m256 d = _mm256_loadu_ps(p->d), o = _mm256_mul_ps(d, _mm256_set1_ps(-8.0f));
    for (int c = 0; c < NC; ++c) {
      const __m256i s32 = _mm256_madd_epi16(s16[c], ones);
      const __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(s32), _mm256_set1_ps(y[c][b].d));
      acc[c] = _mm256_fmadd_ps(d, t, acc[c]);
      acc[c] = _mm256_fmadd_ps(o, _mm256_set1_ps(y[c][b].s), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// Q6_K from PanelQ6K: kernelK<NC, 2>'s sums and float steps (2 groups per int16 sum).
template <int NC>
void kernelQ6K(int64_t k, const void* panel, const void* const* a, float* out) {
  const PanelQ6K* p = static_cast<const PanelQ6K*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC], sm[NC];
    for (int c = 0; c < NC; ++c) si[c] = sm[c] = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      const __m256i s = signed_lanes(p->sc[h]), sc = int16_pairs(s, s);
      __m256i g[4];
      q6_groups(*p, h, g);
      for (int half = 0; half < 2; ++half)
        for (int c = 0; c < NC; ++c) {
          const int8_t* yq = y[c][b].qs + 16 * h + 8 * half;
          const __m256i s16 =
              _mm256_add_epi16(_mm256_maddubs_epi16(g[2 * half], broadcast4(yq)),
                               _mm256_maddubs_epi16(g[2 * half + 1], broadcast4(yq + 4)));
          si[c] = _mm256_add_epi32(si[c], _mm256_madd_epi16(s16, sc));
        }
    }
    for (int i = 0; i < 8; ++i) {
      const __m256i bc = int16_pairs(signed_lanes(p->sc[2 * i]), signed_lanes(p->sc[2 * i + 1]));
      for (int c = 0; c < NC; ++c)
        sm[c] = _mm256_add_epi32(sm[c], _mm256_madd_epi16(bc, broadcast4(y[c][b].bsums + 2 * i)));
    }
    const __m256 d = _mm256_loadu_ps(p->d), db = _mm256_mul_ps(d, _mm256_set1_ps(-32.0f));
    for (int c = 0; c < NC; ++c) {
      const __m256 t = _mm256_fmadd_ps(db, _mm256_cvtepi32_ps(sm[c]),
                                       _mm256_mul_ps(d, _mm256_cvtepi32_ps(si[c])));
      acc[c] = _mm256_fmadd_ps(t, _mm256_set1_ps(y[c][b].d), acc[c]);
    }
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

#endif  // ZEN_GEMM_VNNI

// n (1..8) columns through the kernel instantiated for exactly n.
template <template <int> class K>
void dispatch(int64_t k, const void* panel, const void* const* a, int n, float* out) {
  switch (n) {
    case 1:
      return K<1>::run(k, panel, a, out);
    case 2:
      return K<2>::run(k, panel, a, out);
    case 3:
      return K<3>::run(k, panel, a, out);
#if ZEN_GEMM_VNNI
    case 4:
      return K<4>::run(k, panel, a, out);
    case 5:
      return K<5>::run(k, panel, a, out);
    case 6:
      return K<6>::run(k, panel, a, out);
    case 7:
      return K<7>::run(k, panel, a, out);
    default:
      return K<8>::run(k, panel, a, out);
#else
    default:
      return K<4>::run(k, panel, a, out);
#endif
  }
}
template <int G, bool SIGNED>
struct K32 {
  template <int NC>
  struct At {
    static void run(int64_t k, const void* p, const void* const* a, float* o) {
      kernel32<NC, G, SIGNED>(k, p, a, o);
    }
  };
};
struct KQ40 {
  template <int NC>
  struct At {
    static void run(int64_t k, const void* p, const void* const* a, float* o) {
      kernelQ40<NC>(k, p, a, o);
    }
  };
};
struct KQ6K {
  template <int NC>
  struct At {
    static void run(int64_t k, const void* p, const void* const* a, float* o) {
      kernelQ6K<NC>(k, p, a, o);
    }
  };
};
struct KQ4K {
  template <int NC>
  struct At {
    static void run(int64_t k, const void* p, const void* const* a, float* o) {
      kernelQ4K<NC>(k, p, a, o);
    }
  };
};
template <int G>
struct KK {
  template <int NC>
  struct At {
    static void run(int64_t k, const void* p, const void* const* a, float* o) {
      kernelK<NC, G>(k, p, a, o);
    }
  };
};

// Packing pays from 8 columns where the kernels are VNNI's (zen-bench-matmul-avx512's BD cases
// at 8 columns, one thread: Q8_0 -20 %, Q4_K -10 %, Q5_K -5..10 %; Q6_K, whose unpacking
// costs most, even), from 16 with AVX2's (zen-bench-matmul at 16: Q5_K 67 vs 92 ms, Q6_K 68 vs
// 81 ms on the 151936-row head once the packers prefetch).
constexpr int64_t kKMin = ZEN_GEMM_VNNI ? 8 : 16;
constexpr int kCols = ZEN_GEMM_VNNI ? 8 : 4;
// Kept panels as compact as the file (Q4_0, Q4_K, Q6_K; Q8_0's 18 % more) serve decode too,
// faster than the 8-row dot products (one sequential stream, the scaling shared by 8 rows;
// Qwen3-0.6B-shape Q4_K_M tg64 72 -> 87 t/s, batches of 2 and 4 1.7x and 1.4x). Q5_0's and
// Q5_K's panels hold a byte per quant, twice the file: decode reads the file's rows instead.
constexpr int64_t kKeptMin = 1;
constexpr int64_t kKeptBytesMin = 4;
constexpr GemmType kQ4_0{.panel_bytes = panelQ40_bytes,
                         .pack = pack_q4_0,
                         .kernel = dispatch<KQ40::At>,
                         .cols = kCols,
                         .min_columns = 8,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ5_0{.panel_bytes = panel32_bytes,
                         .pack = pack_q5_0,
                         .kernel = dispatch<K32<4, false>::At>,
                         .cols = kCols,
                         .min_columns = 8,
                         .min_columns_kept = kKeptBytesMin};
constexpr GemmType kQ8_0{.panel_bytes = panel32_bytes,
                         .pack = pack_q8_0,
                         .kernel = dispatch<K32<8, true>::At>,
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ4_K{.panel_bytes = panelQ4K_bytes,
                         .pack = pack_q4_K,
                         .kernel = dispatch<KQ4K::At>,
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ5_K{.panel_bytes = panelK_bytes,
                         .pack = pack_q5_K,
                         .kernel = dispatch<KK<4>::At>,
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptBytesMin};
constexpr GemmType kQ6_K{.panel_bytes = panelQ6K_bytes,
                         .pack = pack_q6_K,
                         .kernel = dispatch<KQ6K::At>,
                         .cols = kCols,
                         .min_columns = 16,
                         .min_columns_kept = kKeptMin};

}  // namespace

const GemmType* gemm_type(uint32_t type) {
  switch (type) {
    case ZEN_TYPE_Q4_0:
      return &kQ4_0;
    case ZEN_TYPE_Q5_0:
      return &kQ5_0;
    case ZEN_TYPE_Q8_0:
      return &kQ8_0;
    case ZEN_TYPE_Q4_K:
      return &kQ4_K;
    case ZEN_TYPE_Q5_K:
      return &kQ5_K;
    case ZEN_TYPE_Q6_K:
      return &kQ6_K;
    default:
      return nullptr;
  }
}

#else

const GemmType* gemm_type(uint32_t) { return nullptr; }

#endif

}  // namespace ZEN_CPU_NS::mm
