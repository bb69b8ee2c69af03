// AVX2 unpacking of packed quant bits into one quant per byte, shared by the dot products
// (vec_dot.cpp) and the packed GEMM's panel packers (gemm_pack.cpp).
#pragma once

#if defined(__AVX2__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ZEN_CPU_NS::mm {

// 32 nibbles of 16 bytes: low nibbles (elements 0..15) then high nibbles (16..31).
inline __m256i unpack_nibbles(const uint8_t* p) {
  const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m256i b = _mm256_set_m128i(_mm_srli_epi16(t, 4), t);
  return _mm256_and_si256(b, _mm256_set1_epi8(0x0F));
}
// Byte i of the result is 0xFF where bit i of the 32-bit word at p is set, else 0.
inline __m256i bits_to_bytes(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  // byte i takes source byte i / 8, then all bits but bit i % 8 are forced to one
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(v)),
      _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303));
  const __m256i others = _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe);
  return _mm256_cmpeq_epi8(_mm256_or_si256(spread, others), _mm256_set1_epi64x(-1));
}

// Q5_0 / Q5_1 quants as unsigned 0..31: the nibbles, with bit 4 from the 32-bit word qh.
inline __m256i unpack_q5(const uint8_t* qs, const uint8_t* qh) {
  return _mm256_or_si256(unpack_nibbles(qs),
                         _mm256_and_si256(bits_to_bytes(qh), _mm256_set1_epi8(0x10)));
}

// Q4_K (Q5 = false) and Q5_K: quants 64 j .. 64 j + 63 of a super-block from its 32 bytes qs[32
// j..] (low nibbles: sub-block 2 j, high: 2 j + 1); Q5_K adds bits 2 j and 2 j + 1 of each of the
// 32 qh bytes (hb, loaded once per super-block) as bit 4.
template <bool Q5>
inline void unpack_q45_K(const uint8_t* qs, [[maybe_unused]] __m256i hb, int j, __m256i& lo,
                         __m256i& hi) {
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + 32 * j));
  lo = _mm256_and_si256(b, m4);
  hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), m4);
  if constexpr (Q5) {
    const __m256i b4 = _mm256_set1_epi8(0x10);
    const __m256i ml = _mm256_set1_epi8(static_cast<char>(1 << (2 * j)));
    const __m256i mh = _mm256_set1_epi8(static_cast<char>(2 << (2 * j)));
    lo = _mm256_or_si256(lo, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hb, ml), ml), b4));
    hi = _mm256_or_si256(hi, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hb, mh), mh), b4));
  }
}

// Q6_K: the four runs of 32 quants (0..63) of one half of a super-block, from its 64 ql bytes
// (low 4 bits: nibbles) and 32 qh bytes (high 2 bits: bit pair r of each byte for run r).
inline void unpack_q6_K(const uint8_t* ql, const uint8_t* qh, __m256i* q) {
  const auto ld = [](const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  };
  const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x30);
  const __m256i l0 = ld(ql), l1 = ld(ql + 32), hb = ld(qh);
  // 16-bit shifts: the bits that cross into a neighbouring byte are masked off
  q[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), m2));
  q[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m2));
  q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(hb, m2));
  q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                         _mm256_and_si256(_mm256_srli_epi16(hb, 2), m2));
}

// All 8 scales (bytes 0..7) and 8 mins (bytes 8..15) of Q4_K/Q5_K in one vector, in 32-bit
// words: the low 6 bits of bytes 0..3 / 4..7 are scales / mins 0..3; bytes 8..11 hold the low
// nibbles of scales (low half) and mins (high half) 4..7, whose top 2 bits are bytes 0..3 /
// 4..7 >> 6. Reads 16 bytes from q (the 12 scale bytes and 4 quant bytes, masked away).
inline __m128i unpack_scales_k4_avx2(const uint8_t* q) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));  // u0 u1 u2 -
  const __m128i a = _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 1, 2, 0));         // u0 u2 u1 u2
  const __m128i b = _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 1, 0, 0));         // u0 u0 u1 u1
  const __m128i low = _mm_and_si128(_mm_srlv_epi32(a, _mm_setr_epi32(0, 0, 0, 4)),
                                    _mm_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f));
  const __m128i top =
      _mm_and_si128(_mm_srli_epi32(b, 2), _mm_setr_epi32(0, 0x30303030, 0, 0x30303030));
  return _mm_or_si128(low, top);
}

// Kernels that read 8 rows a block across (the 8-row GEMVs, the GEMM's panel packers) defeat
// the hardware prefetchers from memory (the first Q4_0 8-row GEMV was 1.8x slower than the
// one-row dot from DRAM, 1.5x faster from L3). The next 8 rows are contiguous: at block i,
// prefetch their block-i share.
template <class Block>
inline void prefetch_next_rows(const char* x, size_t wrow, int64_t i) {
  constexpr int kLines = (8 * sizeof(Block) + 63) / 64;  // covers each step, 64-byte lines
  const char* next = x + 8 * wrow + i * 8 * static_cast<int64_t>(sizeof(Block));
  for (int l = 0; l < kLines; ++l) _mm_prefetch(next + 64 * l, _MM_HINT_T0);
}

}  // namespace ZEN_CPU_NS::mm
#endif
