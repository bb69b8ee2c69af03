#version 450
// CONV1D, CONV2D and CONV_TRANSPOSE1D, gathered: one invocation per output element of the
// packed F32 dst [OW, OH, Cout, N], summing over (ic, ky, kx) in the CPU device's order.
//   conv:      out[ox, oy, oc, n] = sum w[kx, ky, ic, oc] x[ox s0 - p0 + kx d0, oy s1 - p1 + ky d1, ic, n]
//   transpose: out[ox, oc, n] = sum w[k, oc, ic] x[l, ic, n] over l s0 + k d0 - p0 = ox
// A 1D op is the 2D one with H = KH = OH = 1. Kernel and input F32, F16 or BF16, strided
// (the host maps their dims onto (x, y, channel, outer) strides).
// Bindings: kernel 0, input 1, dst 2.
#include "common.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_k, off_x, off_d, types;  // kernel type | input type << 8 | transpose << 16
  uint KW, KH, Cin, W;
  uint knb_x, knb_y, knb_ic, knb_oc;
  uint H, xnb_x, xnb_y, xnb_c;
  uint xnb_n, OW, OH, Cout;
  uint N;
  int s0, s1, p0, p1, d0, d1;
} pc;

void main() {
  const uint i = global_id(64u);
  if (i >= pc.OW * pc.OH * pc.Cout * pc.N) return;
  const uint ox = i % pc.OW, oy = (i / pc.OW) % pc.OH, oc = (i / (pc.OW * pc.OH)) % pc.Cout,
             n = i / (pc.OW * pc.OH * pc.Cout);
  const uint kt = pc.types & 0xffu, xt = (pc.types >> 8) & 0xffu;
  const bool transpose = (pc.types >> 16) != 0u;
  float acc = 0.0;
  for (uint ic = 0u; ic < pc.Cin; ++ic) {
    const uint kb = pc.off_k + ic * pc.knb_ic + oc * pc.knb_oc;
    const uint xb = pc.off_x + ic * pc.xnb_c + n * pc.xnb_n;
    for (uint ky = 0u; ky < pc.KH; ++ky) {
      const int iy = int(oy) * pc.s1 - pc.p1 + int(ky) * pc.d1;
      if (iy < 0 || iy >= int(pc.H)) continue;
      for (uint kx = 0u; kx < pc.KW; ++kx) {
        int ix;
        if (transpose) {  // l with l s0 = ox + p0 - k d0
          const int num = int(ox) + pc.p0 - int(kx) * pc.d0;
          if (num < 0 || num % pc.s0 != 0) continue;
          ix = num / pc.s0;
        } else {
          ix = int(ox) * pc.s0 - pc.p0 + int(kx) * pc.d0;
        }
        if (ix < 0 || ix >= int(pc.W)) continue;
        acc += rdf_0(kt, kb + kx * pc.knb_x + ky * pc.knb_y) *
               rdf_1(xt, xb + uint(ix) * pc.xnb_x + uint(iy) * pc.xnb_y);
      }
    }
  }
  wrf32_2(pc.off_d + 4u * i, acc);
}
