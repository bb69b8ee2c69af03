#version 450
// UPSAMPLE: src [W, H, C, N] (F32, F16 or BF16, strided) to the F32 dst's shape, one
// invocation per output element. Mode 0: nearest in all four dims (source index
// floor(o * in / out)); mode 1: bilinear in W and H with half-pixel centres (PyTorch
// align_corners=False: src = max(0, (o + 0.5) * in / out - 0.5)), nearest in C and N.
// Bindings: src 0, dst 1.
#include "common.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_s, off_d, stype, mode;
  uint sne0, sne1, sne2, sne3;
  uint snb0, snb1, snb2, snb3;
  uint ne0, ne1, ne2, ne3;
  uint dnb0, dnb1, dnb2, dnb3;
} pc;

// Source coordinates c0, c1 and weight t of output o along a dim of n_in -> n_out.
void coord(uint o, uint n_in, uint n_out, out uint c0, out uint c1, out float t) {
  const float x = max(0.0, (float(o) + 0.5) * float(n_in) / float(n_out) - 0.5);
  c0 = min(uint(x), n_in - 1u);
  c1 = min(c0 + 1u, n_in - 1u);
  t = x - float(c0);
}

void main() {
  const uint i = global_id(64u);
  if (i >= pc.ne0 * pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint i0 = i % pc.ne0, i1 = (i / pc.ne0) % pc.ne1, i2 = (i / (pc.ne0 * pc.ne1)) % pc.ne2,
             i3 = i / (pc.ne0 * pc.ne1 * pc.ne2);
  const uint base = pc.off_s + (i2 * pc.sne2 / pc.ne2) * pc.snb2 + (i3 * pc.sne3 / pc.ne3) * pc.snb3;
  const uint dof = pc.off_d + i0 * pc.dnb0 + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
  if (pc.mode == 0u) {
    wrf32_1(dof, rdf_0(pc.stype, base + (i0 * pc.sne0 / pc.ne0) * pc.snb0 +
                                     (i1 * pc.sne1 / pc.ne1) * pc.snb1));
    return;
  }
  uint x0, x1, y0, y1;
  float tx, ty;
  coord(i0, pc.sne0, pc.ne0, x0, x1, tx);
  coord(i1, pc.sne1, pc.ne1, y0, y1, ty);
  const uint r0 = base + y0 * pc.snb1, r1 = base + y1 * pc.snb1;
  const float a00 = rdf_0(pc.stype, r0 + x0 * pc.snb0), a01 = rdf_0(pc.stype, r0 + x1 * pc.snb0);
  const float a10 = rdf_0(pc.stype, r1 + x0 * pc.snb0), a11 = rdf_0(pc.stype, r1 + x1 * pc.snb0);
  const float top = a00 + (a01 - a00) * tx, bottom = a10 + (a11 - a10) * tx;
  wrf32_1(dof, top + (bottom - top) * ty);
}
