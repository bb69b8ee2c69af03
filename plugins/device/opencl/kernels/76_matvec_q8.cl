// Decode's matrix-vector product (MATMUL with N = 1) for block-quantized weights: the dot
// products of k_matmul_q8 (dot_q8 per block, the CPU's integer sums and scales), spread over a
// work-group per output element instead of one work-item, so a decode step's few thousand
// rows fill a GPU and neighbouring items read neighbouring blocks of one weight row.
//
// Item i of a work-group of L (a power of two <= MV_MAX_LOCAL) takes blocks i, i + L, ... of
// the row; the partial sums are then added: with sub-group functions (ZEN_SUBGROUPS, defined by
// the host when the device has cl_khr_subgroups or cl_intel_subgroups) one sub_group_reduce_add
// per sub-group and the sub-groups' totals through local memory, else a tree in local memory.
// Only the float order of the block terms differs from k_matmul_q8.
#define MV_MAX_LOCAL 64

#if defined(ZEN_SUBGROUPS) && defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

// The work-group's total of v, valid in item 0.
inline float mv_total(local float* part, float v) {
  const uint l = get_local_id(0);
#ifdef ZEN_SUBGROUPS
  const float s = sub_group_reduce_add(v);
  if (get_sub_group_local_id() == 0) part[get_sub_group_id()] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  float total = 0.0f;
  if (l == 0)
    for (uint i = 0; i < get_num_sub_groups(); ++i) total += part[i];
  return total;
#else
  part[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return part[0];
#endif
}

// d [M, 1, B2, B3] = a [K, M, A2, A3] (batch broadcast) . the quantized activation rows: row
// (b2 + B2 * b3) of act, arb bytes each. per_row items per output element (m, b2, b3), a
// work-group holding local size / per_row of them: a K-quant row of K = 1024 has 4 blocks, and
// a work-group of 4 items left most of a GPU's lanes idle (the output head's 151,936 rows:
// 714 us on an H100). With several rows per group their sums are trees in local memory, in
// the order mv_total's tree adds one row's.
// fused 1 (zen/fusion.hpp matmul_add): also s = d + r, the ADD of a residual r (same shape and
// layout as d) that follows, in the same store.
kernel void k_matvec_q8(TENSOR(d), TENSOR(a), global const uchar* act, long arb, int atype,
                        TENSOR(r), TENSOR(s), int fused, int per_row) {
  local float part[MV_MAX_LOCAL];
  const long lid = get_local_id(0), L = get_local_size(0), sub = lid % per_row;
  const long e = get_group_id(0) * (L / per_row) + lid / per_row, M = d_ne.s0;
  const bool live = e < M * d_ne.s2 * d_ne.s3;
  const long m = e % M, b2 = (e / M) % d_ne.s2, b3 = e / (M * d_ne.s2);
  float acc = 0.0f;
  if (live) {
    const long r2 = d_ne.s2 / a_ne.s2, r3 = d_ne.s3 / a_ne.s3;
    global const uchar* arow = BASE(a) + at4(a_nb, 0, m, b2 / r2, b3 / r3);
    global const uchar* act0 = act + (b2 + d_ne.s2 * b3) * arb;
    const long ab = act_bytes_per_wblock(atype), nblk = a_ne.s0 / blk_size(atype);
    for (long blk = sub; blk < nblk; blk += per_row)
      acc += dot_q8(atype, arow + blk * a_nb.s0, act0 + blk * ab);
  }
  float total;
  if (per_row == L) {
    total = mv_total(part, acc);
  } else {
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = per_row / 2; h > 0; h >>= 1) {
      if (sub < h) part[lid] += part[lid + h];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    total = part[lid];
  }
  if (!live || sub != 0) return;
  *(global float*)(BASE(d) + at4(d_nb, m, 0, b2, b3)) = total;
  if (fused)
    *(global float*)(BASE(s) + at4(s_nb, m, 0, b2, b3)) =
        total + *(global const float*)(BASE(r) + at4(r_nb, m, 0, b2, b3));
}
