// CONV1D, CONV2D and CONV_TRANSPOSE1D as one gather: one work-item per element of dst
// [OW, OH, Cout, N], summing over (ic, ky, kx) in the order the CPU device adds its taps.
//   conv:      dst[ox, oy, oc, n] = sum w[kx, ky, ic, oc] * x[ox s0 - p0 + kx d0, oy s1 - p1 + ky d1, ic, n]
//   transpose: dst[ox, oc, n] = sum w[k, oc, ic] * x[l, ic, n] over the l with l s0 + k d0 - p0 = ox
// The host presents every operand as 4D (x, y, channel, outer) through ne/nb: a 1D op has
// H = KH = OH = 1, and the transpose's kernel [K, Cout, Cin] is read as [K, 1, Cin, Cout].
// Kernel and input F32, F16 or BF16, any strides; dst F32.
kernel void k_conv(TENSOR(d), TENSOR(w), TENSOR(x), int wtype, int xtype, int transpose, int s0,
                   int s1, int p0, int p1, int d0, int d1) {
  const long4 o = unravel(get_global_id(0), d_ne);  // (ox, oy, oc, n)
  const long KW = w_ne.s0, KH = w_ne.s1, cin = w_ne.s2, W = x_ne.s0, H = x_ne.s1;
  float acc = 0.0f;
  for (long ic = 0; ic < cin; ++ic) {
    global const uchar* wc = BASE(w) + at4(w_nb, 0, 0, ic, o.s2);
    global const uchar* xc = BASE(x) + at4(x_nb, 0, 0, ic, o.s3);
    for (long ky = 0; ky < KH; ++ky) {
      const long iy = o.s1 * s1 - p1 + ky * d1;
      if (iy < 0 || iy >= H) continue;
      for (long kx = 0; kx < KW; ++kx) {
        long ix;
        if (transpose) {
          const long num = o.s0 + p0 - kx * d0;  // = l * s0 for a contributing input l
          if (num < 0 || num % s0 != 0) continue;
          ix = num / s0;
        } else {
          ix = o.s0 * s0 - p0 + kx * d0;
        }
        if (ix < 0 || ix >= W) continue;
        acc += load_f(wc + kx * w_nb.s0 + ky * w_nb.s1, wtype) *
               load_f(xc + ix * x_nb.s0 + iy * x_nb.s1, xtype);
      }
    }
  }
  *(global float*)(BASE(d) + at4(d_nb, o.s0, o.s1, o.s2, o.s3)) = acc;
}
