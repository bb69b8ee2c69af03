// Row reductions over ne0.

// The work-group's total of v (a tree in local memory; every item gets it). part holds
// NORM_WG floats; the local size is a power of two.
#define NORM_WG 256
inline float wg_total(local float* part, float v) {
  const uint l = get_local_id(0);
  part[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = part[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // part is reused by the next call
  return total;
}

// rms_norm: x / sqrt(mean(x^2) + eps); layer_norm (layer 1): (x - mean) / sqrt(var + eps),
// of one row of n elements by the work-group (items striding over it) into y; with w (fused,
// F32 only), also p = y * w. type F32, F16 or BF16 for x and y.
inline void norm_row(global const uchar* x, long xs, global uchar* y, long ys,
                     global const uchar* w, long ws, global uchar* prow, long ps, long n,
                     float eps, int layer, int type, int fused, local float* part) {
  const long l0 = get_local_id(0), L = get_local_size(0);
  float mean = 0.0f;
  if (layer) {
    float m = 0.0f;
    for (long i = l0; i < n; i += L) m += load_f(x + i * xs, type);
    mean = wg_total(part, m) / (float)n;
  }
  float sum = 0.0f;
  for (long i = l0; i < n; i += L) {
    const float v = load_f(x + i * xs, type) - mean;
    sum += v * v;
  }
  const float s = 1.0f / sqrt(wg_total(part, sum) / (float)n + eps);
  if (!fused) {
    for (long i = l0; i < n; i += L) store_f(y + i * ys, (load_f(x + i * xs, type) - mean) * s, type);
    return;
  }
  for (long i = l0; i < n; i += L) {
    const float v = (load_f(x + i * xs, type) - mean) * s;
    *(global float*)(y + i * ys) = v;
    *(global float*)(prow + i * ps) = v * *(global const float*)(w + i * ws);
  }
}

// A work-group per row (a decode step's rows are few and long: one item per row left the GPU
// idle), norm_row's values.
// fused 1 (zen/fusion.hpp norm_mul, F32 only): also p = d * w, w one row broadcast over the
// rows, the MUL node that follows computed in the same pass (each item reads its elements of
// x before writing them: p may be x); and with qfmt (ACT_Q8 / ACT_Q8K, 0: none) p's rows
// quantized for the matmul that reads them, row r at qact + r * qrb (k_quantize_rows's bytes).
kernel void k_norm(TENSOR(d), TENSOR(a), TENSOR(w), TENSOR(p), float eps, int layer, int type,
                   int fused, global uchar* qact, long qrb, int qfmt) {
  local float part[NORM_WG];
  local float run_max[QR_RUNS];
  local int run_sum[QR_RUNS];
  const long4 r = unravel(get_group_id(0), (long4)(d_ne.s1, d_ne.s2, d_ne.s3, 1));
  global uchar* prow = BASE(p) + at4(p_nb, 0, r.s0, r.s1, r.s2);
  norm_row(BASE(a) + at4(a_nb, 0, r.s0, r.s1, r.s2), a_nb.s0,
           BASE(d) + at4(d_nb, 0, r.s0, r.s1, r.s2), d_nb.s0, BASE(w), w_nb.s0, prow, p_nb.s0,
           a_ne.s0, eps, layer, type, fused, part);
  if (qfmt)
    wg_quantize_row(prow, p_nb.s0, a_ne.s0,
                    qact + (r.s0 + d_ne.s1 * (r.s1 + d_ne.s2 * r.s2)) * qrb, qfmt, run_max,
                    run_sum);
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
