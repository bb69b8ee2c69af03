// Row reductions over ne0, one work-item per row (rows are short next to the matmuls around
// them; a work-group reduction would be the next step on a GPU).

// rms_norm: x / sqrt(mean(x^2) + eps); layer_norm (layer 1): (x - mean) / sqrt(var + eps).
// type F32, F16 or BF16 for x and dst.
kernel void k_norm(TENSOR(d), TENSOR(a), float eps, int layer, int type) {
  const long4 r = unravel(get_global_id(0), (long4)(d_ne.s1, d_ne.s2, d_ne.s3, 1));
  global const uchar* x = BASE(a) + at4(a_nb, 0, r.s0, r.s1, r.s2);
  global uchar* y = BASE(d) + at4(d_nb, 0, r.s0, r.s1, r.s2);
  const long n = a_ne.s0;
  float mean = 0.0f;
  if (layer) {
    for (long i = 0; i < n; ++i) mean += load_f(x + i * a_nb.s0, type);
    mean /= (float)n;
  }
  float sum = 0.0f;
  for (long i = 0; i < n; ++i) {
    const float v = load_f(x + i * a_nb.s0, type) - mean;
    sum += v * v;
  }
  const float s = 1.0f / sqrt(sum / (float)n + eps);
  for (long i = 0; i < n; ++i)
    store_f(y + i * d_nb.s0, (load_f(x + i * a_nb.s0, type) - mean) * s, type);
}

// softmax(scale * x + mask) over ne0; the mask row is (i1, i2 % ne2, i3 % ne3). A row that is
// entirely -inf gives zeros. x F32 or F16, mask F32 or F16 (has_mask 0: none), dst F32.
kernel void k_softmax(TENSOR(d), TENSOR(a), TENSOR(m), int xtype, int has_mask, int mtype,
                      float scale) {
  const long4 r = unravel(get_global_id(0), (long4)(d_ne.s1, d_ne.s2, d_ne.s3, 1));
  global const uchar* x = BASE(a) + at4(a_nb, 0, r.s0, r.s1, r.s2);
  global float* y = (global float*)(BASE(d) + at4(d_nb, 0, r.s0, r.s1, r.s2));
  const long dy = d_nb.s0 / 4;
  global const uchar* mrow =
      has_mask ? BASE(m) + at4(m_nb, 0, r.s0, r.s1 % m_ne.s2, r.s2 % m_ne.s3) : 0;
  const long n = a_ne.s0;
  float mx = -INFINITY;
  for (long i = 0; i < n; ++i) {
    float v = load_f(x + i * a_nb.s0, xtype) * scale;
    if (has_mask) v += load_f(mrow + i * m_nb.s0, mtype);
    y[i * dy] = v;
    mx = fmax(mx, v);
  }
  if (mx == -INFINITY) {
    for (long i = 0; i < n; ++i) y[i * dy] = 0.0f;
    return;
  }
  float sum = 0.0f;
  for (long i = 0; i < n; ++i) {
    const float e = exp(y[i * dy] - mx);
    y[i * dy] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
  for (long i = 0; i < n; ++i) y[i * dy] *= inv;
}
