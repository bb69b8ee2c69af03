// Requires quant.glsl and binding 4 (the quantized activations of quantize_act.comp).

// Chunk ch of a quantized weight row (its quants qw[]: quant.glsl) times the same 32 int8
// activations of the column whose quantized row starts at word `col`, in integers: the dots of
// the chunk's two 16-element halves (d0, d1) and the halves' activation sums (a0, a1); da is
// the activations' block scale, sa their block's d * sum(q) term (32-element formats).
void qchunk(uint t, uint ch, uint qw[8], uint col, out int d0, out int d1, out int a0,
            out int a1, out float da, out float sa) {
  const bool kq = is_kquant(t);
  const uint ab = kq ? col + (ch >> 3) * 65u : col + ch * 10u;
  const uint qa = kq ? ab + 1u + (ch & 7u) * 8u : ab + 2u;
  d0 = 0;
  d1 = 0;
  a0 = 0;
  a1 = 0;
  [[unroll]] for (uint w = 0u; w < 8u; ++w) {
    const uint aw = bufs[4].w[qa + w];
    int p = 0, s = 0;
    [[unroll]] for (uint k = 0u; k < 4u; ++k) {
      const int a = act8(aw, k);
      p += act8(qw[w], k) * a;
      s += a;
    }
    if (w < 4u) {
      d0 += p;
      a0 += s;
    } else {
      d1 += p;
      a1 += s;
    }
  }
  da = uintBitsToFloat(bufs[4].w[ab]);
  sa = t == TYPE_Q4_1 || t == TYPE_Q5_1 ? uintBitsToFloat(bufs[4].w[ab + 1u]) : 0.0;
}

// Adds chunk ch (header d, m, sc: quant.glsl) to a row's dot as the CPU's vec_dot:
// 32-element formats d_w * d_a * sumi (+ m * s_a); K-quants keep integer sums over the whole
// 256-element block (si: scale * dot, sm: min * sum(a)) and scale them once when its last
// chunk is added.
void qdot(uint t, uint ch, uint qw[8], float d, float m, ivec4 sc, uint col, inout float acc,
          inout int si, inout int sm) {
  int d0, d1, a0, a1;
  float da, sa;
  qchunk(t, ch, qw, col, d0, d1, a0, a1, da, sa);
  if (!is_kquant(t)) {
    acc += d * da * float(d0 + d1);
    if (t == TYPE_Q4_1 || t == TYPE_Q5_1) acc += m * sa;
    return;
  }
  const bool mins = kquant_min(t);
  si += sc.x * d0 + sc.y * d1;
  if (mins) sm += sc.z * a0 + sc.w * a1;
  if ((ch & 7u) == 7u) {
    acc += mins ? da * (d * float(si) - m * float(sm)) : da * d * float(si);
    si = 0;
    sm = 0;
  }
}
