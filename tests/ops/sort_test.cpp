// argsort (ascending / descending) and top_k over ne[0], I32 indices. Ties are broken by the
// lower index (a stable order), NaN counts as larger than every number; top_k lists the k
// largest, largest first. The reference is std::stable_sort on the same values with a plain
// comparator. Indices must match exactly; the inputs have many ties (values on a coarse grid)
// and F16 inputs are compared on their F16-rounded values.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "op_harness.h"

namespace zen::ops {
namespace {

using Shape = std::array<int64_t, 4>;

// Random values on a grid of `levels` steps, so that rows contain equal values.
std::vector<float> grid_values(size_t n, uint32_t seed, int levels) {
  auto v = random_floats(n, seed, 0.0f, static_cast<float>(levels));
  for (float& x : v) x = std::floor(x) - static_cast<float>(levels / 2);
  return v;
}

// Indices of one row in the wanted order (descending = largest first), stable.
std::vector<int32_t> ordered(const float* row, int64_t n, bool descending) {
  std::vector<int32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  auto key = [&](int32_t i) { return std::isnan(row[i]) ? INFINITY : row[i]; };
  auto is_nan = [&](int32_t i) { return std::isnan(row[i]); };
  std::stable_sort(idx.begin(), idx.end(), [&](int32_t a, int32_t b) {
    // NaN is the largest value; among NaNs the order is by index (stable).
    if (is_nan(a) || is_nan(b))
      return descending ? (is_nan(a) && !is_nan(b)) : (!is_nan(a) && is_nan(b));
    return descending ? key(a) > key(b) : key(a) < key(b);
  });
  return idx;
}

class Sort : public OpTest {
 protected:
  // op ARGSORT (param = order) or TOP_K (param = k) on a [shape] tensor of `values`.
  void check(zen_op op, Shape shape, std::vector<float> values, int32_t param, bool f16 = false) {
    graph::Graph g;
    auto x = g.input("x", f16 ? ZEN_TYPE_F16 : ZEN_TYPE_F32, shape);
    g.output(g.op(op, std::array{x}, std::array<int32_t, 1>{param}), "y");
    HostData data = HostData::of(values);
    if (f16) {
      auto bits = to_f16_bits(values);
      for (size_t i = 0; i < values.size(); ++i) values[i] = f16_bits_to_float(bits[i]);
      data = HostData::of(bits);
    }
    auto bytes = run_bytes(std::move(g), {{"x", data}}, "y");
    const int64_t n = shape[0], n_rows = shape[1] * shape[2] * shape[3];
    const int64_t m = op == ZEN_OP_TOP_K ? param : n;
    const bool descending = op == ZEN_OP_TOP_K || param == 1;
    ASSERT_EQ(bytes.size(), static_cast<size_t>(m * n_rows) * sizeof(int32_t));
    std::vector<int32_t> got(m * n_rows);
    std::memcpy(got.data(), bytes.data(), bytes.size());
    for (int64_t r = 0; r < n_rows; ++r) {
      auto want = ordered(values.data() + r * n, n, descending);
      for (int64_t j = 0; j < m; ++j)
        ASSERT_EQ(got[r * m + j], want[j])
            << (op == ZEN_OP_TOP_K ? "top_k" : "argsort") << " row " << r << " position " << j
            << " (n " << n << ", param " << param << ")";
    }
  }
};

TEST_P(Sort, ArgsortAscendingOneRow) {
  check(ZEN_OP_ARGSORT, {37, 1, 1, 1}, grid_values(37, 1, 9), 0);
}
TEST_P(Sort, ArgsortDescendingBatched) {
  check(ZEN_OP_ARGSORT, {19, 5, 3, 2}, grid_values(19 * 30, 2, 7), 1);
}
TEST_P(Sort, ArgsortSingleElement) { check(ZEN_OP_ARGSORT, {1, 4, 1, 1}, grid_values(4, 3, 3), 1); }
TEST_P(Sort, ArgsortAllEqual) {
  check(ZEN_OP_ARGSORT, {33, 2, 1, 1}, std::vector<float>(66, 0.5f), 0);
}
TEST_P(Sort, ArgsortLongRowDistinct) {
  check(ZEN_OP_ARGSORT, {4099, 2, 1, 1}, random_floats(8198, 4), 0);
}
TEST_P(Sort, ArgsortWithNaNAndInf) {
  std::vector<float> v = grid_values(24, 5, 5);
  v[3] = NAN;
  v[7] = INFINITY;
  v[11] = -INFINITY;
  v[17] = NAN;
  check(ZEN_OP_ARGSORT, {12, 2, 1, 1}, v, 0);
  check(ZEN_OP_ARGSORT, {12, 2, 1, 1}, v, 1);
}
TEST_P(Sort, ArgsortF16) { check(ZEN_OP_ARGSORT, {50, 3, 1, 1}, random_floats(150, 6), 1, true); }
TEST_P(Sort, TopKOne) { check(ZEN_OP_TOP_K, {101, 3, 1, 1}, grid_values(303, 7, 11), 1); }
TEST_P(Sort, TopKAll) { check(ZEN_OP_TOP_K, {17, 2, 2, 1}, grid_values(68, 8, 5), 17); }
TEST_P(Sort, TopKWithTiesLongRow) {
  check(ZEN_OP_TOP_K, {5001, 2, 1, 1}, grid_values(10002, 9, 200), 40);
}
TEST_P(Sort, TopKF16Batched) {
  check(ZEN_OP_TOP_K, {64, 3, 2, 1}, random_floats(384, 10), 7, true);
}

ZEN_OP_TEST(Sort);

}  // namespace
}  // namespace zen::ops
