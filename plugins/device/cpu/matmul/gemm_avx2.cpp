// AVX2 kernels of the packed GEMM (gemm.h), their AVX-512 VNNI bodies, and the table of the
// types that have one. Each call computes 8 rows x NC columns (NC <= 4; 8 with VNNI) over the
// whole of k, or with AVX-512 16 rows (two panels) x NC columns: per 4-element group, one
// weight vector (8 or 16 rows x 4 quants) is loaded once and meets each column's broadcast
// group in one maddubs / vpdpbusd. Unsigned quants below 16 (32, 64) allow 8 (4, 2) groups to
// add up in int16 before madd widens them: 2 * 15 * 127 * 8 = 30480 <= 32767, likewise
// 2 * 31 * 127 * 4 and 2 * 63 * 127 * 2. Q8_0's signed quants go through the sign trick and
// widen every group.
// Registers (AVX2, NC = 4): NC float accumulators, NC int16 and NC int32 partial sums, one
// pair of weight vectors (panel readers hand groups out in pairs), a scale and a mask: 16.
#include "gemm.h"

#include <cstddef>
#include <cstring>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <zen/quant_blocks.hpp>

#include "gemm_pack.h"
#include "vec_dot.h"
#endif

#if defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__AVX512BW__)
#define ZEN_GEMM_VNNI 1
#else
#define ZEN_GEMM_VNNI 0
#endif

namespace ZEN_CPU_NS::mm {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load64(const void* p) {
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
}
inline __m128i load128(const void* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline int32_t bytes4(const void* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// ---- row vectors ---------------------------------------------------------------------------
// The kernels' integer vectors hold one 32-bit lane per weight row: V8, the 8 rows of one
// panel in a 256-bit vector; V16 (AVX-512), 16 rows in a 512-bit one, a panel's in the low
// half and those of the panel `next` bytes after it in the high half. Where the 512-bit units
// are as wide as the registers (Zen 5: two vpdpbusd zmm per cycle, as many as ymm) V16 does
// twice the work per instruction; elsewhere it halves the instructions issued. Each lane
// computes the same sums in the same order in both, so their results are identical.
struct V8 {
  using I = __m256i;
  using F = __m256;
  static constexpr int kRows = 8;
  // 32 bytes of the panel at p: 4 per row. (Loads take the panel's address of the field.)
  I load(const void* p) const { return load256(p); }
  // 1 byte (unsigned, signed) or 1 half per row, widened to a lane.
  I u8(const void* p) const { return _mm256_cvtepu8_epi32(load64(p)); }
  I i8(const void* p) const { return _mm256_cvtepi8_epi32(load64(p)); }
  F halves(const void* p) const { return _mm256_cvtph_ps(load128(p)); }
  // Kept panels stream from memory through the kernel, which spends hundreds of instructions on
  // each block: the hardware prefetchers fall behind, so the kernels fetch the block two ahead
  // (block b of a panel of `blocks`). A panel's blocks are contiguous and so are the panels,
  // kept or in scratch: two ahead is in the next panel at a panel's end, the one read next.
  template <class P>
  void prefetch(const P* p, int64_t b, int64_t blocks) const {
    (void)b;
    (void)blocks;
    const char* c = reinterpret_cast<const char*>(p + 2);
    for (size_t l = 0; l < sizeof(P); l += 64) _mm_prefetch(c + l, _MM_HINT_T0);
  }

  static I zero() { return _mm256_setzero_si256(); }
  static I set8(char b) { return _mm256_set1_epi8(b); }
  static I set32(int32_t v) { return _mm256_set1_epi32(v); }
  static I bcast4(const void* p) { return _mm256_set1_epi32(bytes4(p)); }
  static I and_(I a, I b) { return _mm256_and_si256(a, b); }
  static I or_(I a, I b) { return _mm256_or_si256(a, b); }
  static I add32(I a, I b) { return _mm256_add_epi32(a, b); }
  static I mullo32(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static I srli16(I a, int n) { return _mm256_srli_epi16(a, n); }
  static I slli16(I a, int n) { return _mm256_slli_epi16(a, n); }
  static I slli32(I a, int n) { return _mm256_slli_epi32(a, n); }
  // |w|, and y with w's sign (0 where w is): |w| * sign(w) y = w y (Q8_0's sign trick).
  static I abs8(I w) { return _mm256_sign_epi8(w, w); }
  static I sign8(I y, I w) { return _mm256_sign_epi8(y, w); }
#if ZEN_GEMM_VNNI
  static I dpbusd(I s, I a, I b) { return _mm256_dpbusd_epi32(s, a, b); }
  static I dpwssd(I s, I a, I b) { return _mm256_dpwssd_epi32(s, a, b); }
#endif
  static F fzero() { return _mm256_setzero_ps(); }
  static F fset(float v) { return _mm256_set1_ps(v); }
  static F cvt(I a) { return _mm256_cvtepi32_ps(a); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static void store(float* o, F v) { _mm256_storeu_ps(o, v); }
};

#if ZEN_GEMM_VNNI
struct V16 {
  using I = __m512i;
  using F = __m512;
  static constexpr int kRows = 16;
  ptrdiff_t next;  // bytes from a panel to the one whose rows fill the high half

  const char* second(const void* p) const { return static_cast<const char*>(p) + next; }
  // (The maskz forms with every lane kept are the plain instructions; GCC 12's plain intrinsics
  // start from an undefined vector and warn that it may be used uninitialized.)
  I load(const void* p) const {
    return _mm512_maskz_inserti64x4(0xFF, _mm512_castsi256_si512(load256(p)), load256(second(p)),
                                    1);
  }
  I u8(const void* p) const {
    return _mm512_maskz_cvtepu8_epi32(0xFFFF, _mm_unpacklo_epi64(load64(p), load64(second(p))));
  }
  I i8(const void* p) const {
    return _mm512_maskz_cvtepi8_epi32(0xFFFF, _mm_unpacklo_epi64(load64(p), load64(second(p))));
  }
  F halves(const void* p) const {
    return _mm512_maskz_cvtph_ps(
        0xFFFF, _mm256_inserti128_si256(_mm256_castsi128_si256(load128(p)), load128(second(p)), 1));
  }
  // Both panels' block kAhead blocks on in the order the kernel reads them: a pair's blocks
  // side by side, then the next pair, two panels on (block b of a panel of `blocks`).
  static constexpr int64_t kAhead = 6;
  template <class P>
  void prefetch(const P* p, int64_t b, int64_t blocks) const {
    const int64_t t = b + kAhead;
    const char* c = reinterpret_cast<const char*>(p - b + 2 * blocks * (t / blocks) + t % blocks);
    for (size_t l = 0; l < sizeof(P); l += 64) {
      _mm_prefetch(c + l, _MM_HINT_T0);
      _mm_prefetch(second(c + l), _MM_HINT_T0);
    }
  }

  static I zero() { return _mm512_setzero_si512(); }
  static I set8(char b) { return _mm512_set1_epi8(b); }
  static I set32(int32_t v) { return _mm512_set1_epi32(v); }
  static I bcast4(const void* p) { return _mm512_set1_epi32(bytes4(p)); }
  static I and_(I a, I b) { return _mm512_and_si512(a, b); }
  static I or_(I a, I b) { return _mm512_or_si512(a, b); }
  static I add32(I a, I b) { return _mm512_add_epi32(a, b); }
  static I mullo32(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I srli16(I a, int n) { return _mm512_srli_epi16(a, static_cast<unsigned>(n)); }
  static I slli16(I a, int n) { return _mm512_slli_epi16(a, static_cast<unsigned>(n)); }
  static I slli32(I a, int n) {
    return _mm512_maskz_slli_epi32(0xFFFF, a, static_cast<unsigned>(n));
  }
  // AVX-512 has no vpsignb: y negated under w's sign mask (where w is 0, |w| is too).
  static I abs8(I w) { return _mm512_abs_epi8(w); }
  static I sign8(I y, I w) {
    return _mm512_mask_sub_epi8(y, _mm512_movepi8_mask(w), _mm512_setzero_si512(), y);
  }
  static I dpbusd(I s, I a, I b) { return _mm512_dpbusd_epi32(s, a, b); }
  static I dpwssd(I s, I a, I b) { return _mm512_dpwssd_epi32(s, a, b); }
  static F fzero() { return _mm512_setzero_ps(); }
  static F fset(float v) { return _mm512_set1_ps(v); }
  static F cvt(I a) { return _mm512_maskz_cvtepi32_ps(0xFFFF, a); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static void store(float* o, F v) { _mm512_storeu_ps(o, v); }
};
#endif

// ---- panel readers -------------------------------------------------------------------------
// What a kernel reads from a panel, whatever its layout, as row vectors (x: V8 or V16): the
// weight groups (one vector per 4-element group: 4 quants of each row, one row per 32-bit
// lane), the scales and the float factors. Panel32 holds the groups as they are; the compact
// panels (PanelQ40, PanelQ4K, PanelQ6K, ...) unpack them in registers.

// An int16 pair (lo, hi) in each lane: madd multiplies two int16 partial sums of one row by it.
template <class V>
typename V::I int16_pairs(typename V::I lo, typename V::I hi) {
  return V::or_(V::and_(lo, V::set32(0xffff)), V::slli32(hi, 16));
}
// Groups 2 v and 2 v + 1 from the nibbles of one compact vector (PanelQ40, PanelQ4K).
template <class V>
void nibble_groups(const V& x, const void* q, typename V::I* g) {
  const auto m4 = V::set8(0x0F), v = x.load(q);
  g[0] = V::and_(v, m4);
  g[1] = V::and_(V::srli16(v, 4), m4);
}
// Bit 4 of each byte of x: bit j of the byte of `plane` (a nibble panel's 5th bits, hb).
template <class V>
typename V::I fifth_bits(typename V::I plane, int j) {
  const auto t = j <= 4 ? V::slli16(plane, 4 - j) : V::srli16(plane, j - 4);
  return V::and_(t, V::set8(0x10));
}

// 32-element formats: pair(x, p, v, g) the block's groups 2 v and 2 v + 1 (in pairs, so AVX2's
// 16 registers hold the kernel's sums); o(x, p) the offset factor, applied through the
// activation block sums (none for kSigned: Q8_0's int8 quants). G: groups summed in int16
// before widening (8 for quants < 16, 4 for < 32).
struct ReadQ80 {  // Panel32: Q8_0's int8 quants as they are
  using Panel = Panel32;
  static constexpr int G = 8;  // unused: signed quants widen every group
  static constexpr bool kSigned = true;
  template <class V>
  static void pair(const V& x, const Panel& p, int v, typename V::I* g) {
    g[0] = x.load(p.q[2 * v]);
    g[1] = x.load(p.q[2 * v + 1]);
  }
  template <class V>
  static typename V::F d(const V& x, const Panel& p) {
    return x.halves(p.d);
  }
};
template <class P, bool Q5>
struct ReadNib32 {  // PanelQ40 (Q4_0), PanelQ50 (Q5_0)
  using Panel = P;
  static constexpr int G = Q5 ? 4 : 8;
  static constexpr bool kSigned = false;
  template <class V>
  static void pair(const V& x, const Panel& p, int v, typename V::I* g) {
    nibble_groups(x, p.q[v], g);
    if constexpr (Q5) {
      const auto h = x.load(p.hb);
      for (int i = 0; i < 2; ++i) g[i] = V::or_(g[i], fifth_bits<V>(h, 2 * v + i));
    }
  }
  template <class V>
  static typename V::F d(const V& x, const Panel& p) {
    return x.halves(p.d);
  }
  template <class V>
  static typename V::F o(const V& x, const Panel& p) {
    return V::mul(d(x, p), V::fset(Q5 ? -16.0f : -8.0f));
  }
};

// K-quants: pair(x, p, h, half, g) groups 4 h + 2 half and 4 h + 2 half + 1 (of 16-group h);
// scale(x, p, h) its scale as int32 lanes, scale_pair(x, p, h) as int16 pairs; bsum_coef(x, p,
// i) the coefficients of bsums 2 i and 2 i + 1; d, db the factors (gemm_pack.h). G: groups
// summed in int16 before madd (4 for quants < 32, 2 for Q6_K's < 64); Run: 16-groups sharing a
// scale.
template <class P, bool Q5>
struct ReadNibK {  // PanelQ4K (Q4_K), PanelQ5K (Q5_K)
  using Panel = P;
  static constexpr int G = 4, Run = 2;
  template <class V>
  static void pair(const V& x, const Panel& p, int h, int half, typename V::I* g) {
    nibble_groups(x, p.q[2 * h + half], g);
    if constexpr (Q5) {
      const auto b = x.load(p.hb[h / 2]);
      for (int i = 0; i < 2; ++i) g[i] = V::or_(g[i], fifth_bits<V>(b, 4 * (h % 2) + 2 * half + i));
    }
  }
  template <class V>
  static typename V::I scale(const V& x, const Panel& p, int h) {
    return x.u8(p.sm[h / 2]);
  }
  template <class V>
  static typename V::I scale_pair(const V& x, const Panel& p, int h) {
    const auto s = scale(x, p, h);
    return V::or_(s, V::slli32(s, 16));
  }
  template <class V>
  static typename V::I bsum_coef(const V& x, const Panel& p, int i) {  // min i, twice
    const auto m = x.u8(p.sm[8 + i]);
    return V::or_(m, V::slli32(m, 16));
  }
  template <class V>
  static typename V::F d(const V& x, const Panel& p) {
    return x.halves(p.d);
  }
  template <class V>
  static typename V::F db(const V& x, const Panel& p) {
    return x.halves(p.db);
  }
};
struct ReadQ6K {
  using Panel = PanelQ6K;
  static constexpr int G = 2, Run = 1;
  // 6-bit quants from the nibbles of ql[2 h + half] and bit pairs 2 half, 2 half + 1 of qh[h]
  // (bits 2 j of a byte: group 4 h + j); 16-bit shifts, the bits that cross into a
  // neighbouring byte masked off.
  template <class V>
  static void pair(const V& x, const Panel& p, int h, int half, typename V::I* g) {
    const auto m4 = V::set8(0x0F), m2 = V::set8(0x30);
    const auto l = x.load(p.ql[2 * h + half]), q = x.load(p.qh[h]);
    const auto hi0 = half ? q : V::slli16(q, 4);
    const auto hi1 = half ? V::srli16(q, 2) : V::slli16(q, 2);
    g[0] = V::or_(V::and_(l, m4), V::and_(hi0, m2));
    g[1] = V::or_(V::and_(V::srli16(l, 4), m4), V::and_(hi1, m2));
  }
  template <class V>
  static typename V::I scale(const V& x, const Panel& p, int h) {
    return x.i8(p.sc[h]);
  }
  template <class V>
  static typename V::I scale_pair(const V& x, const Panel& p, int h) {
    return int16_pairs<V>(scale(x, p, h), scale(x, p, h));
  }
  template <class V>
  static typename V::I bsum_coef(const V& x, const Panel& p, int i) {  // scales 2 i, 2 i + 1
    return int16_pairs<V>(x.i8(p.sc[2 * i]), x.i8(p.sc[2 * i + 1]));
  }
  template <class V>
  static typename V::F d(const V& x, const Panel& p) {
    return x.halves(p.d);
  }
  template <class V>
  static typename V::F db(const V& x, const Panel& p) {
    return V::mul(d(x, p), V::fset(-32.0f));
  }
};

// ---- kernels -------------------------------------------------------------------------------
// One body per family and ISA; the integer sums are exact, and the float steps are the same
// in the same order in every body, so the AVX2 and VNNI variants, 8 or 16 rows, and every
// panel layout of a type give identical results.

// The super-block's float step of the K-quants, per column: (d * si + db * sm) * y.d.
template <class R, int NC, class V>
inline void finish_k(const V& x, const typename R::Panel& p, const zen::quant::block_q8_K* const* y,
                     int64_t b, const typename V::I* si, const typename V::I* sm,
                     typename V::F* acc) {
  const auto d = R::d(x, p), db = R::db(x, p);
  for (int c = 0; c < NC; ++c) {
    const auto t = V::fmadd(db, V::cvt(sm[c]), V::mul(d, V::cvt(si[c])));
    acc[c] = V::fmadd(t, V::fset(y[c][b].d), acc[c]);
  }
}
// The block's float step of the 32-element formats, per column: d * (s32 * y.d) + o * y.s.
template <class R, int NC, class V>
inline void finish32(const V& x, const typename R::Panel& p, const act_q8* const* y, int64_t b,
                     const typename V::I* s32, typename V::F* acc) {
  const auto d = R::d(x, p);
  for (int c = 0; c < NC; ++c) {
    const auto t = V::mul(V::cvt(s32[c]), V::fset(y[c][b].d));
    acc[c] = V::fmadd(d, t, acc[c]);
    if constexpr (!R::kSigned) acc[c] = V::fmadd(R::o(x, p), V::fset(y[c][b].s), acc[c]);
  }
}

#if ZEN_GEMM_VNNI
// AVX-512 VNNI bodies (V8 or V16): vpdpbusd multiplies the unsigned weight bytes by the signed
// activation bytes and adds each 4-byte group into an int32 lane in one instruction, with the
// activation group broadcast straight from memory; AVX2 spends a broadcast, a maddubs and an
// int16 add there, plus a madd per few groups.
template <int NC, class R, class V>
void kernel32(const V& x, int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  typename V::F acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = V::fzero();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    x.prefetch(p, b, k / 32);
    typename V::I s32[NC];
    for (int c = 0; c < NC; ++c) s32[c] = V::zero();
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      typename V::I g[2];
      R::pair(x, *p, v, g);
      for (int i = 0; i < 2; ++i) {
        // Q8_0: |w| times the activations with w's sign
        const auto w = R::kSigned ? V::abs8(g[i]) : g[i];
        for (int c = 0; c < NC; ++c) {
          const auto yv = V::bcast4(y[c][b].qs + 8 * v + 4 * i);
          s32[c] = V::dpbusd(s32[c], w, R::kSigned ? V::sign8(yv, g[i]) : yv);
        }
      }
    }
    finish32<R, NC>(x, *p, y, b, s32, acc);
  }
  for (int c = 0; c < NC; ++c) V::store(out + V::kRows * c, acc[c]);
}

// Per scale run (R::Run 16-groups: 32 elements for Q4_K/Q5_K, 16 for Q6_K): its groups into a
// fresh int32 sum per column, then times the run's scale once; the bsum products through
// vpdpwssd once the runs' sums are free (NC = 8 with V16: 24 of the 32 registers in the runs).
// 12 % fewer instructions per column and super-block than a multiply per 16.
template <int NC, class R, class V>
void kernelK(const V& x, int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  typename V::F acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = V::fzero();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    x.prefetch(p, b, k / 256);
    typename V::I si[NC], sm[NC];
    for (int c = 0; c < NC; ++c) si[c] = V::zero();
    for (int h0 = 0; h0 < 16; h0 += R::Run) {
      const auto sc = R::scale(x, *p, h0);
      typename V::I t[NC];
      for (int c = 0; c < NC; ++c) t[c] = V::zero();
      for (int h = h0; h < h0 + R::Run; ++h)
        for (int half = 0; half < 2; ++half) {
          typename V::I g[2];
          R::pair(x, *p, h, half, g);
          for (int i = 0; i < 2; ++i)
            for (int c = 0; c < NC; ++c)
              t[c] = V::dpbusd(t[c], g[i], V::bcast4(y[c][b].qs + 16 * h + 8 * half + 4 * i));
        }
      for (int c = 0; c < NC; ++c) si[c] = V::add32(si[c], V::mullo32(t[c], sc));
    }
    for (int c = 0; c < NC; ++c) sm[c] = V::zero();
    for (int i = 0; i < 8; ++i) {
      const auto bc = R::bsum_coef(x, *p, i);
      for (int c = 0; c < NC; ++c) sm[c] = V::dpwssd(sm[c], bc, V::bcast4(y[c][b].bsums + 2 * i));
    }
    finish_k<R, NC>(x, *p, y, b, si, sm, acc);
  }
  for (int c = 0; c < NC; ++c) V::store(out + V::kRows * c, acc[c]);
}
#else
// s16 += maddubs(g[0], yq[0..3] broadcast) + maddubs(g[1], yq[4..7] broadcast): int16 lanes,
// small enough not to saturate over R::G groups (see above).
inline void add_pair_sums(const __m256i* g, const int8_t* yq, __m256i& s16) {
  s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(g[0], V8::bcast4(yq)));
  s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(g[1], V8::bcast4(yq + 4)));
}

template <int NC, class R, class V>
void kernel32(const V& x, int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const act_q8* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const act_q8*>(a[c]);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 32; ++b, ++p) {
    x.prefetch(p, b, k / 32);
    __m256i s32[NC], s16[NC];
    for (int c = 0; c < NC; ++c) s32[c] = s16[c] = _mm256_setzero_si256();
    for (int v = 0; v < 4; ++v) {
      __m256i g[2];
      R::pair(x, *p, v, g);
      if constexpr (R::kSigned) {  // Q8_0: the sign trick, every group widened
        for (int i = 0; i < 2; ++i) {
          const __m256i aw = V8::abs8(g[i]);
          for (int c = 0; c < NC; ++c) {
            const __m256i yv = V8::sign8(V8::bcast4(y[c][b].qs + 8 * v + 4 * i), g[i]);
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
    finish32<R, NC>(x, *p, y, b, s32, acc);
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

// K-quants: R::G groups summed in int16, then madd by the 16-group's scale pair. The int32
// sums over a super-block stay below 2^31: 63 * 127 * 128 * 256 < 2^28.
template <int NC, class R, class V>
void kernelK(const V& x, int64_t k, const void* panel, const void* const* a, float* out) {
  const typename R::Panel* p = static_cast<const typename R::Panel*>(panel);
  const zen::quant::block_q8_K* y[NC];
  for (int c = 0; c < NC; ++c) y[c] = static_cast<const zen::quant::block_q8_K*>(a[c]);
  __m256 acc[NC];
  for (int c = 0; c < NC; ++c) acc[c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < k / 256; ++b, ++p) {
    x.prefetch(p, b, k / 256);
    __m256i si[NC], sm[NC];
    for (int c = 0; c < NC; ++c) si[c] = sm[c] = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      const __m256i sc = R::scale_pair(x, *p, h);
      __m256i s16[NC];
      for (int c = 0; c < NC; ++c) s16[c] = _mm256_setzero_si256();
      for (int half = 0; half < 2; ++half) {
        __m256i g[2];
        R::pair(x, *p, h, half, g);
        for (int c = 0; c < NC; ++c) add_pair_sums(g, y[c][b].qs + 16 * h + 8 * half, s16[c]);
        if ((2 * half + 2) % R::G == 0)
          for (int c = 0; c < NC; ++c) {
            si[c] = _mm256_add_epi32(si[c], _mm256_madd_epi16(s16[c], sc));
            s16[c] = _mm256_setzero_si256();
          }
      }
    }
    for (int i = 0; i < 8; ++i) {
      const __m256i bc = R::bsum_coef(x, *p, i);
      for (int c = 0; c < NC; ++c)
        sm[c] = _mm256_add_epi32(sm[c], _mm256_madd_epi16(bc, V8::bcast4(y[c][b].bsums + 2 * i)));
    }
    finish_k<R, NC>(x, *p, y, b, si, sm, acc);
  }
  for (int c = 0; c < NC; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

#endif  // ZEN_GEMM_VNNI

// The kernel of family Body for exactly NC columns (1..8), over 8 rows (run) or 16 (run16).
template <class Body>
struct Entry {
  template <int NC>
  static void run(int64_t k, const void* p, const void* const* a, float* o) {
    Body::template run<NC>(V8{}, k, p, a, o);
  }
#if ZEN_GEMM_VNNI
  template <int NC>
  static void run16(int64_t k, const void* p, ptrdiff_t next, const void* const* a, float* o) {
    Body::template run<NC>(V16{next}, k, p, a, o);
  }
#endif
};
template <class R>
struct Body32 {
  template <int NC, class V>
  static void run(const V& x, int64_t k, const void* p, const void* const* a, float* o) {
    kernel32<NC, R>(x, k, p, a, o);
  }
};
template <class R>
struct BodyK {
  template <int NC, class V>
  static void run(const V& x, int64_t k, const void* p, const void* const* a, float* o) {
    kernelK<NC, R>(x, k, p, a, o);
  }
};

// n (1..8) columns through the kernel instantiated for exactly n.
template <class Body>
void dispatch(int64_t k, const void* panel, const void* const* a, int n, float* out) {
  using E = Entry<Body>;
  switch (n) {
    case 1:
      return E::template run<1>(k, panel, a, out);
    case 2:
      return E::template run<2>(k, panel, a, out);
    case 3:
      return E::template run<3>(k, panel, a, out);
#if ZEN_GEMM_VNNI
    case 4:
      return E::template run<4>(k, panel, a, out);
    case 5:
      return E::template run<5>(k, panel, a, out);
    case 6:
      return E::template run<6>(k, panel, a, out);
    case 7:
      return E::template run<7>(k, panel, a, out);
    default:
      return E::template run<8>(k, panel, a, out);
#else
    default:
      return E::template run<4>(k, panel, a, out);
#endif
  }
}
#if ZEN_GEMM_VNNI
template <class Body>
void dispatch16(int64_t k, const void* panel, ptrdiff_t next, const void* const* a, int n,
                float* out) {
  using E = Entry<Body>;
  switch (n) {
    case 1:
      return E::template run16<1>(k, panel, next, a, out);
    case 2:
      return E::template run16<2>(k, panel, next, a, out);
    case 3:
      return E::template run16<3>(k, panel, next, a, out);
    case 4:
      return E::template run16<4>(k, panel, next, a, out);
    case 5:
      return E::template run16<5>(k, panel, next, a, out);
    case 6:
      return E::template run16<6>(k, panel, next, a, out);
    case 7:
      return E::template run16<7>(k, panel, next, a, out);
    default:
      return E::template run16<8>(k, panel, next, a, out);
  }
}
#define ZEN_KERNEL16(B) dispatch16<B>
#else
#define ZEN_KERNEL16(B) nullptr
#endif

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
using Q40 = Body32<ReadNib32<PanelQ40, false>>;
using Q50 = Body32<ReadNib32<PanelQ50, true>>;
using Q80 = Body32<ReadQ80>;
using Q4K = BodyK<ReadNibK<PanelQ4K, false>>;
using Q5K = BodyK<ReadNibK<PanelQ5K, true>>;
using Q6K = BodyK<ReadQ6K>;
constexpr GemmType kQ4_0{.panel_bytes = panelQ40_bytes,
                         .pack = pack_q4_0,
                         .kernel = dispatch<Q40>,
                         .kernel16 = ZEN_KERNEL16(Q40),
                         .cols = kCols,
                         .min_columns = 8,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ5_0{.panel_bytes = panelQ50_bytes,
                         .pack = pack_q5_0,
                         .kernel = dispatch<Q50>,
                         .kernel16 = ZEN_KERNEL16(Q50),
                         .cols = kCols,
                         .min_columns = 8,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ8_0{.panel_bytes = panel32_bytes,
                         .pack = pack_q8_0,
                         .kernel = dispatch<Q80>,
                         .kernel16 = ZEN_KERNEL16(Q80),
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ4_K{.panel_bytes = panelQ4K_bytes,
                         .pack = pack_q4_K,
                         .kernel = dispatch<Q4K>,
                         .kernel16 = ZEN_KERNEL16(Q4K),
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ5_K{.panel_bytes = panelQ5K_bytes,
                         .pack = pack_q5_K,
                         .kernel = dispatch<Q5K>,
                         .kernel16 = ZEN_KERNEL16(Q5K),
                         .cols = kCols,
                         .min_columns = kKMin,
                         .min_columns_kept = kKeptMin};
constexpr GemmType kQ6_K{.panel_bytes = panelQ6K_bytes,
                         .pack = pack_q6_K,
                         .kernel = dispatch<Q6K>,
                         .kernel16 = ZEN_KERNEL16(Q6K),
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
