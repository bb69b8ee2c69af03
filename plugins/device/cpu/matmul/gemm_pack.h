// The panel layouts of the packed GEMM (gemm.h) and the packers that build them from the
// GGUF block formats. Portable code: the kernels that read the panels are per ISA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemm.h"

namespace ZEN_CPU_NS::mm {

// A panel holds 8 weight rows. The kernels read it as 4-element groups: group g is elements
// 4 g .. 4 g + 3 of each of the 8 rows, one row per 32-bit lane of a 32-byte vector, so one
// broadcast 4-byte activation group meets 8 rows in one maddubs / vpdpbusd. Q8_0 stores the
// groups as they are; the other layouts keep the file's bits (a kept panel then costs about
// the file's memory and bandwidth: packed_weights.h) and the kernels unpack them in registers:
// vector v of a nibble panel holds group 2 v in its low nibbles and 2 v + 1 in its high ones
// (byte i of row r's lane: elements 8 v + i and 8 v + 4 + i), one AND and one shift apart.

// 32-element formats. Row r's weight j of a block is d[r] * q + (offset), the offset (-8 d for
// Q4_0, -16 d for Q5_0, none for Q8_0) applied through the activation block's
// s = d_y * sum(q_y). Scales stay the file's halves (converted in registers), so a panel costs
// the file's bytes.
struct Panel32 {                // Q8_0: int8 quants, 272 bytes per 8 x 32 weights (the file's)
  uint8_t q[8][kPanelRows][4];  // group g of each row
  uint16_t d[kPanelRows];
};
static_assert(sizeof(Panel32) == 272);
struct PanelQ40 {  // 144 bytes per 8 x 32 weights (the file's); o = -8 d
  uint8_t q[4][kPanelRows][4];
  uint16_t d[kPanelRows];
};
static_assert(sizeof(PanelQ40) == 144);
// The nibbles plus the 5th bits: bit j of byte e of row r's lane in hb is bit 4 of group j's
// element e. 176 bytes (the file's); o = -16 d.
struct PanelQ50 {
  uint8_t q[4][kPanelRows][4];
  uint8_t hb[kPanelRows][4];
  uint16_t d[kPanelRows];
};
static_assert(sizeof(PanelQ50) == 176);

// 256-element super-blocks (Q4_K, Q5_K, Q6_K): row r's dot product with a Q8_K activation
// block y is
//   y.d * (d[r] * sum_h sc_h[r] * (sum over 16-group h of q * y.qs)
//          + db[r] * sum_g coef_g[r] * y.bsums[g])
// with q unsigned (Q4_K/Q5_K: the quant; Q6_K: the quant before its -32), coef the mins
// (db = -dmin) or Q6_K's scales (db = -32 d); d and db halves. Q4_K: 1184 bytes per 8 x 256
// weights (the file's 1152); sm[j] is scale j (j < 8) or min j - 8 of each row.
struct PanelQ4K {
  uint8_t q[32][kPanelRows][4];
  uint8_t sm[16][kPanelRows];
  uint16_t d[kPanelRows];
  uint16_t db[kPanelRows];
};
static_assert(sizeof(PanelQ4K) == 1184);
// Q5_K: PanelQ4K's plus the 5th bits of groups 8 u .. 8 u + 7 in hb[u] (bit j: group 8 u + j),
// as PanelQ50 holds them. 1440 bytes (the file's 1408).
struct PanelQ5K {
  uint8_t q[32][kPanelRows][4];
  uint8_t hb[8][kPanelRows][4];
  uint8_t sm[16][kPanelRows];
  uint16_t d[kPanelRows];
  uint16_t db[kPanelRows];
};
static_assert(sizeof(PanelQ5K) == 1440);

// Q6_K keeps 6 bits per quant (1680 bytes per 8 x 256 weights, the file's): ql as
// PanelQ4K's q (the low 4 bits), qh[u] the high 2 bits of groups 4 u .. 4 u + 3 (bits
// 2 j, 2 j + 1 of a byte: group 4 u + j), sc[h] the int8 scale of 16-group h; db = -32 d.
struct PanelQ6K {
  uint8_t ql[32][kPanelRows][4];
  uint8_t qh[16][kPanelRows][4];
  int8_t sc[16][kPanelRows];
  uint16_t d[kPanelRows];
};
static_assert(sizeof(PanelQ6K) == 1680);

void pack_q4_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q5_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q8_0(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q4_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q5_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);
void pack_q6_K(int64_t k, const char* w, size_t wrow, int rows, void* panel);

inline size_t panel32_bytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(Panel32); }
inline size_t panelQ50_bytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(PanelQ50); }
inline size_t panelQ5K_bytes(int64_t k) { return static_cast<size_t>(k / 256) * sizeof(PanelQ5K); }
inline size_t panelQ40_bytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(PanelQ40); }
inline size_t panelQ6K_bytes(int64_t k) { return static_cast<size_t>(k / 256) * sizeof(PanelQ6K); }
inline size_t panelQ4K_bytes(int64_t k) { return static_cast<size_t>(k / 256) * sizeof(PanelQ4K); }

}  // namespace ZEN_CPU_NS::mm
