// The activation quantizer of the quantized-weight matmuls (kernels/75_matmul_q8.cl): F32 rows
// into the CPU's formats, byte-identical to them:
//   ACT_Q8  (32 elements, 40 bytes): float d, float s = d * sum(qs), char qs[32]
//   ACT_Q8K (256 elements, 292 bytes): float d, char qs[256], short bsums[16] (sums of 16)
// k_quantize_rows is one launch per matmul; the kernels that produce a matmul's activations on
// a GPU's decode path (k_norm with its weight, k_glu_quant) quantize them as they write them.
// Each value is quantize_act()'s (plugins/device/cpu): amax, d = amax / 127, q = round half to
// even of x * (127 / amax) clamped to [-127, 127] (the program is built with correctly rounded
// division, so d and 127 / amax are the CPU's floats), the sums in integers.
#define ACT_Q8 1
#define ACT_Q8K 2
#define ACT_Q8_BYTES 40
#define ACT_Q8K_BYTES 292

// The activation format a weight type's dot product reads (mm::weight_type's act).
inline int act_of(int type) {
  return (type == T_Q2_K || type == T_Q3_K || type == T_Q4_K || type == T_Q5_K || type == T_Q6_K)
             ? ACT_Q8K
             : ACT_Q8;
}

// Bytes of activation that one weight block reads (IQ4_XS: 256 elements as 8 Q8 blocks).
inline long act_bytes_per_wblock(int type) {
  return act_of(type) == ACT_Q8K ? ACT_Q8K_BYTES : (long)(blk_size(type) / 32) * ACT_Q8_BYTES;
}

// Row x (n elements, xs bytes apart) into out by the whole work-group, in runs of 16 elements
// (a Q8_K block's bsum groups; a Q8 block has two): item i takes runs i, i + L, ... of each
// chunk of QR_RUNS runs. The block's amax is the max of its runs' (max is exact in any order),
// so d, 127 / amax, every q and every sum are the CPU's; one item per 256-element block
// had left a decode step's K-quant rows on 4 items walking 768 elements each. The caller wrote
// x; the group's writes are made visible first. local: QR_RUNS floats and QR_RUNS ints
// (a Q8 block's two run sums meet there).
#define QR_RUNS 1024
inline void wg_quantize_row(global const uchar* x, long xs, long n, global uchar* out, int fmt,
                            local float* run_max, local int* run_sum) {
  barrier(CLK_GLOBAL_MEM_FENCE);
  const int per_blk = fmt == ACT_Q8K ? 16 : 2;  // runs per block
  const long bb = fmt == ACT_Q8K ? ACT_Q8K_BYTES : ACT_Q8_BYTES;
  const long L = get_local_size(0), runs = n / 16;
  for (long r0 = 0; r0 < runs; r0 += QR_RUNS) {  // QR_RUNS is a multiple of 16: whole blocks
    const long nr = min((long)QR_RUNS, runs - r0);
    for (long i = get_local_id(0); i < nr; i += L) {
      global const uchar* xr = x + (r0 + i) * 16 * xs;
      float amax = 0.0f;
      for (int j = 0; j < 16; ++j) amax = fmax(amax, fabs(*(global const float*)(xr + j * xs)));
      run_max[i] = amax;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long i = get_local_id(0); i < nr; i += L) {
      const long first = i - i % per_blk, r = r0 + i;
      float amax = 0.0f;
      for (int k = 0; k < per_blk; ++k) amax = fmax(amax, run_max[first + k]);
      const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
      global const uchar* xr = x + r * 16 * xs;
      global uchar* o = out + (r / per_blk) * bb;
      global char* qs = (global char*)(o + (fmt == ACT_Q8K ? 4 : 8)) + (r % per_blk) * 16;
      int sum = 0;
      for (int j = 0; j < 16; ++j) {
        const int q = clamp((int)rint(*(global const float*)(xr + j * xs) * id), -127, 127);
        qs[j] = (char)q;
        sum += q;
      }
      if (r % per_blk == 0) *(global float*)o = amax / 127.0f;  // the block's d
      if (fmt == ACT_Q8K) ((global short*)(o + 260))[r % 16] = (short)sum;
      run_sum[i] = sum;
    }
    if (fmt == ACT_Q8) {  // s = d * the block's sum: its two runs'
      barrier(CLK_LOCAL_MEM_FENCE);
      for (long i = get_local_id(0); i < nr; i += L)
        if (i % 2 == 0) {
          global uchar* o = out + ((r0 + i) / 2) * bb;
          *(global float*)(o + 4) =
              fmax(run_max[i], run_max[i + 1]) / 127.0f * (float)(run_sum[i] + run_sum[i + 1]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // run_max / run_sum are rewritten by the next chunk
  }
}

// Row r of b by a work-group each (wg_quantize_row); row r is (i1, i2, i3), i1 fastest, and
// lands at act + r * arb.
kernel void k_quantize_rows(TENSOR(b), global uchar* act, long arb, int fmt) {
  local float run_max[QR_RUNS];
  local int run_sum[QR_RUNS];
  const long4 r = unravel(get_group_id(0), (long4)(b_ne.s1, b_ne.s2, b_ne.s3, 1));
  wg_quantize_row(BASE(b) + at4(b_nb, 0, r.s0, r.s1, r.s2), b_nb.s0, b_ne.s0,
                  act + (r.s0 + b_ne.s1 * (r.s1 + b_ne.s2 * r.s2)) * arb, fmt, run_max, run_sum);
}
