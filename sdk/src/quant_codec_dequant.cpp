// Dequantization of every supported block format. Each formula evaluates in float in the same
// order as gguf-py's numpy reference (e.g. Q4_K: (d * sc) * q - (dmin * m)), and the library is
// built with -ffp-contract=off, so results are bit-identical to it.
#include <bit>
#include <cstring>

#include <zen/quant_codec.hpp>

namespace zen::quant {


float e8m0_to_float_half(uint8_t e) {
  // 2^(e - 128): e = 0 and 1 are subnormal floats (2^-128 = 0x00200000, 2^-127 = 0x00400000).
  const uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
  return std::bit_cast<float>(bits);
}

bool has_dequantize(zen_type type) { return has_codec(type); }

bool has_codec(zen_type type) { return block_size(type) != 0; }

int64_t block_size(zen_type type) {
  switch (type) {
    case ZEN_TYPE_F32:
    case ZEN_TYPE_F16:
    case ZEN_TYPE_BF16:
      return 1;
    case ZEN_TYPE_Q4_0:
    case ZEN_TYPE_Q4_1:
    case ZEN_TYPE_Q5_0:
    case ZEN_TYPE_Q5_1:
    case ZEN_TYPE_Q8_0:
    case ZEN_TYPE_Q8_1:
    case ZEN_TYPE_IQ4_NL:
    case ZEN_TYPE_MXFP4:
      return 32;
    case ZEN_TYPE_Q2_K:
    case ZEN_TYPE_Q3_K:
    case ZEN_TYPE_Q4_K:
    case ZEN_TYPE_Q5_K:
    case ZEN_TYPE_Q6_K:
    case ZEN_TYPE_Q8_K:
    case ZEN_TYPE_IQ4_XS:
      return QK_K;
    default:
      return 0;
  }
}

size_t block_bytes(zen_type type) {
  switch (type) {
    case ZEN_TYPE_F32:
      return 4;
    case ZEN_TYPE_F16:
    case ZEN_TYPE_BF16:
      return 2;
    case ZEN_TYPE_Q4_0:
      return sizeof(block_q4_0);
    case ZEN_TYPE_Q4_1:
      return sizeof(block_q4_1);
    case ZEN_TYPE_Q5_0:
      return sizeof(block_q5_0);
    case ZEN_TYPE_Q5_1:
      return sizeof(block_q5_1);
    case ZEN_TYPE_Q8_0:
      return sizeof(block_q8_0);
    case ZEN_TYPE_Q8_1:
      return sizeof(block_q8_1);
    case ZEN_TYPE_Q2_K:
      return sizeof(block_q2_K);
    case ZEN_TYPE_Q3_K:
      return sizeof(block_q3_K);
    case ZEN_TYPE_Q4_K:
      return sizeof(block_q4_K);
    case ZEN_TYPE_Q5_K:
      return sizeof(block_q5_K);
    case ZEN_TYPE_Q6_K:
      return sizeof(block_q6_K);
    case ZEN_TYPE_Q8_K:
      return sizeof(block_q8_K);
    case ZEN_TYPE_IQ4_NL:
      return sizeof(block_iq4_nl);
    case ZEN_TYPE_IQ4_XS:
      return sizeof(block_iq4_xs);
    case ZEN_TYPE_MXFP4:
      return sizeof(block_mxfp4);
    default:
      return 0;
  }
}

namespace {

// Scale and min of sub-block j of Q4_K/Q5_K from the 12 packed bytes (6 bits each).
inline void scale_min_k4(int j, const uint8_t* q, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

void dq_q4_0(const block_q4_0* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK4_0) {
    const float d = half_to_float(x[i].d);
    for (int j = 0; j < QK4_0 / 2; ++j) {
      y[j] = d * static_cast<float>((x[i].qs[j] & 0xF) - 8);
      y[j + QK4_0 / 2] = d * static_cast<float>((x[i].qs[j] >> 4) - 8);
    }
  }
}

void dq_q4_1(const block_q4_1* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK4_1) {
    const float d = half_to_float(x[i].d), m = half_to_float(x[i].m);
    for (int j = 0; j < QK4_1 / 2; ++j) {
      y[j] = d * static_cast<float>(x[i].qs[j] & 0xF) + m;
      y[j + QK4_1 / 2] = d * static_cast<float>(x[i].qs[j] >> 4) + m;
    }
  }
}

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void dq_q5_0(const block_q5_0* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK5_0) {
    const float d = half_to_float(x[i].d);
    const uint32_t qh = load_u32(x[i].qh);
    for (int j = 0; j < QK5_0 / 2; ++j) {
      const int q0 = (x[i].qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1u) << 4);
      const int q1 = (x[i].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
      y[j] = d * static_cast<float>(q0 - 16);
      y[j + QK5_0 / 2] = d * static_cast<float>(q1 - 16);
    }
  }
}

void dq_q5_1(const block_q5_1* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK5_1) {
    const float d = half_to_float(x[i].d), m = half_to_float(x[i].m);
    const uint32_t qh = load_u32(x[i].qh);
    for (int j = 0; j < QK5_1 / 2; ++j) {
      const int q0 = (x[i].qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1u) << 4);
      const int q1 = (x[i].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
      y[j] = d * static_cast<float>(q0) + m;
      y[j + QK5_1 / 2] = d * static_cast<float>(q1) + m;
    }
  }
}

void dq_q8_0(const block_q8_0* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK8_0) {
    const float d = half_to_float(x[i].d);
    for (int j = 0; j < QK8_0; ++j) y[j] = d * static_cast<float>(x[i].qs[j]);
  }
}

void dq_q8_1(const block_q8_1* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK8_1) {
    const float d = half_to_float(x[i].d);
    for (int j = 0; j < QK8_1; ++j) y[j] = d * static_cast<float>(x[i].qs[j]);
  }
}

void dq_q2_K(const block_q2_K* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_K) {
    const float d = half_to_float(x[i].d), dmin = half_to_float(x[i].dmin);
    // Element 128h + 32k + l is bits 2k..2k+1 of qs[32h + l]; sub-block of 16 = element / 16.
    for (int e = 0; e < QK_K; ++e) {
      const int h = e / 128, k = (e / 32) % 4, l = e % 32, sb = e / 16;
      const float dl = d * static_cast<float>(x[i].scales[sb] & 0xF);
      const float ml = dmin * static_cast<float>(x[i].scales[sb] >> 4);
      const int q = (x[i].qs[32 * h + l] >> (2 * k)) & 3;
      y[e] = dl * static_cast<float>(q) - ml;
    }
  }
}

// The 16 signed 6-bit scales of Q3_K (values 0..63, subtract 32 for the signed scale).
void q3_K_scales(const uint8_t* s, int* out) {
  for (int j = 0; j < 16; ++j) {
    const int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    const int hi = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    out[j] = lo | (hi << 4);
  }
}

void dq_q3_K(const block_q3_K* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_K) {
    const float d = half_to_float(x[i].d);
    int sc[16];
    q3_K_scales(x[i].scales, sc);
    for (int e = 0; e < QK_K; ++e) {
      const int h = e / 128, k = (e / 32) % 4, l = e % 32, sb = e / 16;
      const float dl = d * static_cast<float>(sc[sb] - 32);
      const int ql = (x[i].qs[32 * h + l] >> (2 * k)) & 3;
      const int hbit = (x[i].hmask[l] >> (e / 32)) & 1;  // element 32b + l: bit b of hmask[l]
      y[e] = dl * static_cast<float>(ql - (hbit ? 0 : 4));
    }
  }
}

void dq_q4_K(const block_q4_K* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_K) {
    const float d = half_to_float(x[i].d), dmin = half_to_float(x[i].dmin);
    for (int j = 0; j < QK_K / 32; ++j) {  // sub-block j: nibble (j & 1) of qs[32 (j / 2) + l]
      uint8_t sc, m;
      scale_min_k4(j, x[i].scales, &sc, &m);
      const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(m);
      const uint8_t* q = x[i].qs + 32 * (j / 2);
      const int shift = 4 * (j & 1);
      for (int l = 0; l < 32; ++l)
        y[32 * j + l] = dl * static_cast<float>((q[l] >> shift) & 0xF) - ml;
    }
  }
}

void dq_q5_K(const block_q5_K* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_K) {
    const float d = half_to_float(x[i].d), dmin = half_to_float(x[i].dmin);
    for (int j = 0; j < QK_K / 32; ++j) {  // fifth bit of element 32j + l: bit j of qh[l]
      uint8_t sc, m;
      scale_min_k4(j, x[i].scales, &sc, &m);
      const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(m);
      const uint8_t* q = x[i].qs + 32 * (j / 2);
      const int shift = 4 * (j & 1);
      for (int l = 0; l < 32; ++l) {
        const int v = ((q[l] >> shift) & 0xF) | (((x[i].qh[l] >> j) & 1) << 4);
        y[32 * j + l] = dl * static_cast<float>(v) - ml;
      }
    }
  }
}

void dq_q6_K(const block_q6_K* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_K) {
    const float d = half_to_float(x[i].d);
    // Element 128h + 64s + l (l < 64): nibble s of ql[64h + l]; high 2 bits of element
    // 128h + 32k + l (l < 32) are bits 2k..2k+1 of qh[32h + l].
    for (int e = 0; e < QK_K; ++e) {
      const int h = e / 128, r = e % 128;
      const int lo = (x[i].ql[64 * h + r % 64] >> (4 * (r / 64))) & 0xF;
      const int hi = (x[i].qh[32 * h + r % 32] >> (2 * (r / 32))) & 3;
      const float dl = d * static_cast<float>(x[i].scales[e / 16]);
      y[e] = dl * static_cast<float>((lo | (hi << 4)) - 32);
    }
  }
}

void dq_q8_K(const block_q8_K* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_K)
    for (int j = 0; j < QK_K; ++j) y[j] = x[i].d * static_cast<float>(x[i].qs[j]);
}

void dq_iq4_nl(const block_iq4_nl* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK4_NL) {
    const float d = half_to_float(x[i].d);
    for (int j = 0; j < QK4_NL / 2; ++j) {
      y[j] = d * static_cast<float>(kvalues_iq4nl[x[i].qs[j] & 0xF]);
      y[j + QK4_NL / 2] = d * static_cast<float>(kvalues_iq4nl[x[i].qs[j] >> 4]);
    }
  }
}

void dq_iq4_xs(const block_iq4_xs* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_K) {
    const float d = half_to_float(x[i].d);
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const int ls = ((x[i].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xF) |
                     (((x[i].scales_h >> (2 * ib)) & 3) << 4);
      const float dl = d * static_cast<float>(ls - 32);
      const uint8_t* q = x[i].qs + 16 * ib;
      for (int j = 0; j < 16; ++j) {
        y[32 * ib + j] = dl * static_cast<float>(kvalues_iq4nl[q[j] & 0xF]);
        y[32 * ib + 16 + j] = dl * static_cast<float>(kvalues_iq4nl[q[j] >> 4]);
      }
    }
  }
}

void dq_mxfp4(const block_mxfp4* x, float* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, y += QK_MXFP4) {
    const float d = e8m0_to_float_half(x[i].e);
    for (int j = 0; j < QK_MXFP4 / 2; ++j) {
      y[j] = d * static_cast<float>(kvalues_mxfp4[x[i].qs[j] & 0xF]);
      y[j + QK_MXFP4 / 2] = d * static_cast<float>(kvalues_mxfp4[x[i].qs[j] >> 4]);
    }
  }
}

}  // namespace

void dequantize_row(zen_type type, const void* src, float* dst, int64_t n) {
  const int64_t bs = block_size(type);
  if (bs == 0 || n <= 0) return;
  const int64_t nb = n / bs;
  switch (type) {
    case ZEN_TYPE_F32:
      std::memcpy(dst, src, static_cast<size_t>(n) * 4);
      break;
    case ZEN_TYPE_F16: {
      const auto* s = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = half_to_float(s[i]);
      break;
    }
    case ZEN_TYPE_BF16: {
      const auto* s = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(s[i]);
      break;
    }
    case ZEN_TYPE_Q4_0:
      dq_q4_0(static_cast<const block_q4_0*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q4_1:
      dq_q4_1(static_cast<const block_q4_1*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q5_0:
      dq_q5_0(static_cast<const block_q5_0*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q5_1:
      dq_q5_1(static_cast<const block_q5_1*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q8_0:
      dq_q8_0(static_cast<const block_q8_0*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q8_1:
      dq_q8_1(static_cast<const block_q8_1*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q2_K:
      dq_q2_K(static_cast<const block_q2_K*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q3_K:
      dq_q3_K(static_cast<const block_q3_K*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q4_K:
      dq_q4_K(static_cast<const block_q4_K*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q5_K:
      dq_q5_K(static_cast<const block_q5_K*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q6_K:
      dq_q6_K(static_cast<const block_q6_K*>(src), dst, nb);
      break;
    case ZEN_TYPE_Q8_K:
      dq_q8_K(static_cast<const block_q8_K*>(src), dst, nb);
      break;
    case ZEN_TYPE_IQ4_NL:
      dq_iq4_nl(static_cast<const block_iq4_nl*>(src), dst, nb);
      break;
    case ZEN_TYPE_IQ4_XS:
      dq_iq4_xs(static_cast<const block_iq4_xs*>(src), dst, nb);
      break;
    case ZEN_TYPE_MXFP4:
      dq_mxfp4(static_cast<const block_mxfp4*>(src), dst, nb);
      break;
    default:
      break;
  }
}

}  // namespace zen::quant
