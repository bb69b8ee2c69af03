// Packers of the GEMM panels (gemm_pack.h): each decodes a row's blocks into plain quants and
// scales, then scatters them into the panel's row lane. A weight's panels are packed once and
// kept by the device (packed_weights.h); other matrices' once per row tile, for every column
// of the tile.
#include "gemm_pack.h"

#include <cstring>

#include <zen/quant_blocks.hpp>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "k_scales.h"
#include "unpack_avx2.h"

namespace ZEN_CPU_NS::mm {
namespace {

using namespace zen::quant;

#if defined(__AVX2__)
// in[r] holds 4-byte groups 0..7 of row r; out[g] gets group g of rows 0..7 (the panel's
// vector g): an 8 x 8 transpose of 32-bit lanes.
inline void transpose8x8(const __m256i* in, __m256i* out) {
  __m256i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(in[2 * i], in[2 * i + 1]);      // groups 0,1 | 4,5
    t[2 * i + 1] = _mm256_unpackhi_epi32(in[2 * i], in[2 * i + 1]);  // groups 2,3 | 6,7
  }
  for (int h = 0; h < 2; ++h)  // rows 0..3, then 4..7
    for (int i = 0; i < 2; ++i) {
      u[4 * h + 2 * i] = _mm256_unpacklo_epi64(t[4 * h + i], t[4 * h + i + 2]);
      u[4 * h + 2 * i + 1] = _mm256_unpackhi_epi64(t[4 * h + i], t[4 * h + i + 2]);
    }
  // u[j] (j < 4) holds group j | j + 4 of rows 0..3, u[j + 4] the same of rows 4..7
  for (int j = 0; j < 4; ++j) {
    out[j] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x20);
    out[j + 4] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x31);
  }
}

#endif

// Decoded 256-element super-block: quants, 16-group scales, bsum coefficients (the factors
// d and dmin stay the block's halves: the panels keep them as they are).
struct BlockK {
  uint8_t q[256];
  int16_t sc[16], bc[16];
};

// Q4_K and Q5_K: 64 elements per 32 bytes, low nibbles = sub-block 2j, high = 2j + 1 (Q5_K:
// bits 2j and 2j + 1 of qh's byte l as bit 4 of element l).
template <bool Q5, class Block>
struct DecodeQ45K {
  static void scales(const Block& x, BlockK& v) {
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      scale_min_k4(j, x.scales, sc, m);
      v.sc[2 * j] = v.sc[2 * j + 1] = static_cast<int16_t>(sc);
      v.bc[2 * j] = v.bc[2 * j + 1] = static_cast<int16_t>(m);
    }
  }
  static void quants(const Block& x, BlockK& v) {
    for (int j = 0; j < 4; ++j)
      for (int l = 0; l < 32; ++l) {
        int lo = x.qs[32 * j + l] & 0xF, hi = x.qs[32 * j + l] >> 4;
        if constexpr (Q5) {
          lo |= ((x.qh[l] >> (2 * j)) & 1) << 4;
          hi |= ((x.qh[l] >> (2 * j + 1)) & 1) << 4;
        }
        v.q[64 * j + l] = static_cast<uint8_t>(lo);
        v.q[64 * j + 32 + l] = static_cast<uint8_t>(hi);
      }
  }
#if defined(__AVX2__)
  static __m128i scale_bytes(const Block& x) { return unpack_scales_k4_avx2(x.scales); }
  static void vquants(const Block& x, __m256i* q) {
    [[maybe_unused]] __m256i hb{};
    if constexpr (Q5) hb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qh));
    for (int j = 0; j < 4; ++j) unpack_q45_K<Q5>(x.qs, hb, j, q[2 * j], q[2 * j + 1]);
  }
#endif
};

// Q6_K: per 128 elements, four runs of 32: low 4 bits from ql's nibbles, high 2 from qh.
struct DecodeQ6K {
  static void scales(const block_q6_K& x, BlockK& v) {
    for (int g = 0; g < 16; ++g) v.sc[g] = v.bc[g] = x.scales[g];
  }
  static void quants(const block_q6_K& x, BlockK& v) {
    for (int h = 0; h < 2; ++h)
      for (int r = 0; r < 4; ++r)
        for (int l = 0; l < 32; ++l) {
          const uint8_t b = x.ql[64 * h + l + 32 * (r % 2)];
          const int lo = r < 2 ? b & 0xF : b >> 4;
          v.q[128 * h + 32 * r + l] =
              static_cast<uint8_t>(lo | (((x.qh[32 * h + l] >> (2 * r)) & 3) << 4));
        }
  }
#if defined(__AVX2__)
  static void vquants(const block_q6_K& x, __m256i* q) {
    for (int h = 0; h < 2; ++h) unpack_q6_K(x.ql + 64 * h, x.qh + 32 * h, q + 4 * h);
  }
#endif
};

}  // namespace

#if defined(__AVX2__)
// Nibble panels' vectors from one 32-element block's 8 groups (transposed, quants < 32):
// groups 2 v and 2 v + 1 as the low and high nibbles of q[v], and (Q5) bit 4 of group j as
// bit j of hb. 16-bit shifts: the masked values stay inside their byte.
template <bool Q5>
void store_nibbles(const __m256i* g, void* q, void* hb) {
  const __m256i m4 = _mm256_set1_epi8(0x0F), m1 = _mm256_set1_epi8(0x01);
  for (int v = 0; v < 4; ++v)
    _mm256_storeu_si256(static_cast<__m256i*>(q) + v,
                        _mm256_or_si256(_mm256_and_si256(g[2 * v], m4),
                                        _mm256_slli_epi16(_mm256_and_si256(g[2 * v + 1], m4), 4)));
  if constexpr (Q5) {
    __m256i h = _mm256_setzero_si256();
    for (int j = 0; j < 8; ++j)
      h = _mm256_or_si256(h,
                          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(g[j], 4), m1), j));
    _mm256_storeu_si256(static_cast<__m256i*>(hb), h);
  }
}
#endif

// Row r's 32 quants q (one 32-element block) into a nibble panel's lane, as store_nibbles.
template <bool Q5>
void put_nibbles(const uint8_t* q, int r, uint8_t (*nib)[kPanelRows][4],
                 [[maybe_unused]] uint8_t (*hb)[4]) {
  for (int v = 0; v < 4; ++v)
    for (int e = 0; e < 4; ++e)
      nib[v][r][e] = static_cast<uint8_t>((q[8 * v + e] & 0xF) | (q[8 * v + 4 + e] & 0xF) << 4);
  if constexpr (Q5)
    for (int e = 0; e < 4; ++e) {
      int bits = 0;
      for (int j = 0; j < 8; ++j) bits |= (q[4 * j + e] >> 4) << j;
      hb[r][e] = static_cast<uint8_t>(bits);
    }
}

// Q4_0 into PanelQ40 and Q5_0 into PanelQ50.
template <bool Q5, class Block, class Panel>
void pack_nib32(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  Panel* p = static_cast<Panel*>(panel);
  const int64_t nb = k / 32;
  [[maybe_unused]] const auto hb = [&](int64_t b) {
    if constexpr (Q5)
      return p[b].hb;
    else
      return static_cast<uint8_t(*)[4]>(nullptr);
  };
#if defined(__AVX2__)
  if (rows == kPanelRows) {
    const Block* x[kPanelRows];
    for (int r = 0; r < kPanelRows; ++r) x[r] = reinterpret_cast<const Block*>(w + r * wrow);
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_next_rows<Block>(w, wrow, b);
      __m256i rowq[kPanelRows], g[8];
      for (int r = 0; r < kPanelRows; ++r) {
        if constexpr (Q5)
          rowq[r] = unpack_q5(x[r][b].qs, x[r][b].qh);
        else
          rowq[r] = unpack_nibbles(x[r][b].qs);
        p[b].d[r] = x[r][b].d;
      }
      transpose8x8(rowq, g);
      store_nibbles<Q5>(g, p[b].q, hb(b));
    }
    return;
  }
#endif
  std::memset(p, 0, static_cast<size_t>(nb) * sizeof(Panel));
  for (int r = 0; r < rows; ++r) {
    const Block* x = reinterpret_cast<const Block*>(w + r * wrow);
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t q[32];
      uint32_t qh = 0;
      if constexpr (Q5) std::memcpy(&qh, x[b].qh, 4);
      for (int j = 0; j < 16; ++j) {
        q[j] = static_cast<uint8_t>((x[b].qs[j] & 0xF) | (((qh >> j) & 1) << 4));
        q[j + 16] = static_cast<uint8_t>((x[b].qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4));
      }
      put_nibbles<Q5>(q, r, p[b].q, hb(b));
      p[b].d[r] = x[b].d;
    }
  }
}

void pack_q4_0(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  pack_nib32<false, block_q4_0, PanelQ40>(k, w, wrow, rows, panel);
}

void pack_q5_0(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  pack_nib32<true, block_q5_0, PanelQ50>(k, w, wrow, rows, panel);
}

// Q8_0 into Panel32: each row's block as one vector of its 32 quants, transposed in registers
// (five times faster than scattering 4-byte groups, which matters for short prompts, where
// packing is a large share of a GEMM); the next panel's rows prefetched in step (from memory,
// the packers spent half their time waiting on loads).
void pack_q8_0(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  Panel32* p = static_cast<Panel32*>(panel);
  const int64_t nb = k / 32;
#if defined(__AVX2__)
  if (rows == kPanelRows) {
    const block_q8_0* x[kPanelRows];
    for (int r = 0; r < kPanelRows; ++r) x[r] = reinterpret_cast<const block_q8_0*>(w + r * wrow);
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_next_rows<block_q8_0>(w, wrow, b);
      __m256i rowq[kPanelRows], groups[8];
      for (int r = 0; r < kPanelRows; ++r) {
        rowq[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs));
        p[b].d[r] = x[r][b].d;
      }
      transpose8x8(rowq, groups);
      for (int g = 0; g < 8; ++g)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p[b].q[g]), groups[g]);
    }
    return;
  }
#endif
  std::memset(p, 0, static_cast<size_t>(nb) * sizeof(Panel32));
  for (int r = 0; r < rows; ++r) {
    const block_q8_0* x = reinterpret_cast<const block_q8_0*>(w + r * wrow);
    for (int64_t b = 0; b < nb; ++b) {
      for (int g = 0; g < 8; ++g) std::memcpy(p[b].q[g][r], x[b].qs + 4 * g, 4);
      p[b].d[r] = x[b].d;
    }
  }
}

// Q4_K into PanelQ4K and Q5_K into PanelQ5K: each sub-block of 32 as a 32-element block's
// nibbles (store_nibbles), the scales and mins as bytes.
template <bool Q5, class Block, class Panel>
void pack_nibK(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  using D = DecodeQ45K<Q5, Block>;
  Panel* p = static_cast<Panel*>(panel);
  const int64_t nb = k / QK_K;
  [[maybe_unused]] const auto hb = [&](int64_t b, int s) {
    if constexpr (Q5)
      return p[b].hb + s;
    else
      return static_cast<uint8_t(*)[kPanelRows][4]>(nullptr);
  };
#if defined(__AVX2__)
  if (rows == kPanelRows) {
    const Block* x[kPanelRows];
    for (int r = 0; r < kPanelRows; ++r) x[r] = reinterpret_cast<const Block*>(w + r * wrow);
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_next_rows<Block>(w, wrow, b);
      __m256i q[8][kPanelRows];  // sub-block s of row r
      alignas(16) uint8_t sm[kPanelRows][16];
      for (int r = 0; r < kPanelRows; ++r) {
        _mm_store_si128(reinterpret_cast<__m128i*>(sm[r]), D::scale_bytes(x[r][b]));
        p[b].d[r] = x[r][b].d;
        p[b].db[r] = x[r][b].dmin ^ 0x8000;  // -dmin: the sign bit
        __m256i rq[8];
        D::vquants(x[r][b], rq);
        for (int s = 0; s < 8; ++s) q[s][r] = rq[s];
      }
      for (int j = 0; j < 16; ++j)
        for (int r = 0; r < kPanelRows; ++r) p[b].sm[j][r] = sm[r][j];
      for (int s = 0; s < 8; ++s) {
        __m256i groups[8];
        transpose8x8(q[s], groups);
        store_nibbles<Q5>(groups, p[b].q[4 * s], hb(b, s));
      }
    }
    return;
  }
#endif
  std::memset(p, 0, static_cast<size_t>(nb) * sizeof(Panel));
  BlockK v;
  for (int r = 0; r < rows; ++r) {
    const Block* x = reinterpret_cast<const Block*>(w + r * wrow);
    for (int64_t b = 0; b < nb; ++b) {
      D::scales(x[b], v);
      D::quants(x[b], v);
      for (int s = 0; s < 8; ++s)
        put_nibbles<Q5>(v.q + 32 * s, r, p[b].q + 4 * s, Q5 ? *hb(b, s) : nullptr);
      for (int j = 0; j < 8; ++j) {
        p[b].sm[j][r] = static_cast<uint8_t>(v.sc[2 * j]);
        p[b].sm[8 + j][r] = static_cast<uint8_t>(v.bc[2 * j]);
      }
      p[b].d[r] = x[b].d;
      p[b].db[r] = x[b].dmin ^ 0x8000;
    }
  }
}

void pack_q4_K(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  pack_nibK<false, block_q4_K, PanelQ4K>(k, w, wrow, rows, panel);
}

void pack_q5_K(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  pack_nibK<true, block_q5_K, PanelQ5K>(k, w, wrow, rows, panel);
}

// Q6_K into PanelQ6K: the 6-bit groups split into nibble pairs and 2-bit quarters.
void pack_q6_K(int64_t k, const char* w, size_t wrow, int rows, void* panel) {
  using D = DecodeQ6K;
  PanelQ6K* p = static_cast<PanelQ6K*>(panel);
  const int64_t nb = k / QK_K;
#if defined(__AVX2__)
  if (rows == kPanelRows) {
    const block_q6_K* x[kPanelRows];
    for (int r = 0; r < kPanelRows; ++r) x[r] = reinterpret_cast<const block_q6_K*>(w + r * wrow);
    const __m256i m2 = _mm256_set1_epi8(0x03);
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_next_rows<block_q6_K>(w, wrow, b);
      __m256i q[8][kPanelRows];  // sub-block s of row r
      for (int r = 0; r < kPanelRows; ++r) {
        for (int h = 0; h < 16; ++h) p[b].sc[h][r] = x[r][b].scales[h];
        p[b].d[r] = x[r][b].d;
        __m256i rq[8];
        D::vquants(x[r][b], rq);
        for (int s = 0; s < 8; ++s) q[s][r] = rq[s];
      }
      for (int s = 0; s < 8; ++s) {
        __m256i g[8];
        transpose8x8(q[s], g);
        store_nibbles<false>(g, p[b].ql[4 * s], nullptr);  // the low 4 bits
        for (int u = 0; u < 2; ++u) {  // high 2 bits of groups 8 s + 4 u + j at bits 2 j
          __m256i hv = _mm256_setzero_si256();
          for (int j = 0; j < 4; ++j)
            hv = _mm256_or_si256(
                hv,
                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(g[4 * u + j], 4), m2), 2 * j));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(p[b].qh[2 * s + u]), hv);
        }
      }
    }
    return;
  }
#endif
  std::memset(p, 0, static_cast<size_t>(nb) * sizeof(PanelQ6K));
  BlockK v;
  for (int r = 0; r < rows; ++r) {
    const block_q6_K* x = reinterpret_cast<const block_q6_K*>(w + r * wrow);
    for (int64_t b = 0; b < nb; ++b) {
      D::scales(x[b], v);
      D::quants(x[b], v);
      for (int s = 0; s < 8; ++s) put_nibbles<false>(v.q + 32 * s, r, p[b].ql + 4 * s, nullptr);
      for (int u = 0; u < 16; ++u)
        for (int e = 0; e < 4; ++e) {
          int hb = 0;
          for (int j = 0; j < 4; ++j) hb |= (v.q[4 * (4 * u + j) + e] >> 4) << (2 * j);
          p[b].qh[u][r][e] = static_cast<uint8_t>(hb);
        }
      for (int h = 0; h < 16; ++h) p[b].sc[h][r] = static_cast<int8_t>(v.sc[h]);
      p[b].d[r] = x[b].d;
    }
  }
}

}  // namespace ZEN_CPU_NS::mm
