// AVX2 unpacking of packed quant bits, shared by the dot products (vec_dot.cpp) and the
// packed GEMM's panel packers (gemm_pack.cpp).
#pragma once

#if defined(__AVX2__)
#include <immintrin.h>

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

}  // namespace ZEN_CPU_NS::mm
#endif
