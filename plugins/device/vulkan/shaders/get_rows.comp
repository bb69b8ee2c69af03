#version 450
// GET_ROWS: dst F32 [K, N, B2, B3] row (n, b2, b3) = row ids[n, b2, b3] of table [K, R, B2, B3]
// (any type dq32() decodes), one thread per 32-element chunk of an output row. Binding 0 may
// be a window of the table (rows r0 .. r0 + Rw - 1): rows outside it are left to the
// dispatches of the other windows. Ids outside 0..R-1 write nothing and are reported.
// direct = 1: CPY of a block-format tensor to F32 (row n of dst is row n of the table; ids
// unused).
// Bindings: table 0, ids 1, dst 2, status 3.
#include "common.glsl"
#include "quant.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_t, off_i, off_d, ttype;
  uint K, N, B2, B3;
  uint tnb0, tnb1, tnb2, tnb3;
  uint inb0, inb1, inb2, R;
  uint dnb0, dnb1, dnb2, dnb3;
  uint r0, Rw, direct;
} pc;

void main() {
  const uint chunks = (pc.K + 31u) / 32u;
  const uint i = global_id(64u);
  if (i >= chunks * pc.N * pc.B2 * pc.B3) return;
  const uint ch = i % chunks, row = i / chunks;
  const uint n = row % pc.N, b2 = (row / pc.N) % pc.B2, b3 = row / (pc.N * pc.B2);
  const int id =
      pc.direct != 0u ? int(n) : int(rd32_1(pc.off_i + n * pc.inb0 + b2 * pc.inb1 + b3 * pc.inb2));
  if (id < 0 || uint(id) >= pc.R) {
    if (pc.r0 == 0u && ch == 0u) report_bad_id(1u, id, pc.R);
    return;
  }
  if (uint(id) < pc.r0 || uint(id) >= pc.r0 + pc.Rw) return;
  const uint trow = pc.off_t + (uint(id) - pc.r0) * pc.tnb1 + b2 * pc.tnb2 + b3 * pc.tnb3;
  float v[32];
  dq32(pc.ttype, trow, ch, pc.tnb0, pc.K, v);
  const uint o = pc.off_d + n * pc.dnb1 + b2 * pc.dnb2 + b3 * pc.dnb3;
  for (uint j = 0u; j < 32u; ++j) {
    const uint k = ch * 32u + j;
    if (k < pc.K) wrf32_2(o + k * pc.dnb0, v[j]);
  }
}
