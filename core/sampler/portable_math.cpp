#include "sampler/portable_math.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace zen::sampling {
namespace {

// Four lanes: SSE2/NEON width, the baseline this library is compiled for.
typedef float f32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));

template <class F>
F bits_to_float(auto bits) {
  F f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <class I, class F>
I float_to_bits(F f) {
  I i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

// One body for the scalar (F = float) and vector (F = f32x4) paths, so both round identically.
// exp(z) = 2^k * exp(r) with k = round(z / ln 2) and |r| <= ln(2) / 2; exp(r) by its Taylor
// polynomial to degree 6 (truncation error < 1.3e-7 relative).
template <class F, class I>
F exp_body(F z) {
  const auto tiny = !(z >= -87.0f);  // also NaN and -inf
  const F zc = tiny ? F{} + 0.0f : z;
  // Adding 1.5 * 2^23 rounds z * log2(e) to the nearest integer k and leaves k in the low bits.
  const F shifter = F{} + 12582912.0f;
  const F kd = zc * 1.44269504f + shifter;
  const F k = kd - shifter;
  // ln 2 split so that k * ln2_hi is exact for |k| < 2^15.
  const F r = (zc - k * 0.693359375f) - k * -2.12194440e-4f;
  F p = F{} + (1.0f / 720.0f);
  p = p * r + (1.0f / 120.0f);
  p = p * r + (1.0f / 24.0f);
  p = p * r + (1.0f / 6.0f);
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^k: k + 127 into the exponent field (k is in [-126, 0] here).
  const I exponent = (float_to_bits<I>(kd) + 127) << 23;
  const F scale = bits_to_float<F>(exponent);
  return tiny ? F{} + 0.0f : p * scale;
}

}  // namespace

float exp_nonpositive(float z) { return exp_body<float, int32_t>(z); }

void exp_shifted(const float* x, float shift, float scale, float* out, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    f32x4 v;
    std::memcpy(&v, x + i, sizeof v);
    const f32x4 e = exp_body<f32x4, i32x4>((v - shift) * scale);
    std::memcpy(out + i, &e, sizeof e);
  }
  for (; i < n; ++i) out[i] = exp_body<float, int32_t>((x[i] - shift) * scale);
}

float log_positive(float x) {
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)) (frexp is exact); ln m = 2 atanh(s) with
  // s = (m - 1) / (m + 1), |s| < 0.172, by its odd series (next term < 4e-10).
  int e = 0;
  double m = std::frexp(static_cast<double>(x), &e);
  if (m < 0.70710678118654752) {
    m *= 2.0;
    --e;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  const double series =
      s * (2.0 + s2 * (2.0 / 3 + s2 * (2.0 / 5 + s2 * (2.0 / 7 + s2 * (2.0 / 9)))));
  return static_cast<float>(e * 0.69314718055994531 + series);
}

}  // namespace zen::sampling
