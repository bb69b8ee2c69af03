// Vector dot products of one weight row with one activation row, per weight type, and the
// activation quantizers they pair with. Each weight type names the activation format its dot
// product reads (Act): F32 rows for the float weights, Q8 blocks of 32 for the 32-element
// formats, Q8_K blocks of 256 for the K-quants. The activations are converted once per node
// into the kernel's scratch, then every weight row streams against them.
//
// Every function has a portable scalar body; the ISA variants swap in AVX2 (+FMA/F16C), AVX-512
// VNNI and NEON dotprod bodies under the predefined ISA macros (see vec_dot.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include <zen/types.h>
#include <zen/quant_blocks.hpp>

namespace ZEN_CPU_NS::mm {

// Activation block of the 32-element formats: float scale (no half rounding of d, so the only
// activation error is the rounding of q), s = d * sum(qs) folds the mins of Q4_1/Q5_1.
struct act_q8 {
  float d, s;
  int8_t qs[32];
};
static_assert(sizeof(act_q8) == 40);
using act_q8k = zen::quant::block_q8_K;

enum class Act { F32, Q8, Q8K };

// dot(k, w, a): sum over k elements of weight row w and activation row a (in format Act).
using DotFn = float (*)(int64_t k, const void* w, const void* a);
// Four activation rows a[0..3] at once: one weight-block load feeds 4 columns.
using Dot4Fn = void (*)(int64_t k, const void* w, const void* const* a, float* out);
// Eight weight rows (w, w + wrow, ...) x one activation row: decode's matrix-vector product,
// with the per-block scaling shared by the eight rows.
using Dot8Fn = void (*)(int64_t k, const void* w, size_t wrow, const void* a, float* out);

struct WeightType {
  int64_t blck;           // elements per block (1 for float types)
  size_t bytes;           // bytes per block
  Act act;                // activation format the dot product reads
  DotFn dot;              // one weight row x one activation row
  Dot4Fn dot4;            // one weight row x 4 activation rows (nullptr: loop over dot)
  Dot8Fn dot8 = nullptr;  // 8 weight rows x one activation row (nullptr: loop over dot)
};

// The weight types matmul supports here, or nullptr.
const WeightType* weight_type(uint32_t type);

// Bytes of one activation row of k elements in format `act`.
inline size_t act_row_bytes(Act act, int64_t k) {
  switch (act) {
    case Act::F32:
      return static_cast<size_t>(k) * sizeof(float);
    case Act::Q8:
      return static_cast<size_t>(k / 32) * sizeof(act_q8);
    case Act::Q8K:
      return static_cast<size_t>(k / 256) * sizeof(act_q8k);
  }
  return 0;
}

// Converts k floats (x, stride xs bytes between elements) into one activation row.
void quantize_act(Act act, const char* x, int64_t xs, int64_t k, void* out);

}  // namespace ZEN_CPU_NS::mm
