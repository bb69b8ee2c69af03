#version 450
// RMS_NORM over ne0: y = x / sqrt(mean(x^2) + eps), F32, strided. One workgroup per row; the
// sum of squares is reduced through shared memory. Bindings: src 0, dst 1.
#include "common.glsl"

#define WG 256u
layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_a, off_d;
  float eps;
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint type;  // of src and dst: F32, F16 or BF16 (reduced in float)
} pc;

shared float red[WG];

void main() {
  const uint r = group_id(), tid = gl_LocalInvocationID.x;
  if (r >= pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint i1 = r % pc.ne1, i2 = (r / pc.ne1) % pc.ne2, i3 = r / (pc.ne1 * pc.ne2);
  const uint a = pc.off_a + i1 * pc.anb1 + i2 * pc.anb2 + i3 * pc.anb3;
  const uint d = pc.off_d + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
  float s = 0.0;
  for (uint i = tid; i < pc.ne0; i += WG) {
    const float x = rdf_0(pc.type, a + i * pc.anb0);
    s += x * x;
  }
  red[tid] = s;
  barrier();
  for (uint k = WG / 2u; k > 0u; k >>= 1) {
    if (tid < k) red[tid] += red[tid + k];
    barrier();
  }
  const float scale = 1.0 / sqrt(red[0] / float(pc.ne0) + pc.eps);
  for (uint i = tid; i < pc.ne0; i += WG) wrf_1(pc.type, d + i * pc.dnb0, rdf_0(pc.type, a + i * pc.anb0) * scale);
}
