#version 450
// SOFTMAX over ne0: y = softmax(x * scale + mask), x F32 or F16, optional mask F32/F16 (row i1,
// repeated over dims 2 and 3), F32 out, strided. A row whose every value is -inf gives zeros.
// One workgroup per row: max, then sum of exponentials, reduced through shared memory.
// Bindings: x 0, mask 1, dst 2.
#include "common.glsl"

#define WG 256u
layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_a, off_m, off_d, mtype;  // mtype bits 0-3: 0 no mask, 1 F32, 2 F16; bit 4: x F16
  float scale;
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint mne2, mne3, mnb0, mnb1, mnb2, mnb3;
  uint dnb0, dnb1, dnb2, dnb3;
} pc;

shared float red[WG];

float value(uint a, uint m, uint i) {
  float v = ((pc.mtype & 16u) != 0u ? rdf16_0(a + i * pc.anb0) : rdf32_0(a + i * pc.anb0)) * pc.scale;
  const uint mt = pc.mtype & 15u;
  if (mt == 1u) v += rdf32_1(m + i * pc.mnb0);
  if (mt == 2u) v += rdf16_1(m + i * pc.mnb0);
  return v;
}

void main() {
  const uint r = group_id(), tid = gl_LocalInvocationID.x;
  if (r >= pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint i1 = r % pc.ne1, i2 = (r / pc.ne1) % pc.ne2, i3 = r / (pc.ne1 * pc.ne2);
  const uint a = pc.off_a + i1 * pc.anb1 + i2 * pc.anb2 + i3 * pc.anb3;
  const uint m = pc.off_m + i1 * pc.mnb1 + (i2 % pc.mne2) * pc.mnb2 + (i3 % pc.mne3) * pc.mnb3;
  const uint d = pc.off_d + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
  float mx = -1.0 / 0.0;
  for (uint i = tid; i < pc.ne0; i += WG) mx = max(mx, value(a, m, i));
  red[tid] = mx;
  barrier();
  for (uint k = WG / 2u; k > 0u; k >>= 1) {
    if (tid < k) red[tid] = max(red[tid], red[tid + k]);
    barrier();
  }
  mx = red[0];
  barrier();
  if (!(mx > -1.0 / 0.0)) {
    for (uint i = tid; i < pc.ne0; i += WG) wrf32_2(d + i * pc.dnb0, 0.0);
    return;
  }
  float s = 0.0;
  for (uint i = tid; i < pc.ne0; i += WG) {
    const float e = exp(value(a, m, i) - mx);
    s += e;
    wrf32_2(d + i * pc.dnb0, e);
  }
  red[tid] = s;
  barrier();
  for (uint k = WG / 2u; k > 0u; k >>= 1) {
    if (tid < k) red[tid] += red[tid + k];
    barrier();
  }
  const float inv = 1.0 / red[0];
  for (uint i = tid; i < pc.ne0; i += WG) wrf32_2(d + i * pc.dnb0, rdf32_2(d + i * pc.dnb0) * inv);
}
