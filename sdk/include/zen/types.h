/* Tensor element types. The numeric ids are GGUF's (ggml_type) so any GGUF file's tensor
 * table maps onto them unchanged; ids GGUF has retired are never reused. Append-only. */
#ifndef ZEN_TYPES_H
#define ZEN_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zen_type {
  ZEN_TYPE_F32 = 0,
  ZEN_TYPE_F16 = 1,
  ZEN_TYPE_Q4_0 = 2,
  ZEN_TYPE_Q4_1 = 3,
  /* 4, 5: retired (Q4_2, Q4_3) */
  ZEN_TYPE_Q5_0 = 6,
  ZEN_TYPE_Q5_1 = 7,
  ZEN_TYPE_Q8_0 = 8,
  ZEN_TYPE_Q8_1 = 9,
  ZEN_TYPE_Q2_K = 10,
  ZEN_TYPE_Q3_K = 11,
  ZEN_TYPE_Q4_K = 12,
  ZEN_TYPE_Q5_K = 13,
  ZEN_TYPE_Q6_K = 14,
  ZEN_TYPE_Q8_K = 15,
  ZEN_TYPE_IQ2_XXS = 16,
  ZEN_TYPE_IQ2_XS = 17,
  ZEN_TYPE_IQ3_XXS = 18,
  ZEN_TYPE_IQ1_S = 19,
  ZEN_TYPE_IQ4_NL = 20,
  ZEN_TYPE_IQ3_S = 21,
  ZEN_TYPE_IQ2_S = 22,
  ZEN_TYPE_IQ4_XS = 23,
  ZEN_TYPE_I8 = 24,
  ZEN_TYPE_I16 = 25,
  ZEN_TYPE_I32 = 26,
  ZEN_TYPE_I64 = 27,
  ZEN_TYPE_F64 = 28,
  ZEN_TYPE_IQ1_M = 29,
  ZEN_TYPE_BF16 = 30,
  /* 31-33: retired (Q4_0_4_4, Q4_0_4_8, Q4_0_8_8) */
  ZEN_TYPE_TQ1_0 = 34,
  ZEN_TYPE_TQ2_0 = 35,
  /* 36-38: retired (IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8) */
  ZEN_TYPE_MXFP4 = 39,
  ZEN_TYPE_NVFP4 = 40,
  ZEN_TYPE_Q1_0 = 41,
  ZEN_TYPE_COUNT = 42 /* one past the largest id; not a type */
} zen_type;

#ifdef __cplusplus
}
#endif

#endif /* ZEN_TYPES_H */
