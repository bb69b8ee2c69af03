// rms_norm, layer_norm and group_norm against double references, on packed and strided inputs.
//
// Tolerance: the kernels normalize F32 inputs of magnitude <= 1 and sum in float with several
// accumulators (vector path) or in double (strided path); the relative error of the sum is
// below n * 2^-24 / lanes, which for n <= 4099 is < 1e-5, and the outputs (|y| <~ 3) are
// single-rounded products: atol 2e-6 + rtol 2e-5 covers both with margin while a wrong mean,
// eps placement or row stride gives errors of 1e-2 and more.
#include <cmath>

#include "rows_util.h"

namespace zen::ops {
namespace {

class Norm : public OpTest {
 protected:
  void check(zen_op op, Shape ne, Layout layout, float eps, uint32_t seed = 1) {
    graph::Graph g;
    const auto v = random_floats(count(ne), seed, -1.0f, 1.0f);
    HostData in;
    auto x = strided_input(g, "x", ne, layout, v, in);
    const std::array<int32_t, 1> params{f32_param(eps)};
    g.output(g.op(op, std::array{x}, params), "y");
    auto out = run(std::move(g), {{"x", in}}, "y");
    std::vector<double> want(v.size());
    for (int64_t r = 0; r < count(ne) / ne[0]; ++r) {
      const float* row = v.data() + r * ne[0];
      double mean = 0.0, sq = 0.0;
      if (op == ZEN_OP_LAYER_NORM) {
        for (int64_t i = 0; i < ne[0]; ++i) mean += row[i];
        mean /= static_cast<double>(ne[0]);
      }
      for (int64_t i = 0; i < ne[0]; ++i) sq += (row[i] - mean) * (row[i] - mean);
      const double s = 1.0 / std::sqrt(sq / static_cast<double>(ne[0]) + eps);
      for (int64_t i = 0; i < ne[0]; ++i) want[r * ne[0] + i] = (row[i] - mean) * s;
    }
    expect_close(out, want, 2e-6, 2e-5,
                 std::string(graph::op_name(op)) + " " + layout_name(layout));
  }
};

// F16 and BF16 tensors go through the scalar path (sums in double, one rounding to the
// output type): tolerance is the output's half-ulp, 2^-11 (F16) / 2^-8 (BF16) relative, plus
// the same relative slack for inputs rounded to the type (the reference reads the rounded
// inputs, so that part is exact).
TEST_P(Norm, HalfAndBf16) {
  for (zen_type type : {ZEN_TYPE_F16, ZEN_TYPE_BF16})
    for (zen_op op : {ZEN_OP_RMS_NORM, ZEN_OP_LAYER_NORM}) {
      const Shape ne{45, 7, 2, 1};
      graph::Graph g;
      auto v = random_floats(count(ne), 5, -1.0f, 1.0f);
      const bool f16 = type == ZEN_TYPE_F16;
      const auto bits = f16 ? to_f16_bits(v) : to_bf16_bits(v);
      for (size_t i = 0; i < v.size(); ++i) {  // the values the kernel actually sees
        if (f16) {
          v[i] = f16_bits_to_float(bits[i]);
        } else {
          const uint32_t u = static_cast<uint32_t>(bits[i]) << 16;
          std::memcpy(&v[i], &u, 4);
        }
      }
      auto x = g.input("x", type, ne);
      g.output(g.op(op, std::array{x}, std::array<int32_t, 1>{f32_param(1e-5f)}), "y");
      auto raw = run_bytes(std::move(g), {{"x", HostData::of(bits)}}, "y");
      std::vector<float> out(v.size());
      for (size_t i = 0; i < out.size(); ++i) {
        uint16_t h;
        std::memcpy(&h, raw.data() + 2 * i, 2);
        if (f16) {
          out[i] = f16_bits_to_float(h);
        } else {
          const uint32_t u = static_cast<uint32_t>(h) << 16;
          std::memcpy(&out[i], &u, 4);
        }
      }
      std::vector<double> want(v.size());
      for (int64_t r = 0; r < count(ne) / ne[0]; ++r) {
        const float* row = v.data() + r * ne[0];
        double mean = 0.0, sq = 0.0;
        if (op == ZEN_OP_LAYER_NORM) {
          for (int64_t i = 0; i < ne[0]; ++i) mean += row[i];
          mean /= static_cast<double>(ne[0]);
        }
        for (int64_t i = 0; i < ne[0]; ++i) sq += (row[i] - mean) * (row[i] - mean);
        const double sc = 1.0 / std::sqrt(sq / static_cast<double>(ne[0]) + 1e-5);
        for (int64_t i = 0; i < ne[0]; ++i) want[r * ne[0] + i] = (row[i] - mean) * sc;
      }
      expect_close(out, want, 1e-6, f16 ? 1.0 / 2048 : 1.0 / 256,
                   std::string(graph::op_name(op)) + (f16 ? " f16" : " bf16"));
    }
}

TEST_P(Norm, RmsOneRow) { check(ZEN_OP_RMS_NORM, {4096, 1, 1, 1}, Layout::packed, 1e-5f); }
TEST_P(Norm, RmsOddSizes) { check(ZEN_OP_RMS_NORM, {37, 5, 3, 1}, Layout::packed, 1e-6f); }
TEST_P(Norm, RmsSingleElement) { check(ZEN_OP_RMS_NORM, {1, 3, 1, 1}, Layout::packed, 1e-6f); }
TEST_P(Norm, RmsManyRows) { check(ZEN_OP_RMS_NORM, {129, 97, 2, 1}, Layout::packed, 1e-5f); }
TEST_P(Norm, RmsTransposed) { check(ZEN_OP_RMS_NORM, {33, 7, 2, 1}, Layout::transposed, 1e-5f); }
TEST_P(Norm, RmsPadded) { check(ZEN_OP_RMS_NORM, {67, 9, 1, 2}, Layout::padded, 1e-5f); }
TEST_P(Norm, RmsLargeEps) { check(ZEN_OP_RMS_NORM, {64, 4, 1, 1}, Layout::packed, 0.5f); }
TEST_P(Norm, LayerOneRow) { check(ZEN_OP_LAYER_NORM, {4099, 1, 1, 1}, Layout::packed, 1e-5f); }
TEST_P(Norm, LayerManyRows) { check(ZEN_OP_LAYER_NORM, {77, 131, 1, 1}, Layout::packed, 1e-5f); }
TEST_P(Norm, LayerTransposed) {
  check(ZEN_OP_LAYER_NORM, {19, 11, 3, 1}, Layout::transposed, 1e-5f);
}
TEST_P(Norm, LayerPadded) { check(ZEN_OP_LAYER_NORM, {40, 6, 1, 1}, Layout::padded, 1e-6f); }

class GroupNorm : public OpTest {
 protected:
  void check(Shape ne, int32_t groups, Layout layout, float eps) {
    graph::Graph g;
    const auto v = random_floats(count(ne), 7, -2.0f, 1.0f);
    HostData in;
    auto x = strided_input(g, "x", ne, layout, v, in);
    const std::array<int32_t, 2> params{groups, f32_param(eps)};
    g.output(g.op(ZEN_OP_GROUP_NORM, std::array{x}, params), "y");
    auto out = run(std::move(g), {{"x", in}}, "y");
    std::vector<double> want(v.size());
    const int64_t cpg = ne[2] / groups;
    for (int64_t i3 = 0; i3 < ne[3]; ++i3)
      for (int64_t gr = 0; gr < groups; ++gr) {
        double sum = 0.0, sq = 0.0, n = 0.0;
        for (int64_t c = gr * cpg; c < (gr + 1) * cpg; ++c)
          for (int64_t i1 = 0; i1 < ne[1]; ++i1)
            for (int64_t i0 = 0; i0 < ne[0]; ++i0) sum += v[idx(ne, i0, i1, c, i3)], n += 1.0;
        const double mean = sum / n;
        for (int64_t c = gr * cpg; c < (gr + 1) * cpg; ++c)
          for (int64_t i1 = 0; i1 < ne[1]; ++i1)
            for (int64_t i0 = 0; i0 < ne[0]; ++i0) {
              const double d = v[idx(ne, i0, i1, c, i3)] - mean;
              sq += d * d;
            }
        const double s = 1.0 / std::sqrt(sq / n + eps);
        for (int64_t c = gr * cpg; c < (gr + 1) * cpg; ++c)
          for (int64_t i1 = 0; i1 < ne[1]; ++i1)
            for (int64_t i0 = 0; i0 < ne[0]; ++i0)
              want[idx(ne, i0, i1, c, i3)] = (v[idx(ne, i0, i1, c, i3)] - mean) * s;
      }
    expect_close(out, want, 2e-6, 2e-5, std::string("group_norm ") + layout_name(layout));
  }
};

TEST_P(GroupNorm, OneGroup) { check({5, 3, 4, 1}, 1, Layout::packed, 1e-5f); }
TEST_P(GroupNorm, ManyGroupsAndSamples) { check({9, 7, 32, 3}, 8, Layout::packed, 1e-6f); }
TEST_P(GroupNorm, GroupPerChannel) { check({17, 1, 6, 1}, 6, Layout::packed, 1e-5f); }
TEST_P(GroupNorm, Transposed) { check({6, 5, 8, 2}, 4, Layout::transposed, 1e-5f); }
TEST_P(GroupNorm, Padded) { check({11, 4, 6, 1}, 3, Layout::padded, 1e-5f); }
// 4096 values a group: a device that splits a group's sums across threads or work-items
// (each taking many values) is checked past a single pass.
TEST_P(GroupNorm, LargeGroups) { check({64, 16, 8, 2}, 2, Layout::packed, 1e-5f); }

ZEN_OP_TEST(Norm);
ZEN_OP_TEST(GroupNorm);

}  // namespace
}  // namespace zen::ops
