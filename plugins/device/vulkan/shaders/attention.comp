#version 450
// Fused attention, the generic kernel (any device; the fallback where attention_sg.comp is
// not picked), one workgroup per (query head h, query t, sequence s):
//   s_j = scale * q.k_j, soft-capped (cap * tanh(s_j / cap)), plus mask[j]; keys outside the
//   causal / sliding-window range are skipped; out = sum_j e^(s_j - m) v_j / sum_j e^(s_j - m)
// with the running max m and sum l of an online softmax over blocks of WG keys: each thread
// scores one key of the block, then every thread rescales and accumulates its own output
// elements (e = tid, tid + WG, ...). A query that sees no key outputs zeros.
// Tensors, bindings and push constants: attention.glsl.
#include "common.glsl"
#include "attention.glsl"

#define WG 64u
layout(local_size_x = 64) in;

shared float qs[ATT_MAXD];
shared float sc[WG];

void main() {
  const uint g = group_id(), tid = gl_LocalInvocationID.x;
  if (g >= pc.Hq * pc.T * pc.S) return;
  const uint h = g % pc.Hq, t = (g / pc.Hq) % pc.T, s = g / (pc.Hq * pc.T);
  const uint hk = h / (pc.Hq / pc.Hkv);
  const uint D = att_D(), Dv = att_Dv(), kt = att_ktype(), vt = att_vtype();
  const float f = att_qfactor();

  const uint qrow = att_qrow(h, t, s);
  for (uint i = tid; i < D; i += WG) qs[i] = f * att_q(qrow, i);
  barrier();

  int lo, hi;
  att_range(t, lo, hi);
  const uint kbase = att_kbase(hk, s), vbase = att_vbase(hk, s), mbase = att_mbase(h, t, s);
  const uint ksz = pc.knb0, vsz = pc.vnb0;  // element strides (a transposed V has large ones)

  float m = NEG_INF, l = 0.0;
  float acc[ATT_MAXD / WG];
  for (uint i = 0u; i < ATT_MAXD / WG; ++i) acc[i] = 0.0;

  for (int j0 = lo; j0 < hi; j0 += int(WG)) {
    const int j = j0 + int(tid);
    float x = NEG_INF;
    if (j < hi) {
      const float mv = att_mask(mbase, j);
      if (mv > NEG_INF) {
        const uint kr = kbase + uint(j) * pc.knb1;
        float d = 0.0;
        for (uint i = 0u; i < D; ++i) d += qs[i] * ldk(kr, i, ksz, kt);
        x = att_cap(d) + mv;
      }
    }
    sc[tid] = x;
    barrier();
    float bm = NEG_INF;
    const uint n = uint(min(int(WG), hi - j0));
    for (uint i = 0u; i < n; ++i) bm = max(bm, sc[i]);
    const float mnew = max(m, bm);
    if (mnew > NEG_INF) {
      const float r = m > NEG_INF ? exp(m - mnew) : 0.0;
      l *= r;
      for (uint i = 0u; i < ATT_MAXD / WG; ++i) acc[i] *= r;
      for (uint i = 0u; i < n; ++i) {
        const float p = sc[i] > NEG_INF ? exp(sc[i] - mnew) : 0.0;
        if (p == 0.0) continue;
        l += p;
        const uint vr = vbase + uint(j0 + int(i)) * pc.vnb1;
        for (uint e = 0u; e < ATT_MAXD / WG; ++e) {
          const uint ei = tid + e * WG;
          if (ei < Dv) acc[e] += p * ldv(vr, ei, vsz, vt);
        }
      }
      m = mnew;
    }
    barrier();
  }
  const uint orow = pc.off_d + att_orow(h, t, s) * Dv * 4u;
  const float inv = l > 0.0 ? 1.0 / l : 0.0;
  for (uint e = 0u; e < ATT_MAXD / WG; ++e) {
    const uint ei = tid + e * WG;
    if (ei < Dv) bufs[4].w[(orow + ei * 4u) >> 2] = floatBitsToUint(acc[e] * inv);
  }
}
