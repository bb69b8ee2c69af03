#version 450
// CPY (and each source of CONCAT): dst[i] = convert(src[i]) over the 4D shape ne, both sides
// strided; types F32, F16, BF16, I32 (I32 only to I32; equal types copied bit for bit). src binding 0, dst 1.
#include "common.glsl"

layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_s, off_d, stype, dtype;
  uint ne0, ne1, ne2, ne3;
  uint snb0, snb1, snb2, snb3;
  uint dnb0, dnb1, dnb2, dnb3;
} pc;

void main() {
  const uint i = global_id(256u);
  if (i >= pc.ne0 * pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint i0 = i % pc.ne0, i1 = (i / pc.ne0) % pc.ne1, i2 = (i / (pc.ne0 * pc.ne1)) % pc.ne2,
             i3 = i / (pc.ne0 * pc.ne1 * pc.ne2);
  const uint so = pc.off_s + i0 * pc.snb0 + i1 * pc.snb1 + i2 * pc.snb2 + i3 * pc.snb3;
  const uint dof = pc.off_d + i0 * pc.dnb0 + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
  if (pc.stype == TYPE_I32 || (pc.stype == TYPE_F32 && pc.dtype == TYPE_F32))
    wr32_1(dof, bufs[0].w[so >> 2]);
  else if (pc.stype == pc.dtype)  // F16, BF16: the bits
    wr16_1(dof, rd16_0(so));
  else
    wrf_1(pc.dtype, dof, rdf_0(pc.stype, so));
}
