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

// Pair q (q < n_dims / 2) of row xr into yr at position p: theta = p * base^(-2q / n_dims)
// (over its frequency factor), linear and YaRN scaling, reduced to [-pi, pi] in angle_t, then
// float sin / cos; NEOX pairs (q, q + n_dims / 2), NORMAL (2q, 2q + 1).
inline void rope_pair(global const uchar* xr, long xs, global uchar* yr, long ys, long q, int p,
                      float ff, int n_dims, int neox, float base, float freq_scale,
                      float ext_factor, float mscale, float corr_lo, float corr_hi, int type) {
  const long half_dims = n_dims / 2;
  angle_t inv_freq = pow((angle_t)base, -(angle_t)(2 * q) / (angle_t)n_dims);
  inv_freq /= (angle_t)ff;
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
  const float x0 = load_f(xr + j0 * xs, type), x1 = load_f(xr + j1 * xs, type);
  store_f(yr + j0 * ys, x0 * c - x1 * s, type);
  store_f(yr + j1 * ys, x0 * s + x1 * c, type);
}

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
  const float f = has_ff ? *(global const float*)(BASE(ff) + q * ff_nb.s0) : 1.0f;
  rope_pair(xr, x_nb.s0, yr, d_nb.s0, q, p, f, n_dims, neox, base, freq_scale, ext_factor, mscale,
            corr_lo, corr_hi, type);
}

// zen/fusion.hpp norm_mul_rope: k_norm's fused pass over a row (head) into n (the norm) and p
// (weighed), then the row's rope from p into d, as k_rope computes it (no MROPE; F32): a
// work-group per row, items striding over its pairs once the group's writes of p are visible.
kernel void k_norm_rope(TENSOR(n), TENSOR(a), TENSOR(w), TENSOR(p), float eps, TENSOR(d),
                        TENSOR(pos), TENSOR(ff), int has_ff, int n_dims, int neox, float base,
                        float freq_scale, float ext_factor, float mscale, float corr_lo,
                        float corr_hi) {
  local float part[NORM_WG];
  const long4 r = unravel(get_group_id(0), (long4)(n_ne.s1, n_ne.s2, n_ne.s3, 1));
  global uchar* prow = BASE(p) + at4(p_nb, 0, r.s0, r.s1, r.s2);
  norm_row(BASE(a) + at4(a_nb, 0, r.s0, r.s1, r.s2), a_nb.s0,
           BASE(n) + at4(n_nb, 0, r.s0, r.s1, r.s2), n_nb.s0, BASE(w), w_nb.s0, prow, p_nb.s0,
           a_ne.s0, eps, 0, T_F32, 1, part);
  barrier(CLK_GLOBAL_MEM_FENCE);
  global uchar* yr = BASE(d) + at4(d_nb, 0, r.s0, r.s1, r.s2);
  const long half_dims = n_dims / 2, per_row = half_dims + (d_ne.s0 - n_dims);
  const int p0 = *(global const int*)(BASE(pos) + r.s1 * pos_nb.s0);
  for (long q = get_local_id(0); q < per_row; q += get_local_size(0)) {
    if (q >= half_dims) {
      const long j = n_dims + (q - half_dims);
      *(global float*)(yr + j * d_nb.s0) = *(global const float*)(prow + j * p_nb.s0);
      continue;
    }
    const float f = has_ff ? *(global const float*)(BASE(ff) + q * ff_nb.s0) : 1.0f;
    rope_pair(prow, p_nb.s0, yr, d_nb.s0, q, p0, f, n_dims, neox, base, freq_scale, ext_factor,
              mscale, corr_lo, corr_hi, T_F32);
  }
}
