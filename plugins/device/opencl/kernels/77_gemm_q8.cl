// Prefill's quantized-weight matmul in register tiles (GPUs): the block terms of k_matmul_q8
// (the CPU's integer sums and per-block scales, kernels/75_matmul_q8.cl), but a work-group of
// GT_WG items computes a GT_M x GT_N tile of the output, so each weight block is read once per
// GT_N columns instead of once per 4, and the inner loop is float FMAs out of local memory.
//
// K goes in steps of 32 elements. Each step, the work-group decodes the tile's 64 weight rows
// (step_weights: the integer values, with the per-16/32 sub-scale of the K-quants folded in) and its 64
// activation columns (int8) into local memory as floats; each item then sums its 4 x 4
// outputs' 32 products. Every such sum is an integer below 2^24 (|w| <= 128 * 32 for Q6_K,
// |a| <= 127, 32 terms), so float FMAs give it exactly, in any order: the step's integer sum
// is the CPU's. The step's term (32-element formats) or the super-block's (K-quants, summed in
// int over its 8 steps) is then scaled as dot_q8 scales it (kq_scale). Blocks add in K order, as
// k_matmul_q8's do. Types step_weights has no case for (Q2_K, Q3_K, IQ4_XS) stay on k_matmul_q8
// (gemm_tiled_type on the host).
#define GT_M 64
#define GT_N 64
#define GT_K 32
#define GT_WG 256

// d [M, N, B2, B3] = a [K, M, A2, A3] (batch broadcast) . the quantized activation rows (column
// n of batch (b2, b3) is row n + N * (b2 + B2 * b3) of act, arb bytes each). One work-group
// per (row tile, column tile, b2, b3).
__attribute__((reqd_work_group_size(GT_WG, 1, 1))) kernel void k_gemm_q8(
    TENSOR(d), TENSOR(a), global const uchar* act, long arb, int atype) {
  local float4 ws4[GT_K * GT_M / 4], as4[GT_K * GT_N / 4];
  local float* ws = (local float*)ws4;
  local float* as = (local float*)as4;
  local float wd[GT_M], wm[GT_M], ad[GT_N], am[GT_N];  // per-row / per-column factors
  local int mins[8 * GT_M], bsum[8 * GT_N];           // Q4_K / Q5_K min terms

  const long M = d_ne.s0, N = d_ne.s1;
  const long tiles_m = (M + GT_M - 1) / GT_M, tiles_n = (N + GT_N - 1) / GT_N;
  const long4 g = unravel(get_group_id(0), (long4)(tiles_m, tiles_n, d_ne.s2, d_ne.s3));
  const long m0 = g.s0 * GT_M, n0 = g.s1 * GT_N, b2 = g.s2, b3 = g.s3;
  const int lid = get_local_id(0), tx = lid % 16, ty = lid / 16;
  const int rr = lid % 64, part = lid / 64;  // the row / column this item loads, its 8 values

  const int bs = blk_size(atype), steps = bs / 32;
  const bool kq = bs == 256;
  const bool has_min = atype == T_Q4_1 || atype == T_Q5_1;
  const long ab = kq ? ACT_Q8K_BYTES : ACT_Q8_BYTES;
  const long r2 = d_ne.s2 / a_ne.s2, r3 = d_ne.s3 / a_ne.s3;
  const bool row_live = m0 + rr < M, col_live = n0 + rr < N;
  global const uchar* wrow =
      BASE(a) + at4(a_nb, 0, row_live ? m0 + rr : 0, b2 / r2, b3 / r3);
  global const uchar* arow = act + ((col_live ? n0 + rr : 0) + N * (b2 + d_ne.s2 * b3)) * arb;

  float acc[4][4], ps[4][4];
  int isum[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      acc[i][j] = 0.0f;
      isum[i][j] = 0;
    }

  const long nblk = a_ne.s0 / bs;
  for (long blk = 0; blk < nblk; ++blk) {
    global const uchar* w = wrow + blk * a_nb.s0;
    global const uchar* x = arow + blk * ab;
    for (int s = 0; s < steps; ++s) {
      barrier(CLK_LOCAL_MEM_FENCE);  // the last step's readers are done
      int v[8];
      if (row_live) {
        step_weights(atype, w, s, part, v);
      } else {
        for (int i = 0; i < 8; ++i) v[i] = 0;
      }
      for (int i = 0; i < 8; ++i) ws[(8 * part + i) * GT_M + rr] = (float)v[i];
      global const char* xq = (global const char*)(x + (kq ? 4 + 32 * s : 8)) + 8 * part;
      for (int i = 0; i < 8; ++i) as[(8 * part + i) * GT_N + rr] = col_live ? (float)xq[i] : 0.0f;
      if (!kq && part == 0) {
        wd[rr] = !row_live        ? 0.0f
                 : atype == T_MXFP4 ? as_float(w[0] < 2 ? 0x00200000u << w[0]
                                                         : (uint)(w[0] - 1) << 23)
                                    : ld_half(w);
        wm[rr] = row_live && has_min ? ld_half(w + 2) : 0.0f;
      } else if (!kq && part == 1) {
        ad[rr] = col_live ? *(global const float*)x : 0.0f;
        am[rr] = col_live ? *(global const float*)(x + 4) : 0.0f;
      } else if (kq && s == 0) {
        if (part == 0) {
          wd[rr] = row_live ? ld_half(atype == T_Q6_K ? w + 208 : w) : 0.0f;
          wm[rr] = row_live && atype != T_Q6_K ? ld_half(w + 2) : 0.0f;
        } else if (part == 1) {
          for (int j = 0; j < 8; ++j)
            mins[j * GT_M + rr] = row_live && atype != T_Q6_K ? min6_k4(j, w + 4) : 0;
        } else if (part == 2) {
          ad[rr] = col_live ? *(global const float*)x : 0.0f;
        } else {
          global const short* bs16 = (global const short*)(x + 260);
          for (int j = 0; j < 8; ++j)
            bsum[j * GT_N + rr] = col_live ? bs16[2 * j] + bs16[2 * j + 1] : 0;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);

      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) ps[i][j] = 0.0f;
      for (int k = 0; k < GT_K; ++k) {
        const float4 wv = ws4[k * (GT_M / 4) + tx], av = as4[k * (GT_N / 4) + ty];
        const float wa[4] = {wv.s0, wv.s1, wv.s2, wv.s3}, aa[4] = {av.s0, av.s1, av.s2, av.s3};
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) ps[i][j] = fma(wa[i], aa[j], ps[i][j]);
      }

      if (!kq) {  // dot_q8's 32-element term: d_w * d_a * sum (+ m_w * s_a)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            const float t = wd[4 * tx + i] * ad[4 * ty + j] * ps[i][j];
            acc[i][j] += has_min ? t + wm[4 * tx + i] * am[4 * ty + j] : t;
          }
        continue;
      }
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) isum[i][j] += (int)ps[i][j];
      if (s != steps - 1) continue;
      for (int i = 0; i < 4; ++i)  // the super-block's term, as dot_q8 scales it
        for (int j = 0; j < 4; ++j) {
          int summ = 0;
          for (int q = 0; q < 8; ++q)
            summ += mins[q * GT_M + 4 * tx + i] * bsum[q * GT_N + 4 * ty + j];
          acc[i][j] += kq_scale(atype, ad[4 * ty + j], wd[4 * tx + i], wm[4 * tx + i],
                                isum[i][j], summ);
          isum[i][j] = 0;
        }
    }
  }

  for (int j = 0; j < 4; ++j) {
    const long n = n0 + 4 * ty + j;
    if (n >= N) break;
    for (int i = 0; i < 4; ++i) {
      const long m = m0 + 4 * tx + i;
      if (m < M) *(global float*)(BASE(d) + at4(d_nb, m, n, b2, b3)) = acc[i][j];
    }
  }
}
