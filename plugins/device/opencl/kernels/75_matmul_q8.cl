// Quantized-weight matmul computed as the CPU device computes it (plugins/device/cpu/matmul/
// vec_dot.cpp): the activations are first quantized to int8 blocks (k_quantize_rows, one launch
// per node into a scratch buffer), then each weight block is dotted with them in integers and
// scaled per block with the same grouping of the integer sums and the same place for the
// min / offset terms. Only the float order across blocks differs from the CPU, so a model gives
// the CPU's logits up to that rounding instead of the (more exact) float-activation result.
//
// (Activation formats and their quantizer: kernels/12_quantize_act.cl.)

inline int scale6_k4(int j, global const uchar* q) {
  return j < 4 ? q[j] & 63 : (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
}
inline int min6_k4(int j, global const uchar* q) {
  return j < 4 ? q[j + 4] & 63 : (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
}

// Weight values 8 * part .. 8 * part + 7 of step s (elements 32 s .. 32 s + 31) of block w
// into v, as integers: the format's quantized values, with a K-quant's 16/32-element scale
// folded in (Q4_K / Q5_K: scale s times q; Q6_K: its scale per 16 times q). dot_q8's K-quant
// terms, the matrix-vector kernel's steps and the tiled matmul's local tiles all read blocks
// through it. Q2_K, Q3_K and IQ4_XS have no case (zeros).
inline void step_weights(int type, global const uchar* w, int s, int part, int* v) {
  const int k0 = 8 * part;
  switch (type) {
    case T_Q4_0:
    case T_Q4_1:
    case T_IQ4_NL:
    case T_MXFP4: {
      global const uchar* qs = w + (type == T_Q4_1 ? 4 : type == T_MXFP4 ? 1 : 2);
      const int shift = k0 < 16 ? 0 : 4, j0 = k0 % 16;
      for (int i = 0; i < 8; ++i) {
        const int q = (qs[j0 + i] >> shift) & 0xF;
        v[i] = type == T_Q4_0    ? q - 8
               : type == T_Q4_1  ? q
               : type == T_MXFP4 ? kvalues_mxfp4[q]
                                 : kvalues_iq4nl[q];
      }
      break;
    }
    case T_Q5_0:
    case T_Q5_1: {
      const bool one = type == T_Q5_1;
      const uint qh = ld_u32(w + (one ? 4 : 2));
      global const uchar* qs = w + (one ? 8 : 6);
      const int shift = k0 < 16 ? 0 : 4, j0 = k0 % 16;
      for (int i = 0; i < 8; ++i) {
        const int k = k0 + i;
        v[i] = (int)(((qs[j0 + i] >> shift) & 0xF) | (((qh >> k) & 1) << 4)) - (one ? 0 : 16);
      }
      break;
    }
    case T_Q8_0: {
      global const char* q = (global const char*)(w + 2);
      for (int i = 0; i < 8; ++i) v[i] = q[k0 + i];
      break;
    }
    case T_Q4_K:
    case T_Q5_K: {  // step s: nibble s % 2 of qs[32 (s / 2) + k], bit s of qh[k], scale s
      const bool five = type == T_Q5_K;
      global const uchar* qs = w + (five ? 48 : 16) + 32 * (s / 2) + k0;
      global const uchar* qh = w + 16 + k0;
      const int sc = scale6_k4(s, w + 4), shift = 4 * (s % 2);
      for (int i = 0; i < 8; ++i) {
        const int q = ((qs[i] >> shift) & 0xF) | (five ? ((qh[i] >> s) & 1) << 4 : 0);
        v[i] = sc * q;
      }
      break;
    }
    case T_Q6_K: {  // step s: run r = s % 4 of half h = s / 4, a scale per 16 elements
      const int h = s / 4, r = s % 4;
      global const uchar* ql = w + 64 * h + 32 * (r % 2) + k0;
      global const uchar* qh = w + 128 + 32 * h + k0;
      global const char* scales = (global const char*)(w + 192) + 8 * h + 2 * r;
      for (int i = 0; i < 8; ++i) {
        const int lo = r < 2 ? ql[i] & 0xF : ql[i] >> 4;
        const int q = (lo | (((qh[i] >> (2 * r)) & 3) << 4)) - 32;
        v[i] = scales[(k0 + i) / 16] * q;
      }
      break;
    }
    default:
      for (int i = 0; i < 8; ++i) v[i] = 0;
  }
}

// Step s of a Q4_K / Q5_K / Q6_K super-block w with its Q8_K activation block a: the integer
// sum of the step's 32 products (scales folded in, step_weights), and in *summ the step's
// share of the min term (Q4_K / Q5_K: min s times the step's two bsums). The 8 steps' sums are
// the CPU's integer sums of the block exactly.
inline int dot_q8k_step(int type, global const uchar* w, global const uchar* a, int s,
                        int* summ) {
  global const char* y = (global const char*)(a + 4) + 32 * s;
  int sumi = 0;
  for (int part = 0; part < 4; ++part) {
    int v[8];
    step_weights(type, w, s, part, v);
    for (int i = 0; i < 8; ++i) sumi += v[i] * y[8 * part + i];
  }
  global const short* bsums = (global const short*)(a + 260);
  *summ = type == T_Q6_K ? 0 : min6_k4(s, w + 4) * (bsums[2 * s] + bsums[2 * s + 1]);
  return sumi;
}

// A K-quant super-block's term from its integer sums, as the CPU scales it: Q6_K
// yd * d * sumi, Q4_K / Q5_K yd * (d * sumi - dmin * summ) (yd: the activation block's d).
inline float kq_scale(int type, float yd, float d, float dmin, int sumi, int summ) {
  return type == T_Q6_K ? yd * d * (float)sumi : yd * (d * (float)sumi - dmin * (float)summ);
}
inline float kq_term(int type, global const uchar* w, float yd, int sumi, int summ) {
  return kq_scale(type, yd, ld_half(type == T_Q6_K ? w + 208 : w), ld_half(w + 2), sumi, summ);
}

// sum over 32 elements of grid[nibble] * y for the non-linear 4-bit formats.
inline int grid_dot32(constant char* grid, global const uchar* qs, global const char* y) {
  int sumi = 0;
  for (int j = 0; j < 16; ++j) sumi += grid[qs[j] & 0xF] * y[j] + grid[qs[j] >> 4] * y[j + 16];
  return sumi;
}

// One weight block w . its activation block(s) a, as the CPU's scalar dot body computes the
// block's term (the integer sums, then the same float products in the same order).
float dot_q8(int type, global const uchar* w, global const uchar* a) {
  const float yd = *(global const float*)a;
  switch (type) {
    case T_Q4_0: {
      global const char* y = (global const char*)(a + 8);
      int sumi = 0;
      for (int j = 0; j < 16; ++j)
        sumi += ((w[2 + j] & 0xF) - 8) * y[j] + ((w[2 + j] >> 4) - 8) * y[j + 16];
      return ld_half(w) * yd * (float)sumi;
    }
    case T_Q4_1: {
      global const char* y = (global const char*)(a + 8);
      int sumi = 0;
      for (int j = 0; j < 16; ++j) sumi += (w[4 + j] & 0xF) * y[j] + (w[4 + j] >> 4) * y[j + 16];
      return ld_half(w) * yd * (float)sumi + ld_half(w + 2) * *(global const float*)(a + 4);
    }
    case T_Q5_0:
    case T_Q5_1: {
      const bool one = type == T_Q5_1;
      global const char* y = (global const char*)(a + 8);
      const uint qh = ld_u32(w + (one ? 4 : 2));
      global const uchar* qs = w + (one ? 8 : 6);
      const int off = one ? 0 : 16;
      int sumi = 0;
      for (int j = 0; j < 16; ++j)
        sumi += (((qs[j] & 0xF) | (((qh >> j) & 1) << 4)) - off) * y[j] +
                (((qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4)) - off) * y[j + 16];
      const float r = ld_half(w) * yd * (float)sumi;
      return one ? r + ld_half(w + 2) * *(global const float*)(a + 4) : r;
    }
    case T_Q8_0: {
      global const char* x = (global const char*)(w + 2);
      global const char* y = (global const char*)(a + 8);
      int sumi = 0;
      for (int j = 0; j < 32; ++j) sumi += x[j] * y[j];
      return ld_half(w) * yd * (float)sumi;
    }
    case T_IQ4_NL:
      return ld_half(w) * yd * (float)grid_dot32(kvalues_iq4nl, w + 2, (global const char*)(a + 8));
    case T_MXFP4: {
      const uchar e = w[0];
      const float d = as_float(e < 2 ? 0x00200000u << e : (uint)(e - 1) << 23);
      return d * yd * (float)grid_dot32(kvalues_mxfp4, w + 1, (global const char*)(a + 8));
    }
    case T_IQ4_XS: {  // 8 sub-blocks of 32, each with its own Q8 activation block
      const float d = ld_half(w);
      const uint sh = (uint)w[2] | ((uint)w[3] << 8);
      float s = 0.0f;
      for (int ib = 0; ib < 8; ++ib) {
        global const uchar* yb = a + ib * ACT_Q8_BYTES;
        const int ls =
            (((w[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | (((sh >> (2 * ib)) & 3) << 4)) - 32;
        s += d * (float)ls * *(global const float*)yb *
             (float)grid_dot32(kvalues_iq4nl, w + 8 + 16 * ib, (global const char*)(yb + 8));
      }
      return s;
    }
    case T_Q2_K: {  // scales[16], qs[64], d, dmin
      global const char* y = (global const char*)(a + 4);
      global const short* bsums = (global const short*)(a + 260);
      int sumi = 0, summ = 0;
      for (int g = 0; g < 16; ++g) {
        global const uchar* q = w + 16 + 32 * (g / 8) + 16 * (g % 2);
        const int shift = 2 * ((g % 8) / 2);
        int dd = 0;
        for (int l = 0; l < 16; ++l) dd += ((q[l] >> shift) & 3) * y[16 * g + l];
        sumi += (w[g] & 0xF) * dd;
        summ += (w[g] >> 4) * bsums[g];
      }
      return yd * (ld_half(w + 80) * (float)sumi - ld_half(w + 82) * (float)summ);
    }
    case T_Q3_K: {  // hmask[32], qs[64], scales[12], d
      global const char* y = (global const char*)(a + 4);
      global const uchar* sc = w + 96;
      int sumi = 0;
      for (int g = 0; g < 16; ++g) {
        const int h = g / 8, j = (g % 8) / 2, sub = g % 2;
        global const uchar* q = w + 32 + 32 * h + 16 * sub;
        global const uchar* hm = w + 16 * sub;
        const int bit = 4 * h + j;
        int dd = 0;
        for (int l = 0; l < 16; ++l)
          dd += (((q[l] >> (2 * j)) & 3) - (((hm[l] >> bit) & 1) ? 0 : 4)) * y[16 * g + l];
        const int lo = g < 8 ? sc[g] & 0xF : sc[g - 8] >> 4;
        const int hi = (sc[8 + g % 4] >> (2 * (g / 4))) & 3;
        sumi += ((lo | (hi << 4)) - 32) * dd;
      }
      return yd * ld_half(w + 108) * (float)sumi;
    }
    case T_Q4_K:
    case T_Q5_K:
    case T_Q6_K: {  // the 8 steps' integer sums, then the block's scales
      int sumi = 0, summ = 0;
      for (int s = 0; s < 8; ++s) {
        int sm;
        sumi += dot_q8k_step(type, w, a, s, &sm);
        summ += sm;
      }
      return kq_term(type, w, yd, sumi, summ);
    }
    default:
      return 0.0f;
  }
}

// acc[c] += weight row . activation row c, block by block (ncols rows arb bytes apart).
inline void row_dot_q8(int atype, global const uchar* arow, long anb0, long K,
                       global const uchar* act0, long arb, int ncols, float* acc) {
  const long ab = act_bytes_per_wblock(atype);
  const long nblk = K / blk_size(atype);
  for (long blk = 0; blk < nblk; ++blk) {
    global const uchar* w = arow + blk * anb0;
    for (int c = 0; c < ncols; ++c) acc[c] += dot_q8(atype, w, act0 + c * arb + blk * ab);
  }
}

// k_matmul with the activations already quantized: column n of batch (b2, b3) is activation
// row n + N * (b2 + B2 * b3) (d's ne are b's N, B2, B3).
kernel void k_matmul_q8(TENSOR(d), TENSOR(a), global const uchar* act, long arb, int atype) {
  const long M = d_ne.s0, N = d_ne.s1, groups = (N + MM_COLS - 1) / MM_COLS;
  const long e = get_global_id(0);
  const long m = e % M;
  const long4 r = unravel(e / M, (long4)(groups, d_ne.s2, d_ne.s3, 1));  // (group, b2, b3)
  const long n0 = r.s0 * MM_COLS;
  const int ncols = (int)min((long)MM_COLS, N - n0);
  const long r2 = d_ne.s2 / a_ne.s2, r3 = d_ne.s3 / a_ne.s3;
  global const uchar* arow = BASE(a) + at4(a_nb, 0, m, r.s1 / r2, r.s2 / r3);
  global const uchar* act0 = act + (n0 + N * (r.s1 + d_ne.s2 * r.s2)) * arb;
  float acc[MM_COLS] = {0.0f, 0.0f, 0.0f, 0.0f};
  row_dot_q8(atype, arow, a_nb.s0, a_ne.s0, act0, arb, ncols, acc);
  for (int c = 0; c < ncols; ++c)
    *(global float*)(BASE(d) + at4(d_nb, m, n0 + c, r.s1, r.s2)) = acc[c];
}

// k_matmul_id with quantized activations: b [K, U1, T] is activation row (u or 0) + U1 * t.
kernel void k_matmul_id_q8(TENSOR(d), TENSOR(a), TENSOR(ids), global const uchar* act, long arb,
                           long U1, int atype) {
  const long M = d_ne.s0, U = d_ne.s1;
  const long e = get_global_id(0);
  const long m = e % M, u = (e / M) % U, t = e / (M * U);
  const int ex = *(global const int*)(BASE(ids) + at4(ids_nb, u, t, 0, 0));
  float acc[1] = {0.0f};
  if (ex >= 0 && ex < a_ne.s2) {
    global const uchar* arow = BASE(a) + at4(a_nb, 0, m, ex, 0);
    global const uchar* act0 = act + ((U1 == 1 ? 0 : u) + U1 * t) * arb;
    row_dot_q8(atype, arow, a_nb.s0, a_ne.s0, act0, arb, 1, acc);
  }
  *(global float*)(BASE(d) + at4(d_nb, m, u, t, 0)) = acc[0];
}
