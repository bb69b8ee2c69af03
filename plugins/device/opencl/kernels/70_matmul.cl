// matmul: dst [M, N, B2, B3] = a [K, M, A2, A3] x b [K, N, B2, B3] (a broadcast over the batch
// dims); matmul_id: dst [M, U, T], dst[:, u, t] = a[:, :, ids[u, t]] x b[:, u or 0, t].
//
// Each work-item computes one weight row m against up to MM_COLS activation columns: every
// weight block is dequantized once into private memory and dotted with each column, so
// prefill reads the weights ceil(N / MM_COLS) times rather than N times. Float weights (F32,
// F16, BF16) are the block size 1 case. Sums are in float, block by block.
#define MM_COLS 4

// acc[c] += a row's blocks [0, K) . column c (ncols columns starting at b0, bstride apart).
inline void row_dot(int atype, global const uchar* arow, long anb0, long K,
                    global const uchar* b0, long bnb0, long bstride, int ncols, float* acc) {
  if (atype == T_F32 || atype == T_F16 || atype == T_BF16) {
    for (long k = 0; k < K; ++k) {
      const float w = load_f(arow + k * anb0, atype);
      for (int c = 0; c < ncols; ++c)
        acc[c] += w * *(global const float*)(b0 + c * bstride + k * bnb0);
    }
    return;
  }
  const int bs = blk_size(atype);
  float y[256];
  for (long blk = 0; blk < K / bs; ++blk) {
    dq_block(atype, arow + blk * anb0, y);
    for (int c = 0; c < ncols; ++c) {
      global const uchar* col = b0 + c * bstride + blk * bs * bnb0;
      float s = 0.0f;
      if (bnb0 == 4) {
        global const float* cf = (global const float*)col;
        for (int j = 0; j < bs; ++j) s += y[j] * cf[j];
      } else {
        for (int j = 0; j < bs; ++j) s += y[j] * *(global const float*)(col + j * bnb0);
      }
      acc[c] += s;
    }
  }
}

kernel void k_matmul(TENSOR(d), TENSOR(a), TENSOR(b), int atype) {
  const long M = d_ne.s0, groups = (d_ne.s1 + MM_COLS - 1) / MM_COLS;
  const long e = get_global_id(0);
  const long m = e % M;
  const long4 r = unravel(e / M, (long4)(groups, d_ne.s2, d_ne.s3, 1));  // (group, b2, b3)
  const long n0 = r.s0 * MM_COLS;
  const int ncols = (int)min((long)MM_COLS, d_ne.s1 - n0);
  const long r2 = b_ne.s2 / a_ne.s2, r3 = b_ne.s3 / a_ne.s3;
  global const uchar* arow = BASE(a) + at4(a_nb, 0, m, r.s1 / r2, r.s2 / r3);
  global const uchar* b0 = BASE(b) + at4(b_nb, 0, n0, r.s1, r.s2);
  float acc[MM_COLS] = {0.0f, 0.0f, 0.0f, 0.0f};
  row_dot(atype, arow, a_nb.s0, a_ne.s0, b0, b_nb.s0, b_nb.s1, ncols, acc);
  for (int c = 0; c < ncols; ++c)
    *(global float*)(BASE(d) + at4(d_nb, m, n0 + c, r.s1, r.s2)) = acc[c];
}

// One work-item per output element (m, u, t); an expert id outside [0, E) gives zeros.
kernel void k_matmul_id(TENSOR(d), TENSOR(a), TENSOR(b), TENSOR(ids), int atype) {
  const long M = d_ne.s0, U = d_ne.s1;
  const long e = get_global_id(0);
  const long m = e % M, u = (e / M) % U, t = e / (M * U);
  const int ex = *(global const int*)(BASE(ids) + at4(ids_nb, u, t, 0, 0));
  float acc[1] = {0.0f};
  if (ex >= 0 && ex < a_ne.s2) {
    global const uchar* arow = BASE(a) + at4(a_nb, 0, m, ex, 0);
    global const uchar* col = BASE(b) + at4(b_nb, 0, b_ne.s1 == 1 ? 0 : u, t, 0);
    row_dot(atype, arow, a_nb.s0, a_ne.s0, col, b_nb.s0, 0, 1, acc);
  }
  *(global float*)(BASE(d) + at4(d_nb, m, u, t, 0)) = acc[0];
}
