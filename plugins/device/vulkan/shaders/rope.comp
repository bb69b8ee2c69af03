#version 450
// ROPE of x F32 [D, H, T, B] by positions I32 [T], optional frequency factors F32 [n_dims/2]:
// pair i of the first n_dims elements rotates by theta_i = pos * base^(-2i / n_dims) / ff_i,
// then linear scaling and the YaRN ramp (as the CPU device computes them). NORMAL mode pairs
// (2i, 2i + 1), NEOX (i, i + n_dims / 2); elements past n_dims are copied. As on the CPU, the
// angle is computed and reduced to [-pi, pi] in double (positions reach 1e5, where a float
// angle is off by 1e-2 rad), rounded to float as on the CPU, and sin/cos taken in double. base^(-2/n_dims) comes from the host
// in double; its i-th power is taken by squaring. One thread per (pair or copied element, row).
// MROPE (multi-axis): NEOX pairs; pair i takes its position from axis a (positions [4 T],
// axis-major) where the sections (8 bits each) hold i % sum(sections).
// Bindings: x 0, pos 1, freq factors 2, dst 3.
#include "common.glsl"
#extension GL_ARB_gpu_shader_fp64 : enable

layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_x, off_p, off_f, off_d;
  uint ne0, ne1, ne2, ne3;
  uint xnb0, xnb1, xnb2, xnb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint n_dims, flags;  // flags: bit 0 neox, bit 1 freq factors present, bit 2 multi-axis
  uint rlo, rhi;       // base^(-2 / n_dims) as a double's two words
  float freq_scale, ext_factor, corr_lo, corr_hi, mscale;
  uint pnb0, fnb0;
  uint type;  // of x and dst: F32, F16 or BF16 (rotated in float)
  uint sections;  // MROPE: pairs per axis, 8 bits each (time, height, width, extra)
} pc;

// (cos, sin) of a, |a| <= pi + 1e-6, to double accuracy: the float sin/cos of some drivers
// (lavapipe's among them) are off by ~1e-6, more than the rotation's own rounding. Reduced to
// [-pi/4, pi/4] by quadrant, then Taylor series (error < 1e-15 there).
vec2 sincos_d(double a) {
  const double half_pi = 1.5707963267948966192313lf;
  const double k = roundEven(a / half_pi);
  const double r = a - k * half_pi, r2 = r * r;
  const double s = r * (1.0lf - r2 / 6.0lf * (1.0lf - r2 / 20.0lf * (1.0lf - r2 / 42.0lf *
                   (1.0lf - r2 / 72.0lf * (1.0lf - r2 / 110.0lf * (1.0lf - r2 / 156.0lf *
                   (1.0lf - r2 / 210.0lf)))))));
  const double c = 1.0lf - r2 / 2.0lf * (1.0lf - r2 / 12.0lf * (1.0lf - r2 / 30.0lf *
                   (1.0lf - r2 / 56.0lf * (1.0lf - r2 / 90.0lf * (1.0lf - r2 / 132.0lf *
                   (1.0lf - r2 / 182.0lf))))));
  switch (int(k) & 3) {
    case 0: return vec2(float(c), float(s));
    case 1: return vec2(float(-s), float(c));
    case 2: return vec2(float(-c), float(-s));
    default: return vec2(float(s), float(-c));
  }
}

void main() {
  const uint half_ = pc.n_dims / 2u, tail = pc.ne0 - pc.n_dims;
  const uint per_row = half_ + tail;
  const uint i = global_id(64u);
  if (i >= per_row * pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint q = i % per_row, row = i / per_row;
  const uint i1 = row % pc.ne1, i2 = (row / pc.ne1) % pc.ne2, i3 = row / (pc.ne1 * pc.ne2);
  const uint x = pc.off_x + i1 * pc.xnb1 + i2 * pc.xnb2 + i3 * pc.xnb3;
  const uint d = pc.off_d + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
  if (q >= half_) {  // past n_dims: copied
    const uint j = pc.n_dims + (q - half_);
    wrf_3(pc.type, d + j * pc.dnb0, rdf_0(pc.type, x + j * pc.xnb0));
    return;
  }
  // inv_freq = r^q by squaring, in double
  double base = packDouble2x32(uvec2(pc.rlo, pc.rhi)), inv = 1.0lf;
  for (uint e = q; e != 0u; e >>= 1) {
    if ((e & 1u) != 0u) inv *= base;
    base *= base;
  }
  if ((pc.flags & 2u) != 0u) inv /= double(rdf32_2(pc.off_f + q * pc.fnb0));
  uint axis = 0u;
  if ((pc.flags & 4u) != 0u) {
    const uvec4 sec = (uvec4(pc.sections) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu;
    uint sector = q % (sec.x + sec.y + sec.z + sec.w);
    while (axis < 3u && sector >= sec[axis]) sector -= sec[axis++];
  }
  const double pos = double(int(rd32_1(pc.off_p + (axis * pc.ne2 + i2) * pc.pnb0)));
  const double extrap = pos * inv;
  double theta = double(pc.freq_scale) * extrap;
  if (pc.ext_factor != 0.0) {
    // In double: a float ramp (1e-7 relative) times angles of 1e4 rad is off by 1e-3 rad.
    const double y = (double(q) - double(pc.corr_lo)) /
                     max(0.001lf, double(pc.corr_hi) - double(pc.corr_lo));
    const double ramp = (1.0lf - min(1.0lf, max(0.0lf, y))) * double(pc.ext_factor);
    theta = theta * (1.0lf - ramp) + extrap * ramp;
  }
  const double two_pi = 6.283185307179586476925lf;
  const double red = theta - two_pi * roundEven(theta / two_pi);
  vec2 cs = sincos_d(double(float(red)));
  const float c = cs.x * pc.mscale, s = cs.y * pc.mscale;
  const bool neox = (pc.flags & 1u) != 0u;
  const uint j0 = neox ? q : 2u * q, j1 = neox ? q + half_ : 2u * q + 1u;
  const float x0 = rdf_0(pc.type, x + j0 * pc.xnb0), x1 = rdf_0(pc.type, x + j1 * pc.xnb0);
  wrf_3(pc.type, d + j0 * pc.dnb0, x0 * c - x1 * s);
  wrf_3(pc.type, d + j1 * pc.dnb0, x0 * s + x1 * c);
}
