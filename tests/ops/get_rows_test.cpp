// get_rows and cpy (to F32) from every GGUF block format on every device. The reference is the
// floats gguf-py's numpy dequantizer produced for random blocks (tests/data/quant/*.deq, made by
// tools/make_quant_vectors.py), never the codec under test. Tables are assembled from those
// blocks: dequantization is per block, so a row made of blocks b0, b1, ... dequantizes to the
// concatenation of their expected floats, which gives any number of rows and any K.
//
// Tolerance 0: dequantization is a fixed float expression of the stored values (gguf-py's
// evaluation order), so a correct kernel returns exactly the reference's bits.
#include <array>
#include <string>
#include <vector>

#include "../unit/quant/quant_vectors.h"
#include "op_harness.h"

namespace zen::ops {
namespace {

struct Fmt {
  zen_type type;
  const char* name;
  int64_t block_size;
};
// Every block format with vectors (F16/BF16 too: their get_rows lives in kernels_copy.cpp).
constexpr Fmt kFormats[] = {
    {ZEN_TYPE_Q4_0, "Q4_0", 32},     {ZEN_TYPE_Q4_1, "Q4_1", 32},
    {ZEN_TYPE_Q5_0, "Q5_0", 32},     {ZEN_TYPE_Q5_1, "Q5_1", 32},
    {ZEN_TYPE_Q8_0, "Q8_0", 32},     {ZEN_TYPE_Q2_K, "Q2_K", 256},
    {ZEN_TYPE_Q3_K, "Q3_K", 256},    {ZEN_TYPE_Q4_K, "Q4_K", 256},
    {ZEN_TYPE_Q5_K, "Q5_K", 256},    {ZEN_TYPE_Q6_K, "Q6_K", 256},
    {ZEN_TYPE_IQ4_NL, "IQ4_NL", 32}, {ZEN_TYPE_IQ4_XS, "IQ4_XS", 256},
    {ZEN_TYPE_MXFP4, "MXFP4", 32},   {ZEN_TYPE_F16, "F16", 1},
    {ZEN_TYPE_BF16, "BF16", 1},
};

// The vectors of one format as a pool of blocks with their expected floats.
struct Pool {
  int64_t block_size = 0, block_bytes = 0, n_blocks = 0;
  std::vector<uint8_t> bytes;
  std::vector<float> floats;
};

Pool load_pool(const Fmt& f) {
  zen::quant::test::QuantVectors v;
  Pool p;
  if (!zen::quant::test::load_vectors(std::string(f.name) + ".deq", &v)) {
    ADD_FAILURE() << "missing test vectors " << f.name << ".deq in " << ZEN_TEST_DATA_DIR;
    return p;
  }
  EXPECT_EQ(v.type, f.type);
  p.bytes = v.blocks;
  p.floats = v.floats;
  p.block_size = f.block_size;
  p.n_blocks = int64_t(v.floats.size()) / f.block_size;
  p.block_bytes = int64_t(p.bytes.size()) / p.n_blocks;
  return p;
}

// `rows` rows of k elements, block j being pool block (j * 7 + 3) mod n, and their floats.
struct Table {
  std::vector<uint8_t> bytes;
  std::vector<float> floats;
};

Table make_table(const Pool& p, int64_t k, int64_t rows) {
  Table t;
  const int64_t blocks = k / p.block_size * rows;
  for (int64_t j = 0; j < blocks; ++j) {
    const int64_t b = (j * 7 + 3) % p.n_blocks;
    t.bytes.insert(t.bytes.end(), p.bytes.begin() + b * p.block_bytes,
                   p.bytes.begin() + (b + 1) * p.block_bytes);
    t.floats.insert(t.floats.end(), p.floats.begin() + b * p.block_size,
                    p.floats.begin() + (b + 1) * p.block_size);
  }
  return t;
}

class GetRowsQuant : public OpTest {
 protected:
  // get_rows of table [K, R, B2] (K = blocks_per_row blocks) with ids [N, B2], every format.
  void check(int64_t blocks_per_row, int64_t r, int64_t b2, const std::vector<int32_t>& ids_v) {
    for (const Fmt& f : kFormats) {
      SCOPED_TRACE(f.name);
      const Pool p = load_pool(f);
      if (p.n_blocks == 0) continue;
      // F16/BF16 "blocks" are single elements: use 32 of them per quantized block's worth.
      const int64_t k = blocks_per_row * (f.block_size == 1 ? 33 : f.block_size);  // odd for F16
      const int64_t n = int64_t(ids_v.size()) / b2;
      const Table t = make_table(p, k, r * b2);
      graph::Graph g;
      auto table = g.input("table", f.type, std::array<int64_t, 3>{k, r, b2});
      auto ids = g.input("ids", ZEN_TYPE_I32, std::array<int64_t, 2>{n, b2});
      g.output(g.op(ZEN_OP_GET_ROWS, std::array{table, ids}), "out");
      auto out =
          run(std::move(g), {{"table", HostData{t.bytes}}, {"ids", HostData::of(ids_v)}}, "out");
      std::vector<double> want(size_t(k * n * b2));
      for (int64_t j = 0; j < b2; ++j)
        for (int64_t i = 0; i < n; ++i) {
          const int64_t row = ids_v[size_t(j * n + i)];
          for (int64_t e = 0; e < k; ++e)
            want[size_t((j * n + i) * k + e)] = t.floats[size_t((j * r + row) * k + e)];
        }
      expect_close(out, want, 0.0, 0.0, std::string(f.name) + " get_rows");
    }
  }
};

TEST_P(GetRowsQuant, OneRowOneBlock) { check(1, 1, 1, {0}); }
TEST_P(GetRowsQuant, RepeatedAndOutOfOrderIds) { check(3, 5, 1, {4, 0, 4, 2, 1, 3, 0}); }
TEST_P(GetRowsQuant, BatchedTables) { check(2, 3, 2, {2, 0, 1, 1, 2, 0}); }
TEST_P(GetRowsQuant, LargeK) { check(40, 3, 1, {1, 2, 0}); }  // K = 10240 / 1280 elements

TEST_P(GetRowsQuant, RowIdOutsideTableFails) {
  const Fmt& f = kFormats[0];
  const Pool p = load_pool(f);
  const Table t = make_table(p, 64, 2);
  graph::Graph g;
  auto table = g.input("table", f.type, std::array<int64_t, 2>{64, 2});
  auto ids = g.input("ids", ZEN_TYPE_I32, std::array<int64_t, 1>{1});
  g.output(g.op(ZEN_OP_GET_ROWS, std::array{table, ids}), "out");
  EXPECT_ANY_THROW(
      run(std::move(g),
          {{"table", HostData{t.bytes}}, {"ids", HostData::of(std::vector<int32_t>{2})}}, "out"));
}

TEST(GetRowsQuantShape, KNotABlockMultipleIsRejected) {
  // K = 320 is not a multiple of Q4_K's 256: the IR refuses the tensor (no kernel sees it).
  graph::Graph g;
  EXPECT_ANY_THROW(g.input("table", ZEN_TYPE_Q4_K, std::array<int64_t, 2>{320, 2}));
}

ZEN_OP_TEST(GetRowsQuant);

// cpy from each block format to F32: whole tensors, and a slice of rows (a view whose rows are
// not where a packed tensor's would be).
class CpyDequant : public OpTest {};

TEST_P(CpyDequant, EveryFormatToF32) {
  for (const Fmt& f : kFormats) {
    if (f.block_size == 1) continue;  // F16/BF16 cpy belongs to kernels_copy's tests
    SCOPED_TRACE(f.name);
    const Pool p = load_pool(f);
    if (p.n_blocks == 0) continue;
    const int64_t k = 3 * f.block_size, r = 5, b2 = 2;
    const Table t = make_table(p, k, r * b2);
    graph::Graph g;
    auto x = g.input("x", f.type, std::array<int64_t, 3>{k, r, b2});
    const int32_t to = ZEN_TYPE_F32;
    g.output(g.op(ZEN_OP_CPY, std::array{x}, std::array{to}), "y");
    auto out = run(std::move(g), {{"x", HostData{t.bytes}}}, "y");
    expect_close(out, std::vector<double>(t.floats.begin(), t.floats.end()), 0.0, 0.0,
                 std::string(f.name) + " cpy");

    // Rows 1..3 of each batch: a sliced view.
    graph::Graph g2;
    auto x2 = g2.input("x", f.type, std::array<int64_t, 3>{k, r, b2});
    auto s = g2.slice(x2, 1, 1, 4);
    g2.output(g2.op(ZEN_OP_CPY, std::array{s}, std::array{to}), "y");
    auto out2 = run(std::move(g2), {{"x", HostData{t.bytes}}}, "y");
    std::vector<double> want;
    for (int64_t j = 0; j < b2; ++j)
      for (int64_t i = 1; i < 4; ++i)
        for (int64_t e = 0; e < k; ++e) want.push_back(t.floats[size_t((j * r + i) * k + e)]);
    expect_close(out2, want, 0.0, 0.0, std::string(f.name) + " cpy of a slice");
  }
}

ZEN_OP_TEST(CpyDequant);

}  // namespace
}  // namespace zen::ops
