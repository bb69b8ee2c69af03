// Reference quantization, following ggml's reference algorithms (quantize_row_*_ref):
// round-to-nearest for the 32-element formats, the weighted scale searches (make_qx_quants,
// make_qkx2_quants) for the K-quants and the grid search for IQ4_NL/IQ4_XS.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <zen/quant_codec.hpp>

namespace zen::quant {

namespace {

constexpr float kGroupMaxEps = 1e-15f;

// Round to nearest, ties to even, exactly as ggml's nearest_int (|x| < 2^22 assumed).
inline int nearest_int(float fval) {
  const float val = fval + 12582912.f;
  const int32_t i = std::bit_cast<int32_t>(val);
  return (i & 0x007fffff) - 0x00400000;
}

// Sign of the element of largest magnitude (the first on ties) and that magnitude.
inline void abs_max(const float* x, int n, float* amax, float* max) {
  *amax = 0.f;
  *max = 0.f;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > *amax) {
      *amax = ax;
      *max = x[i];
    }
  }
}

// ---- 32-element formats ---------------------------------------------------------------

void q_q4_0(const float* x, block_q4_0* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += QK4_0) {
    float amax, max;
    abs_max(x, QK4_0, &amax, &max);
    const float d = max / -8.f, id = d != 0.f ? 1.f / d : 0.f;
    y[i].d = float_to_half(d);
    for (int j = 0; j < QK4_0 / 2; ++j) {
      const int q0 = std::min(15, static_cast<int>(static_cast<int8_t>(x[j] * id + 8.5f)));
      const int q1 = std::min(15, static_cast<int>(static_cast<int8_t>(x[j + 16] * id + 8.5f)));
      y[i].qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
  }
}

void q_q4_1(const float* x, block_q4_1* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += QK4_1) {
    float mn = x[0], mx = x[0];
    for (int j = 1; j < QK4_1; ++j) mn = std::min(mn, x[j]), mx = std::max(mx, x[j]);
    const float d = (mx - mn) / 15.f, id = d != 0.f ? 1.f / d : 0.f;
    y[i].d = float_to_half(d);
    y[i].m = float_to_half(mn);
    for (int j = 0; j < QK4_1 / 2; ++j) {
      const int q0 = std::min(15, static_cast<int>(static_cast<int8_t>((x[j] - mn) * id + 0.5f)));
      const int q1 =
          std::min(15, static_cast<int>(static_cast<int8_t>((x[j + 16] - mn) * id + 0.5f)));
      y[i].qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
  }
}

void q_q5_0(const float* x, block_q5_0* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += QK5_0) {
    float amax, max;
    abs_max(x, QK5_0, &amax, &max);
    const float d = max / -16.f, id = d != 0.f ? 1.f / d : 0.f;
    y[i].d = float_to_half(d);
    uint32_t qh = 0;
    for (int j = 0; j < QK5_0 / 2; ++j) {
      const int q0 = std::min(31, static_cast<int>(static_cast<int8_t>(x[j] * id + 16.5f)));
      const int q1 = std::min(31, static_cast<int>(static_cast<int8_t>(x[j + 16] * id + 16.5f)));
      y[i].qs[j] = static_cast<uint8_t>((q0 & 0xF) | ((q1 & 0xF) << 4));
      qh |= static_cast<uint32_t>((q0 >> 4) & 1) << j;
      qh |= static_cast<uint32_t>((q1 >> 4) & 1) << (j + 16);
    }
    std::memcpy(y[i].qh, &qh, 4);
  }
}

void q_q5_1(const float* x, block_q5_1* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += QK5_1) {
    float mn = x[0], mx = x[0];
    for (int j = 1; j < QK5_1; ++j) mn = std::min(mn, x[j]), mx = std::max(mx, x[j]);
    const float d = (mx - mn) / 31.f, id = d != 0.f ? 1.f / d : 0.f;
    y[i].d = float_to_half(d);
    y[i].m = float_to_half(mn);
    uint32_t qh = 0;
    for (int j = 0; j < QK5_1 / 2; ++j) {
      const int q0 = std::min(31, static_cast<int>(static_cast<uint8_t>((x[j] - mn) * id + 0.5f)));
      const int q1 =
          std::min(31, static_cast<int>(static_cast<uint8_t>((x[j + 16] - mn) * id + 0.5f)));
      y[i].qs[j] = static_cast<uint8_t>((q0 & 0xF) | ((q1 & 0xF) << 4));
      qh |= static_cast<uint32_t>((q0 >> 4) & 1) << j;
      qh |= static_cast<uint32_t>((q1 >> 4) & 1) << (j + 16);
    }
    std::memcpy(y[i].qh, &qh, 4);
  }
}

// ---- IQ4_NL / IQ4_XS ------------------------------------------------------------------

// Index of the grid value nearest x (values sorted ascending; the lower one on ties).
inline int best_index_int8(int n, const int8_t* val, float x) {
  if (x <= val[0]) return 0;
  if (x >= val[n - 1]) return n - 1;
  int ml = 0, mu = n - 1;
  while (mu - ml > 1) {
    const int mav = (ml + mu) / 2;
    if (x < val[mav])
      mu = mav;
    else
      ml = mav;
  }
  return x - val[mu - 1] < val[mu] - x ? mu - 1 : mu;
}

// Scales of `super` elements in sub-blocks of `bs` on the IQ4 grid: for each sub-block, try
// 2 * ntry + 1 candidate scales around max/grid[0] and keep the weighted least-squares best;
// for IQ4_XS (super > bs) the sub-block scales are then quantized to 6 bits.
void iq4_impl(int super, int bs, const float* x, uint16_t* dh, uint8_t* q4, uint16_t* scales_h,
              uint8_t* scales_l, const float* qw, int ntry) {
  float scales[QK_K / 32], weight[32];
  uint8_t L[QK_K];
  const int8_t* values = kvalues_iq4nl;
  float sigma2 = 0;
  for (int j = 0; j < super; ++j) sigma2 += x[j] * x[j];
  sigma2 *= 2.f / static_cast<float>(super);
  std::memset(q4, 0, static_cast<size_t>(super / 2));
  std::memset(L, 0, sizeof(L));
  *dh = 0;
  float max_scale = 0, amax_scale = 0;
  for (int ib = 0; ib < super / bs; ++ib) {
    const float* xb = x + ib * bs;
    uint8_t* Lb = L + ib * bs;
    for (int j = 0; j < bs; ++j)
      weight[j] = qw ? qw[ib * bs + j] * std::sqrt(sigma2 + xb[j] * xb[j]) : xb[j] * xb[j];
    float amax, max;
    abs_max(xb, bs, &amax, &max);
    if (amax < kGroupMaxEps) {
      scales[ib] = 0;
      continue;
    }
    float d = ntry > 0 ? -max / values[0] : max / values[0];
    float id = 1 / d;
    float sumqx = 0, sumq2 = 0;
    for (int j = 0; j < bs; ++j) {
      const int l = best_index_int8(16, values, id * xb[j]);
      Lb[j] = static_cast<uint8_t>(l);
      const float q = values[l], w = weight[j];
      sumqx += w * q * xb[j];
      sumq2 += w * q * q;
    }
    d = sumq2 > 0 ? sumqx / sumq2 : d;
    float best = d * sumqx;
    for (int itry = -ntry; itry <= ntry; ++itry) {
      id = (static_cast<float>(itry) + values[0]) / max;
      sumqx = sumq2 = 0;
      for (int j = 0; j < bs; ++j) {
        const int l = best_index_int8(16, values, id * xb[j]);
        const float q = values[l], w = weight[j];
        sumqx += w * q * xb[j];
        sumq2 += w * q * q;
      }
      if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
        d = sumqx / sumq2;
        best = d * sumqx;
      }
    }
    scales[ib] = d;
    if (std::fabs(d) > amax_scale) {
      amax_scale = std::fabs(d);
      max_scale = d;
    }
  }
  if (super / bs > 1) {
    *scales_h = 0;
    std::memset(scales_l, 0, static_cast<size_t>(super / bs / 2));
    const float d = -max_scale / 32;
    *dh = float_to_half(d);
    const float id = d != 0 ? 1 / d : 0.f;
    for (int ib = 0; ib < super / bs; ++ib) {
      int l = std::clamp(nearest_int(id * scales[ib]), -32, 31);
      const float dl = d * static_cast<float>(l), idl = dl != 0 ? 1 / dl : 0.f;
      for (int j = 0; j < bs; ++j)
        L[ib * bs + j] = static_cast<uint8_t>(best_index_int8(16, values, idl * x[ib * bs + j]));
      l += 32;
      scales_l[ib / 2] |= static_cast<uint8_t>((l & 0xF) << (4 * (ib % 2)));
      *scales_h |= static_cast<uint16_t>((l >> 4) << (2 * ib));
    }
  } else {
    *dh = float_to_half(scales[0]);
    const float id = scales[0] != 0 ? 1 / scales[0] : 0.f;
    for (int j = 0; j < super; ++j)
      L[j] = static_cast<uint8_t>(best_index_int8(16, values, id * x[j]));
  }
  for (int i = 0; i < super / 32; ++i)
    for (int j = 0; j < 16; ++j)
      q4[16 * i + j] = static_cast<uint8_t>(L[32 * i + j] | (L[32 * i + 16 + j] << 4));
}

void q_iq4_nl(const float* x, block_iq4_nl* y, int64_t nb, const float* qw) {
  for (int64_t i = 0; i < nb; ++i) {
    uint16_t unused_h;
    uint8_t unused_l[1];
    iq4_impl(QK4_NL, 32, x + i * QK4_NL, &y[i].d, y[i].qs, &unused_h, unused_l,
             qw ? qw + i * QK4_NL : nullptr, 7);
  }
}

void q_iq4_xs(const float* x, block_iq4_xs* y, int64_t nb, const float* qw) {
  for (int64_t i = 0; i < nb; ++i)
    iq4_impl(QK_K, 32, x + i * QK_K, &y[i].d, y[i].qs, &y[i].scales_h, y[i].scales_l,
             qw ? qw + i * QK_K : nullptr, 7);
}

// ---- MXFP4 ----------------------------------------------------------------------------

void q_mxfp4(const float* x, block_mxfp4* y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, x += QK_MXFP4) {
    float amax = 0;
    for (int j = 0; j < QK_MXFP4; ++j) amax = std::max(amax, std::fabs(x[j]));
    // Shared exponent: the largest magnitude lands in E2M1's top binade [4, 6] (doubled: [8, 12]).
    const float ef = amax > 0 ? std::floor(std::log2(amax)) - 2 + 127 : 0.f;
    const uint8_t e = static_cast<uint8_t>(std::clamp(ef, 0.f, 254.f));
    const float d = e8m0_to_float_half(e);
    y[i].e = e;
    auto best = [d](float v) {
      int bi = 0;
      float be = std::fabs(static_cast<float>(kvalues_mxfp4[0]) * d - v);
      for (int k = 1; k < 16; ++k) {
        const float err = std::fabs(static_cast<float>(kvalues_mxfp4[k]) * d - v);
        if (err < be) be = err, bi = k;
      }
      return bi;
    };
    for (int j = 0; j < QK_MXFP4 / 2; ++j)
      y[i].qs[j] = static_cast<uint8_t>(best(x[j]) | (best(x[j + 16]) << 4));
  }
}

// Packs 32 quants (0..31) into a 4- or 5-bit block: element j and j + 16 share byte j; the
// fifth bits go to qh bit j / j + 16.
template <class Block>
void pack_32(Block& b, const int8_t* L) {
  uint32_t qh = 0;
  for (int j = 0; j < 16; ++j) {
    const int q0 = L[j], q1 = L[j + 16];
    b.qs[j] = static_cast<uint8_t>((q0 & 0xF) | ((q1 & 0xF) << 4));
    qh |= static_cast<uint32_t>((q0 >> 4) & 1) << j;
    qh |= static_cast<uint32_t>((q1 >> 4) & 1) << (j + 16);
  }
  if constexpr (requires { b.qh; }) std::memcpy(b.qh, &qh, 4);
}

// ---- K-quants -------------------------------------------------------------------------

// Symmetric quantization of n values to [-nmax, nmax - 1] (stored + nmax): start from the scale
// mapping the largest magnitude to -nmax, then try 18 nearby scales and keep the one with the
// smallest weighted squared error (weights x^2, or qw). Returns the scale.
float make_qx_quants(int n, int nmax, const float* x, int8_t* L, const float* qw) {
  float amax, max;
  abs_max(x, n, &amax, &max);
  if (amax < kGroupMaxEps) {
    std::memset(L, 0, static_cast<size_t>(n));
    return 0.f;
  }
  float iscale = -nmax / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
    L[i] = static_cast<int8_t>(l + nmax);
    const float w = qw ? qw[i] : x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  float scale = suml2 ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(nmax + 0.1f * is) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
      const float w = qw ? qw[i] : x[i] * x[i];
      sumlx += w * x[i] * l;
      suml2 += w * l * l;
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i)
        L[i] = static_cast<int8_t>(nmax + std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1));
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

// Q3_K's symmetric search (no importance): round to the scale mapping the largest magnitude
// to -nmax, then up to 5 passes of coordinate descent, moving each L[i] to its least-squares
// optimum given the others when that lowers the x^2-weighted error. Returns the scale.
float make_q3_quants(int n, int nmax, const float* x, int8_t* L) {
  float amax, max;
  abs_max(x, n, &amax, &max);
  if (amax < kGroupMaxEps) {
    std::memset(L, 0, static_cast<size_t>(n));
    return 0.f;
  }
  const float iscale = -nmax / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
    L[i] = static_cast<int8_t>(l);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = x[i] * x[i];
      float slx = sumlx - w * x[i] * L[i];
      if (slx > 0) {
        float sl2 = suml2 - w * L[i] * L[i];
        const int new_l = std::clamp(nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
        if (new_l != L[i]) {
          slx += w * x[i] * new_l;
          sl2 += w * new_l * new_l;
          if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<int8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (!n_changed) break;
  }
  for (int i = 0; i < n; ++i) L[i] = static_cast<int8_t>(L[i] + nmax);
  return suml2 > 0 ? sumlx / suml2 : 1 / iscale;  // suml2 underflows only for tiny data
}

// Asymmetric quantization x ~ scale * L - min with L in [0, nmax] (min <= 0 stored negated):
// start from the min/max mapping, then try nstep + 1 scales (rmin + rdelta * is + nmax)/range,
// each refined by weighted least squares for (scale, min); keep the smallest weighted error
// (absolute when use_mad, squared otherwise).
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L,
                       float* the_min, uint8_t* Laux, float rmin, float rdelta, int nstep,
                       bool use_mad) {
  float min = x[0], max = x[0];
  float sum_w = weights[0], sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
    sum_w += weights[i];
    sum_x += weights[i] * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    std::memset(L, 0, static_cast<size_t>(n));
    *the_min = -min;
    return 0.f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
    L[i] = static_cast<uint8_t>(l);
    float diff = scale * l + min - x[i];
    diff = use_mad ? std::fabs(diff) : diff * diff;
    best_error += weights[i] * diff;
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * is + nmax) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weights[i];
      sum_l += w * l;
      sum_l2 += w * l * l;
      sum_xl += w * l * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        float diff = this_scale * Laux[i] + this_min - x[i];
        diff = use_mad ? std::fabs(diff) : diff * diff;
        cur_error += weights[i] * diff;
      }
      if (cur_error < best_error) {
        std::memcpy(L, Laux, static_cast<size_t>(n));
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

// ---- 32-element formats with importance (ggml's imatrix variants) -------------------------

// Weights of the importance searches: importance * sqrt(sigma2 + x^2), sigma2 = mean of x^2
// over the row.
float row_sigma2(const float* x, int64_t n) {
  float sum_x2 = 0;
  for (int64_t j = 0; j < n; ++j) sum_x2 += x[j] * x[j];
  return sum_x2 / static_cast<float>(n);
}

// Q4_0 (nmax 8) and Q5_0 (nmax 16): weighted symmetric search per block.
template <class Block, int Nmax>
void q_sym_weighted(const float* x, Block* y, int64_t n, const float* qw) {
  const float sigma2 = row_sigma2(x, n);
  float weight[32];
  int8_t L[32];
  for (int64_t ib = 0; ib < n / 32; ++ib) {
    const float* xb = x + 32 * ib;
    for (int j = 0; j < 32; ++j) weight[j] = qw[32 * ib + j] * std::sqrt(sigma2 + xb[j] * xb[j]);
    y[ib].d = float_to_half(make_qx_quants(32, Nmax, xb, L, weight));
    pack_32<Block>(y[ib], L);
  }
}

// Q4_1 (nmax 15) and Q5_1 (nmax 31): weighted (scale, min) search per block.
template <class Block, int Nmax>
void q_asym_weighted(const float* x, Block* y, int64_t n, const float* qw) {
  const float sigma2 = row_sigma2(x, n);
  float weight[32];
  uint8_t L[32], Laux[32];
  for (int64_t ib = 0; ib < n / 32; ++ib) {
    const float* xb = x + 32 * ib;
    for (int j = 0; j < 32; ++j) weight[j] = qw[32 * ib + j] * std::sqrt(sigma2 + xb[j] * xb[j]);
    float min;
    const float d = make_qkx2_quants(32, Nmax, xb, weight, L, &min, Laux, -0.9f, 0.05f, 36, false);
    y[ib].d = float_to_half(d);
    y[ib].m = float_to_half(-min);
    pack_32<Block>(y[ib], reinterpret_cast<const int8_t*>(L));
  }
}

// Non-negative values (scales or mins of sub-blocks) to [0, nmax] with weights: pick the best
// of 9 scales near max/nmax by weighted squared error, then up to 5 passes of coordinate
// descent on the levels (as in make_q3_quants). Returns the scale.
float make_qp_quants(int n, int nmax, const float* x, uint8_t* L, const float* w) {
  float max = 0;
  for (int i = 0; i < n; ++i) max = std::max(max, x[i]);
  if (!max) {
    std::memset(L, 0, static_cast<size_t>(n));
    return 0.f;
  }
  float iscale = nmax / max;
  for (int i = 0; i < n; ++i) L[i] = static_cast<uint8_t>(nearest_int(iscale * x[i]));
  const float scale = 1 / iscale;
  float best_mse = 0;
  for (int i = 0; i < n; ++i) {
    const float diff = x[i] - scale * L[i];
    best_mse += w[i] * diff * diff;
  }
  for (int is = -4; is <= 4; ++is) {
    if (is == 0) continue;
    const float iscale_is = (0.1f * is + nmax) / max, scale_is = 1 / iscale_is;
    float mse = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::min(nmax, nearest_int(iscale_is * x[i]));
      const float diff = x[i] - scale_is * l;
      mse += w[i] * diff * diff;
    }
    if (mse < best_mse) {
      best_mse = mse;
      iscale = iscale_is;
    }
  }
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = std::min(nmax, nearest_int(iscale * x[i]));
    L[i] = static_cast<uint8_t>(l);
    sumlx += w[i] * x[i] * l;
    suml2 += w[i] * l * l;
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      float slx = sumlx - w[i] * x[i] * L[i];
      float sl2 = suml2 - w[i] * L[i] * L[i];
      if (slx > 0 && sl2 > 0) {
        const int new_l = std::min(nmax, nearest_int(x[i] * sl2 / slx));
        if (new_l != L[i]) {
          slx += w[i] * x[i] * new_l;
          sl2 += w[i] * new_l * new_l;
          if (slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<uint8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (!n_changed) break;
  }
  return suml2 > 0 ? sumlx / suml2 : 0.f;
}

// Q2_K with importance (ggml's imatrix variant): weights importance * sqrt(sigma2 + x^2),
// (scale, min) per sub-block by the weighted search, then the 16 scales and 16 mins each
// quantized to 4 bits by make_qp_quants weighted with the sub-blocks' total weights.
void q_q2_K_weighted(const float* x, block_q2_K* y, int64_t nb, const float* qw) {
  uint8_t L[QK_K], Laux[16], Ls[QK_K / 16], Lm[QK_K / 16];
  float mins[QK_K / 16], scales[QK_K / 16], sw[QK_K / 16], weight[16];
  for (int64_t i = 0; i < nb; ++i, x += QK_K) {
    float sumx2 = 0;
    for (int j = 0; j < QK_K; ++j) sumx2 += x[j] * x[j];
    const float sigma2 = sumx2 / QK_K;
    for (int j = 0; j < QK_K / 16; ++j) {
      sw[j] = 0;
      for (int l = 0; l < 16; ++l) {
        weight[l] = qw[i * QK_K + 16 * j + l] * std::sqrt(sigma2 + x[16 * j + l] * x[16 * j + l]);
        sw[j] += weight[l];
      }
      scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weight, L + 16 * j, &mins[j], Laux, -0.9f,
                                   0.05f, 36, false);
    }
    y[i].d = float_to_half(make_qp_quants(QK_K / 16, 15, scales, Ls, sw));
    y[i].dmin = float_to_half(make_qp_quants(QK_K / 16, 15, mins, Lm, sw));
    const float dm = half_to_float(y[i].d), mm = half_to_float(y[i].dmin);
    for (int j = 0; j < QK_K / 16; ++j) y[i].scales[j] = static_cast<uint8_t>(Ls[j] | (Lm[j] << 4));
    for (int j = 0; j < QK_K / 16; ++j) {
      const float d = dm * (y[i].scales[j] & 0xF);
      if (!d) continue;
      const float m = mm * (y[i].scales[j] >> 4);
      for (int ii = 0; ii < 16; ++ii)
        L[16 * j + ii] =
            static_cast<uint8_t>(std::clamp(nearest_int((x[16 * j + ii] + m) / d), 0, 3));
    }
    for (int j = 0; j < QK_K; j += 128)
      for (int l = 0; l < 32; ++l)
        y[i].qs[j / 4 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) |
                                                  (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
  }
}

void q_q2_K(const float* x, block_q2_K* y, int64_t nb) {
  constexpr float q4scale = 15.f;
  uint8_t L[QK_K], Laux[16];
  float weights[16], mins[QK_K / 16], scales[QK_K / 16];
  for (int64_t i = 0; i < nb; ++i, x += QK_K) {
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < QK_K / 16; ++j) {
      for (int l = 0; l < 16; ++l) weights[l] = std::fabs(x[16 * j + l]);
      scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f,
                                   0.1f, 15, true);
      max_scale = std::max(max_scale, scales[j]);
      max_min = std::max(max_min, mins[j]);
    }
    if (max_scale > 0) {
      const float iscale = q4scale / max_scale;
      for (int j = 0; j < QK_K / 16; ++j)
        y[i].scales[j] = static_cast<uint8_t>(std::min(15, nearest_int(iscale * scales[j])));
      y[i].d = float_to_half(max_scale / q4scale);
    } else {
      std::memset(y[i].scales, 0, sizeof(y[i].scales));
      y[i].d = 0;
    }
    if (max_min > 0) {
      const float iscale = q4scale / max_min;
      for (int j = 0; j < QK_K / 16; ++j)
        y[i].scales[j] |= static_cast<uint8_t>(std::min(15, nearest_int(iscale * mins[j])) << 4);
      y[i].dmin = float_to_half(max_min / q4scale);
    } else {
      y[i].dmin = 0;
    }
    for (int j = 0; j < QK_K / 16; ++j) {
      const float d = half_to_float(y[i].d) * (y[i].scales[j] & 0xF);
      if (!d) continue;
      const float dm = half_to_float(y[i].dmin) * (y[i].scales[j] >> 4);
      for (int ii = 0; ii < 16; ++ii)
        L[16 * j + ii] =
            static_cast<uint8_t>(std::clamp(nearest_int((x[16 * j + ii] + dm) / d), 0, 3));
    }
    for (int j = 0; j < QK_K; j += 128)
      for (int l = 0; l < 32; ++l)
        y[i].qs[j / 4 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) |
                                                  (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
  }
}

void q_q3_K(const float* x, block_q3_K* y, int64_t nb, const float* qw) {
  int8_t L[QK_K];
  float scales[QK_K / 16];
  for (int64_t i = 0; i < nb; ++i, x += QK_K) {
    std::memset(y[i].scales, 0, sizeof(y[i].scales));
    // Packs the 16 6-bit scales (0..63, i.e. signed + 32).
    auto pack_scales = [&](const int* ls) {
      for (int j = 0; j < QK_K / 16; ++j) {
        const int l = ls[j];
        if (j < 8)
          y[i].scales[j] = static_cast<uint8_t>(l & 0xF);
        else
          y[i].scales[j - 8] |= static_cast<uint8_t>((l & 0xF) << 4);
        y[i].scales[j % 4 + 8] |= static_cast<uint8_t>((l >> 4) << (2 * (j / 4)));
      }
    };
    int ls[QK_K / 16];
    if (qw) {
      // As ggml's imatrix variant: weights importance * sqrt(sigma2 + x^2), then the 16
      // sub-block scales themselves quantized by a search weighted with each sub-block's
      // total weight.
      float sumx2 = 0;
      for (int j = 0; j < QK_K; ++j) sumx2 += x[j] * x[j];
      const float sigma2 = 2 * sumx2 / QK_K;
      float sw[QK_K / 16], w[16];
      for (int j = 0; j < QK_K / 16; ++j) {
        float sumw = 0;
        for (int l = 0; l < 16; ++l) {
          w[l] = qw[i * QK_K + 16 * j + l] * std::sqrt(sigma2 + x[16 * j + l] * x[16 * j + l]);
          sumw += w[l];
        }
        sw[j] = sumw;
        scales[j] = make_qx_quants(16, 4, x + 16 * j, L + 16 * j, w);
      }
      int8_t Ls[QK_K / 16];
      const float d_block = make_qx_quants(QK_K / 16, 32, scales, Ls, sw);
      for (int j = 0; j < QK_K / 16; ++j) ls[j] = Ls[j];
      pack_scales(ls);
      y[i].d = float_to_half(d_block);
    } else {
      // ggml's reference: make_q3_quants per sub-block, scales mapped so the largest is -32.
      float max_scale = 0, amax = 0;
      for (int j = 0; j < QK_K / 16; ++j) {
        scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j);
        if (std::fabs(scales[j]) > amax) {
          amax = std::fabs(scales[j]);
          max_scale = scales[j];
        }
      }
      if (max_scale) {
        const float iscale = -32.f / max_scale;
        for (int j = 0; j < QK_K / 16; ++j)
          ls[j] = std::clamp(nearest_int(iscale * scales[j]), -32, 31) + 32;
        pack_scales(ls);
        y[i].d = float_to_half(1 / iscale);
      } else {
        y[i].d = 0;
      }
    }
    int sc[16];
    for (int j = 0; j < 16; ++j) {
      const int lo = j < 8 ? (y[i].scales[j] & 0xF) : (y[i].scales[j - 8] >> 4);
      sc[j] = (lo | (((y[i].scales[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
    }
    for (int j = 0; j < QK_K / 16; ++j) {
      const float d = half_to_float(y[i].d) * sc[j];
      if (!d) continue;
      for (int ii = 0; ii < 16; ++ii)
        L[16 * j + ii] =
            static_cast<int8_t>(std::clamp(nearest_int(x[16 * j + ii] / d), -4, 3) + 4);
    }
    std::memset(y[i].hmask, 0, sizeof(y[i].hmask));
    for (int j = 0; j < QK_K; ++j) {
      if (L[j] > 3) {
        y[i].hmask[j % 32] |= static_cast<uint8_t>(1u << (j / 32));
        L[j] -= 4;
      }
    }
    for (int j = 0; j < QK_K; j += 128)
      for (int l = 0; l < 32; ++l)
        y[i].qs[j / 4 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) |
                                                  (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
  }
}

// Shared by Q4_K and Q5_K: 8 sub-blocks of 32 searched with make_qkx2_quants (weights
// av_x + |x|, or importance * sqrt(sigma2 + x^2)), 6-bit scales/mins packed in 12 bytes.
// Fills L (values 0..nmax) and the block header.
void k_scales_mins(const float* x, int nmax, float rmin, int nstep, const float* qw, uint16_t* dd,
                   uint16_t* ddmin, uint8_t* packed, uint8_t* L) {
  uint8_t Laux[32], Ls[QK_K / 32], Lm[QK_K / 32];
  float weights[32], mins[QK_K / 32], scales[QK_K / 32], sw[QK_K / 32];
  float sigma2 = 0;
  for (int l = 0; l < QK_K; ++l) sigma2 += x[l] * x[l];
  sigma2 = 2 * sigma2 / QK_K;
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < QK_K / 32; ++j) {
    const float* xb = x + 32 * j;
    if (qw) {
      // ggml's imatrix variant: finer, longer scale search (-0.9 + 0.05 * is, 37 steps).
      sw[j] = 0;
      for (int l = 0; l < 32; ++l) {
        weights[l] = qw[32 * j + l] * std::sqrt(sigma2 + xb[l] * xb[l]);
        sw[j] += weights[l];
      }
      scales[j] = make_qkx2_quants(32, nmax, xb, weights, L + 32 * j, &mins[j], Laux, -0.9f, 0.05f,
                                   36, false);
    } else {
      float sum_x2 = 0;
      for (int l = 0; l < 32; ++l) sum_x2 += xb[l] * xb[l];
      const float av_x = std::sqrt(sum_x2 / 32);
      for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(xb[l]);
      scales[j] = make_qkx2_quants(32, nmax, xb, weights, L + 32 * j, &mins[j], Laux, rmin, 0.1f,
                                   nstep, false);
    }
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  float d_block, m_block;
  if (qw) {  // 6-bit scales and mins by a search weighted with each sub-block's total weight
    d_block = make_qp_quants(QK_K / 32, 63, scales, Ls, sw);
    m_block = make_qp_quants(QK_K / 32, 63, mins, Lm, sw);
  } else {  // the largest scale (min) maps to 63
    const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    for (int j = 0; j < QK_K / 32; ++j) {
      Ls[j] = static_cast<uint8_t>(std::min(63, nearest_int(inv_scale * scales[j])));
      Lm[j] = static_cast<uint8_t>(std::min(63, nearest_int(inv_min * mins[j])));
    }
    d_block = max_scale / 63.f;
    m_block = max_min / 63.f;
  }
  std::memset(packed, 0, K_SCALE_SIZE);
  for (int j = 0; j < QK_K / 32; ++j) {
    const int ls = Ls[j], lm = Lm[j];
    if (j < 4) {
      packed[j] = static_cast<uint8_t>(ls);
      packed[j + 4] = static_cast<uint8_t>(lm);
    } else {
      packed[j + 4] = static_cast<uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
      packed[j - 4] |= static_cast<uint8_t>((ls >> 4) << 6);
      packed[j] |= static_cast<uint8_t>((lm >> 4) << 6);
    }
  }
  *dd = float_to_half(d_block);
  *ddmin = float_to_half(m_block);
  for (int j = 0; j < QK_K / 32; ++j) {
    uint8_t sc, m;
    if (j < 4) {
      sc = packed[j] & 63;
      m = packed[j + 4] & 63;
    } else {
      sc = static_cast<uint8_t>((packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4));
      m = static_cast<uint8_t>((packed[j + 4] >> 4) | ((packed[j] >> 6) << 4));
    }
    const float d = half_to_float(*dd) * sc;
    if (!d) continue;
    const float dm = half_to_float(*ddmin) * m;
    for (int ii = 0; ii < 32; ++ii)
      L[32 * j + ii] =
          static_cast<uint8_t>(std::clamp(nearest_int((x[32 * j + ii] + dm) / d), 0, nmax));
  }
}

void q_q4_K(const float* x, block_q4_K* y, int64_t nb, const float* qw) {
  uint8_t L[QK_K];
  for (int64_t i = 0; i < nb; ++i, x += QK_K) {
    k_scales_mins(x, 15, -1.f, 20, qw ? qw + i * QK_K : nullptr, &y[i].d, &y[i].dmin, y[i].scales,
                  L);
    for (int j = 0; j < QK_K; j += 64)
      for (int l = 0; l < 32; ++l)
        y[i].qs[j / 2 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
  }
}

void q_q5_K(const float* x, block_q5_K* y, int64_t nb, const float* qw) {
  uint8_t L[QK_K];
  for (int64_t i = 0; i < nb; ++i, x += QK_K) {
    k_scales_mins(x, 31, -0.5f, 15, qw ? qw + i * QK_K : nullptr, &y[i].d, &y[i].dmin, y[i].scales,
                  L);
    std::memset(y[i].qh, 0, sizeof(y[i].qh));
    uint8_t m1 = 1, m2 = 2;
    for (int n = 0; n < QK_K; n += 64) {
      for (int j = 0; j < 32; ++j) {
        int l1 = L[n + j], l2 = L[n + j + 32];
        if (l1 > 15) l1 -= 16, y[i].qh[j] |= m1;
        if (l2 > 15) l2 -= 16, y[i].qh[j] |= m2;
        y[i].qs[n / 2 + j] = static_cast<uint8_t>(l1 | (l2 << 4));
      }
      m1 = static_cast<uint8_t>(m1 << 2);
      m2 = static_cast<uint8_t>(m2 << 2);
    }
  }
}

void q_q6_K(const float* x, block_q6_K* y, int64_t nb, const float* qw) {
  int8_t L[QK_K];
  float scales[QK_K / 16];
  for (int64_t i = 0; i < nb; ++i, x += QK_K) {
    float max_scale = 0, max_abs_scale = 0;
    for (int ib = 0; ib < QK_K / 16; ++ib) {
      // As ggml: the importance itself weights the squared error.
      scales[ib] =
          make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, qw ? qw + i * QK_K + 16 * ib : nullptr);
      if (std::fabs(scales[ib]) > max_abs_scale) {
        max_abs_scale = std::fabs(scales[ib]);
        max_scale = scales[ib];
      }
    }
    if (max_abs_scale < kGroupMaxEps) {
      std::memset(&y[i], 0, sizeof(y[i]));
      continue;
    }
    const float iscale = -128.f / max_scale;
    y[i].d = float_to_half(1 / iscale);
    for (int ib = 0; ib < QK_K / 16; ++ib)
      y[i].scales[ib] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[ib])));
    for (int j = 0; j < QK_K / 16; ++j) {
      const float d = half_to_float(y[i].d) * y[i].scales[j];
      if (!d) continue;
      for (int ii = 0; ii < 16; ++ii)
        L[16 * j + ii] =
            static_cast<int8_t>(std::clamp(nearest_int(x[16 * j + ii] / d), -32, 31) + 32);
    }
    for (int j = 0; j < QK_K; j += 128) {
      for (int l = 0; l < 32; ++l) {
        const int q1 = L[j + l] & 0xF, q2 = L[j + l + 32] & 0xF;
        const int q3 = L[j + l + 64] & 0xF, q4 = L[j + l + 96] & 0xF;
        y[i].ql[j / 2 + l] = static_cast<uint8_t>(q1 | (q3 << 4));
        y[i].ql[j / 2 + l + 32] = static_cast<uint8_t>(q2 | (q4 << 4));
        y[i].qh[j / 4 + l] =
            static_cast<uint8_t>((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) |
                                 ((L[j + l + 64] >> 4) << 4) | ((L[j + l + 96] >> 4) << 6));
      }
    }
  }
}

}  // namespace

void quantize_row_q8_0(const float* x, block_q8_0* y, int64_t n) {
  for (int64_t i = 0; i < n / QK8_0; ++i, x += QK8_0) {
    float amax = 0;
    for (int j = 0; j < QK8_0; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.f, id = d != 0.f ? 1.f / d : 0.f;
    y[i].d = float_to_half(d);
    for (int j = 0; j < QK8_0; ++j) y[i].qs[j] = static_cast<int8_t>(std::round(x[j] * id));
  }
}

void quantize_row_q8_1(const float* x, block_q8_1* y, int64_t n) {
  for (int64_t i = 0; i < n / QK8_1; ++i, x += QK8_1) {
    float amax = 0;
    for (int j = 0; j < QK8_1; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.f, id = d != 0.f ? 1.f / d : 0.f;
    int sum = 0;
    for (int j = 0; j < QK8_1; ++j) {
      y[i].qs[j] = static_cast<int8_t>(std::round(x[j] * id));
      sum += y[i].qs[j];
    }
    y[i].d = float_to_half(d);
    y[i].s = float_to_half(d * static_cast<float>(sum));
  }
}

void quantize_row_q8_K(const float* x, block_q8_K* y, int64_t n) {
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    float amax, max;
    abs_max(x, QK_K, &amax, &max);
    if (!amax) {
      std::memset(&y[i], 0, sizeof(y[i]));
      continue;
    }
    const float iscale = -127.f / max;
    for (int j = 0; j < QK_K; ++j)
      y[i].qs[j] = static_cast<int8_t>(std::min(127, nearest_int(iscale * x[j])));
    for (int j = 0; j < QK_K / 16; ++j) {
      int sum = 0;
      for (int ii = 0; ii < 16; ++ii) sum += y[i].qs[16 * j + ii];
      y[i].bsums[j] = static_cast<int16_t>(sum);
    }
    y[i].d = 1 / iscale;
  }
}

uint64_t quantize_row(zen_type type, const float* src, void* dst, int64_t n,
                      const float* importance) {
  const int64_t bs = block_size(type);
  if (bs == 0 || n <= 0) return 0;
  const int64_t nb = n / bs;
  const float* qw = importance;
  switch (type) {
    case ZEN_TYPE_F32:
      std::memcpy(dst, src, static_cast<size_t>(n) * 4);
      break;
    case ZEN_TYPE_F16: {
      auto* d = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = float_to_half(src[i]);
      break;
    }
    case ZEN_TYPE_BF16: {
      auto* d = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = float_to_bf16(src[i]);
      break;
    }
    case ZEN_TYPE_Q4_0:
      if (qw)
        q_sym_weighted<block_q4_0, 8>(src, static_cast<block_q4_0*>(dst), n, qw);
      else
        q_q4_0(src, static_cast<block_q4_0*>(dst), nb);
      break;
    case ZEN_TYPE_Q4_1:
      if (qw)
        q_asym_weighted<block_q4_1, 15>(src, static_cast<block_q4_1*>(dst), n, qw);
      else
        q_q4_1(src, static_cast<block_q4_1*>(dst), nb);
      break;
    case ZEN_TYPE_Q5_0:
      if (qw)
        q_sym_weighted<block_q5_0, 16>(src, static_cast<block_q5_0*>(dst), n, qw);
      else
        q_q5_0(src, static_cast<block_q5_0*>(dst), nb);
      break;
    case ZEN_TYPE_Q5_1:
      if (qw)
        q_asym_weighted<block_q5_1, 31>(src, static_cast<block_q5_1*>(dst), n, qw);
      else
        q_q5_1(src, static_cast<block_q5_1*>(dst), nb);
      break;
    case ZEN_TYPE_Q8_0:
      quantize_row_q8_0(src, static_cast<block_q8_0*>(dst), n);
      break;
    case ZEN_TYPE_Q8_1:
      quantize_row_q8_1(src, static_cast<block_q8_1*>(dst), n);
      break;
    case ZEN_TYPE_Q2_K:
      if (qw)
        q_q2_K_weighted(src, static_cast<block_q2_K*>(dst), nb, qw);
      else
        q_q2_K(src, static_cast<block_q2_K*>(dst), nb);
      break;
    case ZEN_TYPE_Q3_K:
      q_q3_K(src, static_cast<block_q3_K*>(dst), nb, qw);
      break;
    case ZEN_TYPE_Q4_K:
      q_q4_K(src, static_cast<block_q4_K*>(dst), nb, qw);
      break;
    case ZEN_TYPE_Q5_K:
      q_q5_K(src, static_cast<block_q5_K*>(dst), nb, qw);
      break;
    case ZEN_TYPE_Q6_K:
      q_q6_K(src, static_cast<block_q6_K*>(dst), nb, qw);
      break;
    case ZEN_TYPE_Q8_K:
      quantize_row_q8_K(src, static_cast<block_q8_K*>(dst), n);
      break;
    case ZEN_TYPE_IQ4_NL:
      q_iq4_nl(src, static_cast<block_iq4_nl*>(dst), nb, qw);
      break;
    case ZEN_TYPE_IQ4_XS:
      q_iq4_xs(src, static_cast<block_iq4_xs*>(dst), nb, qw);
      break;
    case ZEN_TYPE_MXFP4:
      q_mxfp4(src, static_cast<block_mxfp4*>(dst), nb);
      break;
    default:
      return 0;
  }
  return static_cast<uint64_t>(nb) * block_bytes(type);
}

}  // namespace zen::quant
