#version 450
// Attention on GPUs (decode: one query row per sequence and head, long KV), one subgroup per
// job; a job is (part of the keys, up to G query heads sharing one kv head, query t,
// sequence s). The lanes run across the head dimension: lane l holds elements l, l + S, ...
// (S = gl_SubgroupSize) of each head's q and output, so a subgroup reads each K and V row
// contiguously (coalesced) and once for all G heads (GQA); q.k meets in subgroupAdd. Keys are
// taken one at a time with an online softmax per head (running max m, sum l), the output
// accumulated in registers. No shared memory and no barriers: the subgroups of a workgroup
// are independent jobs.
// With pc.part > 0 the keys are split into parts of pc.part (split-K: long contexts give
// more jobs than heads alone); each job then writes (m, l, unnormalized output) of its part
// to the scratch bound as dst (attention_merge.comp combines them): row
// (part * rows + orow) of Dv + 2 floats, rows = Hq * T * S. Without it the job writes
// out = acc / l (zeros for a query that sees no key), as attention.comp.
// Tensors, bindings and push constants: attention.glsl.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "attention.glsl"

layout(local_size_x = 64) in;
// Elements per lane: 256 / the device's subgroup size (set at pipeline creation), so the
// register arrays are sized for the device and indexed by constants once unrolled.
layout(constant_id = 0) const uint EPL = 32u;
#define G 4u  // query heads per job (sharing one kv head)

void main() {
  const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
  const uint job = group_id() * gl_NumSubgroups + gl_SubgroupID;
  const uint D = att_D(), Dv = att_Dv(), kt = att_ktype(), vt = att_vtype();
  const uint ratio = pc.Hq / pc.Hkv, groups = (ratio + G - 1u) / G;
  const uint parts = pc.part == 0u ? 1u : (pc.L + pc.part - 1u) / pc.part;
  if (job >= parts * groups * pc.Hkv * pc.T * pc.S) return;  // whole subgroups leave
  const uint part = job % parts;
  uint r = job / parts;
  const uint gi = r % groups;
  r /= groups;
  const uint hk = r % pc.Hkv;
  r /= pc.Hkv;
  const uint t = r % pc.T, s = r / pc.T;
  const uint h0 = hk * ratio + gi * G, nh = min(G, ratio - gi * G);  // the last group may be short

  const float f = att_qfactor();
  float q[G][EPL], acc[G][EPL], m[G], l[G];
  uint mb[G];
  [[unroll]] for (uint g = 0u; g < G; ++g) {
    m[g] = NEG_INF;
    l[g] = 0.0;
    const uint qrow = att_qrow(h0 + g, t, s);
    mb[g] = att_mbase(h0 + g, t, s);
    [[unroll]] for (uint e = 0u; e < EPL; ++e) {
      const uint i = lane + e * S;
      q[g][e] = g < nh && i < D ? f * att_q(qrow, i) : 0.0;
      acc[g][e] = 0.0;
    }
  }

  int lo, hi;
  att_range(t, lo, hi);
  if (pc.part > 0u) {
    lo = max(lo, int(part * pc.part));
    hi = min(hi, int((part + 1u) * pc.part));
  }
  const uint kbase = att_kbase(hk, s), vbase = att_vbase(hk, s);

  // Every branch below depends on values equal across the subgroup (key index, mask values
  // read at one address, reduced scores): the subgroupAdds stay in uniform control flow.
  for (int j = lo; j < hi; ++j) {
    float mv[G];
    bool seen = false;
    [[unroll]] for (uint g = 0u; g < G; ++g) {
      mv[g] = g < nh ? att_mask(mb[g], j) : NEG_INF;
      seen = seen || mv[g] > NEG_INF;
    }
    if (!seen) continue;  // hidden from every head: K and V are not read (may be unfilled)
    const uint kr = kbase + uint(j) * pc.knb1, vr = vbase + uint(j) * pc.vnb1;
    float kx[EPL];
    [[unroll]] for (uint e = 0u; e < EPL; ++e) {
      const uint i = lane + e * S;
      kx[e] = i < D ? ldk(kr, i, pc.knb0, kt) : 0.0;
    }
    float x[G];
    [[unroll]] for (uint g = 0u; g < G; ++g) {
      x[g] = NEG_INF;
      if (g < nh) {
        float d = 0.0;
        [[unroll]] for (uint e = 0u; e < EPL; ++e) d += q[g][e] * kx[e];
        d = subgroupAdd(d);
        if (mv[g] > NEG_INF) x[g] = att_cap(d) + mv[g];
      }
    }
    float vx[EPL];
    [[unroll]] for (uint e = 0u; e < EPL; ++e) {
      const uint i = lane + e * S;
      vx[e] = i < Dv ? ldv(vr, i, pc.vnb0, vt) : 0.0;
    }
    [[unroll]] for (uint g = 0u; g < G; ++g) {
      if (x[g] > NEG_INF) {
        const float mnew = max(m[g], x[g]);
        const float rs = exp(m[g] - mnew), p = exp(x[g] - mnew);  // exp(-inf) = 0 at the start
        l[g] = l[g] * rs + p;
        [[unroll]] for (uint e = 0u; e < EPL; ++e) acc[g][e] = acc[g][e] * rs + p * vx[e];
        m[g] = mnew;
      }
    }
  }

  const uint rows = pc.Hq * pc.T * pc.S;
  [[unroll]] for (uint g = 0u; g < G; ++g) {
    if (g >= nh) break;
    const uint orow = att_orow(h0 + g, t, s);
    if (pc.part == 0u) {
      const uint o = pc.off_d + orow * Dv * 4u;
      const float inv = l[g] > 0.0 ? 1.0 / l[g] : 0.0;
      [[unroll]] for (uint e = 0u; e < EPL; ++e) {
        const uint i = lane + e * S;
        if (i < Dv) bufs[4].w[(o >> 2) + i] = floatBitsToUint(acc[g][e] * inv);
      }
    } else {
      const uint o = (pc.off_d >> 2) + (part * rows + orow) * (Dv + 2u);
      if (lane == 0u) {
        bufs[4].w[o] = floatBitsToUint(m[g]);
        bufs[4].w[o + 1u] = floatBitsToUint(l[g]);
      }
      [[unroll]] for (uint e = 0u; e < EPL; ++e) {
        const uint i = lane + e * S;
        if (i < Dv) bufs[4].w[o + 2u + i] = floatBitsToUint(acc[g][e]);
      }
    }
  }
}
