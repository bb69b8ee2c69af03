// Block layouts of the GGUF quantized types, bit-identical to the files: a tensor row of a
// quantized type is an array of these blocks. Scales are IEEE half (uint16_t bits) unless noted.
// Part of the SDK (header-only C++) so a device plugin reads them as the reference codecs
// (zen/quant_codec.hpp) do: a layout is written down exactly once.
#pragma once

#include <cstdint>

namespace zen::quant {

inline constexpr int QK4_0 = 32, QK4_1 = 32, QK5_0 = 32, QK5_1 = 32, QK8_0 = 32, QK8_1 = 32;
inline constexpr int QK_K = 256;         // super-block of the K-quants
inline constexpr int K_SCALE_SIZE = 12;  // packed 6-bit scales/mins of Q4_K and Q5_K

// Q4_0: x = d * (q - 8), q in [0, 15]; low nibbles hold elements 0..15, high nibbles 16..31.
struct block_q4_0 {
  uint16_t d;
  uint8_t qs[QK4_0 / 2];
};
// Q4_1: x = d * q + m.
struct block_q4_1 {
  uint16_t d, m;
  uint8_t qs[QK4_1 / 2];
};
// Q5_0: x = d * (q - 16), q = nibble | (bit from qh) << 4.
struct block_q5_0 {
  uint16_t d;
  uint8_t qh[4];
  uint8_t qs[QK5_0 / 2];
};
// Q5_1: x = d * q + m.
struct block_q5_1 {
  uint16_t d, m;
  uint8_t qh[4];
  uint8_t qs[QK5_1 / 2];
};
// Q8_0: x = d * q (also the activation format paired with the 32-element types).
struct block_q8_0 {
  uint16_t d;
  int8_t qs[QK8_0];
};
// Q8_1: activations for Q4_1/Q5_1 dot products: d and s = d * sum(qs).
struct block_q8_1 {
  uint16_t d, s;
  int8_t qs[QK8_1];
};

// Q2_K: 16 sub-blocks of 16; scales[i] = scale (low 4 bits) | min (high 4 bits).
// x = d * scale * q - dmin * min, q in [0, 3].
struct block_q2_K {
  uint8_t scales[QK_K / 16];
  uint8_t qs[QK_K / 4];
  uint16_t d, dmin;
};
// Q3_K: 16 sub-blocks of 16, 6-bit signed scales packed in 12 bytes; the high bit of each
// 3-bit quant in hmask. x = d * (scale - 32) * (q - 4 * !hbit).
struct block_q3_K {
  uint8_t hmask[QK_K / 8];
  uint8_t qs[QK_K / 4];
  uint8_t scales[12];
  uint16_t d;
};
// Q4_K: 8 sub-blocks of 32 with 6-bit scales and mins. x = d * scale * q - dmin * min.
struct block_q4_K {
  uint16_t d, dmin;
  uint8_t scales[K_SCALE_SIZE];
  uint8_t qs[QK_K / 2];
};
// Q5_K: as Q4_K with a fifth bit per quant in qh.
struct block_q5_K {
  uint16_t d, dmin;
  uint8_t scales[K_SCALE_SIZE];
  uint8_t qh[QK_K / 8];
  uint8_t qs[QK_K / 2];
};
// Q6_K: 16 sub-blocks of 16 with int8 scales; 4 low bits in ql, 2 high bits in qh.
// x = d * scale * (q - 32).
struct block_q6_K {
  uint8_t ql[QK_K / 2];
  uint8_t qh[QK_K / 4];
  int8_t scales[QK_K / 16];
  uint16_t d;
};
// Q8_K: activations for the K-quant dot products. d is a float; bsums are the sums of each
// group of 16 quants (they fold the K-quants' mins into the dot product).
struct block_q8_K {
  float d;
  int8_t qs[QK_K];
  int16_t bsums[QK_K / 16];
};

static_assert(sizeof(block_q4_0) == 18 && sizeof(block_q4_1) == 20);
static_assert(sizeof(block_q5_0) == 22 && sizeof(block_q5_1) == 24);
static_assert(sizeof(block_q8_0) == 34 && sizeof(block_q8_1) == 36);
static_assert(sizeof(block_q2_K) == 84 && sizeof(block_q3_K) == 110);
static_assert(sizeof(block_q4_K) == 144 && sizeof(block_q5_K) == 176);
static_assert(sizeof(block_q6_K) == 210 && sizeof(block_q8_K) == 292);

// IQ4_NL: 32 elements, x = d * kvalues_iq4nl[q] (a fixed non-linear 4-bit grid).
inline constexpr int QK4_NL = 32;
struct block_iq4_nl {
  uint16_t d;
  uint8_t qs[QK4_NL / 2];
};
// IQ4_XS: 8 sub-blocks of 32 on the IQ4_NL grid with 6-bit signed scales (low 4 bits in
// scales_l, high 2 bits in scales_h). x = d * (scale - 32) * kvalues_iq4nl[q].
struct block_iq4_xs {
  uint16_t d;
  uint16_t scales_h;
  uint8_t scales_l[QK_K / 64];
  uint8_t qs[QK_K / 2];
};
// MXFP4 (OCP microscaling): 32 E2M1 values sharing an E8M0 exponent e.
// x = 2^(e - 128) * kvalues_mxfp4[q] (the E2M1 values doubled, hence the - 128 not - 127).
inline constexpr int QK_MXFP4 = 32;
struct block_mxfp4 {
  uint8_t e;
  uint8_t qs[QK_MXFP4 / 2];
};

static_assert(sizeof(block_iq4_nl) == 18 && sizeof(block_iq4_xs) == 136 &&
              sizeof(block_mxfp4) == 17);

// The non-linear 4-bit grids: IQ4_NL / IQ4_XS values, and MXFP4's E2M1 values doubled (the
// block's E8M0 scale is applied halved).
inline constexpr int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                             1,    13,   25,  38,  53,  69,  89,  113};
inline constexpr int8_t kvalues_mxfp4[16] = {0, 1,  2,  3,  4,  6,  8,  12,
                                             0, -1, -2, -3, -4, -6, -8, -12};

}  // namespace zen::quant
