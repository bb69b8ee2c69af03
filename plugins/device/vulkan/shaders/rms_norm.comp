#version 450
// The norms, F32, F16 or BF16 (reduced in float), strided. One workgroup per normalized set:
//   mode 0 RMS_NORM:   a row over ne0, y = x / sqrt(mean(x^2) + eps)
//   mode 1 LAYER_NORM: a row over ne0, y = (x - mean) / sqrt(var + eps)
//   mode 2 GROUP_NORM: per sample i3, `groups` sets of cpg = ne2 / groups channels, each all of
//                      ne0 x ne1 x cpg, normalized as LAYER_NORM
// Element e of a set is (i0, i1, i2) = (e % ne0, base1 + e / ne0 % n1, base2 + e / (ne0 n1)).
// Sums are reduced through shared memory, the mean first, then the squared deviations.
// Bindings: src 0, dst 1.
// pc.fuse (rows only, F32; vk_ops.cpp rec_norm_mul): the MUL by a norm weight that follows
// runs here too: p = y * w, w one row (binding 2), p strided as dst (binding 3); y is still
// written, and each product is the one the MUL's own dispatch would compute.
#include "common.glsl"

#define WG 256u
layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_a, off_d;
  float eps;
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint type;  // of src and dst: F32, F16 or BF16
  uint mode, groups;
  uint fuse, off_w, off_p, wnb0;
  uint pnb0, pnb1, pnb2, pnb3;
} pc;

shared float red[WG];

float reduce(float s) {
  const uint tid = gl_LocalInvocationID.x;
  barrier();  // red[] may still be read from the previous reduction
  red[tid] = s;
  barrier();
  for (uint k = WG / 2u; k > 0u; k >>= 1) {
    if (tid < k) red[tid] += red[tid + k];
    barrier();
  }
  return red[0];
}

void main() {
  const uint r = group_id(), tid = gl_LocalInvocationID.x;
  const bool grp = pc.mode == 2u;
  if (r >= (grp ? pc.groups * pc.ne3 : pc.ne1 * pc.ne2 * pc.ne3)) return;
  uint b1, b2, b3, n1, n2;
  if (grp) {
    n1 = pc.ne1;
    n2 = pc.ne2 / pc.groups;
    b1 = 0u;
    b2 = (r % pc.groups) * n2;
    b3 = r / pc.groups;
  } else {
    n1 = 1u;
    n2 = 1u;
    b1 = r % pc.ne1;
    b2 = (r / pc.ne1) % pc.ne2;
    b3 = r / (pc.ne1 * pc.ne2);
  }
  const uint n = pc.ne0 * n1 * n2;
  const uint a = pc.off_a + b1 * pc.anb1 + b2 * pc.anb2 + b3 * pc.anb3;
  const uint d = pc.off_d + b1 * pc.dnb1 + b2 * pc.dnb2 + b3 * pc.dnb3;
#define AT(e, nb0, nb1, nb2) \
  ((e) % pc.ne0 * nb0 + (e) / pc.ne0 % n1 * nb1 + (e) / (pc.ne0 * n1) * nb2)
  float mean = 0.0;
  if (pc.mode != 0u) {
    float s = 0.0;
    for (uint e = tid; e < n; e += WG) s += rdf_0(pc.type, a + AT(e, pc.anb0, pc.anb1, pc.anb2));
    mean = reduce(s) / float(n);
  }
  float s = 0.0;
  for (uint e = tid; e < n; e += WG) {
    const float x = rdf_0(pc.type, a + AT(e, pc.anb0, pc.anb1, pc.anb2)) - mean;
    s += x * x;
  }
  const float scale = 1.0 / sqrt(reduce(s) / float(n) + pc.eps);
  if (pc.fuse == 0u) {
    for (uint e = tid; e < n; e += WG)
      wrf_1(pc.type, d + AT(e, pc.dnb0, pc.dnb1, pc.dnb2),
            (rdf_0(pc.type, a + AT(e, pc.anb0, pc.anb1, pc.anb2)) - mean) * scale);
    return;
  }
  const uint p = pc.off_p + b1 * pc.pnb1 + b2 * pc.pnb2 + b3 * pc.pnb3;
  for (uint e = tid; e < n; e += WG) {
    const float y = (rdf32_0(a + e * pc.anb0) - mean) * scale;
    wrf32_1(d + e * pc.dnb0, y);
    wrf32_3(p + e * pc.pnb0, y * rdf32_2(pc.off_w + e * pc.wnb0));
  }
}
