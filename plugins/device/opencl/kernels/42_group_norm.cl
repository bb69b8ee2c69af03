// group_norm: a [W, H, C, N]; each sample's C channels form `groups` groups of C / groups
// channels, each normalized as one set of W * H * C / groups values:
// (x - mean) / sqrt(var + eps), the CPU device's two passes (mean, then squared deviations).
//
// A group holds up to millions of values (an image's channels), so one work-group per (group,
// sample) shares it: each item sums a strided share in wide_t, then a tree reduction in local
// memory. The host picks the local size, a power of two <= GN_MAX_LOCAL.
#define GN_MAX_LOCAL 256

// The work-group's total of v, returned to every item.
inline wide_t gn_total(local wide_t* part, wide_t v) {
  const int l = (int)get_local_id(0);
  part[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = (int)get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const wide_t total = part[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // part is written again by the next call
  return total;
}

// type F32, F16 or BF16 for a and dst.
kernel void k_group_norm(TENSOR(d), TENSOR(a), int groups, float eps, int type) {
  local wide_t part[GN_MAX_LOCAL];
  const long u = get_group_id(0), g = u % groups, i3 = u / groups;
  const long cpg = a_ne.s2 / groups;
  const long4 shape = (long4)(a_ne.s0, a_ne.s1, cpg, 1);  // the group's values, W fastest
  const long count = a_ne.s0 * a_ne.s1 * cpg;
  const long first = get_local_id(0), step = get_local_size(0);
  global const uchar* x = BASE(a) + at4(a_nb, 0, 0, g * cpg, i3);
  global uchar* y = BASE(d) + at4(d_nb, 0, 0, g * cpg, i3);

  wide_t sum = 0;
  for (long e = first; e < count; e += step) {
    const long4 i = unravel(e, shape);
    sum += load_f(x + at4(a_nb, i.s0, i.s1, i.s2, 0), type);
  }
  const wide_t mean = gn_total(part, sum) / (wide_t)count;

  wide_t sq = 0;
  for (long e = first; e < count; e += step) {
    const long4 i = unravel(e, shape);
    const wide_t v = load_f(x + at4(a_nb, i.s0, i.s1, i.s2, 0), type) - mean;
    sq += v * v;
  }
  const wide_t scale = 1 / sqrt(gn_total(part, sq) / (wide_t)count + eps);

  for (long e = first; e < count; e += step) {
    const long4 i = unravel(e, shape);
    const wide_t v = load_f(x + at4(a_nb, i.s0, i.s1, i.s2, 0), type);
    store_f(y + at4(d_nb, i.s0, i.s1, i.s2, 0), (float)((v - mean) * scale), type);
  }
}
