// The packed 6-bit scales and mins of Q4_K and Q5_K, shared by the dot products and the GEMM
// packing.
#pragma once

#include <cstdint>

namespace ZEN_CPU_NS::mm {

// 6-bit scale and min j (0..7) of Q4_K/Q5_K's packed 12 bytes.
inline void scale_min_k4(int j, const uint8_t* q, int& sc, int& m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

}  // namespace ZEN_CPU_NS::mm
