// matmul and matmul_id for every weight type the CPU device supports, against a reference that
// dequantizes the weights in double (written here from the layouts in zen/quant_blocks.hpp, never
// the kernels' code) and multiplies by the F32 activations in double.
//
// Weights are random bytes (every bit pattern of quants, high bits and packed scales is a valid
// block) with the half scales overwritten by random values of either sign, so every field of
// every format is exercised, including Q8_0's -128 and Q6_K's -128 scale.
//
// Tolerance, per output element (derived, not tuned): a device may round the activations
// before the dot product. The CPU device rounds them to int8 blocks (blocks of 32 for the
// 32-element formats, of 256 for the K-quants) with step d = amax(block) / 127, so each
// activation moves by at most d / 2 and the dot product by at most
//     Q = sum_k |w_k| * d_block(k) / 2.
// F32/F16/BF16 weights take F32 activations as they are (Q = 0). On top, float arithmetic:
// every product and partial sum is rounded at most once per addition it goes through (at most
// K + 16 of them, u = 2^-24), so the float error is at most
//     F = (K + 16) * u * sum_k mag_k * (|x_k| + d_block(k) / 2)
// where mag_k is the magnitude of the two terms the format adds to form w_k: |d*sc*q| plus
// |dmin*m| for the formats with mins, or plus the offset |d*sc*8| (Q4_0), |d*16| (Q5_0),
// |d*sc*4| (Q3_K), |d*sc*32| (Q6_K): kernels sum the parts separately (the offsets and mins go
// through the activations' block sums) and the parts may cancel.
// The bound is Q + F (+1e-30 for exact zeros).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <random>

#include <zen/half.hpp>
#include <zen/quant_blocks.hpp>

#include "op_harness.h"

namespace zen::ops {
namespace {

using namespace zen::quant;

struct TypeInfo {
  zen_type type;
  int64_t blck;  // elements per block
  size_t bytes;  // bytes per block
  int act_blck;  // activation quantization block (0: F32 activations)
};
constexpr TypeInfo kTypes[] = {
    {ZEN_TYPE_F32, 1, 4, 0},
    {ZEN_TYPE_F16, 1, 2, 0},
    {ZEN_TYPE_BF16, 1, 2, 0},
    {ZEN_TYPE_Q4_0, 32, sizeof(block_q4_0), 32},
    {ZEN_TYPE_Q4_1, 32, sizeof(block_q4_1), 32},
    {ZEN_TYPE_Q5_0, 32, sizeof(block_q5_0), 32},
    {ZEN_TYPE_Q5_1, 32, sizeof(block_q5_1), 32},
    {ZEN_TYPE_Q8_0, 32, sizeof(block_q8_0), 32},
    {ZEN_TYPE_Q2_K, 256, sizeof(block_q2_K), 256},
    {ZEN_TYPE_Q3_K, 256, sizeof(block_q3_K), 256},
    {ZEN_TYPE_Q4_K, 256, sizeof(block_q4_K), 256},
    {ZEN_TYPE_Q5_K, 256, sizeof(block_q5_K), 256},
    {ZEN_TYPE_Q6_K, 256, sizeof(block_q6_K), 256},
    {ZEN_TYPE_IQ4_NL, 32, sizeof(block_iq4_nl), 32},
    {ZEN_TYPE_IQ4_XS, 256, sizeof(block_iq4_xs), 32},
    {ZEN_TYPE_MXFP4, 32, sizeof(block_mxfp4), 32},
};
// The non-linear grids of the GGUF spec: IQ4_NL/IQ4_XS, and MXFP4's E2M1 values doubled.
constexpr int kGridIq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                1,    13,   25,  38,  53,  69,  89,  113};
constexpr int kGridMxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

double hf(uint16_t h) { return half_to_float(h); }

// Random weight bytes for n elements of type t, with sane random half scales.
std::vector<uint8_t> random_weights(const TypeInfo& t, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint8_t> out(static_cast<size_t>(n / t.blck) * t.bytes);
  auto half = [&](float scale) {
    const float v = u(rng);
    return float_to_half(scale * (v < 0 ? v - 0.1f : v + 0.1f));
  };
  if (t.type == ZEN_TYPE_F32 || t.type == ZEN_TYPE_F16 || t.type == ZEN_TYPE_BF16) {
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    if (t.type == ZEN_TYPE_F32) std::memcpy(out.data(), v.data(), out.size());
    if (t.type == ZEN_TYPE_F16) std::memcpy(out.data(), to_f16_bits(v).data(), out.size());
    if (t.type == ZEN_TYPE_BF16) std::memcpy(out.data(), to_bf16_bits(v).data(), out.size());
    return out;
  }
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  for (int64_t i = 0; i < n / t.blck; ++i) {
    uint8_t* b = out.data() + i * t.bytes;
    auto set = [&](size_t offset, uint16_t h) { std::memcpy(b + offset, &h, 2); };
    switch (t.type) {
      case ZEN_TYPE_Q4_0:
        set(offsetof(block_q4_0, d), half(0.1f));
        break;
      case ZEN_TYPE_Q4_1:
        set(offsetof(block_q4_1, d), half(0.1f));
        set(offsetof(block_q4_1, m), half(0.5f));
        break;
      case ZEN_TYPE_Q5_0:
        set(offsetof(block_q5_0, d), half(0.05f));
        break;
      case ZEN_TYPE_Q5_1:
        set(offsetof(block_q5_1, d), half(0.05f));
        set(offsetof(block_q5_1, m), half(0.5f));
        break;
      case ZEN_TYPE_Q8_0:
        set(offsetof(block_q8_0, d), half(0.01f));
        break;
      case ZEN_TYPE_Q2_K:
        set(offsetof(block_q2_K, d), half(0.05f));
        set(offsetof(block_q2_K, dmin), half(0.02f));
        break;
      case ZEN_TYPE_Q3_K:
        set(offsetof(block_q3_K, d), half(0.01f));
        break;
      case ZEN_TYPE_Q4_K:
        set(offsetof(block_q4_K, d), half(0.005f));
        set(offsetof(block_q4_K, dmin), half(0.005f));
        break;
      case ZEN_TYPE_Q5_K:
        set(offsetof(block_q5_K, d), half(0.003f));
        set(offsetof(block_q5_K, dmin), half(0.005f));
        break;
      case ZEN_TYPE_Q6_K:
        set(offsetof(block_q6_K, d), half(0.001f));
        break;
      case ZEN_TYPE_IQ4_NL:
        set(offsetof(block_iq4_nl, d), half(0.001f));
        break;
      case ZEN_TYPE_IQ4_XS:
        set(offsetof(block_iq4_xs, d), half(0.001f));
        break;
      case ZEN_TYPE_MXFP4:  // E8M0 exponent: scales 2^-10 .. 2^1
        b[0] = static_cast<uint8_t>(118 + rng() % 12);
        break;
      default:
        break;
    }
  }
  return out;
}

// The 6-bit scale and min j of Q4_K/Q5_K (12 packed bytes: 8 low 6-bit scales, 8 mins; the
// last 4 bytes hold the low nibbles of scales/mins 4..7, whose top 2 bits sit in bytes 0..7).
void k4_scale_min(const uint8_t* s, int j, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

// Dequantizes one row (n elements) into w and the magnitude of its parts into mag.
void dequant(const TypeInfo& t, const uint8_t* p, int64_t n, double* w, double* mag) {
  for (int64_t b = 0; b < n / t.blck; ++b) {
    const uint8_t* raw = p + b * t.bytes;
    double* y = w + b * t.blck;
    double* g = mag + b * t.blck;
    auto put = [&](int64_t i, double pos, double off) {  // y = pos + off
      y[i] = pos + off;
      g[i] = std::fabs(pos) + std::fabs(off);
    };
    switch (t.type) {
      case ZEN_TYPE_F32: {
        float v;
        std::memcpy(&v, raw, 4);
        put(0, v, 0);
        break;
      }
      case ZEN_TYPE_F16: {
        uint16_t h;
        std::memcpy(&h, raw, 2);
        put(0, hf(h), 0);
        break;
      }
      case ZEN_TYPE_BF16: {
        uint16_t h;
        std::memcpy(&h, raw, 2);
        uint32_t bits = static_cast<uint32_t>(h) << 16;
        float v;
        std::memcpy(&v, &bits, 4);
        put(0, v, 0);
        break;
      }
      case ZEN_TYPE_Q4_0: {
        block_q4_0 x;
        std::memcpy(&x, raw, sizeof x);
        for (int j = 0; j < 16; ++j) {
          put(j, hf(x.d) * (x.qs[j] & 15), -8 * hf(x.d));
          put(j + 16, hf(x.d) * (x.qs[j] >> 4), -8 * hf(x.d));
        }
        break;
      }
      case ZEN_TYPE_Q4_1: {
        block_q4_1 x;
        std::memcpy(&x, raw, sizeof x);
        for (int j = 0; j < 16; ++j) {
          put(j, hf(x.d) * (x.qs[j] & 15), hf(x.m));
          put(j + 16, hf(x.d) * (x.qs[j] >> 4), hf(x.m));
        }
        break;
      }
      case ZEN_TYPE_Q5_0:
      case ZEN_TYPE_Q5_1: {
        const bool one = t.type == ZEN_TYPE_Q5_1;
        uint16_t d, m = 0;
        uint8_t qh[4], qs[16];
        std::memcpy(&d, raw, 2);
        if (one) std::memcpy(&m, raw + 2, 2);
        std::memcpy(qh, raw + (one ? 4 : 2), 4);
        std::memcpy(qs, raw + (one ? 8 : 6), 16);
        const uint32_t h = qh[0] | qh[1] << 8 | qh[2] << 16 | static_cast<uint32_t>(qh[3]) << 24;
        for (int j = 0; j < 32; ++j) {
          const int lo = j < 16 ? qs[j] & 15 : qs[j - 16] >> 4;
          const int q = lo | static_cast<int>(((h >> j) & 1) << 4);
          if (one)
            put(j, hf(d) * q, hf(m));
          else
            put(j, hf(d) * q, -16 * hf(d));
        }
        break;
      }
      case ZEN_TYPE_Q8_0: {
        block_q8_0 x;
        std::memcpy(&x, raw, sizeof x);
        for (int j = 0; j < 32; ++j) put(j, hf(x.d) * x.qs[j], 0);
        break;
      }
      case ZEN_TYPE_Q2_K: {
        block_q2_K x;
        std::memcpy(&x, raw, sizeof x);
        // 2 halves of 128: 32 bytes each, bit pair s of byte l is element 32 s + l
        for (int i = 0; i < 256; ++i) {
          const int half = i / 128, r = i % 128, s = r / 32, l = r % 32;
          const int q = (x.qs[32 * half + l] >> (2 * s)) & 3;
          const int sb = i / 16;
          put(i, hf(x.d) * (x.scales[sb] & 15) * q, -hf(x.dmin) * (x.scales[sb] >> 4));
        }
        break;
      }
      case ZEN_TYPE_Q3_K: {
        block_q3_K x;
        std::memcpy(&x, raw, sizeof x);
        for (int i = 0; i < 256; ++i) {
          const int half = i / 128, r = i % 128, s = r / 32, l = r % 32;
          const int q = (x.qs[32 * half + l] >> (2 * s)) & 3;
          const int hbit = (x.hmask[l] >> (4 * half + s)) & 1;
          const int sb = i / 16;
          const int lo = sb < 8 ? x.scales[sb] & 15 : x.scales[sb - 8] >> 4;
          const int hi = (x.scales[8 + sb % 4] >> (2 * (sb / 4))) & 3;
          const double dl = hf(x.d) * ((lo | hi << 4) - 32);
          put(i, dl * q, -dl * (hbit ? 0 : 4));
        }
        break;
      }
      case ZEN_TYPE_Q4_K:
      case ZEN_TYPE_Q5_K: {
        const bool five = t.type == ZEN_TYPE_Q5_K;
        uint16_t d, dmin;
        std::memcpy(&d, raw, 2);
        std::memcpy(&dmin, raw + 2, 2);
        const uint8_t* sc = raw + 4;
        const uint8_t* qh = raw + 16;
        const uint8_t* qs = raw + (five ? 48 : 16);
        for (int i = 0; i < 256; ++i) {
          const int c = i / 64, r = i % 64, l = r % 32, hi = r / 32;
          int q = hi ? qs[32 * c + l] >> 4 : qs[32 * c + l] & 15;
          if (five) q |= ((qh[l] >> (2 * c + hi)) & 1) << 4;
          int s, m;
          k4_scale_min(sc, 2 * c + hi, s, m);
          put(i, hf(d) * s * q, -hf(dmin) * m);
        }
        break;
      }
      case ZEN_TYPE_Q6_K: {
        block_q6_K x;
        std::memcpy(&x, raw, sizeof x);
        for (int i = 0; i < 256; ++i) {
          const int half = i / 128, r = i % 128, s = r / 32, l = r % 32;
          const uint8_t lb = x.ql[64 * half + 32 * (s % 2) + l];
          const int lo = s < 2 ? lb & 15 : lb >> 4;
          const int q = lo | ((x.qh[32 * half + l] >> (2 * s)) & 3) << 4;
          const double dl = hf(x.d) * x.scales[i / 16];
          put(i, dl * q, -32 * dl);
        }
        break;
      }
      case ZEN_TYPE_IQ4_NL:
      case ZEN_TYPE_MXFP4: {
        const bool mx = t.type == ZEN_TYPE_MXFP4;
        double d;
        if (mx) {
          d = std::ldexp(1.0, raw[0] - 128);  // E8M0 halved: the grid is doubled
        } else {
          uint16_t h;
          std::memcpy(&h, raw, 2);
          d = hf(h);
        }
        const uint8_t* qs = raw + (mx ? 1 : 2);
        const int* grid = mx ? kGridMxfp4 : kGridIq4nl;
        for (int j = 0; j < 16; ++j) {
          put(j, d * grid[qs[j] & 15], 0);
          put(j + 16, d * grid[qs[j] >> 4], 0);
        }
        break;
      }
      case ZEN_TYPE_IQ4_XS: {
        block_iq4_xs x;
        std::memcpy(&x, raw, sizeof x);
        for (int ib = 0; ib < 8; ++ib) {
          const int ls =
              ((x.scales_l[ib / 2] >> (4 * (ib % 2))) & 15) | (((x.scales_h >> (2 * ib)) & 3) << 4);
          const double dl = hf(x.d) * (ls - 32);
          for (int j = 0; j < 16; ++j) {
            put(32 * ib + j, dl * kGridIq4nl[x.qs[16 * ib + j] & 15], 0);
            put(32 * ib + j + 16, dl * kGridIq4nl[x.qs[16 * ib + j] >> 4], 0);
          }
        }
        break;
      }
      default:
        FAIL() << "no reference for type " << t.type;
    }
  }
}

// Activations with a different magnitude per block, so block scales differ.
std::vector<float> activations(int64_t n, uint32_t seed) {
  auto v = random_floats(n, seed);
  std::mt19937 rng(seed + 7);
  std::uniform_real_distribution<float> mag(0.05f, 4.0f);
  for (int64_t b = 0; b < n; b += 32) {
    const float s = mag(rng);
    for (int64_t i = b; i < std::min(n, b + 32); ++i) v[i] *= s;
  }
  return v;
}

// Activations shaped like a transformer's residual stream: most blocks small, some large, and
// a few outlier channels near +-100 (Gemma's reach that), so one value sets a block's step.
std::vector<float> residual_activations(int64_t n, uint32_t seed) {
  auto v = activations(n, seed);
  std::mt19937 rng(seed + 13);
  std::uniform_real_distribution<float> big(20.0f, 100.0f);
  for (int64_t b = 0; b < n; b += 32) {
    if (rng() % 4 == 0)
      for (int64_t i = b; i < std::min(n, b + 32); ++i) v[i] *= 8.0f;
    if (rng() % 8 == 0)
      v[b + rng() % std::min<int64_t>(32, n - b)] = (rng() % 2 ? 1 : -1) * big(rng);
  }
  return v;
}

// Activations that int8 blocks hold exactly: k * s with integer |k| <= 127, one |k| = 127 in
// every 32-block, s a power of two per 256-block. Rounding them to blocks (of 32 or 256) costs
// nothing, so the bound shrinks to the float error alone: a wrong scale of 1 % shows.
std::vector<float> exact_activations(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> q(-127, 127), e(-3, 2);
  std::vector<float> v(n);
  float s = 1.0f;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 256 == 0) s = std::ldexp(1.0f, e(rng));
    v[i] = static_cast<float>(i % 32 == 0 ? (rng() % 2 ? 127 : -127) : q(rng)) * s;
  }
  return v;
}

// Reference dot product and its error bound (see the top of the file); exact: the activations
// are exact_activations (no rounding term).
struct Expect {
  double value, bound;
};
Expect reference(const TypeInfo& t, const double* w, const double* mag, const float* x, int64_t K,
                 bool exact = false) {
  double v = 0, q = 0, f = 0;
  for (int64_t b = 0; b < K; b += (t.act_blck ? t.act_blck : K)) {
    const int64_t e = std::min(K, b + (t.act_blck ? t.act_blck : K));
    double amax = 0;
    for (int64_t k = b; k < e; ++k) amax = std::max(amax, std::fabs(static_cast<double>(x[k])));
    const double half_step = t.act_blck && !exact ? amax / 127.0 / 2.0 : 0.0;
    for (int64_t k = b; k < e; ++k) {
      v += w[k] * x[k];
      q += std::fabs(w[k]) * half_step;
      f += mag[k] * (std::fabs(x[k]) + half_step);
    }
  }
  return {v, q + static_cast<double>(K + 16) * 0x1p-24 * f + 1e-30};
}

void check_bounds(const std::vector<float>& got, const std::vector<Expect>& want,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i].value) <= want[i].bound)) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++bad;
    }
  if (bad)
    ADD_FAILURE() << what << ": " << bad << " of " << got.size() << " outside the bound; first ["
                  << first << "] got " << got[first] << " want " << want[first].value << " +- "
                  << want[first].bound;
}

enum class Acts { Random, Residual, Exact };

graph::Placement in_host(void* p) {
  graph::Placement at;
  at.host = p;
  return at;
}

class Matmul : public OpTest {
 protected:
  // a [K, M, A2, A3] of type t x b F32 [K, N, B2, B3]. kept: a is a weight read in place
  // from *kept (a model's weights), refilled with this call's bytes (seed) where it is, so
  // calls can share its address.
  void check(const TypeInfo& t, int64_t K, int64_t M, int64_t N, std::array<int64_t, 2> A = {1, 1},
             std::array<int64_t, 2> B = {1, 1}, Acts acts = Acts::Random,
             std::vector<uint8_t>* kept = nullptr, uint32_t seed = 0) {
    const std::string what = std::string(graph::type_name(t.type)) + " K=" + std::to_string(K) +
                             " M=" + std::to_string(M) + " N=" + std::to_string(N) +
                             (kept ? " (weight)" : "");
    const int64_t arows = M * A[0] * A[1];
    auto wb = random_weights(t, K * arows, 11 + seed + static_cast<uint32_t>(K + M));
    graph::Graph g;
    const std::array ane{K, M, A[0], A[1]};
    if (kept) kept->assign(wb.begin(), wb.end());
    auto a = kept ? g.weight("a", t.type, ane, in_host(kept->data())) : g.input("a", t.type, ane);
    auto b = g.input("b", ZEN_TYPE_F32, std::array{K, N, B[0], B[1]});
    g.output(g.op(ZEN_OP_MATMUL, std::array{a, b}), "c");
    const int64_t nx = K * N * B[0] * B[1];
    const uint32_t xseed = 5 + static_cast<uint32_t>(N);
    auto xv = acts == Acts::Residual ? residual_activations(nx, xseed)
              : acts == Acts::Exact  ? exact_activations(nx, xseed)
                                     : activations(nx, xseed);
    std::vector<double> w(K * arows), mag(K * arows);
    const size_t rowb = static_cast<size_t>(K / t.blck) * t.bytes;
    for (int64_t r = 0; r < arows; ++r) dequant(t, wb.data() + r * rowb, K, &w[r * K], &mag[r * K]);
    std::map<std::string, HostData> inputs{{"b", HostData::of(xv)}};
    if (!kept) inputs["a"].bytes = wb;
    auto out = run(std::move(g), inputs, "c");
    std::vector<Expect> want;
    for (int64_t i3 = 0; i3 < B[1]; ++i3)
      for (int64_t i2 = 0; i2 < B[0]; ++i2)
        for (int64_t n = 0; n < N; ++n)
          for (int64_t m = 0; m < M; ++m) {
            const int64_t ar = ((i3 / (B[1] / A[1])) * A[0] + i2 / (B[0] / A[0])) * M + m;
            const float* x = &xv[((i3 * B[0] + i2) * N + n) * K];
            want.push_back(reference(t, &w[ar * K], &mag[ar * K], x, K, acts == Acts::Exact));
          }
    check_bounds(out, want, what);
  }
  void each_type(const std::function<void(const TypeInfo&)>& f) {
    for (const auto& t : kTypes) {
      SCOPED_TRACE(graph::type_name(t.type));
      f(t);
    }
  }
  static int64_t blocks(const TypeInfo& t, int64_t n) { return (t.blck == 1 ? 32 : t.blck) * n; }
};

TEST_P(Matmul, OneBlockOneRowOneColumn) {
  each_type([&](const TypeInfo& t) { check(t, t.blck == 1 ? 37 : t.blck, 1, 1); });
}
TEST_P(Matmul, OddBlocksN5M33) {
  each_type([&](const TypeInfo& t) { check(t, blocks(t, 3), 33, 5); });
}
TEST_P(Matmul, N33ManyColumns) {
  each_type([&](const TypeInfo& t) { check(t, blocks(t, 5), 7, 33); });
}
TEST_P(Matmul, N70SeveralColumnTiles) {
  each_type([&](const TypeInfo& t) { check(t, blocks(t, 1), 3, 70); });
}
TEST_P(Matmul, LargeKDecode) {
  each_type([&](const TypeInfo& t) { check(t, 4096, 33, 1); });
}
// Decode (one column: the CPU's 8-row GEMVs and their tail rows) and a short batch (4-column
// dot products, then single columns) with activations int8 blocks hold exactly, so the bound
// is the float error alone and a wrong block scale cannot hide in the rounding term.
TEST_P(Matmul, ExactActivationsDecodeAndSmallBatch) {
  each_type([&](const TypeInfo& t) {
    if (t.act_blck == 0) return;  // float activations: LargeKDecode already has no rounding term
    check(t, 1024, 33, 1, {1, 1}, {1, 1}, Acts::Exact);
    check(t, 1024, 17, 5, {1, 1}, {1, 1}, Acts::Exact);
  });
}
TEST_P(Matmul, LargeKPrefill) {
  each_type([&](const TypeInfo& t) { check(t, 4096, 9, 6); });
}
TEST_P(Matmul, BatchBroadcast) {
  each_type([&](const TypeInfo& t) { check(t, blocks(t, 2), 5, 3, {2, 1}, {4, 3}); });
}

// Prefill shapes of a real model (Gemma 3 270M: K = 640, 1024, 2048; 262 and 1000 rows, not
// multiples of the CPU device's 8-row GEMM panels) with 8 to 64 activation columns, where a
// device may switch to a blocked GEMM: many blocks and super-blocks per row, column counts
// with and without a tail of the 4-column kernels, outlier activations. Shapes whose K is not
// a whole number of the type's blocks do not exist in a model and are left out.
// The column counts straddle where each type's packed GEMM takes over (8 to 64 columns on the
// CPU device's AVX2 builds) and leave 1, 2 or 3 columns for the kernels' tails on both sides,
// and 5, 6 or 7 for the last call of the AVX-512 build's 8-column kernels.
TEST_P(Matmul, PrefillModelShapes) {
  constexpr std::array<int64_t, 3> kShapes[] = {{640, 262, 8},   {640, 1000, 13}, {1024, 262, 9},
                                                {1024, 1000, 8}, {2048, 262, 13}, {2048, 70, 64},
                                                {2048, 70, 18},  {640, 70, 25},   {1024, 262, 67},
                                                {1024, 70, 22},  {640, 262, 15}};
  each_type([&](const TypeInfo& t) {
    for (const auto& [K, M, N] : kShapes)
      if (K % t.blck == 0) check(t, K, M, N, {1, 1}, {1, 1}, Acts::Residual);
  });
}

// A serving step's decode rows (2 to 7 sequences, one token each) at a real model's sizes: the
// CPU device runs 2-3 columns as one 4-column pass (a column repeated) and leaves 1-3 to the
// 8-row decode kernel.
TEST_P(Matmul, DecodeBatchModelShapes) {
  each_type([&](const TypeInfo& t) {
    for (const int64_t N : {2, 3, 6, 7})
      if (1024 % t.blck == 0) check(t, 1024, 262, N, {1, 1}, {1, 1}, Acts::Residual);
  });
}

// Weights read in place, as a model's are: the CPU device packs them once into panels it keeps
// across calls (matmul/packed_weights.h), for every column count from decode up, a panel of
// the 44 rows being partial. Run twice on the same bytes, then on new bytes at the same
// address: the products follow the bytes, not the address.
TEST_P(Matmul, WeightsKeptAcrossCalls) {
  each_type([&](const TypeInfo& t) {
    std::vector<uint8_t> w;
    for (const uint32_t seed : {0u, 0u, 7u})
      for (const int64_t N : {1, 3, 5, 16, 33})
        check(t, blocks(t, 4), 44, N, {1, 1}, {1, 1}, Acts::Random, &w, seed);
  });
}

// Float weights with K not a multiple of the SIMD width, in a short batch: the 4-column float
// dot products' 16- and 8-element steps and scalar tail, and the single-column remainder.
TEST_P(Matmul, FloatWeightsOddKSmallBatch) {
  each_type([&](const TypeInfo& t) {
    if (t.blck != 1) return;
    for (const int64_t K : {13, 45, 1001})
      for (const int64_t N : {4, 5, 7}) check(t, K, 9, N);
  });
}

// F32 weights through a transposed view (row stride 4 bytes apart per k): the device may not
// assume contiguous rows. a_in [M, K] permuted to [K, M].
TEST_P(Matmul, TransposedF32Weights) {
  const int64_t K = 45, M = 7, N = 3;
  graph::Graph g;
  auto a = g.input("a", ZEN_TYPE_F32, std::array{M, K});
  auto b = g.input("b", ZEN_TYPE_F32, std::array{K, N});
  g.output(g.op(ZEN_OP_MATMUL, std::array{g.permute(a, {1, 0, 2, 3}), b}), "c");
  auto av = random_floats(M * K, 21), bv = random_floats(K * N, 22);
  auto out = run(std::move(g), {{"a", HostData::of(av)}, {"b", HostData::of(bv)}}, "c");
  const TypeInfo f32 = kTypes[0];
  std::vector<Expect> want;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      std::vector<double> w(K), mag(K);
      for (int64_t k = 0; k < K; ++k) {
        w[k] = av[k * M + m];
        mag[k] = std::fabs(w[k]);
      }
      want.push_back(reference(f32, w.data(), mag.data(), &bv[n * K], K));
    }
  check_bounds(out, want, "transposed F32");
}

// matmul_id: experts [K, M, E] x b [K, U1, T] (U1 = U, or 1 shared by every slot) with ids
// [U, T] -> [M, U, T]; out[:, u, t] = experts[:, :, ids[u, t]] x b[:, U1 == 1 ? 0 : u, t].
class MatmulId : public Matmul {
 protected:
  void check_id(const TypeInfo& t, int64_t K, int64_t M, int64_t E, int64_t U, int64_t T,
                bool shared, bool weight = false) {
    const std::string what = std::string(graph::type_name(t.type)) + " K=" + std::to_string(K) +
                             " M=" + std::to_string(M) + " E=" + std::to_string(E) +
                             " U=" + std::to_string(U) + " T=" + std::to_string(T);
    const int64_t U1 = shared ? 1 : U;
    auto wb = random_weights(t, K * M * E, 3);
    graph::Graph g;
    const std::array ane{K, M, E};
    auto a = weight ? g.weight("a", t.type, ane, in_host(wb.data())) : g.input("a", t.type, ane);
    auto b = g.input("b", ZEN_TYPE_F32, std::array{K, U1, T});
    auto ids = g.input("ids", ZEN_TYPE_I32, std::array{U, T});
    g.output(g.op(ZEN_OP_MATMUL_ID, std::array{a, b, ids}), "c");
    auto xv = activations(K * U1 * T, 4);
    std::mt19937 rng(9);
    std::vector<int32_t> iv(U * T);
    for (int64_t tt = 0; tt < T; ++tt)  // distinct experts per token, as a router picks them
      for (int64_t u = 0; u < U; ++u) iv[tt * U + u] = static_cast<int32_t>((rng() % E + u) % E);
    for (int64_t tt = 0; tt < T; ++tt)
      for (int64_t u = 0; u < U; ++u) iv[tt * U + u] = static_cast<int32_t>((iv[tt * U] + u) % E);
    std::vector<double> w(K * M * E), mag(K * M * E);
    const size_t rowb = static_cast<size_t>(K / t.blck) * t.bytes;
    for (int64_t r = 0; r < M * E; ++r) dequant(t, wb.data() + r * rowb, K, &w[r * K], &mag[r * K]);
    std::map<std::string, HostData> inputs{{"b", HostData::of(xv)}, {"ids", HostData::of(iv)}};
    if (!weight) inputs["a"].bytes = wb;
    auto out = run(std::move(g), inputs, "c");
    std::vector<Expect> want;
    for (int64_t tt = 0; tt < T; ++tt)
      for (int64_t u = 0; u < U; ++u)
        for (int64_t m = 0; m < M; ++m) {
          const int64_t e = iv[tt * U + u];
          const float* x = &xv[(tt * U1 + (shared ? 0 : u)) * K];
          want.push_back(reference(t, &w[(e * M + m) * K], &mag[(e * M + m) * K], x, K));
        }
    check_bounds(out, want, what);
  }
};

TEST_P(MatmulId, TokensGroupedByExpert) {
  each_type([&](const TypeInfo& t) { check_id(t, blocks(t, 2), 9, 4, 2, 7, false); });
}
TEST_P(MatmulId, SharedInputManyTokens) {
  each_type([&](const TypeInfo& t) { check_id(t, blocks(t, 1), 5, 8, 3, 70, true); });
}
// Experts of a real model's size, each chosen by enough tokens for a blocked GEMM.
TEST_P(MatmulId, PrefillModelShapes) {
  each_type([&](const TypeInfo& t) { check_id(t, 1024, 262, 4, 2, 40, false); });
}
// Experts read in place (a MoE model's): their panels kept by the CPU device, per expert.
TEST_P(MatmulId, ExpertWeightsKept) {
  each_type([&](const TypeInfo& t) {
    for (int i = 0; i < 2; ++i) check_id(t, 1024, 44, 4, 2, 40, false, true);
  });
}
TEST_P(MatmulId, OneTokenOneExpert) {
  each_type([&](const TypeInfo& t) { check_id(t, blocks(t, 1), 1, 3, 1, 1, false); });
}

ZEN_OP_TEST(Matmul);
ZEN_OP_TEST(MatmulId);

}  // namespace
}  // namespace zen::ops
