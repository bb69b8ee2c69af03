// Fused attention per (query head h, query t, sequence s): the keys are streamed
// once with an online softmax (running max mx, running sum l, unnormalised accumulator acc),
// never materialising the score row:
//   s_j = scale * q.k_j, soft-capped (cap * tanh(s_j / cap)), plus mask[j]; keys outside the
//   causal / sliding-window range and keys the mask sets to -inf are skipped;
//   out = sum_j e^(s_j - mx) v_j / sum_j e^(s_j - mx); a query that sees no key outputs zeros.
// Layout: q [D, T, Hq, S], k [D, L, Hkv, S'], v [Dv, L, Hkv, S'], mask [L, T', M2, M3],
// dst F32 [Dv, Hq, T, S]. Query head h reads kv head h / (Hq / Hkv) (GQA). q is F32, F16 or
// BF16, K and V also Q8_0 (any mix), the mask F32 or F16. D and Dv are at most ATTN_MAX_D (the host refuses more).
#define ATTN_MAX_D 256

#define ATTN_WG 64
#define ATTN_PER_ITEM (ATTN_MAX_D / ATTN_WG)

// A work-group of ATTN_WG items per (query head h, query t, sequence s): the keys go in blocks
// of ATTN_WG, item i scoring key j0 + i (its whole q.k, q held in local memory), then every
// item rescales and accumulates its own output elements (i, i + ATTN_WG, ...) over the block's
// keys, so neighbouring items read neighbouring elements of each V row. One item per query
// (the first version) left a decode step's 16 heads on 16 threads of the GPU.
kernel void k_attention(TENSOR(d), TENSOR(q), TENSOR(k), TENSOR(v), TENSOR(m), int qtype,
                        int ktype, int vtype, int has_mask, int mtype, float scale,
                        float softcap, int causal, int window, int pos0) {
  local float qs[ATTN_MAX_D];
  local float sc[ATTN_WG];
  const long Hq = q_ne.s2, T = q_ne.s1;
  const long e = get_group_id(0), li = get_local_id(0);
  const long h = e % Hq, t = (e / Hq) % T, s = e / (Hq * T);
  const long D = q_ne.s0, Dv = v_ne.s0, L = k_ne.s1;
  const long hk = h / (Hq / k_ne.s2);
  const float f = softcap > 0.0f ? scale / softcap : scale;
  global const uchar* qrow = BASE(q) + at4(q_nb, 0, t, h, s);
  for (long i = li; i < D; i += ATTN_WG) qs[i] = f * load_f(qrow + i * q_nb.s0, qtype);
  float acc[ATTN_PER_ITEM];
  for (int a = 0; a < ATTN_PER_ITEM; ++a) acc[a] = 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);

  const long qpos = pos0 + t;
  long lo = 0, hi = L;
  if (causal) hi = min(hi, qpos + 1);
  if (window > 0) lo = max(0L, qpos - window + 1);

  global const uchar* kbase = BASE(k) + at4(k_nb, 0, 0, hk, s % k_ne.s3);
  global const uchar* vbase = BASE(v) + at4(v_nb, 0, 0, hk, s % v_ne.s3);
  global const uchar* mrow =
      has_mask ? BASE(m) + at4(m_nb, 0, t, h % m_ne.s2, s % m_ne.s3) : 0;
  float mx = -INFINITY, l = 0.0f;
  for (long j0 = lo; j0 < hi; j0 += ATTN_WG) {
    const long j = j0 + li, n = min((long)ATTN_WG, hi - j0);
    float x = -INFINITY;
    if (j < hi) {
      const float mv = has_mask ? load_f(mrow + j * m_nb.s0, mtype) : 0.0f;
      if (mv != -INFINITY) {
        global const uchar* kr = kbase + j * k_nb.s1;
        float dot = 0.0f;
        for (long i = 0; i < D; ++i) dot += qs[i] * load_elem(kr, i, k_nb.s0, ktype);
        if (softcap > 0.0f) dot = softcap * tanh(dot);
        x = dot + mv;
      }
    }
    sc[li] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    float bm = -INFINITY;
    for (long jj = 0; jj < n; ++jj) bm = fmax(bm, sc[jj]);
    if (bm != -INFINITY) {
      const float nm = fmax(mx, bm), c = exp(mx - nm);  // c = 0 while mx is -inf
      l *= c;
      for (int a = 0; a < ATTN_PER_ITEM; ++a) acc[a] *= c;
      mx = nm;
      for (long jj = 0; jj < n; ++jj) {
        if (sc[jj] == -INFINITY) continue;
        const float w = exp(sc[jj] - mx);
        l += w;
        global const uchar* vr = vbase + (j0 + jj) * v_nb.s1;
        for (int a = 0; a < ATTN_PER_ITEM; ++a) {
          const long i = li + a * ATTN_WG;
          if (i < Dv) acc[a] += w * load_elem(vr, i, v_nb.s0, vtype);
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // sc is rewritten by the next block
  }
  global float* out = (global float*)(BASE(d) + at4(d_nb, 0, h, t, s));
  const long dy = d_nb.s0 / 4;
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int a = 0; a < ATTN_PER_ITEM; ++a) {
    const long i = li + a * ATTN_WG;
    if (i < Dv) out[i * dy] = acc[a] * inv;
  }
}
