// Shared by the attention shaders (attention.comp: the generic one; attention_sg.comp: a
// subgroup per query-head group, optionally one part of the keys). Needs common.glsl first.
// q F32/F16/BF16 [D, T, Hq, S] (binding 0, packed rows); k (1), v (2) F32/F16/BF16 (any
// strides) or Q8_0 (packed rows of blocks, x = d * q) [D, L, Hkv, S']; mask (3) F32/F16
// [L, T', M2, M3]; dst (4) F32 packed [Dv, Hq, T, S], or with `part` > 0 the split scratch.
// Query head h reads kv head h / (Hq / Hkv) (GQA). D, Dv <= 256.

#define ATT_MAXD 256u
#define NEG_INF (-1.0 / 0.0)

// 32 words: the whole 128 bytes every device offers.
layout(push_constant) uniform PC {
  uint off_q, off_k, off_v, off_m, off_d;
  uint dims;  // D | Dv << 16
  uint T, Hq, S, L, Hkv;
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
  uint part;    // keys per split part (attention_sg.comp; 0: one part, output written directly)
} pc;

uint att_D() { return pc.dims & 0xffffu; }
uint att_Dv() { return pc.dims >> 16; }
uint att_ktype() { return pc.flags & 3u; }
uint att_vtype() { return (pc.flags >> 2) & 3u; }
uint att_mtype() { return (pc.flags >> 4) & 3u; }
// The factor q is multiplied by: the soft cap's 1 / cap folded into the scale.
float att_qfactor() { return pc.softcap > 0.0 ? pc.scale / pc.softcap : pc.scale; }

// Element i of q's row at byte qrow, unscaled.
float att_q(uint qrow, uint i) {
  const uint qt = (pc.flags >> 7) & 3u;
  const uint qtype = qt == 1u ? TYPE_F16 : (qt == 2u ? TYPE_BF16 : TYPE_F32);
  return rdf_0(qtype, qrow + (qt == 0u ? 4u : 2u) * i);
}
uint att_qrow(uint h, uint t, uint s) {
  return pc.off_q + t * pc.qnb1 + h * pc.qnb2 + s * pc.qnb3;
}

// The keys query t may see: [lo, hi) from the causal and sliding-window limits.
void att_range(uint t, out int lo, out int hi) {
  const int qpos = pc.pos0 + int(t);
  lo = 0;
  hi = int(pc.L);
  if (((pc.flags >> 6) & 1u) != 0u) hi = min(hi, qpos + 1);
  if (pc.window > 0) lo = max(0, qpos - pc.window + 1);
  if (hi < lo) hi = lo;
}

uint att_kbase(uint hk, uint s) {
  return pc.off_k + hk * pc.knb2 + (s % (pc.ne3s & 0xffu)) * pc.knb3;
}
uint att_vbase(uint hk, uint s) {
  return pc.off_v + hk * pc.vnb2 + (s % ((pc.ne3s >> 8) & 0xffu)) * pc.vnb3;
}
uint att_mbase(uint h, uint t, uint s) {
  return pc.off_m + t * pc.mnb1 + (h % ((pc.ne3s >> 16) & 0xffu)) * pc.mnb2 +
         (s % (pc.ne3s >> 24)) * pc.mnb3;
}
// The mask's value at key j (0 without a mask); -inf hides the key.
float att_mask(uint mbase, int j) {
  const uint mt = att_mtype();
  if (mt == 1u) return rdf32_3(mbase + uint(j) * 4u);
  if (mt == 2u) return rdf16_3(mbase + uint(j) * 2u);
  return 0.0;
}
// A scaled dot product q.k (q already multiplied by att_qfactor()) -> the score before the mask.
float att_cap(float d) { return pc.softcap > 0.0 ? pc.softcap * tanh(clamp(d, -15.0, 15.0)) : d; }

// Element i of the K or V row at byte `row` (element stride nb0 for the float types); types
// 0 F32, 1 F16, 2 BF16, 3 Q8_0 (block i / 32 at row + 34 (i / 32): half d, then 32 int8 q).
// One body for both bindings: GLSL cannot take a buffer as an argument.
#define ATT_LOAD_ELEM(NAME, N)                                                              \
  float NAME(uint row, uint i, uint nb0, uint t) {                                          \
    if (t == 3u) {                                                                          \
      const uint b = row + (i >> 5) * 34u;                                                  \
      return rdf16_##N(b) * float(bitfieldExtract(int(rd8_##N(b + 2u + (i & 31u))), 0, 8)); \
    }                                                                                       \
    const uint o = row + i * nb0;                                                           \
    return t == 1u ? rdf16_##N(o) : (t == 2u ? bf16_to_f32(rd16_##N(o)) : rdf32_##N(o));   \
  }
ATT_LOAD_ELEM(ldk, 1)
ATT_LOAD_ELEM(ldv, 2)

// Output row index of (query head h, query t, sequence s) in dst [Dv, Hq, T, S].
uint att_orow(uint h, uint t, uint s) { return (s * pc.T + t) * pc.Hq + h; }
