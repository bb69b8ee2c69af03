// upsample: nearest (every dim, integer and non-integer ratios, also shrinking) and bilinear
// with half-pixel centres (PyTorch's align_corners=False) over W and H.
//
// Tolerance: nearest only copies values (F16 inputs are exact in F32): atol 0. Bilinear is two
// lerps of values in [-1, 1] in float with float weights, a few roundings of 2^-24 each: atol 2e-6.
#include <array>
#include <cmath>

#include "op_harness.h"

namespace zen::ops {
namespace {

using Shape = std::array<int64_t, 4>;

class Upsample : public OpTest {
 protected:
  void check(Shape in, Shape out, int mode, bool f16 = false) {
    graph::Graph g;
    auto x = g.input("x", f16 ? ZEN_TYPE_F16 : ZEN_TYPE_F32, in);
    std::array<int32_t, 5> params{};
    for (int d = 0; d < 4; ++d) params[d] = static_cast<int32_t>(out[d]);
    params[4] = mode;
    g.output(g.op(ZEN_OP_UPSAMPLE, std::array{x}, params), "y");
    auto xv = random_floats(in[0] * in[1] * in[2] * in[3], 41);
    HostData data = HostData::of(xv);
    if (f16) {
      auto bits = to_f16_bits(xv);
      for (size_t i = 0; i < xv.size(); ++i) xv[i] = f16_bits_to_float(bits[i]);
      data = HostData::of(bits);
    }
    auto got = run(std::move(g), {{"x", data}}, "y");

    auto src = [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) -> double {
      return xv[((i3 * in[2] + i2) * in[1] + i1) * in[0] + i0];
    };
    auto nearest = [](int64_t o, int64_t n_in, int64_t n_out) { return o * n_in / n_out; };
    // Half-pixel source coordinate, clamped at 0 (as PyTorch does).
    auto coord = [](int64_t o, int64_t n_in, int64_t n_out, int64_t& c0, int64_t& c1, double& t) {
      double x = std::max(0.0, (o + 0.5) * static_cast<double>(n_in) / n_out - 0.5);
      c0 = std::min<int64_t>(static_cast<int64_t>(std::floor(x)), n_in - 1);
      c1 = std::min<int64_t>(c0 + 1, n_in - 1);
      t = x - c0;
    };
    std::vector<double> want(out[0] * out[1] * out[2] * out[3]);
    for (int64_t o3 = 0; o3 < out[3]; ++o3)
      for (int64_t o2 = 0; o2 < out[2]; ++o2)
        for (int64_t o1 = 0; o1 < out[1]; ++o1)
          for (int64_t o0 = 0; o0 < out[0]; ++o0) {
            const int64_t i2 = nearest(o2, in[2], out[2]), i3 = nearest(o3, in[3], out[3]);
            double v;
            if (mode == 0) {
              v = src(nearest(o0, in[0], out[0]), nearest(o1, in[1], out[1]), i2, i3);
            } else {
              int64_t x0, x1, y0, y1;
              double tx, ty;
              coord(o0, in[0], out[0], x0, x1, tx);
              coord(o1, in[1], out[1], y0, y1, ty);
              v = (1 - ty) * ((1 - tx) * src(x0, y0, i2, i3) + tx * src(x1, y0, i2, i3)) +
                  ty * ((1 - tx) * src(x0, y1, i2, i3) + tx * src(x1, y1, i2, i3));
            }
            want[((o3 * out[2] + o2) * out[1] + o1) * out[0] + o0] = v;
          }
    expect_close(got, want, mode == 0 ? 0.0 : 2e-6, 0.0, mode == 0 ? "nearest" : "bilinear");
  }
};

TEST_P(Upsample, NearestTimesTwo) { check({5, 3, 4, 1}, {10, 6, 4, 1}, 0); }
TEST_P(Upsample, NearestOneRow) { check({7, 1, 1, 1}, {21, 1, 1, 1}, 0); }
TEST_P(Upsample, NearestOddRatiosAllDims) { check({5, 4, 3, 2}, {7, 9, 5, 3}, 0); }
TEST_P(Upsample, NearestShrink) { check({9, 7, 2, 1}, {4, 3, 2, 1}, 0); }
TEST_P(Upsample, NearestF16) { check({6, 5, 3, 2}, {12, 10, 3, 2}, 0, true); }
TEST_P(Upsample, BilinearTimesTwo) { check({6, 5, 3, 1}, {12, 10, 3, 1}, 1); }
TEST_P(Upsample, BilinearOddRatios) { check({5, 3, 2, 2}, {13, 7, 2, 2}, 1); }
TEST_P(Upsample, BilinearShrinkF16) { check({11, 9, 1, 1}, {4, 5, 1, 1}, 1, true); }

ZEN_OP_TEST(Upsample);

}  // namespace
}  // namespace zen::ops
