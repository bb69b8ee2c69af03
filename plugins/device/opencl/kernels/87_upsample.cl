// upsample: a [W, H, C, N] (F32, F16 or BF16, any strides) resampled to the F32 dst's shape,
// one work-item per output element. Mode 0 (bilinear 0): nearest in all four dims, source
// index floor(o * in / out). Mode 1: bilinear in W and H with half-pixel centres (PyTorch
// align_corners=False: src = max(0, (o + 0.5) * in / out - 0.5)), nearest in C and N; the
// coordinate in wide_t as the CPU device's double, the lerps in float in its order.

// Source indices c0, c1 and the weight of c1 for output o along a dim of n_in -> n_out.
inline float up_coord(long o, long n_in, long n_out, long* c0, long* c1) {
  wide_t x = ((wide_t)o + (wide_t)0.5f) * (wide_t)n_in / (wide_t)n_out - (wide_t)0.5f;
  if (x < 0) x = 0;
  *c0 = min((long)x, n_in - 1);
  *c1 = min(*c0 + 1, n_in - 1);
  return (float)(x - (wide_t)*c0);
}

kernel void k_upsample(TENSOR(d), TENSOR(a), int bilinear, int type) {
  const long4 o = unravel(get_global_id(0), d_ne);
  const long j2 = o.s2 * a_ne.s2 / d_ne.s2, j3 = o.s3 * a_ne.s3 / d_ne.s3;
  global float* out = (global float*)(BASE(d) + at4(d_nb, o.s0, o.s1, o.s2, o.s3));
  if (!bilinear) {
    *out = load_f(BASE(a) + at4(a_nb, o.s0 * a_ne.s0 / d_ne.s0, o.s1 * a_ne.s1 / d_ne.s1, j2, j3),
                  type);
    return;
  }
  long x0, x1, y0, y1;
  const float tx = up_coord(o.s0, a_ne.s0, d_ne.s0, &x0, &x1);
  const float ty = up_coord(o.s1, a_ne.s1, d_ne.s1, &y0, &y1);
  global const uchar* r0 = BASE(a) + at4(a_nb, 0, y0, j2, j3);
  global const uchar* r1 = BASE(a) + at4(a_nb, 0, y1, j2, j3);
  const float a00 = load_f(r0 + x0 * a_nb.s0, type), a01 = load_f(r0 + x1 * a_nb.s0, type);
  const float a10 = load_f(r1 + x0 * a_nb.s0, type), a11 = load_f(r1 + x1 * a_nb.s0, type);
  const float top = a00 + (a01 - a00) * tx, bottom = a10 + (a11 - a10) * tx;
  *out = top + (bottom - top) * ty;
}
