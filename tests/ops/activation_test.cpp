// gelu (tanh approximation, erf) and glu (swiglu, geglu-tanh, geglu-erf) against double
// references: gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// gelu_erf(x) = x/2 (1 + erf(x / sqrt 2)), silu(x) = x / (1 + e^-x); glu = act(a) * b.
//
// Tolerance: each output is a handful of float operations on |x| <= 8 with a few-ulp exp:
// atol 1e-6 + rtol 1e-5 (outputs reach 8 * 8 = 64 for glu). Swapping tanh and erf changes
// values by up to 2e-3, dropping the gate or using the wrong variant by far more.
#include <cmath>

#include "rows_util.h"

namespace zen::ops {
namespace {

double silu(double x) { return x / (1.0 + std::exp(-x)); }
double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

class Activation : public OpTest {
 protected:
  // gelu when !gated (mode 0 tanh, 1 erf), else glu (mode 0 swiglu, 1 geglu-tanh, 2 erf).
  void check(bool gated, int32_t mode, Shape ne, Layout layout) {
    graph::Graph g;
    const auto a = random_floats(count(ne), 21, -8.0f, 8.0f);
    const auto b = random_floats(count(ne), 22, -8.0f, 8.0f);
    HostData ain, bin;
    auto x = strided_input(g, "a", ne, layout, a, ain);
    std::map<std::string, HostData> inputs{{"a", ain}};
    const std::array<int32_t, 1> params{mode};
    if (gated) {
      auto y = strided_input(g, "b", ne, Layout::packed, b, bin);
      inputs["b"] = bin;
      g.output(g.op(ZEN_OP_GLU, std::array{x, y}, params), "y");
    } else {
      g.output(g.op(ZEN_OP_GELU, std::array{x}, params), "y");
    }
    auto out = run(std::move(g), inputs, "y");
    std::vector<double> want(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      if (!gated) {
        want[i] = mode == 0 ? gelu_tanh(a[i]) : gelu_erf(a[i]);
      } else {
        const double f = mode == 0 ? silu(a[i]) : mode == 1 ? gelu_tanh(a[i]) : gelu_erf(a[i]);
        want[i] = f * b[i];
      }
    }
    expect_close(
        out, want, 1e-6, 1e-5,
        std::string(gated ? "glu " : "gelu ") + std::to_string(mode) + " " + layout_name(layout));
  }
};

// F16/BF16: scalar path in float, one rounding to the type: rtol = the type's ulp (2^-10,
// 2^-7) on inputs already rounded to the type (the reference uses the rounded inputs).
TEST_P(Activation, HalfAndBf16) {
  for (zen_type type : {ZEN_TYPE_F16, ZEN_TYPE_BF16})
    for (int variant = 0; variant < 4; ++variant) {  // gelu tanh, swiglu, geglu-tanh, geglu-erf
      const Shape ne{29, 5, 1, 1};
      const bool gated = variant > 0;
      const int32_t mode = gated ? variant - 1 : 0;
      auto a = random_floats(count(ne), 41, -4.0f, 4.0f), b = random_floats(count(ne), 42);
      const auto abits = round_to_half(type, a), bbits = round_to_half(type, b);
      graph::Graph g;
      auto x = g.input("a", type, ne);
      std::map<std::string, HostData> inputs{{"a", HostData::of(abits)}};
      if (gated) {
        inputs["b"] = HostData::of(bbits);
        g.output(
            g.op(ZEN_OP_GLU, std::array{x, g.input("b", type, ne)}, std::array<int32_t, 1>{mode}),
            "y");
      } else {
        g.output(g.op(ZEN_OP_GELU, std::array{x}, std::array<int32_t, 1>{mode}), "y");
      }
      auto out = from_half(type, run_bytes(std::move(g), inputs, "y"));
      std::vector<double> want(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        const double f = !gated || mode == 1 ? gelu_tanh(a[i])
                         : mode == 0         ? silu(a[i])
                                             : gelu_erf(a[i]);
        want[i] = gated ? f * b[i] : f;
      }
      expect_close(out, want, 1e-5, type == ZEN_TYPE_F16 ? 1.0 / 1024 : 1.0 / 128,
                   "variant " + std::to_string(variant));
    }
}

TEST_P(Activation, GeluTanhOneRow) { check(false, 0, {1000, 1, 1, 1}, Layout::packed); }
TEST_P(Activation, GeluErfOneRow) { check(false, 1, {1000, 1, 1, 1}, Layout::packed); }
TEST_P(Activation, GeluTanhManyRows) { check(false, 0, {257, 63, 2, 1}, Layout::packed); }
TEST_P(Activation, GeluErfOdd) { check(false, 1, {13, 7, 3, 1}, Layout::packed); }
TEST_P(Activation, GeluTanhTransposed) { check(false, 0, {21, 9, 1, 1}, Layout::transposed); }
TEST_P(Activation, GeluErfPadded) { check(false, 1, {30, 4, 1, 2}, Layout::padded); }
TEST_P(Activation, SwigluOneRow) { check(true, 0, {4099, 1, 1, 1}, Layout::packed); }
TEST_P(Activation, SwigluManyRows) { check(true, 0, {300, 77, 1, 1}, Layout::packed); }
TEST_P(Activation, GegluTanh) { check(true, 1, {35, 9, 2, 1}, Layout::packed); }
TEST_P(Activation, GegluErf) { check(true, 2, {35, 9, 2, 1}, Layout::packed); }
TEST_P(Activation, SwigluTransposed) { check(true, 0, {19, 8, 1, 1}, Layout::transposed); }
TEST_P(Activation, GegluTanhPadded) { check(true, 1, {26, 5, 1, 1}, Layout::padded); }
TEST_P(Activation, GegluErfTransposed) { check(true, 2, {11, 12, 1, 1}, Layout::transposed); }

ZEN_OP_TEST(Activation);

}  // namespace
}  // namespace zen::ops
