// scale (x * s + bias), silu (x / (1 + e^-x)) and tanh against double references.
//
// Tolerance: scale is one fma/mul-add per element (<= 1 ulp, |y| <= 6): atol 1e-6 + rtol 1e-6;
// silu uses a few-ulp exp and a division on |x| <= 10: atol 1e-6 + rtol 1e-5; tanh is a
// few-ulp library or shader function: the same.
#include <cmath>

#include "rows_util.h"

namespace zen::ops {
namespace {

class Unary : public OpTest {
 protected:
  void check(zen_op op, Shape ne, Layout layout, float s = 1.0f, float bias = 0.0f,
             bool with_bias = true) {
    graph::Graph g;
    const auto v = random_floats(count(ne), 31, -10.0f, 10.0f);
    HostData in;
    auto x = strided_input(g, "x", ne, layout, v, in);
    if (op == ZEN_OP_SCALE) {
      std::vector<int32_t> params{f32_param(s)};
      if (with_bias) params.push_back(f32_param(bias));
      g.output(g.op(op, std::array{x}, params), "y");
    } else {
      g.output(g.op(op, std::array{x}), "y");
    }
    auto out = run(std::move(g), {{"x", in}}, "y");
    std::vector<double> want(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const double x = v[i];
      want[i] = op == ZEN_OP_SCALE  ? x * s + bias
                : op == ZEN_OP_TANH ? std::tanh(x)
                                    : x / (1.0 + std::exp(-x));
    }
    expect_close(out, want, 1e-6, op == ZEN_OP_SCALE ? 1e-6 : 1e-5,
                 std::string(graph::op_name(op)) + " " + layout_name(layout));
  }
};

// F16/BF16 through the scalar path: one rounding to the type (rtol 2^-10 / 2^-7).
TEST_P(Unary, HalfAndBf16) {
  for (zen_type type : {ZEN_TYPE_F16, ZEN_TYPE_BF16})
    for (zen_op op : {ZEN_OP_SCALE, ZEN_OP_SILU}) {
      const Shape ne{19, 3, 2, 1};
      auto v = random_floats(count(ne), 51, -6.0f, 6.0f);
      const auto bits = round_to_half(type, v);
      graph::Graph g;
      auto x = g.input("x", type, ne);
      if (op == ZEN_OP_SCALE)
        g.output(g.op(op, std::array{x}, std::array<int32_t, 2>{f32_param(0.75f), f32_param(0.5f)}),
                 "y");
      else
        g.output(g.op(op, std::array{x}), "y");
      auto out = from_half(type, run_bytes(std::move(g), {{"x", HostData::of(bits)}}, "y"));
      std::vector<double> want(v.size());
      for (size_t i = 0; i < v.size(); ++i)
        want[i] = op == ZEN_OP_SCALE ? v[i] * 0.75 + 0.5 : v[i] / (1.0 + std::exp(-double(v[i])));
      expect_close(out, want, 1e-5, type == ZEN_TYPE_F16 ? 1.0 / 1024 : 1.0 / 128,
                   graph::op_name(op));
    }
}

TEST_P(Unary, ScaleOneRow) { check(ZEN_OP_SCALE, {1001, 1, 1, 1}, Layout::packed, 0.5f, 0.25f); }
TEST_P(Unary, ScaleDefaultBias) {
  check(ZEN_OP_SCALE, {17, 3, 1, 1}, Layout::packed, -0.3f, 0.0f, false);
}
TEST_P(Unary, ScaleManyRows) {
  check(ZEN_OP_SCALE, {129, 200, 1, 1}, Layout::packed, 0.125f, -1.0f);
}
TEST_P(Unary, ScaleTransposed) {
  check(ZEN_OP_SCALE, {9, 14, 2, 1}, Layout::transposed, 0.5f, 1.5f);
}
TEST_P(Unary, ScalePadded) { check(ZEN_OP_SCALE, {23, 4, 1, 3}, Layout::padded, 2.0f, 0.5f); }
TEST_P(Unary, SiluOneElement) { check(ZEN_OP_SILU, {1, 1, 1, 1}, Layout::packed); }
TEST_P(Unary, SiluOdd) { check(ZEN_OP_SILU, {37, 5, 3, 1}, Layout::packed); }
TEST_P(Unary, SiluManyRows) { check(ZEN_OP_SILU, {1024, 96, 1, 1}, Layout::packed); }
TEST_P(Unary, SiluTransposed) { check(ZEN_OP_SILU, {15, 8, 1, 1}, Layout::transposed); }
TEST_P(Unary, SiluPadded) { check(ZEN_OP_SILU, {50, 3, 2, 1}, Layout::padded); }
TEST_P(Unary, TanhOdd) { check(ZEN_OP_TANH, {37, 5, 3, 1}, Layout::packed); }
TEST_P(Unary, TanhTransposed) { check(ZEN_OP_TANH, {15, 8, 1, 1}, Layout::transposed); }

ZEN_OP_TEST(Unary);

}  // namespace
}  // namespace zen::ops
