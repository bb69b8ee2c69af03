#version 450
// Fused attention, one workgroup per (query head h, query t, sequence s):
//   s_j = scale * q.k_j, soft-capped (cap * tanh(s_j / cap)), plus mask[j]; keys outside the
//   causal / sliding-window range are skipped; out = sum_j e^(s_j - m) v_j / sum_j e^(s_j - m)
// with the running max m and sum l of an online softmax over blocks of WG keys: each thread
// scores one key of the block, then every thread rescales and accumulates its own output
// elements (e = tid, tid + WG, ...). A query that sees no key outputs zeros.
// q F32/F16/BF16 [D, T, Hq, S] (binding 0, packed rows); k (1), v (2) F32/F16/BF16 (any
// strides) or Q8_0 (packed rows of blocks, x = d * q) [D, L, Hkv, S']; mask (3) F32/F16
// [L, T', M2, M3]; dst (4) F32 packed [Dv, Hq, T, S]. Query head h reads kv head
// h / (Hq / Hkv) (GQA). D, Dv <= 256.
#include "common.glsl"

#define WG 64u
#define MAXD 256u
layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_q, off_k, off_v, off_m, off_d;
  uint D, Dv, T, Hq, S, L, Hkv;
  uint qnb1, qnb2, qnb3;
  uint knb1, knb2, knb3;
  uint vnb1, vnb2, vnb3;
  uint mnb1, mnb2, mnb3;
  uint ne3s;    // 8 bits each: k ne3 | v ne3 << 8 | mask ne2 << 16 | mask ne3 << 24
  uint knb0, vnb0;
  float scale, softcap;
  uint flags;   // bits 0-1 k type, 2-3 v type (0 F32, 1 F16, 2 BF16, 3 Q8_0), 4-5 mask (0 none,
                // 1 F32, 2 F16), 6 causal, 7-8 q type (0 F32, 1 F16, 2 BF16)
  int window, pos0;
} pc;

shared float qs[MAXD];
shared float sc[WG];

// Element i of the K or V row at byte `row` (element stride nb0 for the float types); types
// 0 F32, 1 F16, 2 BF16, 3 Q8_0 (block i / 32 at row + 34 (i / 32): half d, then 32 int8 q).
float ldk(uint row, uint i, uint nb0, uint t) {
  if (t == 3u) {
    const uint b = row + (i >> 5) * 34u;
    return rdf16_1(b) * float(bitfieldExtract(int(rd8_1(b + 2u + (i & 31u))), 0, 8));
  }
  const uint o = row + i * nb0;
  return t == 1u ? rdf16_1(o) : (t == 2u ? bf16_to_f32(rd16_1(o)) : rdf32_1(o));
}
float ldv(uint row, uint i, uint nb0, uint t) {
  if (t == 3u) {
    const uint b = row + (i >> 5) * 34u;
    return rdf16_2(b) * float(bitfieldExtract(int(rd8_2(b + 2u + (i & 31u))), 0, 8));
  }
  const uint o = row + i * nb0;
  return t == 1u ? rdf16_2(o) : (t == 2u ? bf16_to_f32(rd16_2(o)) : rdf32_2(o));
}

void main() {
  const uint g = group_id(), tid = gl_LocalInvocationID.x;
  if (g >= pc.Hq * pc.T * pc.S) return;
  const uint h = g % pc.Hq, t = (g / pc.Hq) % pc.T, s = g / (pc.Hq * pc.T);
  const uint hk = h / (pc.Hq / pc.Hkv);
  const uint kt = pc.flags & 3u, vt = (pc.flags >> 2) & 3u, mt = (pc.flags >> 4) & 3u;
  const bool causal = ((pc.flags >> 6) & 1u) != 0u;
  const float f = pc.softcap > 0.0 ? pc.scale / pc.softcap : pc.scale;

  const uint qrow = pc.off_q + t * pc.qnb1 + h * pc.qnb2 + s * pc.qnb3;
  const uint qt = (pc.flags >> 7) & 3u;
  const uint qtype = qt == 1u ? TYPE_F16 : (qt == 2u ? TYPE_BF16 : TYPE_F32);
  for (uint i = tid; i < pc.D; i += WG) qs[i] = f * rdf_0(qtype, qrow + (qt == 0u ? 4u : 2u) * i);
  barrier();

  const int qpos = pc.pos0 + int(t);
  int lo = 0, hi = int(pc.L);
  if (causal) hi = min(hi, qpos + 1);
  if (pc.window > 0) lo = max(0, qpos - pc.window + 1);
  if (hi < lo) hi = lo;

  const uint kbase = pc.off_k + hk * pc.knb2 + (s % (pc.ne3s & 0xffu)) * pc.knb3;
  const uint vbase = pc.off_v + hk * pc.vnb2 + (s % ((pc.ne3s >> 8) & 0xffu)) * pc.vnb3;
  const uint mbase = pc.off_m + t * pc.mnb1 + (h % ((pc.ne3s >> 16) & 0xffu)) * pc.mnb2 +
                     (s % (pc.ne3s >> 24)) * pc.mnb3;
  const uint ksz = pc.knb0, vsz = pc.vnb0;  // element strides (a transposed V has large ones)

  float m = -1.0 / 0.0, l = 0.0;
  float acc[MAXD / WG];
  for (uint i = 0u; i < MAXD / WG; ++i) acc[i] = 0.0;

  for (int j0 = lo; j0 < hi; j0 += int(WG)) {
    const int j = j0 + int(tid);
    float x = -1.0 / 0.0;
    if (j < hi) {
      float mv = 0.0;
      if (mt == 1u) mv = rdf32_3(mbase + uint(j) * 4u);
      if (mt == 2u) mv = rdf16_3(mbase + uint(j) * 2u);
      if (mv > -1.0 / 0.0) {
        const uint kr = kbase + uint(j) * pc.knb1;
        float d = 0.0;
        for (uint i = 0u; i < pc.D; ++i) d += qs[i] * ldk(kr, i, ksz, kt);
        if (pc.softcap > 0.0) d = pc.softcap * tanh(clamp(d, -15.0, 15.0));
        x = d + mv;
      }
    }
    sc[tid] = x;
    barrier();
    float bm = -1.0 / 0.0;
    const uint n = uint(min(int(WG), hi - j0));
    for (uint i = 0u; i < n; ++i) bm = max(bm, sc[i]);
    const float mnew = max(m, bm);
    if (mnew > -1.0 / 0.0) {
      const float r = m > -1.0 / 0.0 ? exp(m - mnew) : 0.0;
      l *= r;
      for (uint i = 0u; i < MAXD / WG; ++i) acc[i] *= r;
      for (uint i = 0u; i < n; ++i) {
        const float p = sc[i] > -1.0 / 0.0 ? exp(sc[i] - mnew) : 0.0;
        if (p == 0.0) continue;
        l += p;
        const uint vr = vbase + uint(j0 + int(i)) * pc.vnb1;
        for (uint e = 0u; e < MAXD / WG; ++e) {
          const uint ei = tid + e * WG;
          if (ei < pc.Dv) acc[e] += p * ldv(vr, ei, vsz, vt);
        }
      }
      m = mnew;
    }
    barrier();
  }
  const uint orow = pc.off_d + ((s * pc.T + t) * pc.Hq + h) * pc.Dv * 4u;
  const float inv = l > 0.0 ? 1.0 / l : 0.0;
  for (uint e = 0u; e < MAXD / WG; ++e) {
    const uint ei = tid + e * WG;
    if (ei < pc.Dv) bufs[4].w[(orow + ei * 4u) >> 2] = floatBitsToUint(acc[e] * inv);
  }
}
