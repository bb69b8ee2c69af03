// Dequantization of 32 consecutive elements (one chunk) of a row in binding 0, for the float
// types and the GGUF block formats (layouts as in core/quant/blocks.h). A chunk is a whole
// block of the 32-element formats and one of the 8 sub-blocks of a 256-element K-quant block,
// so every format decodes the same way: the caller walks a row chunk by chunk.
// Requires common.glsl.

#define TYPE_Q4_0 2u
#define TYPE_Q4_1 3u
#define TYPE_Q5_0 6u
#define TYPE_Q5_1 7u
#define TYPE_Q8_0 8u
#define TYPE_Q4_K 12u
#define TYPE_Q5_K 13u
#define TYPE_Q6_K 14u

// Elements per block and bytes per block (0 for an unknown type).
uint block_size(uint t) {
  return t >= TYPE_Q4_K && t <= TYPE_Q6_K ? 256u : (t <= TYPE_F16 || t == TYPE_BF16 ? 1u : 32u);
}
uint block_bytes(uint t) {
  switch (t) {
    case TYPE_F32: return 4u;
    case TYPE_F16: return 2u;
    case TYPE_BF16: return 2u;
    case TYPE_Q4_0: return 18u;
    case TYPE_Q4_1: return 20u;
    case TYPE_Q5_0: return 22u;
    case TYPE_Q5_1: return 24u;
    case TYPE_Q8_0: return 34u;
    case TYPE_Q4_K: return 144u;
    case TYPE_Q5_K: return 176u;
    case TYPE_Q6_K: return 210u;
  }
  return 0u;
}

// K-quant 6-bit scale and min of sub-block j (ggml's get_scale_min_k4), scales at byte s.
void scale_min_k4(uint j, uint s, out float sc, out float mn) {
  if (j < 4u) {
    sc = float(rd8_0(s + j) & 63u);
    mn = float(rd8_0(s + j + 4u) & 63u);
  } else {
    sc = float((rd8_0(s + j + 4u) & 0xfu) | ((rd8_0(s + j - 4u) >> 6) << 4));
    mn = float((rd8_0(s + j + 4u) >> 4) | ((rd8_0(s + j) >> 6) << 4));
  }
}

// Byte j (0..3) of word w.
uint byte_of(uint w, uint j) { return (w >> (8u * j)) & 0xffu; }

// Chunk c of the row starting at byte `row`: elements 32c .. 32c + 31. Float rows: element i
// at row + i * nb0, and only elements below n exist (the rest read as 0). The block formats'
// bytes are read four at a time (rd32_0 takes unaligned words apart) and every loop has a
// constant trip count, so compilers keep v[] in registers.
void dq32(uint t, uint row, uint c, uint nb0, uint n, out float v[32]) {
  if (t == TYPE_F32 || t == TYPE_F16 || t == TYPE_BF16) {
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
      const uint i = c * 32u + j;
      v[j] = i < n ? rdf_0(t, row + i * nb0) : 0.0;
    }
  } else if (t == TYPE_Q4_0 || t == TYPE_Q4_1 || t == TYPE_Q5_0 || t == TYPE_Q5_1) {
    const uint b = row + c * block_bytes(t);
    const float d = rdf16_0(b);
    const bool has_min = t == TYPE_Q4_1 || t == TYPE_Q5_1, q5 = t == TYPE_Q5_0 || t == TYPE_Q5_1;
    const float m = has_min ? rdf16_0(b + 2u) : (q5 ? -16.0 : -8.0) * d;
    const uint hoff = has_min ? 4u : 2u;
    const uint qh = q5 ? rd32_0(b + hoff) : 0u;
    const uint qs = b + hoff + (q5 ? 4u : 0u);
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
      const uint word = rd32_0(qs + 4u * w);
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const uint j = 4u * w + k, q = byte_of(word, k);
        const uint h0 = ((qh >> j) << 4) & 0x10u, h1 = (qh >> (j + 12u)) & 0x10u;
        v[j] = float((q & 0xfu) | h0) * d + m;
        v[j + 16u] = float((q >> 4) | h1) * d + m;
      }
    }
  } else if (t == TYPE_Q8_0) {
    const uint b = row + c * 34u;
    const float d = rdf16_0(b);
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint word = rd32_0(b + 2u + 4u * w);
      [[unroll]] for (uint k = 0u; k < 4u; ++k)
        v[4u * w + k] = float(int(byte_of(word, k) << 24) >> 24) * d;
    }
  } else if (t == TYPE_Q4_K || t == TYPE_Q5_K) {
    const bool q5 = t == TYPE_Q5_K;
    const uint b = row + (c >> 3) * (q5 ? 176u : 144u), sub = c & 7u;
    float sc, mn;
    scale_min_k4(sub, b + 4u, sc, mn);
    const float d = rdf16_0(b) * sc, m = rdf16_0(b + 2u) * mn;
    const uint qs = b + (q5 ? 48u : 16u) + (sub >> 1) * 32u, shift = (sub & 1u) * 4u;
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint word = rd32_0(qs + 4u * w);
      const uint hw = q5 ? rd32_0(b + 16u + 4u * w) : 0u;
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        uint q = (byte_of(word, k) >> shift) & 0xfu;
        if (q5) q += ((byte_of(hw, k) >> sub) & 1u) << 4;
        v[4u * w + k] = d * float(q) - m;
      }
    }
  } else if (t == TYPE_Q6_K) {
    const uint b = row + (c >> 3) * 210u, sub = c & 7u;
    const uint half_ = sub >> 2, k4 = sub & 3u;
    const uint ql = b + half_ * 64u + ((k4 & 1u) != 0u ? 32u : 0u);
    const uint qh = b + 128u + half_ * 32u;
    const uint scb = b + 192u + half_ * 8u + 2u * k4;
    const float d = rdf16_0(b + 208u);
    const float d0 = d * float(int(rd8_0(scb) << 24) >> 24);
    const float d1 = d * float(int(rd8_0(scb + 1u) << 24) >> 24);
    const uint shift = k4 < 2u ? 0u : 4u;
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint lw = rd32_0(ql + 4u * w), hw = rd32_0(qh + 4u * w);
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const uint lo = (byte_of(lw, k) >> shift) & 0xfu;
        const uint hi = (byte_of(hw, k) >> (2u * k4)) & 3u;
        v[4u * w + k] = (w < 4u ? d0 : d1) * float(int(lo | (hi << 4)) - 32);
      }
    }
  } else {
    [[unroll]] for (uint j = 0u; j < 32u; ++j) v[j] = 0.0;
  }
}

// Integer dot products of chunk c of a block-format row with the same 32 int8 activations
// (4 per word, words qa .. qa + 7 of binding 4; see quantize_act.comp), the weight quants
// taken as the CPU's vec_dot multiplies them (Q4_0 nibble - 8, Q5_0 q - 16, Q8_0 signed,
// Q4_1/Q5_1/Q4_K/Q5_K unsigned, Q6_K q - 32): d0 over elements 0..15, d1 over 16..31, asum
// the activations' sum. Also the chunk's integer scales s0, s1 (Q4_K/Q5_K scale and min of
// the sub-block; Q6_K the scales of its two halves) and the block's float scales d and m
// (Q4_1/Q5_1 min, Q4_K/Q5_K dmin). Each weight word is decoded next to its activations, so
// no array is needed (llvmpipe lowers local arrays to memory).
bool is_kquant(uint t) { return t >= TYPE_Q4_K && t <= TYPE_Q6_K; }
int act8(uint w, uint k) { return bitfieldExtract(int(w), int(8u * k), 8); }
void qdot32(uint t, uint row, uint c, uint qa, out int d0, out int d1, out int asum, out int s0,
            out int s1, out float d, out float m) {
  d0 = 0;
  d1 = 0;
  asum = 0;
  s0 = 0;
  s1 = 0;
  m = 0.0;
  if (t == TYPE_Q4_0 || t == TYPE_Q4_1 || t == TYPE_Q5_0 || t == TYPE_Q5_1) {
    const uint b = row + c * block_bytes(t);
    d = rdf16_0(b);
    const bool has_min = t == TYPE_Q4_1 || t == TYPE_Q5_1, q5 = t == TYPE_Q5_0 || t == TYPE_Q5_1;
    if (has_min) m = rdf16_0(b + 2u);
    const int off = has_min ? 0 : (q5 ? 16 : 8);
    const uint hoff = has_min ? 4u : 2u;
    const uint qh = q5 ? rd32_0(b + hoff) : 0u;
    const uint qs = b + hoff + (q5 ? 4u : 0u);
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
      const uint word = rd32_0(qs + 4u * w);
      const uint alo = bufs[4].w[qa + w], ahi = bufs[4].w[qa + w + 4u];
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const uint j = 4u * w + k, x = byte_of(word, k);
        const uint h0 = ((qh >> j) << 4) & 0x10u, h1 = (qh >> (j + 12u)) & 0x10u;
        const int a0 = act8(alo, k), a1 = act8(ahi, k);
        d0 += (int((x & 0xfu) | h0) - off) * a0;
        d1 += (int((x >> 4) | h1) - off) * a1;
        asum += a0 + a1;
      }
    }
  } else if (t == TYPE_Q8_0) {
    const uint b = row + c * 34u;
    d = rdf16_0(b);
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint word = rd32_0(b + 2u + 4u * w), aw = bufs[4].w[qa + w];
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const int p = act8(word, k) * act8(aw, k);
        if (w < 4u)
          d0 += p;
        else
          d1 += p;
      }
    }
  } else if (t == TYPE_Q4_K || t == TYPE_Q5_K) {
    const bool q5 = t == TYPE_Q5_K;
    const uint b = row + (c >> 3) * (q5 ? 176u : 144u), sub = c & 7u;
    float sc, mn;
    scale_min_k4(sub, b + 4u, sc, mn);
    s0 = int(sc);
    s1 = int(mn);
    d = rdf16_0(b);
    m = rdf16_0(b + 2u);
    const uint qs = b + (q5 ? 48u : 16u) + (sub >> 1) * 32u, shift = (sub & 1u) * 4u;
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint word = rd32_0(qs + 4u * w), aw = bufs[4].w[qa + w];
      const uint hw = q5 ? rd32_0(b + 16u + 4u * w) : 0u;
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        uint x = (byte_of(word, k) >> shift) & 0xfu;
        if (q5) x += ((byte_of(hw, k) >> sub) & 1u) << 4;
        const int a = act8(aw, k);
        d0 += int(x) * a;  // one scale per sub-block: d1 stays 0
        asum += a;
      }
    }
  } else if (t == TYPE_Q6_K) {
    const uint b = row + (c >> 3) * 210u, sub = c & 7u;
    const uint half_ = sub >> 2, k4 = sub & 3u;
    const uint ql = b + half_ * 64u + ((k4 & 1u) != 0u ? 32u : 0u);
    const uint qh = b + 128u + half_ * 32u;
    const uint scb = b + 192u + half_ * 8u + 2u * k4;
    d = rdf16_0(b + 208u);
    s0 = int(rd8_0(scb) << 24) >> 24;
    s1 = int(rd8_0(scb + 1u) << 24) >> 24;
    const uint shift = k4 < 2u ? 0u : 4u;
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint lw = rd32_0(ql + 4u * w), hw = rd32_0(qh + 4u * w), aw = bufs[4].w[qa + w];
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const uint lo = (byte_of(lw, k) >> shift) & 0xfu;
        const uint hi = (byte_of(hw, k) >> (2u * k4)) & 3u;
        const int p = (int(lo | (hi << 4)) - 32) * act8(aw, k);
        if (w < 4u)
          d0 += p;
        else
          d1 += p;
      }
    }
  } else {
    d = 0.0;
  }
}

// The block formats' integer quants of chunk c as an array, for prefill (matmul.comp: one
// decode feeds up to 8 columns): q[] as the CPU's vec_dot multiplies them (Q4_0 nibble - 8,
// Q5_0 q - 16, Q8_0 signed, Q4_1/Q5_1/Q4_K/Q5_K unsigned, Q6_K q - 32), with the chunk's
// integer scales s0, s1 (K-quants: Q4_K/Q5_K scale and min of the sub-block; Q6_K the scales
// of its two 16-element halves) and the block's float scales d and m (the min of
// Q4_1/Q5_1, dmin of Q4_K/Q5_K).
void qi32(uint t, uint row, uint c, out int q[32], out int s0, out int s1, out float d,
          out float m) {
  s0 = 0;
  s1 = 0;
  m = 0.0;
  if (t == TYPE_Q4_0 || t == TYPE_Q4_1 || t == TYPE_Q5_0 || t == TYPE_Q5_1) {
    const uint b = row + c * block_bytes(t);
    d = rdf16_0(b);
    const bool has_min = t == TYPE_Q4_1 || t == TYPE_Q5_1, q5 = t == TYPE_Q5_0 || t == TYPE_Q5_1;
    if (has_min) m = rdf16_0(b + 2u);
    const int off = has_min ? 0 : (q5 ? 16 : 8);
    const uint hoff = has_min ? 4u : 2u;
    const uint qh = q5 ? rd32_0(b + hoff) : 0u;
    const uint qs = b + hoff + (q5 ? 4u : 0u);
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
      const uint word = rd32_0(qs + 4u * w);
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const uint j = 4u * w + k, x = byte_of(word, k);
        const uint h0 = ((qh >> j) << 4) & 0x10u, h1 = (qh >> (j + 12u)) & 0x10u;
        q[j] = int((x & 0xfu) | h0) - off;
        q[j + 16u] = int((x >> 4) | h1) - off;
      }
    }
  } else if (t == TYPE_Q8_0) {
    const uint b = row + c * 34u;
    d = rdf16_0(b);
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const int word = int(rd32_0(b + 2u + 4u * w));
      [[unroll]] for (uint k = 0u; k < 4u; ++k) q[4u * w + k] = bitfieldExtract(word, int(8u * k), 8);
    }
  } else if (t == TYPE_Q4_K || t == TYPE_Q5_K) {
    const bool q5 = t == TYPE_Q5_K;
    const uint b = row + (c >> 3) * (q5 ? 176u : 144u), sub = c & 7u;
    float sc, mn;
    scale_min_k4(sub, b + 4u, sc, mn);
    s0 = int(sc);
    s1 = int(mn);
    d = rdf16_0(b);
    m = rdf16_0(b + 2u);
    const uint qs = b + (q5 ? 48u : 16u) + (sub >> 1) * 32u, shift = (sub & 1u) * 4u;
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint word = rd32_0(qs + 4u * w);
      const uint hw = q5 ? rd32_0(b + 16u + 4u * w) : 0u;
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        uint x = (byte_of(word, k) >> shift) & 0xfu;
        if (q5) x += ((byte_of(hw, k) >> sub) & 1u) << 4;
        q[4u * w + k] = int(x);
      }
    }
  } else if (t == TYPE_Q6_K) {
    const uint b = row + (c >> 3) * 210u, sub = c & 7u;
    const uint half_ = sub >> 2, k4 = sub & 3u;
    const uint ql = b + half_ * 64u + ((k4 & 1u) != 0u ? 32u : 0u);
    const uint qh = b + 128u + half_ * 32u;
    const uint scb = b + 192u + half_ * 8u + 2u * k4;
    d = rdf16_0(b + 208u);
    s0 = int(rd8_0(scb) << 24) >> 24;
    s1 = int(rd8_0(scb + 1u) << 24) >> 24;
    const uint shift = k4 < 2u ? 0u : 4u;
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint lw = rd32_0(ql + 4u * w), hw = rd32_0(qh + 4u * w);
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        const uint lo = (byte_of(lw, k) >> shift) & 0xfu;
        const uint hi = (byte_of(hw, k) >> (2u * k4)) & 3u;
        q[4u * w + k] = int(lo | (hi << 4)) - 32;
      }
    }
  } else {
    d = 0.0;
    [[unroll]] for (uint j = 0u; j < 32u; ++j) q[j] = 0;
  }
}
