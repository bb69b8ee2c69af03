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

// One item's share of a weight row's dot product with the quantized activations act0 (before
// the work-group adds the shares): blocks sub, sub + per_row, ... (dot_q8 terms), or with split
// (Q4_K, Q5_K, Q6_K; per_row a multiple of 8) 32-element steps sub, sub + per_row, ...: the 8
// items of a super-block share its 256 products (one item per super-block left a K = 1024 row
// on 4 items, each a 256-long chain), their integer shares meet in local memory and the first
// scales the total as dot_q8 does. Every item of the group calls it (the split turns have
// barriers); live: whether this item's row exists.
inline float mv_share(int atype, global const uchar* arow, long anb0, long K,
                      global const uchar* act0, bool live, long sub, long lid, int per_row,
                      int split, local int* share_i, local int* share_m) {
  float acc = 0.0f;
  if (!split) {
    const long ab = act_bytes_per_wblock(atype), nblk = K / blk_size(atype);
    if (live)
      for (long blk = sub; blk < nblk; blk += per_row)
        acc += dot_q8(atype, arow + blk * anb0, act0 + blk * ab);
    return acc;
  }
  const long units = K / 32;
  for (long u0 = 0; u0 < units; u0 += per_row) {
    const long u = u0 + sub, blk = u / 8;
    global const uchar* w = arow + blk * anb0;
    global const uchar* x = act0 + blk * ACT_Q8K_BYTES;
    int si = 0, sm = 0;
    if (live && u < units) si = dot_q8k_step(atype, w, x, u % 8, &sm);
    share_i[lid] = si;
    share_m[lid] = sm;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (live && u < units && u % 8 == 0) {
      for (int j = 1; j < 8; ++j) {
        si += share_i[lid + j];
        sm += share_m[lid + j];
      }
      acc += kq_term(atype, w, *(global const float*)x, si, sm);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return acc;
}

// The total of the per_row shares of each row of the work-group, valid in the row's first item
// (sub 0). Every item calls it.
inline float mv_row_total(local float* part, float acc, long lid, long L, long sub, int per_row) {
  if (per_row == L) return mv_total(part, acc);
  part[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = per_row / 2; h > 0; h >>= 1) {
    if (sub < h) part[lid] += part[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return part[lid];
}

// d [M, N, B2, B3] = a [K, M, A2, A3] (batch broadcast) . the quantized activation rows: row
// n + N * (b2 + B2 * b3) of act, arb bytes each (N small: a few sequences' decode step; each
// column reads the weight row again, from cache). per_row items per output element, a
// work-group holding local size / per_row of them: a K-quant row of K = 1024 has 4 blocks, and
// a work-group of 4 items left most of a GPU's lanes idle (the output head's 151,936 rows:
// 714 us on an H100). With several rows per group their sums are trees in local memory, in
// the order mv_total's tree adds one row's.
// nmat 2 or 3 (zen/fusion.hpp shared_matmuls; one column, no batch): also d1 = a1 . act and
// d2 = a2 . act in the same launch (q/k/v, gate/up), rows of d first, then d1's, then d2's;
// their types share the activation format.
// fused 1 (zen/fusion.hpp matmul_add; nmat 1): also s = d + r, the ADD of a residual r (same
// shape and layout as d) that follows, in the same store.
kernel void k_matvec_q8(TENSOR(d), TENSOR(a), global const uchar* act, long arb, int atype,
                        TENSOR(r), TENSOR(s), int fused, int per_row, int split, TENSOR(d1),
                        TENSOR(a1), int atype1, TENSOR(d2), TENSOR(a2), int atype2, int nmat) {
  local float part[MV_MAX_LOCAL];
  local int share_i[MV_MAX_LOCAL], share_m[MV_MAX_LOCAL];
  const long lid = get_local_id(0), L = get_local_size(0), sub = lid % per_row;
  const long M = d_ne.s0, N = d_ne.s1;
  const long outputs =
      nmat > 1 ? M + d1_ne.s0 + (nmat > 2 ? d2_ne.s0 : 0) : M * N * d_ne.s2 * d_ne.s3;
  long e = get_group_id(0) * (L / per_row) + lid / per_row;
  const bool live = e < outputs;
  int which = 0;  // the matrix of this output element
  if (nmat > 1 && e >= M) {
    e -= M;
    which = 1;
    if (e >= d1_ne.s0) {
      e -= d1_ne.s0;
      which = 2;
    }
  }
  const long4 o = unravel(e, (long4)(M, N, d_ne.s2, d_ne.s3));  // (m, n, b2, b3)
  const long m = o.s0, n = o.s1, b2 = o.s2, b3 = o.s3;
  const long r2 = d_ne.s2 / a_ne.s2, r3 = d_ne.s3 / a_ne.s3;
  global const uchar* act0 = act + (live && nmat == 1 ? n + N * (b2 + d_ne.s2 * b3) : 0) * arb;
  const long K = a_ne.s0;

  global const uchar* arow;
  int type;
  long anb0;
  if (which == 0) {
    arow = BASE(a) + (live ? at4(a_nb, 0, m, b2 / r2, b3 / r3) : 0);
    type = atype;
    anb0 = a_nb.s0;
  } else if (which == 1) {
    arow = BASE(a1) + (live ? e * a1_nb.s1 : 0);
    type = atype1;
    anb0 = a1_nb.s0;
  } else {
    arow = BASE(a2) + (live ? e * a2_nb.s1 : 0);
    type = atype2;
    anb0 = a2_nb.s0;
  }
  const float acc = mv_share(type, arow, anb0, K, act0, live, sub, lid, per_row, split,
                             share_i, share_m);
  const float total = mv_row_total(part, acc, lid, L, sub, per_row);
  if (!live || sub != 0) return;
  if (which == 1) {
    *(global float*)(BASE(d1) + e * d1_nb.s0) = total;
    return;
  }
  if (which == 2) {
    *(global float*)(BASE(d2) + e * d2_nb.s0) = total;
    return;
  }
  *(global float*)(BASE(d) + at4(d_nb, m, n, b2, b3)) = total;
  if (fused)
    *(global float*)(BASE(s) + at4(s_nb, m, n, b2, b3)) =
        total + *(global const float*)(BASE(r) + at4(r_nb, m, n, b2, b3));
}
