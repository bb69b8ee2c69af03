// The real CPU plugin's kernels, run through the real scheduler, against references computed
// here in double precision from the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "graph_test_util.h"

namespace zen::test {
namespace {

using graph::Graph;
using graph::TensorId;
using V = std::vector<int64_t>;

// |got - want| within rel * scale + abs, where scale is the magnitude the sum was built from.
void expect_close(const std::vector<float>& got, const std::vector<double>& want,
                  const std::vector<double>& scale, double rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]), rel * scale[i] + 1e-30)
        << what << " at " << i << ": got " << got[i] << ", want " << want[i];
}

class CpuKernels : public ::testing::Test {
 protected:
  void SetUp() override { ZEN_REQUIRE_DEVICES(); }
};

struct MatmulCase {
  int64_t K, M, N, A2, B2, A3, B3;
};

// out[m, n, b2, b3] = sum_k a[k, m, b2 / (B2 / A2), b3 / (B3 / A3)] * b[k, n, b2, b3]
void reference_matmul(const MatmulCase& c, const std::vector<float>& a, const std::vector<float>& b,
                      std::vector<double>& out, std::vector<double>& mag) {
  out.assign(c.M * c.N * c.B2 * c.B3, 0.0);
  mag.assign(out.size(), 0.0);
  for (int64_t b3 = 0; b3 < c.B3; ++b3)
    for (int64_t b2 = 0; b2 < c.B2; ++b2)
      for (int64_t n = 0; n < c.N; ++n)
        for (int64_t m = 0; m < c.M; ++m) {
          int64_t a2 = b2 / (c.B2 / c.A2), a3 = b3 / (c.B3 / c.A3);
          double s = 0, g = 0;
          for (int64_t k = 0; k < c.K; ++k) {
            double x = a[((a3 * c.A2 + a2) * c.M + m) * c.K + k];
            double y = b[((b3 * c.B2 + b2) * c.N + n) * c.K + k];
            s += x * y;
            g += std::abs(x * y);
          }
          size_t o = ((b3 * c.B2 + b2) * c.N + n) * c.M + m;
          out[o] = s;
          mag[o] = g;
        }
}

const MatmulCase kMatmulCases[] = {
    {1, 1, 1, 1, 1, 1, 1},     // everything 1
    {1, 7, 3, 1, 1, 1, 1},     // K = 1
    {64, 1, 1, 1, 1, 1, 1},    // one output row, one column
    {257, 33, 5, 1, 1, 1, 1},  // odd K, M, N
    {17, 5, 3, 1, 3, 1, 1},    // one weight for three batches
    {9, 4, 2, 2, 4, 1, 2},     // broadcast in dims 2 and 3
};

TEST_F(CpuKernels, MatmulF32MatchesDoubleReference) {
  uint32_t seed = 1;
  for (const MatmulCase& c : kMatmulCases) {
    auto a = random_floats(c.K * c.M * c.A2 * c.A3, seed++);
    auto b = random_floats(c.K * c.N * c.B2 * c.B3, seed++);
    Graph g;
    TensorId ta = g.input("a", ZEN_TYPE_F32, V{c.K, c.M, c.A2, c.A3});
    TensorId tb = g.input("b", ZEN_TYPE_F32, V{c.K, c.N, c.B2, c.B3});
    g.output(g.op(ZEN_OP_MATMUL, std::vector<TensorId>{ta, tb}), "out");
    Runner r(cpu_only(), std::move(g));
    auto got = r.in("a", a).in("b", b).go().out("out");
    std::vector<double> want, mag;
    reference_matmul(c, a, b, want, mag);
    expect_close(got, want, mag, 1e-6, "K=" + std::to_string(c.K) + " M=" + std::to_string(c.M));
  }
}

TEST_F(CpuKernels, MatmulF16WeightsMatchDoubleReference) {
  uint32_t seed = 100;
  for (const MatmulCase& c : kMatmulCases) {
    auto a32 = random_floats(c.K * c.M * c.A2 * c.A3, seed++);
    auto a16 = to_f16(a32);
    std::vector<float> a_exact(a16.size());  // the values the kernel really multiplies
    for (size_t i = 0; i < a16.size(); ++i) a_exact[i] = f16_value(a16[i]);
    auto b = random_floats(c.K * c.N * c.B2 * c.B3, seed++);
    // The weight is a model weight: host memory wrapped by the CPU device, no copy.
    WrappedWeight wa(Plugins::get().cpu(), a16.data(), a16.size() * 2);
    Graph g;
    TensorId ta = g.weight("a", ZEN_TYPE_F16, V{c.K, c.M, c.A2, c.A3}, wa.placement());
    TensorId tb = g.input("b", ZEN_TYPE_F32, V{c.K, c.N, c.B2, c.B3});
    g.output(g.op(ZEN_OP_MATMUL, std::vector<TensorId>{ta, tb}), "out");
    Runner r(cpu_only(), std::move(g));
    auto got = r.in("b", b).go().out("out");
    std::vector<double> want, mag;
    reference_matmul(c, a_exact, b, want, mag);
    expect_close(got, want, mag, 1e-6, "f16 K=" + std::to_string(c.K));
  }
}

TEST_F(CpuKernels, MatmulReadsStridedActivations) {
  // b is a transposed view [K=6, N=4] of a packed [4, 6]: the kernel must follow nb.
  auto a = random_floats(6 * 3, 7), x = random_floats(4 * 6, 8);
  Graph g;
  TensorId ta = g.input("a", ZEN_TYPE_F32, V{6, 3});
  TensorId tx = g.input("x", ZEN_TYPE_F32, V{4, 6});
  g.output(g.op(ZEN_OP_MATMUL, std::vector<TensorId>{ta, g.permute(tx, {1, 0, 2, 3})}), "out");
  Runner r(cpu_only(), std::move(g));
  auto got = r.in("a", a).in("x", x).go().out("out");
  std::vector<double> want(3 * 4), mag(3 * 4);
  for (int n = 0; n < 4; ++n)
    for (int m = 0; m < 3; ++m)
      for (int k = 0; k < 6; ++k) {
        double p = double(a[m * 6 + k]) * x[k * 4 + n];  // b[k, n] = x[n + 4 k]
        want[n * 3 + m] += p;
        mag[n * 3 + m] += std::abs(p);
      }
  expect_close(got, want, mag, 1e-6, "strided matmul");
}

TEST_F(CpuKernels, AddAndMulBroadcast) {
  const V a_ne{7, 5, 3};
  const std::vector<V> b_shapes{{7, 5, 3}, {7, 1, 3}, {1, 5, 1}, {7}};
  auto a = random_floats(7 * 5 * 3, 11);
  for (const V& bs : b_shapes) {
    int64_t bn[3] = {bs[0], bs.size() > 1 ? bs[1] : 1, bs.size() > 2 ? bs[2] : 1};
    auto b = random_floats(bn[0] * bn[1] * bn[2], 12);
    Graph g;
    TensorId ta = g.input("a", ZEN_TYPE_F32, a_ne), tb = g.input("b", ZEN_TYPE_F32, bs);
    g.output(g.op(ZEN_OP_ADD, std::vector<TensorId>{ta, tb}), "sum");
    g.output(g.op(ZEN_OP_MUL, std::vector<TensorId>{ta, tb}), "prod");
    Runner r(cpu_only(), std::move(g));
    r.in("a", a).in("b", b).go();
    auto sum = r.out("sum"), prod = r.out("prod");
    for (int64_t i2 = 0; i2 < 3; ++i2)
      for (int64_t i1 = 0; i1 < 5; ++i1)
        for (int64_t i0 = 0; i0 < 7; ++i0) {
          size_t i = (i2 * 5 + i1) * 7 + i0;
          double y = b[((i2 % bn[2]) * bn[1] + i1 % bn[1]) * bn[0] + i0 % bn[0]];
          ASSERT_FLOAT_EQ(sum[i], float(a[i] + y));
          ASSERT_FLOAT_EQ(prod[i], float(a[i] * y));
        }
  }
}

TEST_F(CpuKernels, ScaleAndSilu) {
  auto x = random_floats(50, 13, -8.0f, 8.0f);
  Graph g;
  TensorId t = g.input("x", ZEN_TYPE_F32, V{25, 2});
  std::vector<TensorId> src{t};
  g.output(g.op(ZEN_OP_SCALE, src,
                std::vector<int32_t>{graph::param_bits(-1.5f), graph::param_bits(0.25f)}),
           "scaled");
  g.output(g.op(ZEN_OP_SILU, src), "silu");
  Runner r(cpu_only(), std::move(g));
  r.in("x", x).go();
  auto scaled = r.out("scaled"), silu = r.out("silu");
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    EXPECT_NEAR(scaled[i], v * -1.5 + 0.25, 1e-6 * (std::abs(v * 1.5) + 0.25));
    EXPECT_NEAR(silu[i], v / (1 + std::exp(-v)), 1e-6 * std::abs(v) + 1e-7);
  }
}

TEST_F(CpuKernels, RmsNorm) {
  const int64_t n = 33, rows = 4;
  const float eps = 1e-5f;
  auto x = random_floats(n * rows, 14, -3.0f, 3.0f);
  Graph g;
  TensorId t = g.input("x", ZEN_TYPE_F32, V{n, rows});
  g.output(
      g.op(ZEN_OP_RMS_NORM, std::vector<TensorId>{t}, std::vector<int32_t>{graph::param_bits(eps)}),
      "y");
  Runner r(cpu_only(), std::move(g));
  auto y = r.in("x", x).go().out("y");
  for (int64_t row = 0; row < rows; ++row) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += double(x[row * n + i]) * x[row * n + i];
    double s = 1.0 / std::sqrt(ss / n + double(eps));
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(y[row * n + i], x[row * n + i] * s, 2e-7 * std::abs(x[row * n + i] * s));
  }
}

// softmax(x * scale + mask) with the mask's rows beyond x's ignored and dim 2 broadcast.
template <class MaskT>
void softmax_case(zen_type mask_type, const std::vector<MaskT>& mask_data,
                  const std::vector<float>& mask_values) {
  const int64_t C = 13, R = 4, B = 2, MR = 6;
  const float scale = 0.5f;
  auto x = random_floats(C * R * B, 15, -4.0f, 4.0f);
  Graph g;
  TensorId tx = g.input("x", ZEN_TYPE_F32, V{C, R, B});
  TensorId tm = g.input("mask", mask_type, V{C, MR});
  g.output(g.op(ZEN_OP_SOFTMAX, std::vector<TensorId>{tx, tm},
                std::vector<int32_t>{graph::param_bits(scale)}),
           "p");
  Runner r(cpu_only(), std::move(g));
  auto p = r.in("x", x).in("mask", mask_data).go().out("p");
  for (int64_t b = 0; b < B; ++b)
    for (int64_t row = 0; row < R; ++row) {
      std::vector<double> v(C);
      double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < C; ++c) {
        v[c] = double(x[(b * R + row) * C + c]) * scale + mask_values[row * C + c];
        mx = std::max(mx, v[c]);
      }
      for (double& e : v) sum += (e = std::exp(e - mx));
      for (int64_t c = 0; c < C; ++c)
        ASSERT_NEAR(p[(b * R + row) * C + c], v[c] / sum, 1e-6 * v[c] / sum + 1e-9)
            << "row " << row << " col " << c;
    }
}

std::vector<float> causal_mask(int64_t C, int64_t rows) {
  std::vector<float> m(C * rows);
  std::mt19937 rng(16);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < C; ++c)
      m[r * C + c] = c > r + 6 ? -INFINITY : float(int(rng() % 5) - 2) * 0.5f;  // exact in f16
  return m;
}

TEST_F(CpuKernels, SoftmaxWithF32Mask) {
  auto m = causal_mask(13, 6);
  softmax_case<float>(ZEN_TYPE_F32, m, m);
}

TEST_F(CpuKernels, SoftmaxWithF16Mask) {
  auto m = causal_mask(13, 6);
  softmax_case<uint16_t>(ZEN_TYPE_F16, to_f16(m), m);
}

TEST_F(CpuKernels, GetRowsF32AndF16) {
  const int64_t K = 8, R = 10;
  auto table = random_floats(K * R, 17);
  auto table16 = to_f16(table);
  std::vector<int32_t> ids{3, 0, 9, 3, 7};
  Graph g;
  TensorId t32 = g.input("t32", ZEN_TYPE_F32, V{K, R});
  TensorId t16 = g.input("t16", ZEN_TYPE_F16, V{K, R});
  TensorId tid = g.input("ids", ZEN_TYPE_I32, V{5});
  g.output(g.op(ZEN_OP_GET_ROWS, std::vector<TensorId>{t32, tid}), "r32");
  g.output(g.op(ZEN_OP_GET_ROWS, std::vector<TensorId>{t16, tid}), "r16");
  Runner r(cpu_only(), std::move(g));
  r.in("t32", table).in("t16", table16).in("ids", ids).go();
  auto r32 = r.out("r32"), r16 = r.out("r16");
  for (size_t n = 0; n < ids.size(); ++n)
    for (int64_t k = 0; k < K; ++k) {
      EXPECT_EQ(r32[n * K + k], table[ids[n] * K + k]);
      EXPECT_EQ(r16[n * K + k], f16_value(table16[ids[n] * K + k]));
    }
  ids[2] = 10;
  r.in("ids", ids);
  try {
    r.go();
    FAIL() << "an id past the table must fail";
  } catch (const Error& e) {
    EXPECT_NE(e.message.find("get_rows: row id 10 is outside 0..9"), e.message.npos) << e.message;
  }
}

// Every F16 bit pattern to F32 and back, compared with the compiler's conversions.
TEST_F(CpuKernels, CpyF16ToF32AllBitPatterns) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  Graph g;
  TensorId h = g.input("h", ZEN_TYPE_F16, V{256, 256});
  TensorId f = g.op(ZEN_OP_CPY, std::vector<TensorId>{h}, std::vector<int32_t>{ZEN_TYPE_F32});
  g.output(f, "f");
  g.output(g.op(ZEN_OP_CPY, std::vector<TensorId>{f}, std::vector<int32_t>{ZEN_TYPE_F16}), "back");
  Runner r(cpu_only(), std::move(g));
  r.in("h", all).go();
  auto f32 = r.out("f");
  auto back = r.out<uint16_t>("back");
  for (uint32_t i = 0; i < all.size(); ++i) {
    float want = f16_value(static_cast<uint16_t>(i));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(f32[i])) << std::hex << i;
      EXPECT_TRUE((back[i] & 0x7c00) == 0x7c00 && (back[i] & 0x3ff)) << std::hex << i;
    } else {
      EXPECT_EQ(std::memcmp(&f32[i], &want, 4), 0) << std::hex << i;
      EXPECT_EQ(back[i], i) << "round trip of " << std::hex << i;
    }
  }
}

// F32 -> F16 rounding (nearest even, subnormals, overflow) against the compiler's.
TEST_F(CpuKernels, CpyF32ToF16RoundsToNearestEven) {
  std::mt19937 rng(18);
  std::vector<float> x;
  for (int i = 0; i < 1 << 16; ++i) {
    uint32_t bits = rng();
    // Concentrate on exponents around the half range, where the interesting cases are.
    bits = (bits & 0x807fffffu) | ((uint32_t(100 + rng() % 50)) << 23);
    float v;
    std::memcpy(&v, &bits, 4);
    x.push_back(v);
  }
  for (float v : {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e9f, 5.96e-8f, 2.98e-8f, 2.99e-8f,
                  6.1e-5f, INFINITY, -INFINITY, 1.0f + 0x1p-11f, 1.0f + 0x3p-11f})
    x.push_back(v);
  x.resize(x.size() + (4 - x.size() % 4) % 4, 1.0f);
  Graph g;
  TensorId t = g.input("x", ZEN_TYPE_F32, V{4, static_cast<int64_t>(x.size() / 4)});
  g.output(g.op(ZEN_OP_CPY, std::vector<TensorId>{t}, std::vector<int32_t>{ZEN_TYPE_F16}), "h");
  g.output(g.op(ZEN_OP_CPY, std::vector<TensorId>{t}, std::vector<int32_t>{ZEN_TYPE_BF16}), "b");
  Runner r(cpu_only(), std::move(g));
  r.in("x", x).go();
  auto h = r.out<uint16_t>("h");
  auto b = r.out<uint16_t>("b");
  auto want16 = to_f16(x);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(h[i], want16[i]) << "f16 of " << x[i];
    // BF16 = the top half of the float, rounded to nearest even on the bits below.
    uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    uint32_t lower = bits & 0xffff, top = bits >> 16;
    if (lower > 0x8000 || (lower == 0x8000 && (top & 1))) ++top;
    ASSERT_EQ(b[i], top) << "bf16 of " << x[i];
  }
}

TEST_F(CpuKernels, PermuteThenCpyGathersStridedView) {
  const int64_t A = 4, B = 6, C = 3;
  auto x = random_floats(A * B * C, 19);
  Graph g;
  TensorId t = g.input("x", ZEN_TYPE_F32, V{A, B, C});
  // Result dim i is source dim axes[i]: [C, A, B].
  TensorId p = g.permute(t, {2, 0, 1, 3});
  g.output(g.op(ZEN_OP_CPY, std::vector<TensorId>{p}, std::vector<int32_t>{ZEN_TYPE_F16}), "y");
  Runner r(cpu_only(), std::move(g));
  auto y = r.in("x", x).go().out<uint16_t>("y");
  for (int64_t b = 0; b < B; ++b)
    for (int64_t a = 0; a < A; ++a)
      for (int64_t c = 0; c < C; ++c)
        ASSERT_EQ(f16_value(y[(b * A + a) * C + c]),
                  f16_value(to_f16({x[(c * B + b) * A + a]})[0]));
}

TEST_F(CpuKernels, SupportsExactlyTheRegisteredTypes) {
  const graph::DeviceRef& cpu = Plugins::get().cpu();
  Graph g;
  TensorId f32 = g.input("f32", ZEN_TYPE_F32, V{32, 2});
  TensorId f16 = g.input("f16", ZEN_TYPE_F16, V{32, 2});
  TensorId iq2 = g.input("iq2", ZEN_TYPE_IQ2_XXS, V{256, 2});
  TensorId yes = g.op(ZEN_OP_MATMUL, std::vector<TensorId>{f16, f32});
  TensorId no_iq2 =
      g.op(ZEN_OP_MATMUL, std::vector<TensorId>{iq2, g.input("x256", ZEN_TYPE_F32, V{256, 2})});
  TensorId no_add16 = g.op(ZEN_OP_ADD, std::vector<TensorId>{f16, f16});
  TensorId rope =
      g.op(ZEN_OP_ROPE,
           std::vector<TensorId>{g.reshape(f32, V{32, 1, 2}), g.input("pos", ZEN_TYPE_I32, V{2})},
           std::vector<int32_t>{32});
  graph::Lowered all = graph::lower_all(g);
  EXPECT_TRUE(cpu.table->supports_op(cpu.dev, all.graph(), yes));
  EXPECT_FALSE(cpu.table->supports_op(cpu.dev, all.graph(), no_iq2));
  EXPECT_FALSE(cpu.table->supports_op(cpu.dev, all.graph(), no_add16));
  EXPECT_TRUE(cpu.table->supports_op(cpu.dev, all.graph(), rope));
}

TEST_F(CpuKernels, DeviceProps) {
  const graph::DeviceRef& cpu = Plugins::get().cpu();
  EXPECT_STREQ(cpu.props.name, "cpu");
  EXPECT_EQ(cpu.props.type, ZEN_DEVICE_CPU);
  EXPECT_EQ(cpu.props.host_visible, 1u);
  EXPECT_EQ(cpu.props.priority, 100u);
  EXPECT_GT(cpu.props.memory_total, 0u);
  EXPECT_GE(cpu.props.compute_units, 1u);
  EXPECT_NE(std::string(cpu.props.description).find(Plugins::get().cpu_variant()),
            std::string::npos)
      << cpu.props.description;
  std::printf("cpu variant: %s (%s)\n", Plugins::get().cpu_variant().c_str(),
              cpu.props.description);
}

}  // namespace
}  // namespace zen::test
