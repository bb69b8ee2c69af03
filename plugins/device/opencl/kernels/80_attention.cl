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

// Elements i .. i + 7 of a key row of contiguous F16 or F32 elements (row8: whether the row is
// such) in one 16- or 32-byte load instead of 8: a decode step's scoring loop waited on 128
// loads per key. Other rows go element by element (load_elem).
inline bool row8(int type, long nb0) {
  return (type == T_F16 && nb0 == 2) || (type == T_F32 && nb0 == 4);
}
inline float8 load8(global const uchar* r, long i, int type) {
  return type == T_F16 ? vload_half8(0, (global const half*)(r + 2 * i))
                       : vload8(0, (global const float*)(r + 4 * i));
}

// scale * q . k_j for one key row kr (q already scaled, in local memory), the products added
// in element order.
inline float key_dot(local const float* q, global const uchar* kr, long D, long nb0, int type) {
  float dot = 0.0f;
  long i = 0;
  if (row8(type, nb0))
    for (; i + 8 <= D; i += 8) {
      const float8 k8 = load8(kr, i, type);
      const float k[8] = {k8.s0, k8.s1, k8.s2, k8.s3, k8.s4, k8.s5, k8.s6, k8.s7};
      for (int c = 0; c < 8; ++c) dot += q[i + c] * k[c];
    }
  for (; i < D; ++i) dot += q[i] * load_elem(kr, i, nb0, type);
  return dot;
}

// The online softmax's step for a block of n scores sc (-inf: not seen): false when no key of
// the block is seen; else the running max mx moves to include the block and the running sum l
// and the n_acc accumulators are rescaled to it (c = 0 while mx was -inf). The caller then adds
// e^(sc[j] - mx) and its weighted V row for each seen key.
inline bool softmax_step(local const float* sc, long n, float* mx, float* l, float* acc,
                         int n_acc) {
  float bm = -INFINITY;
  for (long jj = 0; jj < n; ++jj) bm = fmax(bm, sc[jj]);
  if (bm == -INFINITY) return false;
  const float nm = fmax(*mx, bm), c = exp(*mx - nm);
  *l *= c;
  for (int a = 0; a < n_acc; ++a) acc[a] *= c;
  *mx = nm;
  return true;
}

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
        float dot = key_dot(qs, kbase + j * k_nb.s1, D, k_nb.s0, ktype);
        if (softcap > 0.0f) dot = softcap * tanh(dot);
        x = dot + mv;
      }
    }
    sc[li] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (softmax_step(sc, n, &mx, &l, acc, ATTN_PER_ITEM)) {
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

// Prefill attention in query tiles (GPUs): a work-group of ATT_WG items per (ATT_QT queries of
// one head, sequence), so each K row and V block is read once per ATT_QT queries instead of
// once per query. Keys go in blocks of ATT_KB: item i scores key j0 + i % ATT_KB against
// ATT_QPI of the tile's queries (its K row read once, q from local memory); the block's V rows
// are staged in local memory; then the ATT_SUBS items of a query each rescale and accumulate
// its output elements sub, sub + ATT_SUBS, ... (online softmax as k_attention). D and Dv are
// at most ATT_TILE_D (the host takes k_attention otherwise). The same function as
// k_attention; blocks of another size, so not its bits. (A 512-token prompt on an H200: 753 us
// per layer, against 1,448 for k_attention; 256 items per tile, more warps but 4x the
// exponentials per key and more items reading each K row, took 1,433.)
#define ATT_WG 64
#define ATT_QT 16
#define ATT_KB 32
#define ATT_TILE_D 128
#define ATT_QPI (ATT_QT * ATT_KB / ATT_WG)
#define ATT_SUBS (ATT_WG / ATT_QT)
#define ATT_PER_ITEM (ATT_TILE_D / ATT_SUBS)

__attribute__((reqd_work_group_size(ATT_WG, 1, 1))) kernel void k_attention_tiled(
    TENSOR(d), TENSOR(q), TENSOR(k), TENSOR(v), TENSOR(m), int qtype, int ktype, int vtype,
    int has_mask, int mtype, float scale, float softcap, int causal, int window, int pos0) {
  local float qs[ATT_QT * ATT_TILE_D];
  local float vs[ATT_KB * ATT_TILE_D];
  local float sc[ATT_QT * ATT_KB];
  const long Hq = q_ne.s2, T = q_ne.s1, tiles = (T + ATT_QT - 1) / ATT_QT;
  const long e = get_group_id(0), li = get_local_id(0);
  const long h = e % Hq, t0 = ((e / Hq) % tiles) * ATT_QT, s = e / (Hq * tiles);
  const long D = q_ne.s0, Dv = v_ne.s0, L = k_ne.s1;
  const long hk = h / (Hq / k_ne.s2);
  const float f = softcap > 0.0f ? scale / softcap : scale;
  const long nq = min((long)ATT_QT, T - t0);
  for (long i = li; i < ATT_QT * D; i += ATT_WG) {
    const long qi = i / D, c = i % D;
    qs[qi * ATT_TILE_D + c] =
        qi < nq ? f * load_f(BASE(q) + at4(q_nb, c, t0 + qi, h, s), qtype) : 0.0f;
  }
  // Keys any query of the tile sees.
  long lo = 0, hi = L;
  if (causal) hi = min(hi, pos0 + t0 + nq);
  if (window > 0) lo = max(0L, pos0 + t0 - window + 1);

  global const uchar* kbase = BASE(k) + at4(k_nb, 0, 0, hk, s % k_ne.s3);
  global const uchar* vbase = BASE(v) + at4(v_nb, 0, 0, hk, s % v_ne.s3);
  // Scoring: key kj of the block against queries qh .. qh + ATT_QPI.
  const long kj = li % ATT_KB, qh = (li / ATT_KB) * ATT_QPI;
  // Accumulating: query aq, output elements sub, sub + ATT_SUBS, ...
  const long aq = li / ATT_SUBS, sub = li % ATT_SUBS;
  float acc[ATT_PER_ITEM];
  for (int a = 0; a < ATT_PER_ITEM; ++a) acc[a] = 0.0f;
  float mx = -INFINITY, l = 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);

  for (long j0 = lo; j0 < hi; j0 += ATT_KB) {
    const long n = min((long)ATT_KB, hi - j0);
    for (long i = li; i < n * Dv; i += ATT_WG) {
      const long jj = i / Dv, c = i % Dv;
      vs[jj * ATT_TILE_D + c] = load_elem(vbase + (j0 + jj) * v_nb.s1, c, v_nb.s0, vtype);
    }
    const long j = j0 + kj;
    float dots[ATT_QPI];
    for (int a = 0; a < ATT_QPI; ++a) dots[a] = 0.0f;
    if (kj < n) {  // rows 8 elements a load where they allow, as key_dot
      global const uchar* kr = kbase + j * k_nb.s1;
      long i = 0;
      if (row8(ktype, k_nb.s0))
        for (; i + 8 <= D; i += 8) {
          const float8 k8 = load8(kr, i, ktype);
          const float kv[8] = {k8.s0, k8.s1, k8.s2, k8.s3, k8.s4, k8.s5, k8.s6, k8.s7};
          for (int c = 0; c < 8; ++c)
            for (int a = 0; a < ATT_QPI; ++a)
              dots[a] += qs[(qh + a) * ATT_TILE_D + i + c] * kv[c];
        }
      for (; i < D; ++i) {
        const float kv = load_elem(kr, i, k_nb.s0, ktype);
        for (int a = 0; a < ATT_QPI; ++a) dots[a] += qs[(qh + a) * ATT_TILE_D + i] * kv;
      }
    }
    for (int a = 0; a < ATT_QPI; ++a) {
      const long qi = qh + a, qpos = pos0 + t0 + qi;
      float x = -INFINITY;
      const bool seen = kj < n && qi < nq && (!causal || j <= qpos) &&
                        (window <= 0 || j >= qpos - window + 1);
      if (seen) {
        const float mv =
            has_mask ? load_f(BASE(m) + at4(m_nb, j, t0 + qi, h % m_ne.s2, s % m_ne.s3), mtype)
                     : 0.0f;
        if (mv != -INFINITY) x = (softcap > 0.0f ? softcap * tanh(dots[a]) : dots[a]) + mv;
      }
      sc[qi * ATT_KB + kj] = x;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    local const float* row = sc + aq * ATT_KB;
    if (softmax_step(row, n, &mx, &l, acc, ATT_PER_ITEM)) {
      for (long jj = 0; jj < n; ++jj) {
        if (row[jj] == -INFINITY) continue;
        const float w = exp(row[jj] - mx);
        l += w;
        local const float* vr = vs + jj * ATT_TILE_D;
        for (int a = 0; a < ATT_PER_ITEM; ++a) acc[a] += w * vr[sub + a * ATT_SUBS];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // sc and vs are rewritten by the next block
  }
  if (aq >= nq) return;
  global float* out = (global float*)(BASE(d) + at4(d_nb, 0, h, t0 + aq, s));
  const long dy = d_nb.s0 / 4;
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int a = 0; a < ATT_PER_ITEM; ++a) {
    const long i = sub + a * ATT_SUBS;
    if (i < Dv) out[i * dy] = acc[a] * inv;
  }
}
