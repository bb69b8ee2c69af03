// concat along every dim, of 2..6 sources, F32 / F16 / I32, including a permuted (strided)
// source. Concatenation only moves bytes: results must match exactly.
#include <array>
#include <string>

#include "op_harness.h"

namespace zen::ops {
namespace {

using Shape = std::array<int64_t, 4>;

int64_t count(const Shape& s) { return s[0] * s[1] * s[2] * s[3]; }

class Concat : public OpTest {
 protected:
  // Concatenates sources of the given shapes along dim; element type T (raw bytes compared).
  // With permute_first, source 0 is given as its transpose [ne1, ne0, ne2, ne3] and permuted.
  template <class T>
  void check(zen_type type, int dim, const std::vector<Shape>& shapes, bool permute_first = false) {
    graph::Graph g;
    std::vector<graph::TensorId> srcs;
    std::map<std::string, HostData> inputs;
    std::vector<std::vector<T>> data;
    for (size_t j = 0; j < shapes.size(); ++j) {
      const Shape& s = shapes[j];
      const std::string name = "x" + std::to_string(j);
      std::vector<T> v(count(s));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(1000 * (j + 1) + i);
      if (j == 0 && permute_first) {
        auto t = g.input(name, type, Shape{s[1], s[0], s[2], s[3]});
        srcs.push_back(g.permute(t, {1, 0, 2, 3}));
      } else {
        srcs.push_back(g.input(name, type, s));
      }
      inputs[name] = HostData::of(v);
      data.push_back(std::move(v));
    }
    g.output(g.op(ZEN_OP_CONCAT, srcs, std::array<int32_t, 1>{dim}), "y");
    auto bytes = run_bytes(std::move(g), inputs, "y");

    Shape out = shapes[0];
    for (size_t j = 1; j < shapes.size(); ++j) out[dim] += shapes[j][dim];
    std::vector<T> want(count(out));
    for (int64_t i3 = 0; i3 < out[3]; ++i3)
      for (int64_t i2 = 0; i2 < out[2]; ++i2)
        for (int64_t i1 = 0; i1 < out[1]; ++i1)
          for (int64_t i0 = 0; i0 < out[0]; ++i0) {
            int64_t idx[4] = {i0, i1, i2, i3};
            size_t j = 0;
            while (idx[dim] >= shapes[j][dim]) idx[dim] -= shapes[j++][dim];
            const Shape& s = shapes[j];
            int64_t src_i = (j == 0 && permute_first)
                                ? ((idx[3] * s[2] + idx[2]) * s[0] + idx[0]) * s[1] + idx[1]
                                : ((idx[3] * s[2] + idx[2]) * s[1] + idx[1]) * s[0] + idx[0];
            want[((i3 * out[2] + i2) * out[1] + i1) * out[0] + i0] = data[j][src_i];
          }
    ASSERT_EQ(bytes.size(), want.size() * sizeof(T));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      T got;
      std::memcpy(&got, bytes.data() + i * sizeof(T), sizeof(T));
      if (std::memcmp(&got, &want[i], sizeof(T)) != 0 && bad++ == 0) first = i;
    }
    EXPECT_EQ(bad, 0u) << "concat dim " << dim << ": first wrong element at " << first;
  }
};

TEST_P(Concat, Dim0F32) { check<float>(ZEN_TYPE_F32, 0, {{5, 3, 2, 1}, {7, 3, 2, 1}}); }
TEST_P(Concat, Dim1F32OneRow) { check<float>(ZEN_TYPE_F32, 1, {{9, 1, 1, 1}, {9, 1, 1, 1}}); }
TEST_P(Concat, Dim2ThreeSources) {
  check<float>(ZEN_TYPE_F32, 2, {{4, 3, 1, 2}, {4, 3, 5, 2}, {4, 3, 2, 2}});
}
TEST_P(Concat, Dim3F16) { check<uint16_t>(ZEN_TYPE_F16, 3, {{6, 5, 3, 2}, {6, 5, 3, 1}}); }
TEST_P(Concat, Dim1I32) { check<int32_t>(ZEN_TYPE_I32, 1, {{3, 2, 2, 1}, {3, 7, 2, 1}}); }
TEST_P(Concat, SixSourcesDim0) {
  check<float>(
      ZEN_TYPE_F32, 0,
      {{1, 2, 1, 1}, {2, 2, 1, 1}, {3, 2, 1, 1}, {1, 2, 1, 1}, {5, 2, 1, 1}, {1, 2, 1, 1}});
}
TEST_P(Concat, PermutedSourceDim0) {
  check<float>(ZEN_TYPE_F32, 0, {{6, 4, 3, 1}, {3, 4, 3, 1}}, true);
}
TEST_P(Concat, PermutedSourceDim1) {
  check<float>(ZEN_TYPE_F32, 1, {{5, 3, 2, 1}, {5, 4, 2, 1}}, true);
}

ZEN_OP_TEST(Concat);

}  // namespace
}  // namespace zen::ops
