/* Quantizer plugins: the numerics of tensor block formats. Type ids and block layouts are
 * GGUF's, so any GGUF file loads unchanged; `zen-engine quantize` and in-situ quantization at
 * load time go through these tables. */
#ifndef ZEN_QUANT_H
#define ZEN_QUANT_H

#include <zen/abi.h>
#include <zen/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zen_quant_type {
  zen_hdr h;
  uint32_t type;         /* zen_type */
  const char* name;      /* "Q4_K" */
  uint32_t block_size;   /* elements per block */
  uint32_t block_bytes;  /* bytes per block */
  uint32_t vec_dot_type; /* activation type its integer dot product pairs with (Q8_0, Q8_K) */
  /* Dequantize n elements (a multiple of block_size). */
  void (*to_float)(const void* src, float* dst, int64_t n);
  /* Reference quantization of n elements; `importance` (n weights) may be NULL. Returns the
   * bytes written. */
  uint64_t (*from_float)(const float* src, void* dst, int64_t n, const float* importance);
} zen_quant_type;

typedef struct zen_quant_v1 {
  zen_hdr h;
  uint32_t n_types;
  const zen_quant_type* const* types;
} zen_quant_v1;

#ifdef __cplusplus
}
#endif

#endif /* ZEN_QUANT_H */
