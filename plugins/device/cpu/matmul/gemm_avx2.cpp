// AVX2 kernels of the packed GEMM (gemm.h), their AVX-512 VNNI bodies, and the table of the
// types that have one. Each call computes 8 rows x NC columns (NC <= 4; 8 with VNNI) over the
// whole of k: per 4-element group, one
// weight vector (8 rows x 4 quants) is loaded once and meets each column's broadcast group in
// one maddubs. Unsigned quants below 16 (32, 64) allow 8 (4, 2) groups to add up in int16
// before madd widens them: 2 * 15 * 127 * 8 = 30480 <= 32767, likewise 2 * 31 * 127 * 4 and
// 2 * 63 * 127 * 2. Q8_0's signed quants go through the sign trick and widen every group.
// Registers (AVX2, NC = 4): NC float accumulators, NC int16 and NC int32 partial sums, one
// pair of weight vectors (panel readers hand groups out in pairs), a scale and a mask: 16.
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

// ---- panel readers -------------------------------------------------------------------------
// What a kernel reads from a panel, whatever its layout: the weight groups (one 32-byte vector
// per 4-element group: 4 quants of each of the 8 rows, one row per 32-bit lane), the scales
// and the float factors. The byte panels (Panel32, PanelK) hold the groups as they are; the
// compact ones (PanelQ40, PanelQ4K, PanelQ6K) unpack them in registers.

// 8 halves (one per panel row) as floats.
inline __m256 halves(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
// 8 bytes (one per panel row) as int32 lanes, and an int16 pair (lo, hi) in each lane: madd
// multiplies two int16 partial sums of one row by it.
inline __m256i u8_lanes(const uint8_t* p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
inline __m256i i8_lanes(const int8_t* p) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
inline __m256i int16_pairs(__m256i lo, __m256i hi) {
  return _mm256_or_si256(_mm256_and_si256(lo, _mm256_set1_epi32(0xffff)),
                         _mm256_slli_epi32(hi, 16));
}
// Groups 2 v and 2 v + 1 from the nibbles of one compact vector (PanelQ40, PanelQ4K).
inline void nibble_groups(const void* q, __m256i* g) {
  const __m256i m4 = _mm256_set1_epi8(0x0F), v = load256(q);
  g[0] = _mm256_and_si256(v, m4);
  g[1] = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
}

// 32-element formats: pair(p, v, g) the block's groups 2 v and 2 v + 1 (in pairs, so AVX2's 16
// registers hold the kernel's sums); o(p) the offset factor, applied
// through the activation block sums (none for SIGNED: Q8_0's int8 quants). G: groups summed in
// int16 before widening (8 for quants < 16, 4 for < 32).
struct ReadQ80 {  // Panel32: Q8_0's int8 quants as they are
  using Panel = Panel32;
  static constexpr int G = 8;  // unused: signed quants widen every group
  static constexpr bool kSigned = true;
  static void pair(const Panel& p, int v, __m256i* g) {
    g[0] = load256(p.q[2 * v]);
    g[1] = load256(p.q[2 * v + 1]);
  }
  static __m256 d(const Panel& p) { return halves(p.d); }
};
// Bit 4 of each byte of x: bit j of the byte of `plane` (a nibble panel's 5th bits, hb).
inline __m256i fifth_bits(__m256i plane, int j) {
  const __m256i t = j <= 4 ? _mm256_slli_epi16(plane, 4 - j) : _mm256_srli_epi16(plane, j - 4);
  return _mm256_and_si256(t, _mm256_set1_epi8(0x10));
}
template <class P, bool Q5>
struct ReadNib32 {  // PanelQ40 (Q4_0), PanelQ50 (Q5_0)
  using Panel = P;
  static constexpr int G = Q5 ? 4 : 8;
  static constexpr bool kSigned = false;
  static void pair(const Panel& p, int v, __m256i* g) {
    nibble_groups(p.q[v], g);
    if constexpr (Q5) {
      const __m256i h = load256(p.hb);
      for (int i = 0; i < 2; ++i) g[i] = _mm256_or_si256(g[i], fifth_bits(h, 2 * v + i));
    }
  }
  static __m256 d(const Panel& p) { return halves(p.d); }
  static __m256 o(const Panel& p) {
    return _mm256_mul_ps(d(p), _mm256_set1_ps(Q5 ? -16.0f : -8.0f));
  }
};

// K-quants: pair(p, h, half, g) groups 4 h + 2 half and 4 h + 2 half + 1 (of 16-group h);
// scale(p, h) its scale as int32 lanes,
// scale_pair(p, h) as int16 pairs; bsum_coef(p, i) the coefficients of bsums 2 i and 2 i + 1;
// d, db the factors (gemm_pack.h, PanelK). G: groups summed in int16 before madd (4 for quants
// < 32, 2 for Q6_K's < 64); Run: 16-groups sharing a scale.
template <class P, bool Q5>
struct ReadNibK {  // PanelQ4K (Q4_K), PanelQ5K (Q5_K)
  using Panel = P;
  static constexpr int G = 4, Run = 2;
  static void pair(const Panel& p, int h, int half, __m256i* g) {
    nibble_groups(p.q[2 * h + half], g);
    if constexpr (Q5) {
      const __m256i b = load256(p.hb[h / 2]);
      for (int i = 0; i < 2; ++i)
        g[i] = _mm256_or_si256(g[i], fifth_bits(b, 4 * (h % 2) + 2 * half + i));
    }
  }
  static __m256i scale(const Panel& p, int h) { return u8_lanes(p.sm[h / 2]); }
  static __m256i scale_pair(const Panel& p, int h) {
    const __m256i s = scale(p, h);
    return _mm256_or_si256(s, _mm256_slli_epi32(s, 16));
  }
  static __m256i bsum_coef(const Panel& p, int i) {  // min i, twice
    const __m256i m = u8_lanes(p.sm[8 + i]);
    return _mm256_or_si256(m, _mm256_slli_epi32(m, 16));
  }
  static __m256 d(const Panel& p) { return halves(p.d); }
  static __m256 db(const Panel& p) { return halves(p.db); }
};
struct ReadQ6K {
  using Panel = PanelQ6K;
  static constexpr int G = 2, Run = 1;
  // 6-bit quants from the nibbles of ql[2 h + half] and bit pairs 2 half, 2 half + 1 of qh[h]
  // (bits 2 j of a byte: group 4 h + j); 16-bit shifts, the bits that cross into a
  // neighbouring byte masked off.
  static void pair(const Panel& p, int h, int half, __m256i* g) {
    const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x30);
    const __m256i l = load256(p.ql[2 * h + half]), q = load256(p.qh[h]);
    const __m256i hi0 = half ? q : _mm256_slli_epi16(q, 4);
    const __m256i hi1 = half ? _mm256_srli_epi16(q, 2) : _mm256_slli_epi16(q, 2);
    g[0] = _mm256_or_si256(_mm256_and_si256(l, m4), _mm256_and_si256(hi0, m2));
    g[1] =
        _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l, 4), m4), _mm256_and_si256(hi1, m2));
  }
  static __m256i scale(const Panel& p, int h) { return i8_lanes(p.sc[h]); }
  static __m256i scale_pair(const Panel& p, int h) { return int16_pairs(scale(p, h), scale(p, h)); }
  static __m256i bsum_coef(const Panel& p, int i) {  // scales 2 i and 2 i + 1
    return int16_pairs(i8_lanes(p.sc[2 * i]), i8_lanes(p.sc[2 * i + 1]));
  }
  static __m256 d(const Panel& p) { return halves(p.d); }
  static __m256 db(const Panel& p) { return _mm256_mul_ps(d(p), _mm256_set1_ps(-32.0f)); }
};

// ---- kernels -------------------------------------------------------------------------------
// One body per family and ISA; the integer sums are exact, and the float steps are the same
// in the same order in every body, so the AVX2 and VNNI variants and every panel layout of a
// type give identical results.

// The super-block's float step of the K-quants, per column: (d * si + db * sm) * y.d.
template <class R, int NC>
inline void finish_k(const typename R::Panel& p, const zen::quant::block_q8_K* const* y, int64_t b,
                     const __m256i* si, const __m256i* sm, __m256* acc) {
  const __m256 d = R::d(p), db = R::db(p);
  for (int c = 0; c < NC; ++c) {
    const __m256 t =
        _mm256_fmadd_ps(db, _mm256_cvtepi32_ps(sm[c]), _mm256_mul_ps(d, _mm256_cvtepi32_ps(si[c])));
    acc[c] = _mm256_fmadd_ps(t, _mm256_set1_ps(y[c][b].d), acc[c]);
  }
}
// The block's float step of the 32-element formats, per column: d * (s32 * y.d) + o * y.s.
template <class R, int NC>
inline void finish32(const typename R::Panel& p, const act_q8* const* y, int64_t b,
                     const __m256i* s32, __m256* acc) {
  const __m256 d = R::d(p);
  for (int c = 0; c < NC; ++c) {
    const __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(s32[c]), _mm256_set1_ps(y[c][b].d));
    acc[c] = _mm256_fmadd_ps(d, t, acc[c]);
    if constexpr (!R::kSigned) acc[c] = _mm256_fmadd_ps(R::o(p), _mm256_set1_ps(y[c][b].s), acc[c]);
  }
}

#if ZEN_GEMM_VNNI
// AVX-512 VNNI bodies: vpdpbusd multiplies the unsigned weight bytes by the signed activation
// bytes and adds each 4-byte group into an int32 lane in one instruction, with the activation
// group broadcast straight from memory; AVX2 spends a broadcast, a maddubs and an int16 add
// there, plus a madd per few groups.
template <int NC, class R>
void kernel32(int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    prefetch_ahead(p);
    __m256i s32[NC];
    for (int c = 0; c < NC; ++c) s32[c] = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      __m256i g[2];
      R::pair(*p, v, g);
      for (int i = 0; i < 2; ++i) {
        // Q8_0: |w| times the activations with w's sign
        const __m256i w = R::kSigned ? _mm256_sign_epi8(g[i], g[i]) : g[i];
        for (int c = 0; c < NC; ++c) {
          const __m256i yv = broadcast4(y[c][b].qs + 8 * v + 4 * i);
          s32[c] = _mm256_dpbusd_epi32(s32[c], w, R::kSigned ? _mm256_sign_epi8(yv, g[i]) : yv);
        }
      }
    }
    finish32<R, NC>(*p, y, b, s32, acc);
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// Per scale run (R::Run 16-groups: 32 elements for Q4_K/Q5_K, 16 for Q6_K): its groups into a
// fresh int32 sum per column, then times the run's scale once; the bsum products through
// vpdpwssd. 12 % fewer instructions per column and super-block than a multiply per 16.
template <int NC, class R>
void kernelK(int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC], sm[NC];
    for (int c = 0; c < NC; ++c) si[c] = sm[c] = _mm256_setzero_si256();
    for (int h0 = 0; h0 < 16; h0 += R::Run) {
      const __m256i sc = R::scale(*p, h0);
      __m256i t[NC];
      for (int c = 0; c < NC; ++c) t[c] = _mm256_setzero_si256();
      for (int h = h0; h < h0 + R::Run; ++h)
        for (int half = 0; half < 2; ++half) {
          __m256i g[2];
          R::pair(*p, h, half, g);
          for (int i = 0; i < 2; ++i)
            for (int c = 0; c < NC; ++c)
              t[c] = _mm256_dpbusd_epi32(t[c], g[i],
                                         broadcast4(y[c][b].qs + 16 * h + 8 * half + 4 * i));
        }
      for (int c = 0; c < NC; ++c) si[c] = _mm256_add_epi32(si[c], _mm256_mullo_epi32(t[c], sc));
    }
    for (int i = 0; i < 8; ++i) {
      const __m256i bc = R::bsum_coef(*p, i);
      for (int c = 0; c < NC; ++c)
        sm[c] = _mm256_dpwssd_epi32(sm[c], bc, broadcast4(y[c][b].bsums + 2 * i));
    }
    finish_k<R, NC>(*p, y, b, si, sm, acc);
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}
#else
// s16 += maddubs(g[0], yq[0..3] broadcast) + maddubs(g[1], yq[4..7] broadcast): int16 lanes,
// small enough not to saturate over R::G groups (see above).
inline void add_pair_sums(const __m256i* g, const int8_t* yq, __m256i& s16) {
  s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(g[0], broadcast4(yq)));
  s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(g[1], broadcast4(yq + 4)));
}

template <int NC, class R>
void kernel32(int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    prefetch_ahead(p);
    __m256i s32[NC], s16[NC];
    for (int c = 0; c < NC; ++c) s32[c] = s16[c] = _mm256_setzero_si256();
    for (int v = 0; v < 4; ++v) {
      __m256i g[2];
      R::pair(*p, v, g);
      if constexpr (R::kSigned) {  // Q8_0: the sign trick, every group widened
        for (int i = 0; i < 2; ++i) {
          const __m256i aw = _mm256_sign_epi8(g[i], g[i]);
          for (int c = 0; c < NC; ++c) {
            const __m256i yv = _mm256_sign_epi8(broadcast4(y[c][b].qs + 8 * v + 4 * i), g[i]);
            s32[c] =
                _mm256_add_epi32(s32[c], _mm256_madd_epi16(_mm256_maddubs_epi16(aw, yv), ones));
          }
        }
      } else {  // R::G groups in int16, then widened
        for (int c = 0; c < NC; ++c) add_pair_sums(g, y[c][b].qs + 8 * v, s16[c]);
        if ((2 * v + 2) % R::G == 0)
          for (int c = 0; c < NC; ++c) {
            s32[c] = _mm256_add_epi32(s32[c], _mm256_madd_epi16(s16[c], ones));
            s16[c] = _mm256_setzero_si256();
          }
      }
    }
    finish32<R, NC>(*p, y, b, s32, acc);
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// K-quants: R::G groups summed in int16, then madd by the 16-group's scale pair. The int32
// sums over a super-block stay below 2^31: 63 * 127 * 128 * 256 < 2^28.
template <int NC, class R>
void kernelK(int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    prefetch_ahead(p);
    __m256i si[NC], sm[NC];
    for (int c = 0; c < NC; ++c) si[c] = sm[c] = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      const __m256i sc = R::scale_pair(*p, h);
      __m256i s16[NC];
      for (int c = 0; c < NC; ++c) s16[c] = _mm256_setzero_si256();
      for (int half = 0; half < 2; ++half) {
        __m256i g[2];
        R::pair(*p, h, half, g);
        for (int c = 0; c < NC; ++c) add_pair_sums(g, y[c][b].qs + 16 * h + 8 * half, s16[c]);
        if ((2 * half + 2) % R::G == 0)
          for (int c = 0; c < NC; ++c) {
            si[c] = _mm256_add_epi32(si[c], _mm256_madd_epi16(s16[c], sc));
            s16[c] = _mm256_setzero_si256();
          }
      }
    }
    for (int i = 0; i < 8; ++i) {
      const __m256i bc = R::bsum_coef(*p, i);
      for (int c = 0; c < NC; ++c)
        sm[c] = _mm256_add_epi32(sm[c], _mm256_madd_epi16(bc, broadcast4(y[c][b].bsums + 2 * i)));
    }
    finish_k<R, NC>(*p, y, b, si, sm, acc);
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
template <class R>
struct K32 {
  template <int NC>
  struct At {
    static void run(int64_t k, const void* p, const void* const* a, float* o) {
      kernel32<NC, R>(k, p, a, o);
    }
  };
};
template <class R>
struct KK {
  template <int NC>
  struct At {
    static void run(int64_t k, const void* p, const void* const* a, float* o) {
      kernelK<NC, R>(k, p, a, o);
    }
  };
};

// Packing pays from 8 columns where the kernels are VNNI's (zen-bench-matmul-avx512's BD cases
// at 8 columns, one thread: Q8_0 -20 %, Q4_K -10 %, Q5_K -5..10 %; Q6_K, whose unpacking
// costs most, even), from 16 with AVX2's (zen-bench-matmul at 16: Q5_K 67 vs 92 ms, Q6_K 68 vs
// 81 ms on the 151936-row head once the packers prefetch).
constexpr int64_t kKMin = ZEN_GEMM_VNNI ? 8 : 16;
constexpr int kCols = ZEN_GEMM_VNNI ? 8 : 4;
// Kept panels, the file's size, serve decode too: one sequential stream, the scaling shared by
// 8 rows (Qwen3-0.6B-shape Q4_K_M tg64 72 -> 87 t/s, batches of 2 and 4 1.7x and 1.4x; Q8_0's
// GEMV is 5-15 % slower than its 8-row dot product on 2 threads, kept for the memory).
constexpr int64_t kKeptMin = 1;
constexpr GemmType kQ4_0{.panel_bytes = panelQ40_bytes,
                         .pack = pack_q4_0,
                         .kernel = dispatch<K32<ReadNib32<PanelQ40, false>>::At>,
                         .cols = kCols,
                         .min_columns = 8,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ5_0{.panel_bytes = panelQ50_bytes,
                         .pack = pack_q5_0,
                         .kernel = dispatch<K32<ReadNib32<PanelQ50, true>>::At>,
                         .cols = kCols,
                         .min_columns = 8,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ8_0{.panel_bytes = panel32_bytes,
                         .pack = pack_q8_0,
                         .kernel = dispatch<K32<ReadQ80>::At>,
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ4_K{.panel_bytes = panelQ4K_bytes,
                         .pack = pack_q4_K,
                         .kernel = dispatch<KK<ReadNibK<PanelQ4K, false>>::At>,
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ5_K{.panel_bytes = panelQ5K_bytes,
                         .pack = pack_q5_K,
                         .kernel = dispatch<KK<ReadNibK<PanelQ5K, true>>::At>,
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ6_K{.panel_bytes = panelQ6K_bytes,
                         .pack = pack_q6_K,
                         .kernel = dispatch<KK<ReadQ6K>::At>,
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
