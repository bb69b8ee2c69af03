// Data movement: cpy (convert and gather), get_rows, set_rows, concat.

// dst (same shape as a) = a converted; types F32, F16, BF16 or I32 (I32 only to I32: raw
// copy).
kernel void k_cpy(TENSOR(d), TENSOR(a), int dtype, int stype) {
  const long4 i = unravel(get_global_id(0), d_ne);
  global const uchar* s = BASE(a) + at4(a_nb, i.s0, i.s1, i.s2, i.s3);
  global uchar* o = BASE(d) + at4(d_nb, i.s0, i.s1, i.s2, i.s3);
  if (dtype == stype) {
    if (dtype == T_F16 || dtype == T_BF16)
      *(global ushort*)o = *(global const ushort*)s;
    else
      *(global uint*)o = *(global const uint*)s;
  } else {
    store_f(o, load_f(s, stype), dtype);
  }
}

// dst F32 [K, N, B2, B3] = rows ids[n, b2, b3] of the F32/F16/BF16 table [K, R, B2, B3]. An id
// outside the table (a hostile token) is never read: the row gets zeros and *err is set, which
// synchronize() reports as an error.
kernel void k_get_rows(global int* err, TENSOR(d), TENSOR(t), TENSOR(ids), int ttype) {
  const long4 i = unravel(get_global_id(0), d_ne);
  const int id = *(global const int*)(BASE(ids) + at4(ids_nb, i.s1, i.s2, i.s3, 0));
  float v = 0.0f;
  if (id >= 0 && id < t_ne.s1)
    v = load_f(BASE(t) + at4(t_nb, i.s0, id, i.s2, i.s3), ttype);
  else
    *err = 1;  // kBadRowId
  *(global float*)(BASE(d) + at4(d_nb, i.s0, i.s1, i.s2, i.s3)) = v;
}

// The same from a quantized table: one work-item per (block, output row).
kernel void k_get_rows_q(global int* err, TENSOR(d), TENSOR(t), TENSOR(ids), int ttype) {
  const int bs = blk_size(ttype);
  const long nblk = d_ne.s0 / bs;
  const long e = get_global_id(0);
  const long blk = e % nblk;
  const long4 i = unravel(e / nblk, (long4)(d_ne.s1, d_ne.s2, d_ne.s3, 1));  // (n, b2, b3)
  const int id = *(global const int*)(BASE(ids) + at4(ids_nb, i.s0, i.s1, i.s2, 0));
  float y[256];
  if (id >= 0 && id < t_ne.s1)
    dq_block(ttype, BASE(t) + at4(t_nb, blk, id, i.s1, i.s2), y);
  else {
    *err = 1;  // kBadRowId
    for (int j = 0; j < bs; ++j) y[j] = 0.0f;
  }
  for (int j = 0; j < bs; ++j)
    *(global float*)(BASE(d) + at4(d_nb, blk * bs + j, i.s0, i.s1, i.s2)) = y[j];
}

// Row n of r (F32 [K, N]) is written, converted, into row ids[n] of d (F32 or F16 [K, R]).
// One work-item per element of r; ids are distinct, so no two items write the same place. A bad
// id writes nothing and sets *err. pair 1 (zen/fusion.hpp set_rows_pair: a layer's K and V
// cache writes): the items past r's take r2 into d2 (type dtype2) by the same ids.
kernel void k_set_rows(global int* err, TENSOR(d), TENSOR(r), TENSOR(ids), int dtype, int pair,
                       TENSOR(d2), TENSOR(r2), int dtype2) {
  long e = get_global_id(0);
  const bool second = pair && e >= r_ne.s0 * r_ne.s1;
  if (second) e -= r_ne.s0 * r_ne.s1;
  const long K = second ? r2_ne.s0 : r_ne.s0, k = e % K, n = e / K;
  const int id = *(global const int*)(BASE(ids) + n * ids_nb.s0);
  if (id < 0 || id >= (second ? d2_ne.s1 : d_ne.s1)) {
    *err = 1;  // kBadRowId
    return;
  }
  if (second) {
    const float v = *(global const float*)(BASE(r2) + at4(r2_nb, k, n, 0, 0));
    store_f(BASE(d2) + at4(d2_nb, k, id, 0, 0), v, dtype2);
    return;
  }
  const float v = *(global const float*)(BASE(r) + at4(r_nb, k, n, 0, 0));
  store_f(BASE(d) + at4(d_nb, k, id, 0, 0), v, dtype);
}

// concat, one source at a time: dst's slice starting at `start` along dim = a. esize 2 or 4
// bytes per element (raw copy). One work-item per element of a.
kernel void k_concat_part(TENSOR(d), TENSOR(a), int dim, long start, int esize) {
  long4 i = unravel(get_global_id(0), a_ne);
  global const uchar* s = BASE(a) + at4(a_nb, i.s0, i.s1, i.s2, i.s3);
  i += (long4)((long)(dim == 0), (long)(dim == 1), (long)(dim == 2), (long)(dim == 3)) * start;
  global uchar* o = BASE(d) + at4(d_nb, i.s0, i.s1, i.s2, i.s3);
  if (esize == 2)
    *(global ushort*)o = *(global const ushort*)s;
  else
    *(global uint*)o = *(global const uint*)s;
}

// dst F32 (same shape) = a quantized tensor decoded: one work-item per (block, row) of a.
kernel void k_cpy_q(TENSOR(d), TENSOR(a), int atype) {
  const int bs = blk_size(atype);
  const long nblk = a_ne.s0 / bs;
  const long e = get_global_id(0);
  const long blk = e % nblk;
  const long4 r = unravel(e / nblk, (long4)(a_ne.s1, a_ne.s2, a_ne.s3, 1));
  float y[256];
  dq_block(atype, BASE(a) + at4(a_nb, blk, r.s0, r.s1, r.s2), y);
  for (int j = 0; j < bs; ++j)
    *(global float*)(BASE(d) + at4(d_nb, blk * bs + j, r.s0, r.s1, r.s2)) = y[j];
}
