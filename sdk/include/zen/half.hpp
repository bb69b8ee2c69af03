// Scalar IEEE half and bfloat16 conversions, round-to-nearest-even, in integer arithmetic so
// the result never depends on the compiler, the ISA or the floating-point environment.
#pragma once

#include <bit>
#include <cstdint>

namespace zen::quant {

inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));  // inf, NaN
  if (exp == 0) {  // zero or subnormal: man * 2^-24, exact in float
    const float v = static_cast<float>(man) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

inline uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u)  // NaN stays a quiet NaN with the top payload bits
    return sign | 0x7e00u | static_cast<uint16_t>((ax >> 13) & 0x3ffu);
  if (ax >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to infinity
  if (ax < 0x38800000u) {                        // below 2^-14: subnormal half or zero
    const uint32_t e = ax >> 23;
    if (e < 102) return sign;  // below 2^-25 (2^-25 itself ties to even zero)
    const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24: result = round(m * 2^(e - 126))
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;  // may carry into the smallest normal
    return sign | static_cast<uint16_t>(r);
  }
  uint32_t r = ax - (112u << 23);  // rebias the exponent from 127 to 15
  const uint32_t rem = r & 0x1fffu;
  r >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;  // a carry bumps the exponent
  return sign | static_cast<uint16_t>(r);
}

inline float bf16_to_float(uint16_t h) {
  return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

inline uint16_t float_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace zen::quant
