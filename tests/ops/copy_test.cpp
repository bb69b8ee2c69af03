// cpy between F32, F16 and BF16 (and I32 to I32), from packed sources and from permuted and
// sliced views (materialising a permute). Conversions round to nearest even; the expected bits
// come from the harness's own converters, so results must match bit for bit.
#include <array>
#include <functional>

#include "op_harness.h"

namespace zen::ops {
namespace {

using Shape = std::array<int64_t, 4>;

int64_t count(const Shape& s) { return s[0] * s[1] * s[2] * s[3]; }

// Source data of type `type` for values v: raw bytes and the values as the source holds them.
HostData encode(zen_type type, std::vector<float>& v) {
  if (type == ZEN_TYPE_F16) {
    auto bits = to_f16_bits(v);
    for (size_t i = 0; i < v.size(); ++i) v[i] = f16_bits_to_float(bits[i]);
    return HostData::of(bits);
  }
  if (type == ZEN_TYPE_BF16) {
    auto bits = to_bf16_bits(v);
    for (size_t i = 0; i < v.size(); ++i) {
      uint32_t u = static_cast<uint32_t>(bits[i]) << 16;
      std::memcpy(&v[i], &u, 4);
    }
    return HostData::of(bits);
  }
  return HostData::of(v);
}

// The expected bytes of values w stored as `type`.
std::vector<uint8_t> expected_bytes(zen_type type, const std::vector<float>& w) {
  if (type == ZEN_TYPE_F16) return HostData::of(to_f16_bits(w)).bytes;
  if (type == ZEN_TYPE_BF16) return HostData::of(to_bf16_bits(w)).bytes;
  return HostData::of(w).bytes;
}

enum class View { Packed, Transposed, Permuted3, Sliced };

class Copy : public OpTest {
 protected:
  // Copies a source of `in` shape (as stored) seen through `view` into a packed `to` tensor.
  void check(zen_type from, zen_type to, Shape in, View view) {
    graph::Graph g;
    auto x = g.input("x", from, in);
    graph::TensorId v = x;
    Shape shape = in;  // the viewed shape
    // index of viewed element (i0, i1, i2, i3) in the stored source
    std::function<int64_t(int64_t, int64_t, int64_t, int64_t)> src_index =
        [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
          return ((i3 * in[2] + i2) * in[1] + i1) * in[0] + i0;
        };
    if (view == View::Transposed) {  // swap dims 0 and 1
      v = g.permute(x, {1, 0, 2, 3});
      shape = {in[1], in[0], in[2], in[3]};
      src_index = [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        return ((i3 * in[2] + i2) * in[1] + i0) * in[0] + i1;
      };
    } else if (view == View::Permuted3) {  // result dims = source dims (2, 0, 3, 1)
      v = g.permute(x, {2, 0, 3, 1});
      shape = {in[2], in[0], in[3], in[1]};
      src_index = [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        return ((i2 * in[2] + i0) * in[1] + i3) * in[0] + i1;
      };
    } else if (view == View::Sliced) {  // elements 1..ne0-1 of dim 0, 1..ne2 of dim 2
      v = g.slice(g.slice(x, 0, 1, in[0]), 2, 1, in[2]);
      shape = {in[0] - 1, in[1], in[2] - 1, in[3]};
      src_index = [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        return ((i3 * in[2] + i2 + 1) * in[1] + i1) * in[0] + i0 + 1;
      };
    }
    g.output(g.op(ZEN_OP_CPY, std::array{v}, std::array<int32_t, 1>{static_cast<int32_t>(to)}),
             "y");

    std::vector<float> values = random_floats(count(in), 51, -3.0f, 3.0f);
    values[0] = 0.0f;  // a few special values
    if (values.size() > 2) values[1] = -0.0f;
    if (values.size() > 3) values[2] = 1e-6f;  // F16 subnormal
    HostData data = encode(from, values);
    auto got = run_bytes(std::move(g), {{"x", data}}, "y");

    std::vector<float> want(count(shape));
    for (int64_t i3 = 0; i3 < shape[3]; ++i3)
      for (int64_t i2 = 0; i2 < shape[2]; ++i2)
        for (int64_t i1 = 0; i1 < shape[1]; ++i1)
          for (int64_t i0 = 0; i0 < shape[0]; ++i0)
            want[((i3 * shape[2] + i2) * shape[1] + i1) * shape[0] + i0] =
                values[src_index(i0, i1, i2, i3)];
    auto want_bytes = expected_bytes(to, want);
    ASSERT_EQ(got.size(), want_bytes.size());
    const size_t es = to == ZEN_TYPE_F32 ? 4 : 2;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (std::memcmp(got.data() + i * es, want_bytes.data() + i * es, es) != 0 && bad++ == 0)
        first = i;
    EXPECT_EQ(bad, 0u) << "cpy " << from << " -> " << to << ": " << bad
                       << " elements differ, first at " << first << " (want " << want[first] << ")";
  }
};

constexpr zen_type F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16;

TEST_P(Copy, F32ToF16Packed) { check(F32, F16, {37, 5, 2, 1}, View::Packed); }
TEST_P(Copy, F32ToBF16OneRow) { check(F32, BF16, {129, 1, 1, 1}, View::Packed); }
TEST_P(Copy, F16ToF32Transposed) { check(F16, F32, {13, 7, 3, 2}, View::Transposed); }
TEST_P(Copy, BF16ToF16Permuted) { check(BF16, F16, {5, 4, 3, 2}, View::Permuted3); }
TEST_P(Copy, F16ToBF16Sliced) { check(F16, BF16, {9, 3, 4, 1}, View::Sliced); }
TEST_P(Copy, F32ToF32Transposed) { check(F32, F32, {31, 17, 1, 1}, View::Transposed); }
TEST_P(Copy, F32ToF32Sliced) { check(F32, F32, {8, 5, 3, 2}, View::Sliced); }
TEST_P(Copy, F16ToF16Permuted) { check(F16, F16, {3, 5, 7, 2}, View::Permuted3); }
TEST_P(Copy, BF16ToF32Packed) { check(BF16, F32, {100, 3, 1, 1}, View::Packed); }
TEST_P(Copy, F32ToF16Permuted) { check(F32, F16, {6, 7, 5, 3}, View::Permuted3); }
TEST_P(Copy, F32ToBF16Transposed) { check(F32, BF16, {65, 3, 2, 1}, View::Transposed); }

// I32 (positions, ids) through a transpose: a pure byte copy.
TEST_P(Copy, I32Transposed) {
  const Shape in{11, 6, 2, 1};
  graph::Graph g;
  auto x = g.input("x", ZEN_TYPE_I32, in);
  g.output(g.op(ZEN_OP_CPY, std::array{g.permute(x, {1, 0, 2, 3})}), "y");
  std::vector<int32_t> v(count(in));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i * 7919 - 100000);
  auto got = run_bytes(std::move(g), {{"x", HostData::of(v)}}, "y");
  ASSERT_EQ(got.size(), v.size() * 4);
  for (int64_t i2 = 0; i2 < in[2]; ++i2)
    for (int64_t i1 = 0; i1 < in[0]; ++i1)
      for (int64_t i0 = 0; i0 < in[1]; ++i0) {
        int32_t y;
        std::memcpy(&y, got.data() + 4 * ((i2 * in[0] + i1) * in[1] + i0), 4);
        ASSERT_EQ(y, v[(i2 * in[1] + i0) * in[0] + i1]) << i0 << "," << i1 << "," << i2;
      }
}

// set_rows: F32 rows converted into chosen rows of a persistent state (the KV cache write),
// in place; the rows not named keep their bytes.
class SetRows : public OpTest {
 protected:
  void check(zen_type to, int64_t width) {
    constexpr int64_t kCells = 6;
    const std::vector<int32_t> ids{4, 0, 2};
    const size_t es = to == ZEN_TYPE_F32 ? 4 : 2;
    std::vector<uint8_t> cache(static_cast<size_t>(width * kCells) * es, 0xA5);
    const std::vector<uint8_t> before = cache;
    graph::Graph g;
    auto state = g.state("cache.k.0", to, std::array<int64_t, 2>{width, kCells},
                         {cache.data(), "", nullptr, 0});
    auto rows = g.input("rows", ZEN_TYPE_F32, std::array<int64_t, 2>{width, 3});
    auto cells = g.input("ids", ZEN_TYPE_I32, std::array<int64_t, 1>{3});
    g.output(g.op(ZEN_OP_SET_ROWS, std::array{state, rows, cells}), "y");
    std::vector<float> values = random_floats(static_cast<size_t>(width * 3), 77, -3.0f, 3.0f);
    values[1] = 1e-6f;  // F16 subnormal
    auto got =
        run_bytes(std::move(g), {{"rows", HostData::of(values)}, {"ids", HostData::of(ids)}}, "y");
    ASSERT_EQ(got.size(), cache.size());
    std::vector<uint8_t> want = before;
    const size_t row_bytes = static_cast<size_t>(width) * es;
    for (size_t r = 0; r < ids.size(); ++r) {
      const std::vector<float> row(values.begin() + r * width, values.begin() + (r + 1) * width);
      const auto bytes = expected_bytes(to, row);
      std::memcpy(want.data() + ids[r] * row_bytes, bytes.data(), row_bytes);
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); i += es)
      if (std::memcmp(got.data() + i, want.data() + i, es) != 0 && bad++ == 0) first = i / es;
    EXPECT_EQ(bad, 0u) << "set_rows -> " << to << ": " << bad << " elements differ, first " << first
                       << " (cell " << first / width << ")";
  }
};

TEST_P(SetRows, F32ToF16Cells) { check(F16, 67); }
TEST_P(SetRows, F32ToF32Cells) { check(F32, 19); }

ZEN_OP_TEST(Copy);
ZEN_OP_TEST(SetRows);

}  // namespace
}  // namespace zen::ops
