// Half-precision element types of the CPU kernels and their scalar conversions,
// round-to-nearest-even in integer arithmetic so every ISA variant gives the same result.
#pragma once

#include <cstdint>

#include <zen/half.hpp>

namespace ZEN_CPU_NS {

struct f16_t {
  uint16_t bits;
};
struct bf16_t {
  uint16_t bits;
};

// The conversions themselves are the reference codecs' (one copy, bit-identical everywhere).
inline float f16_to_f32(uint16_t h) { return zen::quant::half_to_float(h); }
inline uint16_t f32_to_f16(float f) { return zen::quant::float_to_half(f); }
inline float bf16_to_f32(uint16_t h) { return zen::quant::bf16_to_float(h); }
inline uint16_t f32_to_bf16(float f) { return zen::quant::float_to_bf16(f); }

inline float to_f32(float v) { return v; }
inline float to_f32(f16_t v) { return f16_to_f32(v.bits); }
inline float to_f32(bf16_t v) { return bf16_to_f32(v.bits); }

template <class T>
T from_f32(float f);
template <>
inline float from_f32<float>(float f) {
  return f;
}
template <>
inline f16_t from_f32<f16_t>(float f) {
  return {f32_to_f16(f)};
}
template <>
inline bf16_t from_f32<bf16_t>(float f) {
  return {f32_to_bf16(f)};
}

}  // namespace ZEN_CPU_NS
