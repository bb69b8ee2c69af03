// Fused attention, one work-item per (query head h, query t, sequence s): the keys are streamed
// once with an online softmax (running max mx, running sum l, unnormalised accumulator acc),
// never materialising the score row:
//   s_j = scale * q.k_j, soft-capped (cap * tanh(s_j / cap)), plus mask[j]; keys outside the
//   causal / sliding-window range and keys the mask sets to -inf are skipped;
//   out = sum_j e^(s_j - mx) v_j / sum_j e^(s_j - mx); a query that sees no key outputs zeros.
// Layout: q [D, T, Hq, S], k [D, L, Hkv, S'], v [Dv, L, Hkv, S'], mask [L, T', M2, M3],
// dst F32 [Dv, Hq, T, S]. Query head h reads kv head h / (Hq / Hkv) (GQA). q is F32, F16 or
// BF16, K and V also Q8_0 (any mix), the mask F32 or F16. D and Dv are at most ATTN_MAX_D (the host refuses more).
#define ATTN_MAX_D 256

kernel void k_attention(TENSOR(d), TENSOR(q), TENSOR(k), TENSOR(v), TENSOR(m), int qtype,
                        int ktype, int vtype, int has_mask, int mtype, float scale,
                        float softcap, int causal, int window, int pos0) {
  const long Hq = q_ne.s2, T = q_ne.s1;
  const long e = get_global_id(0);
  const long h = e % Hq, t = (e / Hq) % T, s = e / (Hq * T);
  const long D = q_ne.s0, Dv = v_ne.s0, L = k_ne.s1;
  const long hk = h / (Hq / k_ne.s2);
  float qf[ATTN_MAX_D], acc[ATTN_MAX_D];
  const float f = softcap > 0.0f ? scale / softcap : scale;
  global const uchar* qrow = BASE(q) + at4(q_nb, 0, t, h, s);
  for (long i = 0; i < D; ++i) qf[i] = f * load_f(qrow + i * q_nb.s0, qtype);
  for (long i = 0; i < Dv; ++i) acc[i] = 0.0f;

  const long qpos = pos0 + t;
  long lo = 0, hi = L;
  if (causal) hi = min(hi, qpos + 1);
  if (window > 0) lo = max(0L, qpos - window + 1);

  global const uchar* kbase = BASE(k) + at4(k_nb, 0, 0, hk, s % k_ne.s3);
  global const uchar* vbase = BASE(v) + at4(v_nb, 0, 0, hk, s % v_ne.s3);
  global const uchar* mrow =
      has_mask ? BASE(m) + at4(m_nb, 0, t, h % m_ne.s2, s % m_ne.s3) : 0;
  float mx = -INFINITY, l = 0.0f;
  for (long j = lo; j < hi; ++j) {
    float mv = 0.0f;
    if (has_mask) {
      mv = load_f(mrow + j * m_nb.s0, mtype);
      if (mv == -INFINITY) continue;
    }
    global const uchar* kr = kbase + j * k_nb.s1;
    float x = 0.0f;
    for (long i = 0; i < D; ++i) x += qf[i] * load_elem(kr, i, k_nb.s0, ktype);
    if (softcap > 0.0f) x = softcap * tanh(x);
    x += mv;
    if (x == -INFINITY) continue;
    if (x > mx) {
      const float c = exp(mx - x);  // 0 for the first key (mx = -inf)
      for (long i = 0; i < Dv; ++i) acc[i] *= c;
      l *= c;
      mx = x;
    }
    const float w = exp(x - mx);
    l += w;
    global const uchar* vr = vbase + j * v_nb.s1;
    for (long i = 0; i < Dv; ++i) acc[i] += w * load_elem(vr, i, v_nb.s0, vtype);
  }
  global float* out = (global float*)(BASE(d) + at4(d_nb, 0, h, t, s));
  const long dy = d_nb.s0 / 4;
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (long i = 0; i < Dv; ++i) out[i * dy] = acc[i] * inv;
}
