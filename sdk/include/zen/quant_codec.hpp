// Scalar reference codecs of the GGUF block formats: dequantization bit-exact with gguf-py's
// numpy reference (gguf.quants.dequantize), quantization following ggml's reference algorithms.
// Portable C++, compiled without ISA flags and without floating-point contraction, so every
// CPU variant and every test sees exactly the same numbers. The one compiled library of the
// SDK: link ZenSDK::quant_codec (in tree: zen_quant_ref).
#pragma once

#include <zen/types.h>
#include <zen/half.hpp>
#include <zen/quant_blocks.hpp>

#include <cstddef>
#include <cstdint>

namespace zen::quant {

// Which types dequantize_row / quantize_row support (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1,
// Q8_0, Q8_1, Q2_K..Q6_K, Q8_K, IQ4_NL, IQ4_XS, MXFP4).
bool has_codec(zen_type type);
// Whether dequantize_row supports the type (same as has_codec; Q8_1 and Q8_K dequantize as
// d * q, which gguf-py has no reference for).
bool has_dequantize(zen_type type);

// Elements per block and bytes per block of a type (1 and the element size for F32/F16/BF16);
// 0 for types without a codec here.
int64_t block_size(zen_type type);
size_t block_bytes(zen_type type);
// Bytes of a row of n elements (n a multiple of the block size).
inline uint64_t row_bytes(zen_type type, int64_t n) {
  const int64_t bs = block_size(type);
  return bs ? static_cast<uint64_t>(n / bs) * block_bytes(type) : 0;
}

// Dequantize n elements (n a multiple of the type's block size) of `type` from `src` to floats.
void dequantize_row(zen_type type, const void* src, float* dst, int64_t n);

// Reference quantization of n floats into `type` blocks (n a multiple of the block size).
// Follows ggml's algorithms and is bit-identical with them (tests/data/quant/*.ggml*.qnt):
// without `importance` ggml's *_ref quantizers; with it (n weights, e.g. an imatrix row, which
// must then be passed for one tensor row at a time) ggml's importance variants (Q4_0..Q5_1,
// Q2_K..Q6_K, IQ4_NL, IQ4_XS; Q8_0, Q8_1, Q8_K and MXFP4 ignore it). Returns bytes written.
uint64_t quantize_row(zen_type type, const float* src, void* dst, int64_t n,
                      const float* importance = nullptr);

// Activation quantizers used by the integer dot products (n a multiple of the block size).
// Q8_0: d = amax / 127, q = round-half-away(x / d). Q8_1: as Q8_0 plus s = d * sum(q).
// Q8_K: d = -max / 127 where max is the element of largest magnitude, so it maps to -127
// (float d, unrounded); bsums[j] = sum of q[16j .. 16j + 15].
void quantize_row_q8_0(const float* x, block_q8_0* y, int64_t n);
void quantize_row_q8_1(const float* x, block_q8_1* y, int64_t n);
void quantize_row_q8_K(const float* x, block_q8_K* y, int64_t n);

// E8M0 exponent to float, halved: 2^(e - 128) (as ggml's GGML_E8M0_TO_FP32_HALF).
float e8m0_to_float_half(uint8_t e);

}  // namespace zen::quant
