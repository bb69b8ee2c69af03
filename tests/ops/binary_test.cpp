// add and mul with broadcasting: src1 repeats over src0 in every dimension where it has 1.
#include <array>
#include <functional>

#include "op_harness.h"

namespace zen::ops {
namespace {

class Binary : public OpTest {
 protected:
  // Runs op on a [a0, a1, a2, a3] x [b0, b1, b2, b3] pair and checks against f in double.
  void check(zen_op op, std::array<int64_t, 4> a, std::array<int64_t, 4> b,
             const std::function<double(double, double)>& f) {
    graph::Graph g;
    auto x = g.input("x", ZEN_TYPE_F32, a);
    auto y = g.input("y", ZEN_TYPE_F32, b);
    g.output(g.op(op, std::array{x, y}), "z");
    auto xv = random_floats(a[0] * a[1] * a[2] * a[3], 1);
    auto yv = random_floats(b[0] * b[1] * b[2] * b[3], 2);
    auto out = run(std::move(g), {{"x", HostData::of(xv)}, {"y", HostData::of(yv)}}, "z");
    std::vector<double> want(xv.size());
    for (int64_t i3 = 0; i3 < a[3]; ++i3)
      for (int64_t i2 = 0; i2 < a[2]; ++i2)
        for (int64_t i1 = 0; i1 < a[1]; ++i1)
          for (int64_t i0 = 0; i0 < a[0]; ++i0) {
            int64_t ia = ((i3 * a[2] + i2) * a[1] + i1) * a[0] + i0;
            int64_t ib = (((i3 % b[3]) * b[2] + i2 % b[2]) * b[1] + i1 % b[1]) * b[0] + i0 % b[0];
            want[ia] = f(xv[ia], yv[ib]);
          }
    expect_close(out, want, 1e-6, 1e-6, zen::graph::op_name(op));
  }
};

TEST_P(Binary, AddSameShape) { check(ZEN_OP_ADD, {37, 5, 1, 1}, {37, 5, 1, 1}, std::plus<>()); }
TEST_P(Binary, AddRowBroadcast) { check(ZEN_OP_ADD, {33, 7, 3, 1}, {33, 1, 1, 1}, std::plus<>()); }
TEST_P(Binary, MulColumnAndBatchBroadcast) {
  check(ZEN_OP_MUL, {5, 9, 4, 2}, {1, 9, 1, 2}, std::multiplies<>());
}
TEST_P(Binary, MulOneElement) {
  check(ZEN_OP_MUL, {1, 1, 1, 1}, {1, 1, 1, 1}, std::multiplies<>());
}

ZEN_OP_TEST(Binary);

}  // namespace
}  // namespace zen::ops
