#version 450
// SET_ROWS: row n of src F32 [K, N] is written, converted to F32 or F16, into row ids[n] of
// dst (the node's own tensor, aliasing the state it updates). One thread per element; ids
// outside the destination's rows write nothing and are reported.
// Bindings: src 0, ids 1, dst 2, status 3.
#include "common.glsl"

layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_s, off_i, off_d, dtype;
  uint K, N, R, inb0;
  uint snb0, snb1, dnb0, dnb1;
} pc;

void main() {
  const uint i = global_id(256u);
  if (i >= pc.K * pc.N) return;
  const uint k = i % pc.K, n = i / pc.K;
  const int id = int(rd32_1(pc.off_i + n * pc.inb0));
  if (id < 0 || uint(id) >= pc.R) {
    if (k == 0u) report_bad_id(2u, id, pc.R);
    return;
  }
  wrf_2(pc.dtype, pc.off_d + k * pc.dnb0 + uint(id) * pc.dnb1,
        rdf32_0(pc.off_s + k * pc.snb0 + n * pc.snb1));
}
