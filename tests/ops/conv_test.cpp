// conv1d, conv2d and conv_transpose1d against direct double-precision sums, with F32, F16 and
// BF16 kernels, strides, padding, dilation, several channels and batches, and a strided
// (permuted) input.
//
// Tolerance: each output is a float sum of T = Cin * taps products of values in [-1, 1]. The
// kernel's rounding error is at most about T * 2^-24 * max|partial sum|; with random signs the
// partial sums stay near sqrt(T), so atol = 1e-6 * T (>= 16x that estimate for T >= 1) plus
// rtol 1e-5. A missing, shifted or extra tap changes an output by ~0.1 or more. F16/BF16 kernels
// are rounded the same way for the reference, so their tolerance is the same.
#include <array>
#include <string>

#include "op_harness.h"

namespace zen::ops {
namespace {

// Weights of the given type: raw bytes for the graph plus the rounded values for the reference.
struct Weights {
  HostData data;
  std::vector<float> values;
};
Weights make_weights(zen_type type, size_t n, uint32_t seed) {
  Weights w;
  w.values = random_floats(n, seed);
  if (type == ZEN_TYPE_F16) {
    auto bits = to_f16_bits(w.values);
    for (size_t i = 0; i < n; ++i) w.values[i] = f16_bits_to_float(bits[i]);
    w.data = HostData::of(bits);
  } else if (type == ZEN_TYPE_BF16) {
    auto bits = to_bf16_bits(w.values);
    for (size_t i = 0; i < n; ++i) {
      uint32_t u = static_cast<uint32_t>(bits[i]) << 16;
      std::memcpy(&w.values[i], &u, 4);
    }
    w.data = HostData::of(bits);
  } else {
    w.data = HostData::of(w.values);
  }
  return w;
}

std::string name_of(const char* op, std::initializer_list<int64_t> v) {
  std::string s = op;
  for (int64_t x : v) s += " " + std::to_string(x);
  return s;
}

struct Conv1dCase {
  int64_t K, Cin, Cout, L, N, stride, pad, dil;
  zen_type wtype = ZEN_TYPE_F32;
  bool permuted_input = false;  // x is a permute view of a [Cin, L, N] tensor
};

class Conv1d : public OpTest {
 protected:
  void check(const Conv1dCase& c) {
    const int64_t OL = (c.L + 2 * c.pad - c.dil * (c.K - 1) - 1) / c.stride + 1;
    graph::Graph g;
    auto w = g.input("w", c.wtype, std::array<int64_t, 3>{c.K, c.Cin, c.Cout});
    graph::TensorId x;
    if (c.permuted_input) {
      auto xt = g.input("x", ZEN_TYPE_F32, std::array<int64_t, 3>{c.Cin, c.L, c.N});
      x = g.permute(xt, {1, 0, 2, 3});
    } else {
      x = g.input("x", ZEN_TYPE_F32, std::array<int64_t, 3>{c.L, c.Cin, c.N});
    }
    g.output(g.op(ZEN_OP_CONV1D, std::array{w, x},
                  std::array<int32_t, 3>{static_cast<int32_t>(c.stride),
                                         static_cast<int32_t>(c.pad), static_cast<int32_t>(c.dil)}),
             "y");
    Weights wv = make_weights(c.wtype, c.K * c.Cin * c.Cout, 11);
    auto xv = random_floats(c.L * c.Cin * c.N, 12);
    auto xat = [&](int64_t l, int64_t ic, int64_t n) -> double {
      return c.permuted_input ? xv[(n * c.L + l) * c.Cin + ic] : xv[(n * c.Cin + ic) * c.L + l];
    };
    auto out = run(std::move(g), {{"w", wv.data}, {"x", HostData::of(xv)}}, "y");
    std::vector<double> want(OL * c.Cout * c.N);
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t oc = 0; oc < c.Cout; ++oc)
        for (int64_t o = 0; o < OL; ++o) {
          double acc = 0;
          for (int64_t ic = 0; ic < c.Cin; ++ic)
            for (int64_t k = 0; k < c.K; ++k) {
              int64_t l = o * c.stride - c.pad + k * c.dil;
              if (l >= 0 && l < c.L) acc += wv.values[(oc * c.Cin + ic) * c.K + k] * xat(l, ic, n);
            }
          want[(n * c.Cout + oc) * OL + o] = acc;
        }
    expect_close(out, want, 1e-6 * static_cast<double>(c.Cin * c.K), 1e-5,
                 name_of("conv1d K Cin Cout L N s p d",
                         {c.K, c.Cin, c.Cout, c.L, c.N, c.stride, c.pad, c.dil}));
  }
};

TEST_P(Conv1d, OneChannelOneRow) { check({3, 1, 1, 17, 1, 1, 0, 1}); }
TEST_P(Conv1d, PointwiseK1) { check({1, 5, 3, 9, 2, 1, 0, 1}); }
TEST_P(Conv1d, StridePadBatch) { check({5, 3, 4, 31, 2, 2, 2, 1}); }
TEST_P(Conv1d, Dilation) { check({3, 2, 3, 29, 1, 1, 3, 3}); }
TEST_P(Conv1d, StrideDilationPad) { check({4, 3, 2, 40, 3, 3, 1, 2}); }
TEST_P(Conv1d, DacResidualF16) { check({7, 32, 32, 101, 1, 1, 9, 3, ZEN_TYPE_F16}); }
TEST_P(Conv1d, BF16Kernel) { check({3, 8, 5, 23, 2, 1, 1, 1, ZEN_TYPE_BF16}); }
TEST_P(Conv1d, PermutedInput) { check({3, 6, 4, 19, 2, 2, 1, 1, ZEN_TYPE_F32, true}); }
TEST_P(Conv1d, KernelAsLongAsPaddedInput) { check({9, 2, 2, 5, 1, 1, 2, 1}); }
TEST_P(Conv1d, ManyChannelsLargeK) { check({3, 256, 3, 11, 1, 1, 1, 1, ZEN_TYPE_F16}); }

ZEN_OP_TEST(Conv1d);

struct Conv2dCase {
  int64_t KW, KH, Cin, Cout, W, H, N, s0, s1, p0, p1, d0, d1;
  zen_type wtype = ZEN_TYPE_F32;
};

class Conv2d : public OpTest {
 protected:
  void check(const Conv2dCase& c) {
    const int64_t OW = (c.W + 2 * c.p0 - c.d0 * (c.KW - 1) - 1) / c.s0 + 1;
    const int64_t OH = (c.H + 2 * c.p1 - c.d1 * (c.KH - 1) - 1) / c.s1 + 1;
    graph::Graph g;
    auto w = g.input("w", c.wtype, std::array{c.KW, c.KH, c.Cin, c.Cout});
    auto x = g.input("x", ZEN_TYPE_F32, std::array{c.W, c.H, c.Cin, c.N});
    std::array<int32_t, 6> params{};
    const int64_t pv[6] = {c.s0, c.s1, c.p0, c.p1, c.d0, c.d1};
    for (int i = 0; i < 6; ++i) params[i] = static_cast<int32_t>(pv[i]);
    g.output(g.op(ZEN_OP_CONV2D, std::array{w, x}, params), "y");
    Weights wv = make_weights(c.wtype, c.KW * c.KH * c.Cin * c.Cout, 21);
    auto xv = random_floats(c.W * c.H * c.Cin * c.N, 22);
    auto out = run(std::move(g), {{"w", wv.data}, {"x", HostData::of(xv)}}, "y");
    std::vector<double> want(OW * OH * c.Cout * c.N);
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t oc = 0; oc < c.Cout; ++oc)
        for (int64_t oy = 0; oy < OH; ++oy)
          for (int64_t ox = 0; ox < OW; ++ox) {
            double acc = 0;
            for (int64_t ic = 0; ic < c.Cin; ++ic)
              for (int64_t ky = 0; ky < c.KH; ++ky)
                for (int64_t kx = 0; kx < c.KW; ++kx) {
                  int64_t iy = oy * c.s1 - c.p1 + ky * c.d1, ix = ox * c.s0 - c.p0 + kx * c.d0;
                  if (iy < 0 || iy >= c.H || ix < 0 || ix >= c.W) continue;
                  acc += wv.values[((oc * c.Cin + ic) * c.KH + ky) * c.KW + kx] *
                         xv[((n * c.Cin + ic) * c.H + iy) * c.W + ix];
                }
            want[((n * c.Cout + oc) * OH + oy) * OW + ox] = acc;
          }
    expect_close(
        out, want, 1e-6 * static_cast<double>(c.Cin * c.KW * c.KH), 1e-5,
        name_of("conv2d KW KH Cin Cout W H N s0 s1 p0 p1 d0 d1",
                {c.KW, c.KH, c.Cin, c.Cout, c.W, c.H, c.N, c.s0, c.s1, c.p0, c.p1, c.d0, c.d1}));
  }
};

TEST_P(Conv2d, Same3x3) { check({3, 3, 3, 4, 13, 9, 2, 1, 1, 1, 1, 1, 1}); }
TEST_P(Conv2d, OneByOne) { check({1, 1, 7, 5, 6, 5, 1, 1, 1, 0, 0, 1, 1}); }
TEST_P(Conv2d, OneOutputRow) { check({3, 3, 2, 2, 10, 3, 1, 1, 1, 1, 0, 1, 1}); }
TEST_P(Conv2d, StrideTwoDownsample) { check({3, 3, 4, 3, 17, 11, 1, 2, 2, 0, 0, 1, 1}); }
TEST_P(Conv2d, Asymmetric) { check({5, 2, 3, 2, 19, 8, 2, 3, 1, 2, 1, 1, 2}); }
TEST_P(Conv2d, Dilated) { check({3, 3, 2, 3, 21, 15, 1, 1, 2, 2, 2, 2, 3}); }
TEST_P(Conv2d, F16Kernel) { check({3, 3, 16, 8, 12, 7, 1, 1, 1, 1, 1, 1, 1, ZEN_TYPE_F16}); }
TEST_P(Conv2d, BF16Kernel) { check({3, 3, 5, 4, 9, 9, 1, 1, 1, 1, 1, 1, 1, ZEN_TYPE_BF16}); }

ZEN_OP_TEST(Conv2d);

struct ConvT1dCase {
  int64_t K, Cout, Cin, L, N, stride, pad, dil;
  zen_type wtype = ZEN_TYPE_F32;
};

class ConvTranspose1d : public OpTest {
 protected:
  void check(const ConvT1dCase& c) {
    const int64_t OL = (c.L - 1) * c.stride - 2 * c.pad + c.dil * (c.K - 1) + 1;
    graph::Graph g;
    auto w = g.input("w", c.wtype, std::array<int64_t, 3>{c.K, c.Cout, c.Cin});
    auto x = g.input("x", ZEN_TYPE_F32, std::array<int64_t, 3>{c.L, c.Cin, c.N});
    g.output(g.op(ZEN_OP_CONV_TRANSPOSE1D, std::array{w, x},
                  std::array<int32_t, 3>{static_cast<int32_t>(c.stride),
                                         static_cast<int32_t>(c.pad), static_cast<int32_t>(c.dil)}),
             "y");
    Weights wv = make_weights(c.wtype, c.K * c.Cout * c.Cin, 31);
    auto xv = random_floats(c.L * c.Cin * c.N, 32);
    auto out = run(std::move(g), {{"w", wv.data}, {"x", HostData::of(xv)}}, "y");
    // The definition: input l through tap k lands on output l * stride + k * dil - pad.
    std::vector<double> want(OL * c.Cout * c.N, 0.0);
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t oc = 0; oc < c.Cout; ++oc)
        for (int64_t ic = 0; ic < c.Cin; ++ic)
          for (int64_t l = 0; l < c.L; ++l)
            for (int64_t k = 0; k < c.K; ++k) {
              int64_t o = l * c.stride + k * c.dil - c.pad;
              if (o < 0 || o >= OL) continue;
              want[(n * c.Cout + oc) * OL + o] +=
                  static_cast<double>(wv.values[(ic * c.Cout + oc) * c.K + k]) *
                  xv[(n * c.Cin + ic) * c.L + l];
            }
    expect_close(out, want, 1e-6 * static_cast<double>(c.Cin * c.K), 1e-5,
                 name_of("conv_transpose1d K Cout Cin L N s p d",
                         {c.K, c.Cout, c.Cin, c.L, c.N, c.stride, c.pad, c.dil}));
  }
};

TEST_P(ConvTranspose1d, Plain) { check({3, 1, 1, 9, 1, 1, 0, 1}); }
TEST_P(ConvTranspose1d, DacUpsampleStride8) { check({16, 6, 5, 13, 1, 8, 4, 1}); }
TEST_P(ConvTranspose1d, Stride2Pad1Batch) { check({4, 3, 4, 11, 2, 2, 1, 1}); }
TEST_P(ConvTranspose1d, StrideLargerThanKernel) { check({2, 2, 3, 7, 1, 3, 0, 1}); }
TEST_P(ConvTranspose1d, Dilated) { check({3, 2, 2, 10, 1, 2, 2, 3}); }
TEST_P(ConvTranspose1d, F16Kernel) { check({8, 8, 24, 17, 1, 4, 2, 1, ZEN_TYPE_F16}); }
TEST_P(ConvTranspose1d, BF16KernelOneInput) { check({5, 3, 2, 1, 1, 1, 0, 1, ZEN_TYPE_BF16}); }

ZEN_OP_TEST(ConvTranspose1d);

}  // namespace
}  // namespace zen::ops
