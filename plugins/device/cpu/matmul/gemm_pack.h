// The panel layouts of the packed GEMM (gemm.h) and the packers that build them from the
// GGUF block formats. Portable code: the kernels that read the panels are per ISA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemm.h"

namespace ZEN_CPU_NS::mm {

// One 32-element block of 8 rows (Q4_0, Q5_0, Q8_0). Row r's weight j is
// d[r] * q + (offset), where the offset (-8 d for Q4_0, -16 d for Q5_0, none for Q8_0) is
// applied through the activation block's s = d_y * sum(q_y): o[r] = -8 d[r] or -16 d[r].
struct Panel32 {
  uint8_t q[8][kPanelRows][4];  // group g (elements 4g .. 4g + 3) of each row; Q8_0: int8
  float d[kPanelRows];
  float o[kPanelRows];
};
static_assert(sizeof(Panel32) == 320);

// One 256-element super-block of 8 rows (Q4_K, Q5_K, Q6_K): row r's dot product with a Q8_K
// activation block y is
//   y.d * (d[r] * sum_h sc[h][r] * (sum over 16-group h of q * y.qs)
//          + db[r] * sum_g coef_g[r] * y.bsums[g])
// with q unsigned (Q4_K/Q5_K: the quant; Q6_K: the quant before its -32), coef the mins
// (db = -dmin) or Q6_K's scales (db = -32 d).
struct PanelK {
  uint8_t q[64][kPanelRows][4];   // group g (elements 4g .. 4g + 3) of each row
  int16_t sc[16][kPanelRows][2];  // scale of 16-group h, twice: madd multiplies int16 pairs
  int16_t bc[8][kPanelRows][2];   // coefficients of bsums 2i and 2i + 1
  float d[kPanelRows];
  float db[kPanelRows];
};
static_assert(sizeof(PanelK) == 2880);

void pack_q4_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q5_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q8_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q4_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q5_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q6_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);

inline size_t panel32_bytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(Panel32); }
inline size_t panelK_bytes(int64_t k) { return static_cast<size_t>(k / 256) * sizeof(PanelK); }

}  // namespace ZEN_CPU_NS::mm
