// The panel layouts of the packed GEMM (gemm.h) and the packers that build them from the
// GGUF block formats. Portable code: the kernels that read the panels are per ISA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemm.h"

namespace ZEN_CPU_NS::mm {

// One 32-element block of 8 rows (Q5_0, Q8_0; Q4_0's PanelQ40 holds the same in fewer bytes). Row
// r's weight j is d[r] * q + (offset), where the offset (-8 d for Q4_0, -16 d for Q5_0, none for
// Q8_0) is applied through the activation block's s = d_y * sum(q_y): o[r] = -8 d[r] or -16 d[r].
struct Panel32 {
  uint8_t q[8][kPanelRows][4];  // group g (elements 4g .. 4g + 3) of each row; Q8_0: int8
  float d[kPanelRows];
  float o[kPanelRows];
};
static_assert(sizeof(Panel32) == 320);

// Q4_0's panel keeps the nibbles (160 bytes per 8 x 32 weights, the file's 144 and 16): q as
// PanelQ4K's (vector v: groups 2 v and 2 v + 1), o = -8 d.
struct PanelQ40 {
  uint8_t q[4][kPanelRows][4];
  float d[kPanelRows];
};
static_assert(sizeof(PanelQ40) == 160);

// One 256-element super-block of 8 rows (Q5_K; Q4_K and Q6_K's panels below hold the same
// values in fewer bytes): row r's dot product with a Q8_K
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

// Q4_K's panel keeps the nibbles (1216 bytes per 8 x 256 weights, 5.6 % over the file's
// blocks), so a panel kept for the life of a weight (packed_weights.h) costs about the file's
// memory and bandwidth, not PanelK's 2.5x. Byte i of row r's lane in q[v] holds element
// 8 v + i of the row in its low nibble and 8 v + 4 + i in its high one: one AND and one shift
// give PanelK's groups 2 v and 2 v + 1. sm[j] holds scale j (j < 8) or min j - 8 of each row.
struct PanelQ4K {
  uint8_t q[32][kPanelRows][4];
  uint8_t sm[16][kPanelRows];
  float d[kPanelRows];
  float db[kPanelRows];
};
static_assert(sizeof(PanelQ4K) == 1216);

// Q6_K's panel keeps 6 bits per quant (1696 bytes per 8 x 256 weights, the file's 1680 and 16):
// ql as PanelQ4K's q (the low 4 bits), qh[u] the high 2 bits of groups 4 u .. 4 u + 3 (bits
// 2 j, 2 j + 1 of a byte: group 4 u + j), sc[h] the int8 scale of 16-group h; db = -32 d.
struct PanelQ6K {
  uint8_t ql[32][kPanelRows][4];
  uint8_t qh[16][kPanelRows][4];
  int8_t sc[16][kPanelRows];
  float d[kPanelRows];
};
static_assert(sizeof(PanelQ6K) == 1696);

void pack_q4_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q5_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q8_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q4_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q5_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q6_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);

inline size_t panel32_bytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(Panel32); }
inline size_t panelK_bytes(int64_t k) { return static_cast<size_t>(k / 256) * sizeof(PanelK); }
inline size_t panelQ40_bytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(PanelQ40); }
inline size_t panelQ6K_bytes(int64_t k) { return static_cast<size_t>(k / 256) * sizeof(PanelQ6K); }
inline size_t panelQ4K_bytes(int64_t k) { return static_cast<size_t>(k / 256) * sizeof(PanelQ4K); }

}  // namespace ZEN_CPU_NS::mm
