// Dequantization of 32 consecutive elements (one chunk) of a row in binding 0, for the float
// types and the GGUF block formats (layouts as in sdk/include/zen/quant_blocks.hpp). A chunk is a whole
// block of the 32-element formats and one 32-element sub-block of the 256-element ones, so
// every format decodes the same way: the caller walks a row chunk by chunk.
// A block-format chunk is its header (qhead: float scale d and min m, and the chunk's integer
// scales) and eight words of four int8 quants each (qwords), the quants as the CPU's vec_dot
// multiplies them; the value of element j is d * sc * q - m * mn (dq32). matmul.glsl dots the
// same words with int8 activations.
// A shader may compile in only some formats: llvmpipe (lavapipe) executes every branch of an
// if, taken or not, so each format's decoder costs every other format time. QFORMATS_BASE:
// Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, Q8_K, Q4_K, Q5_K, Q6_K; QFORMATS_EXT: Q2_K, Q3_K,
// IQ4_NL, IQ4_XS, MXFP4; neither defined: all of them.
// Requires common.glsl.

#if !defined(QFORMATS_BASE) && !defined(QFORMATS_EXT)
#define QFORMATS_BASE
#define QFORMATS_EXT
#endif

#define TYPE_Q4_0 2u
#define TYPE_Q4_1 3u
#define TYPE_Q5_0 6u
#define TYPE_Q5_1 7u
#define TYPE_Q8_0 8u
#define TYPE_Q8_1 9u
#define TYPE_Q2_K 10u
#define TYPE_Q3_K 11u
#define TYPE_Q4_K 12u
#define TYPE_Q5_K 13u
#define TYPE_Q6_K 14u
#define TYPE_Q8_K 15u
#define TYPE_IQ4_NL 20u
#define TYPE_IQ4_XS 23u
#define TYPE_MXFP4 39u

// The K-quants (Q2_K .. Q6_K): they take Q8_K activations (blocks of 256); every other block
// format takes Q8 blocks of 32 (IQ4_XS too, as on the CPU).
bool is_kquant(uint t) { return t >= TYPE_Q2_K && t <= TYPE_Q6_K; }
// K-quants with a per-sub-block min.
bool kquant_min(uint t) { return t == TYPE_Q2_K || t == TYPE_Q4_K || t == TYPE_Q5_K; }

// Elements per block and bytes per block (0 for an unknown type).
uint block_size(uint t) {
  if (t <= TYPE_F16 || t == TYPE_BF16) return 1u;
  return is_kquant(t) || t == TYPE_IQ4_XS || t == TYPE_Q8_K ? 256u : 32u;
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
    case TYPE_Q8_1: return 36u;
    case TYPE_Q2_K: return 84u;
    case TYPE_Q3_K: return 110u;
    case TYPE_Q4_K: return 144u;
    case TYPE_Q5_K: return 176u;
    case TYPE_Q6_K: return 210u;
    case TYPE_Q8_K: return 292u;
    case TYPE_IQ4_NL: return 18u;
    case TYPE_IQ4_XS: return 136u;
    case TYPE_MXFP4: return 17u;
  }
  return 0u;
}

// Byte j (0..3) of word w; signed byte k of word w.
uint byte_of(uint w, uint j) { return (w >> (8u * j)) & 0xffu; }
int act8(uint w, uint k) { return bitfieldExtract(int(w), int(8u * k), 8); }
// Each byte of x (all below 128) minus off (at most 64), as signed bytes.
uint sub_bytes(uint x, uint off) { return ((x | 0x80808080u) - off * 0x01010101u) ^ 0x80808080u; }
// The low (hi false) or high nibbles of x's four bytes, one per byte.
uint nibbles(uint x, bool hi) { return (hi ? x >> 4 : x) & 0x0f0f0f0fu; }

// The non-linear 4-bit grids (core/quant/codec_dequant.cpp): IQ4_NL/IQ4_XS, and MXFP4's E2M1
// values doubled.
const int kGridIQ4[16] =
    int[](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
const int kGridMXFP4[16] = int[](0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
uint grid4(uint nibs, bool mx) {
  uint r = 0u;
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    const uint n = byte_of(nibs, k);
    r |= (uint(mx ? kGridMXFP4[n] : kGridIQ4[n]) & 0xffu) << (8u * k);
  }
  return r;
}
// E8M0 exponent to float, halved: 2^(e - 128).
float e8m0_half(uint e) { return uintBitsToFloat(e < 2u ? 0x00200000u << e : (e - 1u) << 23); }

// K-quant 6-bit scale and min of sub-block j (ggml's get_scale_min_k4), scales at byte s.
ivec2 scale_min_k4(uint j, uint s) {
  if (j < 4u) return ivec2(rd8_0(s + j) & 63u, rd8_0(s + j + 4u) & 63u);
  return ivec2((rd8_0(s + j + 4u) & 0xfu) | ((rd8_0(s + j - 4u) >> 6) << 4),
               (rd8_0(s + j + 4u) >> 4) | ((rd8_0(s + j) >> 6) << 4));
}
// Q3_K's signed 6-bit scale g (0..15), packed in the 12 bytes at s.
int scale_q3_K(uint s, uint g) {
  const uint lo = g < 8u ? rd8_0(s + g) & 0xfu : rd8_0(s + g - 8u) >> 4;
  const uint hi = (rd8_0(s + 8u + (g & 3u)) >> (2u * (g >> 2))) & 3u;
  return int(lo | (hi << 4)) - 32;
}

// Byte offset of the block holding chunk c of the row at byte `row` (the chunk's index in a
// 256-element block is c & 7).
uint chunk_block(uint t, uint row, uint c) {
  return row + (block_size(t) == 256u ? c >> 3 : c) * block_bytes(t);
}

// Header of chunk c: the float scale d and min m, and integer scales sc = (scale of elements
// 0..15, scale of 16..31, min of 0..15, min of 16..31); element j = d * sc * q - m * mn.
// Q4_1/Q5_1 store x = d * q + m (mn = -1); IQ4_XS's sub-block scale is folded into d, as the
// CPU's vec_dot does.
void qhead(uint t, uint row, uint c, out float d, out float m, out ivec4 sc) {
  const uint b = chunk_block(t, row, c), s = c & 7u;
  d = 0.0;
  m = 0.0;
  sc = ivec4(1, 1, 0, 0);
#ifdef QFORMATS_BASE
  if (t == TYPE_Q4_0 || t == TYPE_Q5_0 || t == TYPE_Q8_0 || t == TYPE_Q8_1 || t == TYPE_Q4_1 ||
      t == TYPE_Q5_1) {
    d = rdf16_0(b);
    if (t == TYPE_Q4_1 || t == TYPE_Q5_1) {
      m = rdf16_0(b + 2u);
      sc = ivec4(1, 1, -1, -1);
    }
    return;
  }
  if (t == TYPE_Q8_K) {
    d = uintBitsToFloat(rd32_0(b));
    return;
  }
  if (t == TYPE_Q4_K || t == TYPE_Q5_K) {
    d = rdf16_0(b);
    m = rdf16_0(b + 2u);
    const ivec2 sm = scale_min_k4(s, b + 4u);
    sc = ivec4(sm.x, sm.x, sm.y, sm.y);
    return;
  }
  if (t == TYPE_Q6_K) {
    d = rdf16_0(b + 208u);
    const uint scb = b + 192u + (s >> 2) * 8u + 2u * (s & 3u);
    sc = ivec4(act8(rd8_0(scb), 0u), act8(rd8_0(scb + 1u), 0u), 0, 0);
    return;
  }
#endif
#ifdef QFORMATS_EXT
  if (t == TYPE_IQ4_NL) {
    d = rdf16_0(b);
    return;
  }
  if (t == TYPE_MXFP4) {
    d = e8m0_half(rd8_0(b));
    return;
  }
  if (t == TYPE_IQ4_XS) {
    const uint lo = (rd8_0(b + 4u + (s >> 1)) >> (4u * (s & 1u))) & 0xfu;
    const uint hi = (rd16_0(b + 2u) >> (2u * s)) & 3u;
    d = rdf16_0(b) * float(int(lo | (hi << 4)) - 32);
    return;
  }
  if (t == TYPE_Q2_K) {
    d = rdf16_0(b + 80u);
    m = rdf16_0(b + 82u);
    const uint s0 = rd8_0(b + 2u * s), s1 = rd8_0(b + 2u * s + 1u);
    sc = ivec4(s0 & 0xfu, s1 & 0xfu, s0 >> 4, s1 >> 4);
    return;
  }
  if (t == TYPE_Q3_K) {
    d = rdf16_0(b + 108u);
    sc = ivec4(scale_q3_K(b + 96u, 2u * s), scale_q3_K(b + 96u, 2u * s + 1u), 0, 0);
  }
#endif
}

// The 32 quants of chunk c, four per word (qw[w]: elements 4w .. 4w + 3), one signed byte
// each (Q4_0 nibble - 8, Q5_0 q - 16, Q3_K q - 4 without its high bit, Q6_K q - 32, the grid
// formats their grid values, the rest unsigned). The type test is outside each format's word
// loop, so the loop unrolls into straight code per format.
void qwords(uint t, uint row, uint c, out uint qw[8]) {
  const uint b = chunk_block(t, row, c), s = c & 7u;
#ifdef QFORMATS_BASE
  if (t == TYPE_Q4_0 || t == TYPE_Q4_1 || t == TYPE_Q5_0 || t == TYPE_Q5_1) {
    const bool has_min = t == TYPE_Q4_1 || t == TYPE_Q5_1, q5 = t == TYPE_Q5_0 || t == TYPE_Q5_1;
    const uint hoff = has_min ? 4u : 2u, qs = b + hoff + (q5 ? 4u : 0u);
    const uint qh = q5 ? rd32_0(b + hoff) : 0u, off = has_min ? 0u : (q5 ? 16u : 8u);
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
      const uint x = rd32_0(qs + 4u * w);
      // fifth bit of element j: bit j of qh, to bit 4 of its byte
      const uint h0 = (((qh >> (4u * w)) & 0xfu) * 0x00204081u) & 0x01010101u;
      const uint h1 = (((qh >> (4u * w + 16u)) & 0xfu) * 0x00204081u) & 0x01010101u;
      qw[w] = sub_bytes(nibbles(x, false) | (h0 << 4), off);
      qw[w + 4u] = sub_bytes(nibbles(x, true) | (h1 << 4), off);
    }
    return;
  }
  if (t == TYPE_Q8_0 || t == TYPE_Q8_1 || t == TYPE_Q8_K) {
    const uint qs = t == TYPE_Q8_0 ? b + 2u : (t == TYPE_Q8_1 ? b + 4u : b + 4u + 32u * s);
    [[unroll]] for (uint w = 0u; w < 8u; ++w) qw[w] = rd32_0(qs + 4u * w);
    return;
  }
  if (t == TYPE_Q4_K || t == TYPE_Q5_K) {
    const bool q5 = t == TYPE_Q5_K;
    const uint qs = b + (q5 ? 48u : 16u) + (s >> 1) * 32u, shift = 4u * (s & 1u);
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      uint x = (rd32_0(qs + 4u * w) >> shift) & 0x0f0f0f0fu;
      if (q5) x |= ((rd32_0(b + 16u + 4u * w) >> s) & 0x01010101u) << 4;
      qw[w] = x;
    }
    return;
  }
  if (t == TYPE_Q6_K) {
    const uint h = s >> 2, k4 = s & 3u;
    const uint ql = b + h * 64u + (k4 & 1u) * 32u, qh = b + 128u + h * 32u;
    const uint shift = k4 < 2u ? 0u : 4u;
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint lo = (rd32_0(ql + 4u * w) >> shift) & 0x0f0f0f0fu;
      const uint hi = (rd32_0(qh + 4u * w) >> (2u * k4)) & 0x03030303u;
      qw[w] = sub_bytes(lo | (hi << 4), 32u);
    }
    return;
  }
#endif
#ifdef QFORMATS_EXT
  if (t == TYPE_IQ4_NL || t == TYPE_MXFP4 || t == TYPE_IQ4_XS) {
    const bool mx = t == TYPE_MXFP4;
    const uint qs = t == TYPE_IQ4_NL ? b + 2u : (mx ? b + 1u : b + 8u + 16u * s);
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
      const uint x = rd32_0(qs + 4u * w);
      qw[w] = grid4(nibbles(x, false), mx);
      qw[w + 4u] = grid4(nibbles(x, true), mx);
    }
    return;
  }
  if (t == TYPE_Q2_K || t == TYPE_Q3_K) {
    // element 32s + l: bits 2 (s % 4) of qs[32 (s / 4) + l]; Q3_K minus 4 where bit s of
    // hmask[l] is clear
    const bool q3 = t == TYPE_Q3_K;
    const uint qs = b + (q3 ? 32u : 16u) + 32u * (s >> 2), shift = 2u * (s & 3u);
    [[unroll]] for (uint w = 0u; w < 8u; ++w) {
      const uint lo = (rd32_0(qs + 4u * w) >> shift) & 0x03030303u;
      qw[w] = q3 ? sub_bytes(lo | (((rd32_0(b + 4u * w) >> s) & 0x01010101u) << 2), 4u) : lo;
    }
    return;
  }
#endif
  [[unroll]] for (uint w = 0u; w < 8u; ++w) qw[w] = 0u;
}

// Chunk c of the row starting at byte `row`: elements 32c .. 32c + 31. Float rows: element i
// at row + i * nb0, and only elements below n exist (the rest read as 0). Every loop has a
// constant trip count, so compilers keep v[] in registers.
void dq32(uint t, uint row, uint c, uint nb0, uint n, out float v[32]) {
  if (t == TYPE_F32 || t == TYPE_F16 || t == TYPE_BF16) {
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
      const uint i = c * 32u + j;
      v[j] = i < n ? rdf_0(t, row + i * nb0) : 0.0;
    }
    return;
  }
  float d, m;
  ivec4 sc;
  qhead(t, row, c, d, m, sc);
  const float d0 = d * float(sc.x), d1 = d * float(sc.y), m0 = m * float(sc.z),
              m1 = m * float(sc.w);
  uint qw[8];
  qwords(t, row, c, qw);
  [[unroll]] for (uint w = 0u; w < 8u; ++w)
    [[unroll]] for (uint k = 0u; k < 4u; ++k)
      v[4u * w + k] = (w < 4u ? d0 : d1) * float(act8(qw[w], k)) - (w < 4u ? m0 : m1);
}
