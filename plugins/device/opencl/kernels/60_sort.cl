// argsort and top_k over ne0 -> I32 indices. Each work-item ranks one element of a row against
// the whole row (O(n) per item, O(n^2) per row: rows here are expert scores, short) and writes
// its index at its rank if the rank is below k. Order: by value, ties by lower index; NaN is
// larger than every number (the CPU device's order).

inline bool value_less(float a, float b) { return !isnan(a) && (isnan(b) || a < b); }

// Does (va, ia) come before (vb, ib)?
inline bool before(float va, long ia, float vb, long ib, int desc) {
  if (desc) return value_less(vb, va) || (!value_less(va, vb) && ia < ib);
  return value_less(va, vb) || (!value_less(vb, va) && ia < ib);
}

kernel void k_sort(TENSOR(d), TENSOR(a), int desc, int stype) {
  const long n = a_ne.s0;
  const long e = get_global_id(0);
  const long i = e % n;
  const long4 r = unravel(e / n, (long4)(a_ne.s1, a_ne.s2, a_ne.s3, 1));
  global const uchar* row = BASE(a) + at4(a_nb, 0, r.s0, r.s1, r.s2);
  const float v = load_f(row + i * a_nb.s0, stype);
  long rank = 0;
  for (long j = 0; j < n; ++j)
    if (j != i && before(load_f(row + j * a_nb.s0, stype), j, v, i, desc)) ++rank;
  if (rank < d_ne.s0)
    *(global int*)(BASE(d) + at4(d_nb, rank, r.s0, r.s1, r.s2)) = (int)i;
}
