// Rotary position embedding, NORMAL (adjacent pairs), NEOX (i, i + n_dims / 2) and MROPE (NEOX
// pairs, each pair's position from the axis its section names; positions [4 T] axis-major) modes, with
// frequency factors, linear scaling and YaRN (the host precomputes the ramp bounds and the
// magnitude scale). One work-item per (pair or passed-through element, row).
//
// Angles need more than float precision at large positions (1e5 rad off by ~1e-2), so they are
// computed and reduced to [-pi, pi] in double where the device has cl_khr_fp64 (ZEN_FP64 is
// defined by the host then), in float otherwise.
#ifdef ZEN_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double angle_t;
#else
typedef float angle_t;
#endif

kernel void k_rope(TENSOR(d), TENSOR(x), TENSOR(pos), TENSOR(ff), int has_ff, int n_dims,
                   int neox, float base, float freq_scale, float ext_factor, float mscale,
                   float corr_lo, float corr_hi, int type, int multi, int4 sections) {
  const long half_dims = n_dims / 2;
  const long per_row = half_dims + (x_ne.s0 - n_dims);
  const long e = get_global_id(0);
  const long q = e % per_row;
  const long4 r = unravel(e / per_row, (long4)(d_ne.s1, d_ne.s2, d_ne.s3, 1));  // head, token
  global const uchar* xr = BASE(x) + at4(x_nb, 0, r.s0, r.s1, r.s2);
  global uchar* yr = BASE(d) + at4(d_nb, 0, r.s0, r.s1, r.s2);
  if (q >= half_dims) {  // past n_dims: copied
    const long j = n_dims + (q - half_dims);
    store_f(yr + j * d_nb.s0, load_f(xr + j * x_nb.s0, type), type);
    return;
  }
  int axis = 0;  // MROPE: pair q's position axis is the one whose section holds q % sum
  if (multi) {
    const int sum = sections.s0 + sections.s1 + sections.s2 + sections.s3;
    int sector = (int)(q % max(sum, 1));
    const int sec[4] = {sections.s0, sections.s1, sections.s2, sections.s3};
    while (axis < 3 && sector >= sec[axis]) sector -= sec[axis++];
  }
  const int p = *(global const int*)(BASE(pos) + (axis * x_ne.s2 + r.s1) * pos_nb.s0);
  angle_t inv_freq = pow((angle_t)base, -(angle_t)(2 * q) / (angle_t)n_dims);
  if (has_ff) inv_freq /= (angle_t)(*(global const float*)(BASE(ff) + q * ff_nb.s0));
  const angle_t extrap = (angle_t)p * inv_freq;
  angle_t theta = (angle_t)freq_scale * extrap;
  if (ext_factor != 0.0f) {
    const angle_t y = ((angle_t)q - corr_lo) / max((angle_t)0.001, (angle_t)(corr_hi - corr_lo));
    const angle_t ramp = (1 - min((angle_t)1, max((angle_t)0, y))) * ext_factor;
    theta = theta * (1 - ramp) + extrap * ramp;
  }
  const angle_t two_pi = (angle_t)6.283185307179586476925;
  const float red = (float)(theta - two_pi * rint(theta / two_pi));
  const float c = cos(red) * mscale, s = sin(red) * mscale;
  const long j0 = neox ? q : 2 * q, j1 = neox ? q + half_dims : 2 * q + 1;
  const float x0 = load_f(xr + j0 * x_nb.s0, type), x1 = load_f(xr + j1 * x_nb.s0, type);
  store_f(yr + j0 * d_nb.s0, x0 * c - x1 * s, type);
  store_f(yr + j1 * d_nb.s0, x0 * s + x1 * c, type);
}
