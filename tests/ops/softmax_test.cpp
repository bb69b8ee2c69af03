// softmax over ne0 with scale and an optional F32/F16 mask broadcast over dims 2 and 3, against
// a double reference.
//
// Tolerance: outputs are in [0, 1]; the vector path's exp is within a few ulp and the row sum
// is accumulated in float (relative error < n * 2^-24 / 8 for n <= 4096, ~3e-5 worst case), so
// atol 1e-6 + rtol 3e-5. Dropping the max subtraction overflows (inputs reach 80 * scale),
// a misplaced mask or scale changes values by far more.
#include <cmath>
#include <limits>

#include "rows_util.h"

namespace zen::ops {
namespace {

enum class Mask { none, f32, f16 };

class Softmax : public OpTest {
 protected:
  // x [ne], mask [ne0, mask_rows, m2, m3] when mask != none.
  void check(Shape ne, Layout layout, float scale, Mask mask, Shape mne = {}, float lo = -4.0f,
             float hi = 4.0f) {
    graph::Graph g;
    const auto v = random_floats(count(ne), 3, lo, hi);
    HostData in;
    auto x = strided_input(g, "x", ne, layout, v, in);
    std::map<std::string, HostData> inputs{{"x", in}};
    std::vector<float> mv;
    const std::array<int32_t, 1> params{f32_param(scale)};
    if (mask == Mask::none) {
      g.output(g.op(ZEN_OP_SOFTMAX, std::array{x}, params), "y");
    } else {
      mv = random_floats(count(mne), 4, -2.0f, 2.0f);
      // causal-style -inf entries, and one fully masked row (row 0 of the mask when it has
      // more than one row: every x row reading it must come out all zero)
      for (int64_t r = 0; r < count(mne) / mne[0]; ++r)
        for (int64_t i = 0; i < mne[0]; ++i)
          if ((i > r % mne[1] + 2) || (mne[1] > 1 && r % mne[1] == 0))
            mv[r * mne[0] + i] = -std::numeric_limits<float>::infinity();
      if (mask == Mask::f16) {
        auto bits = to_f16_bits(mv);
        for (size_t i = 0; i < mv.size(); ++i) mv[i] = f16_bits_to_float(bits[i]);
        inputs["m"] = HostData::of(bits);
      } else {
        inputs["m"] = HostData::of(mv);
      }
      auto m = g.input("m", mask == Mask::f16 ? ZEN_TYPE_F16 : ZEN_TYPE_F32, mne);
      g.output(g.op(ZEN_OP_SOFTMAX, std::array{x, m}, params), "y");
    }
    auto out = run(std::move(g), inputs, "y");
    std::vector<double> want(v.size());
    std::vector<double> row(ne[0]);
    for (int64_t i3 = 0; i3 < ne[3]; ++i3)
      for (int64_t i2 = 0; i2 < ne[2]; ++i2)
        for (int64_t i1 = 0; i1 < ne[1]; ++i1) {
          double mx = -INFINITY;
          for (int64_t i0 = 0; i0 < ne[0]; ++i0) {
            row[i0] = static_cast<double>(v[idx(ne, i0, i1, i2, i3)]) * scale;
            if (mask != Mask::none) row[i0] += mv[idx(mne, i0, i1, i2 % mne[2], i3 % mne[3])];
            mx = std::max(mx, row[i0]);
          }
          double sum = 0.0;
          for (int64_t i0 = 0; i0 < ne[0]; ++i0)
            sum += std::isinf(mx) ? 0.0 : std::exp(row[i0] - mx);
          for (int64_t i0 = 0; i0 < ne[0]; ++i0)
            want[idx(ne, i0, i1, i2, i3)] = std::isinf(mx) ? 0.0 : std::exp(row[i0] - mx) / sum;
        }
    expect_close(out, want, 1e-6, 3e-5, std::string("softmax ") + layout_name(layout));
  }
};

TEST_P(Softmax, OneRow) { check({4096, 1, 1, 1}, Layout::packed, 1.0f, Mask::none); }
TEST_P(Softmax, OddSizesScaled) { check({37, 5, 3, 1}, Layout::packed, 0.125f, Mask::none); }
TEST_P(Softmax, OneColumn) { check({1, 7, 1, 1}, Layout::packed, 1.0f, Mask::none); }
TEST_P(Softmax, LargeInputsNeedMaxSubtraction) {
  check({100, 3, 1, 1}, Layout::packed, 4.0f, Mask::none, {}, 60.0f, 80.0f);
}
TEST_P(Softmax, ManyRows) { check({513, 64, 3, 1}, Layout::packed, 1.0f, Mask::none); }
TEST_P(Softmax, Transposed) { check({31, 9, 2, 1}, Layout::transposed, 0.5f, Mask::none); }
TEST_P(Softmax, Padded) { check({45, 6, 1, 2}, Layout::padded, 1.0f, Mask::none); }
TEST_P(Softmax, MaskF32BroadcastOverHeads) {
  check({23, 7, 4, 1}, Layout::packed, 0.3f, Mask::f32, {23, 9, 1, 1});
}
TEST_P(Softmax, MaskF16PerHeadGroups) {
  check({40, 5, 4, 2}, Layout::packed, 1.0f, Mask::f16, {40, 5, 2, 1});
}
TEST_P(Softmax, MaskF32StridedInput) {
  check({17, 6, 2, 1}, Layout::transposed, 1.0f, Mask::f32, {17, 6, 1, 1});
}
TEST_P(Softmax, MaskF16StridedInput) {
  check({33, 4, 3, 1}, Layout::padded, 2.0f, Mask::f16, {33, 8, 1, 1});
}

ZEN_OP_TEST(Softmax);

}  // namespace
}  // namespace zen::ops
