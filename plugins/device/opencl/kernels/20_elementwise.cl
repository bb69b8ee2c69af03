// Element-wise kernels: one work-item per destination element, indices through nb.

// dst = a op b, b broadcast (its dim i repeats a.ne[i] / b.ne[i] times). op 0 add, 1 mul.
kernel void k_binary(TENSOR(d), TENSOR(a), TENSOR(b), int op) {
  const long e = get_global_id(0);
  const long4 i = unravel(e, d_ne);
  const float x = *(global const float*)(BASE(a) + at4(a_nb, i.s0, i.s1, i.s2, i.s3));
  const float y = *(global const float*)(BASE(b) + at4(b_nb, i.s0 % b_ne.s0, i.s1 % b_ne.s1,
                                                       i.s2 % b_ne.s2, i.s3 % b_ne.s3));
  *(global float*)(BASE(d) + at4(d_nb, i.s0, i.s1, i.s2, i.s3)) = op == 0 ? x + y : x * y;
}

#define U_SCALE 0
#define U_SILU 1
#define U_GELU_TANH 2
#define U_GELU_ERF 3
#define U_TANH 4

inline float act(int op, float x, float p0, float p1) {
  switch (op) {
    case U_SCALE:
      return x * p0 + p1;
    case U_SILU:
      return x / (1.0f + exp(-x));
    case U_GELU_TANH:
      // 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)): no cancellation where tanh(u) is near -1
      // (a 1-ulp tanh error there would be all of the result).
      return x / (1.0f + exp(-1.5957691216057308f * (x + 0.044715f * x * x * x)));
    case U_TANH:
      return tanh(x);
    default:
      return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));
  }
}

// dst = act(a); type is F32 or F16 for both.
kernel void k_unary(TENSOR(d), TENSOR(a), int op, float p0, float p1, int type) {
  const long4 i = unravel(get_global_id(0), d_ne);
  const float x = load_f(BASE(a) + at4(a_nb, i.s0, i.s1, i.s2, i.s3), type);
  store_f(BASE(d) + at4(d_nb, i.s0, i.s1, i.s2, i.s3), act(op, x, p0, p1), type);
}

// dst = act(a) * b with act silu (mode 0), gelu-tanh (1) or gelu-erf (2).
kernel void k_glu(TENSOR(d), TENSOR(a), TENSOR(b), int mode, int type) {
  const long4 i = unravel(get_global_id(0), d_ne);
  const float x = load_f(BASE(a) + at4(a_nb, i.s0, i.s1, i.s2, i.s3), type);
  const float g = load_f(BASE(b) + at4(b_nb, i.s0, i.s1, i.s2, i.s3), type);
  const int op = mode == 0 ? U_SILU : mode == 1 ? U_GELU_TANH : U_GELU_ERF;
  store_f(BASE(d) + at4(d_nb, i.s0, i.s1, i.s2, i.s3), act(op, x, 0.0f, 0.0f) * g, type);
}

// k_glu by a work-group per row (items striding over it), then the row quantized for the
// matmul that reads it (wg_quantize_row, fmt ACT_Q8 / ACT_Q8K), row r at qact + r * qrb: a
// decode step's FFN down projection needs no k_quantize_rows launch. F32 only; d may be a or b
// element for element (each item reads its elements before writing them).
kernel void k_glu_quant(TENSOR(d), TENSOR(a), TENSOR(b), int mode, global uchar* qact, long qrb,
                        int qfmt) {
  local float run_max[QR_RUNS];
  local int run_sum[QR_RUNS];
  const long4 r = unravel(get_group_id(0), (long4)(d_ne.s1, d_ne.s2, d_ne.s3, 1));
  global const uchar* xa = BASE(a) + at4(a_nb, 0, r.s0, r.s1, r.s2);
  global const uchar* xb = BASE(b) + at4(b_nb, 0, r.s0, r.s1, r.s2);
  global uchar* y = BASE(d) + at4(d_nb, 0, r.s0, r.s1, r.s2);
  const int op = mode == 0 ? U_SILU : mode == 1 ? U_GELU_TANH : U_GELU_ERF;
  for (long i = get_local_id(0); i < d_ne.s0; i += get_local_size(0))
    *(global float*)(y + i * d_nb.s0) = act(op, *(global const float*)(xa + i * a_nb.s0), 0.0f,
                                            0.0f) *
                                        *(global const float*)(xb + i * b_nb.s0);
  wg_quantize_row(y, d_nb.s0, d_ne.s0, qact + (r.s0 + d_ne.s1 * (r.s1 + d_ne.s2 * r.s2)) * qrb,
                  qfmt, run_max, run_sum);
}
