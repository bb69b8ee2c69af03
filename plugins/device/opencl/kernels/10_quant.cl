// Dequantization of GGUF block formats (layouts and reference decoders in the SDK): one whole block into
// a private array, so the matmul and get_rows kernels decode each block once.

inline int blk_size(int type) {
  return (type == T_Q2_K || type == T_Q3_K || type == T_Q4_K || type == T_Q5_K ||
          type == T_Q6_K || type == T_IQ4_XS)
             ? 256
             : 32;
}

constant char kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                   1,    13,   25,  38,  53,  69,  89,  113};
constant char kvalues_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// 6-bit scale and min j of a Q4_K / Q5_K super-block's packed scales[12].
inline void scale_min_k4(int j, global const uchar* q, float* sc, float* mn) {
  if (j < 4) {
    *sc = q[j] & 63;
    *mn = q[j + 4] & 63;
  } else {
    *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *mn = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

inline uint ld_u32(global const uchar* p) {
  return (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);
}

// Decodes the block at p into y[0 .. blk_size(type)).
void dq_block(int type, global const uchar* p, float* y) {
  switch (type) {
    case T_Q4_0: {
      const float d = ld_half(p);
      for (int j = 0; j < 16; ++j) {
        const uchar q = p[2 + j];
        y[j] = ((int)(q & 0xF) - 8) * d;
        y[j + 16] = ((int)(q >> 4) - 8) * d;
      }
      break;
    }
    case T_Q4_1: {
      const float d = ld_half(p), m = ld_half(p + 2);
      for (int j = 0; j < 16; ++j) {
        const uchar q = p[4 + j];
        y[j] = (q & 0xF) * d + m;
        y[j + 16] = (q >> 4) * d + m;
      }
      break;
    }
    case T_Q5_0: {
      const float d = ld_half(p);
      const uint qh = ld_u32(p + 2);
      for (int j = 0; j < 16; ++j) {
        const uchar q = p[6 + j];
        const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
        y[j] = (((q & 0xF) | h0) - 16) * d;
        y[j + 16] = (((q >> 4) | h1) - 16) * d;
      }
      break;
    }
    case T_Q5_1: {
      const float d = ld_half(p), m = ld_half(p + 2);
      const uint qh = ld_u32(p + 4);
      for (int j = 0; j < 16; ++j) {
        const uchar q = p[8 + j];
        const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
        y[j] = ((q & 0xF) | h0) * d + m;
        y[j + 16] = ((q >> 4) | h1) * d + m;
      }
      break;
    }
    case T_Q8_0: {
      const float d = ld_half(p);
      global const char* q = (global const char*)(p + 2);
      for (int j = 0; j < 32; ++j) y[j] = q[j] * d;
      break;
    }
    case T_Q4_K:
    case T_Q5_K: {
      const float d = ld_half(p), dmin = ld_half(p + 2);
      global const uchar* scales = p + 4;
      const bool five = type == T_Q5_K;
      global const uchar* qh = p + 16;
      global const uchar* ql = five ? p + 48 : p + 16;
      for (int g = 0; g < 4; ++g) {  // 64 elements per group: 32 low nibbles, 32 high
        float s1, m1, s2, m2;
        scale_min_k4(2 * g, scales, &s1, &m1);
        scale_min_k4(2 * g + 1, scales, &s2, &m2);
        const float d1 = d * s1, c1 = dmin * m1, d2 = d * s2, c2 = dmin * m2;
        for (int l = 0; l < 32; ++l) {
          const uchar q = ql[32 * g + l];
          int lo = q & 0xF, hi = q >> 4;
          if (five) {
            lo += (qh[l] >> (2 * g)) & 1 ? 16 : 0;
            hi += (qh[l] >> (2 * g + 1)) & 1 ? 16 : 0;
          }
          y[64 * g + l] = d1 * lo - c1;
          y[64 * g + 32 + l] = d2 * hi - c2;
        }
      }
      break;
    }
    case T_Q6_K: {
      global const uchar* ql = p;
      global const uchar* qh = p + 128;
      global const char* sc = (global const char*)(p + 192);
      const float d = ld_half(p + 208);
      for (int n = 0; n < 2; ++n) {  // two halves of 128
        for (int l = 0; l < 32; ++l) {
          const int is = l / 16;
          const uchar h = qh[32 * n + l];
          const int q1 = (int)((ql[64 * n + l] & 0xF) | ((h & 3) << 4)) - 32;
          const int q2 = (int)((ql[64 * n + l + 32] & 0xF) | (((h >> 2) & 3) << 4)) - 32;
          const int q3 = (int)((ql[64 * n + l] >> 4) | (((h >> 4) & 3) << 4)) - 32;
          const int q4 = (int)((ql[64 * n + l + 32] >> 4) | (((h >> 6) & 3) << 4)) - 32;
          y[128 * n + l] = d * sc[8 * n + is] * q1;
          y[128 * n + l + 32] = d * sc[8 * n + is + 2] * q2;
          y[128 * n + l + 64] = d * sc[8 * n + is + 4] * q3;
          y[128 * n + l + 96] = d * sc[8 * n + is + 6] * q4;
        }
      }
      break;
    }
    case T_Q2_K: {  // scales[16], qs[64], d, dmin
      const float d = ld_half(p + 80), dmin = ld_half(p + 82);
      for (int e = 0; e < 256; ++e) {  // element 128h + 32k + l: bits 2k.. of qs[32h + l]
        const int h = e / 128, k = (e / 32) % 4, l = e % 32;
        const uchar sc = p[e / 16];
        const int q = (p[16 + 32 * h + l] >> (2 * k)) & 3;
        y[e] = d * (sc & 0xF) * q - dmin * (sc >> 4);
      }
      break;
    }
    case T_Q3_K: {  // hmask[32], qs[64], scales[12], d
      global const uchar* s = p + 96;
      const float d = ld_half(p + 108);
      for (int e = 0; e < 256; ++e) {
        const int h = e / 128, k = (e / 32) % 4, l = e % 32, j = e / 16;
        const int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
        const int sc = lo | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4);
        const int ql = (p[32 + 32 * h + l] >> (2 * k)) & 3;
        const int hbit = (p[l] >> (e / 32)) & 1;
        y[e] = d * (sc - 32) * (ql - (hbit ? 0 : 4));
      }
      break;
    }
    case T_IQ4_NL: {
      const float d = ld_half(p);
      for (int j = 0; j < 16; ++j) {
        y[j] = d * kvalues_iq4nl[p[2 + j] & 0xF];
        y[j + 16] = d * kvalues_iq4nl[p[2 + j] >> 4];
      }
      break;
    }
    case T_IQ4_XS: {  // d, scales_h (u16), scales_l[4], qs[128]
      const float d = ld_half(p);
      const uint sh = (uint)p[2] | ((uint)p[3] << 8);
      for (int ib = 0; ib < 8; ++ib) {
        const int ls = ((p[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | (((sh >> (2 * ib)) & 3) << 4);
        const float dl = d * (ls - 32);
        global const uchar* q = p + 8 + 16 * ib;
        for (int j = 0; j < 16; ++j) {
          y[32 * ib + j] = dl * kvalues_iq4nl[q[j] & 0xF];
          y[32 * ib + 16 + j] = dl * kvalues_iq4nl[q[j] >> 4];
        }
      }
      break;
    }
    case T_MXFP4: {  // e, qs[16]; scale 2^(e - 128), e < 2 subnormal
      const uchar e = p[0];
      const float d = as_float(e < 2 ? 0x00200000u << e : (uint)(e - 1) << 23);
      for (int j = 0; j < 16; ++j) {
        y[j] = d * kvalues_mxfp4[p[1 + j] & 0xF];
        y[j + 16] = d * kvalues_mxfp4[p[1 + j] >> 4];
      }
      break;
    }
    default:
      for (int j = 0; j < 32; ++j) y[j] = 0.0f;
  }
}
