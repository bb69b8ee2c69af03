// Graph IR: shape and type inference for every op, the errors for each kind of bad shape,
// views and their strides, and lowering to zen_graph.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/ir.h"
#include "graph/lower.h"

namespace zen::graph {
namespace {

using V = std::vector<int64_t>;
using P = std::vector<int32_t>;

int32_t f(float x) { return param_bits(x); }

class Shapes : public ::testing::Test {
 protected:
  TensorId in(zen_type type, V ne) { return g.input("t" + std::to_string(n++), type, ne); }
  TensorId f32(V ne) { return in(ZEN_TYPE_F32, std::move(ne)); }
  TensorId op(zen_op o, std::vector<TensorId> srcs, P params = {}) { return g.op(o, srcs, params); }
  Dims ne(TensorId t) { return g.tensor(t).ne; }
  zen_type type(TensorId t) { return g.tensor(t).type; }
  // The message of the error op() throws, or "" when it does not throw.
  std::string error(zen_op o, std::vector<TensorId> srcs, P params = {}) {
    try {
      g.op(o, srcs, params);
    } catch (const Error& e) {
      EXPECT_EQ(e.status, ZEN_ERR_INVALID_ARG);
      return e.message;
    }
    return "";
  }

  Graph g;
  int n = 0;
};

TEST_F(Shapes, GetRowsGivesF32RowsPerId) {
  TensorId t = op(ZEN_OP_GET_ROWS, {in(ZEN_TYPE_F16, {64, 100}), in(ZEN_TYPE_I32, {7})});
  EXPECT_EQ(ne(t), (Dims{64, 7, 1, 1}));
  EXPECT_EQ(type(t), ZEN_TYPE_F32);
  TensorId q = op(ZEN_OP_GET_ROWS, {in(ZEN_TYPE_Q4_0, {64, 100, 3}), in(ZEN_TYPE_I32, {5, 3})});
  EXPECT_EQ(ne(q), (Dims{64, 5, 3, 1}));
}

TEST_F(Shapes, MatmulBroadcastsWeightOverBatch) {
  TensorId t = op(ZEN_OP_MATMUL, {in(ZEN_TYPE_Q8_0, {64, 32, 2}), f32({64, 7, 6, 3})});
  EXPECT_EQ(ne(t), (Dims{32, 7, 6, 3}));
  EXPECT_EQ(type(t), ZEN_TYPE_F32);
}

TEST_F(Shapes, MatmulId) {
  TensorId t = op(ZEN_OP_MATMUL_ID,
                  {in(ZEN_TYPE_F16, {64, 32, 8}), f32({64, 1, 5}), in(ZEN_TYPE_I32, {2, 5})});
  EXPECT_EQ(ne(t), (Dims{32, 2, 5, 1}));
}

TEST_F(Shapes, ElementwiseKeepSrc0Shape) {
  TensorId a = f32({8, 4, 3});
  EXPECT_EQ(ne(op(ZEN_OP_ADD, {a, f32({8, 1, 3})})), (Dims{8, 4, 3, 1}));
  EXPECT_EQ(ne(op(ZEN_OP_MUL, {a, f32({8})})), (Dims{8, 4, 3, 1}));
  TensorId s = op(ZEN_OP_SCALE, {a}, {f(2.0f)});
  EXPECT_EQ(ne(s), ne(a));
  EXPECT_EQ(param_float(g.tensor(s).params[1]), 0.0f) << "bias defaults to 0";
  EXPECT_EQ(ne(op(ZEN_OP_SILU, {a})), ne(a));
  EXPECT_EQ(ne(op(ZEN_OP_GELU, {a}, {1})), ne(a));
  EXPECT_EQ(ne(op(ZEN_OP_GLU, {a, f32({8, 4, 3})})), ne(a));
  EXPECT_EQ(ne(op(ZEN_OP_RMS_NORM, {a}, {f(1e-6f)})), ne(a));
  EXPECT_EQ(ne(op(ZEN_OP_LAYER_NORM, {a}, {f(1e-5f)})), ne(a));
  EXPECT_EQ(ne(op(ZEN_OP_GROUP_NORM, {f32({4, 4, 8, 2})}, {4, f(1e-5f)})), (Dims{4, 4, 8, 2}));
}

TEST_F(Shapes, RopeFillsDefaults) {
  TensorId t = op(ZEN_OP_ROPE, {f32({64, 8, 5}), in(ZEN_TYPE_I32, {5})}, {32});
  EXPECT_EQ(ne(t), (Dims{64, 8, 5, 1}));
  EXPECT_EQ(g.tensor(t).params[ZEN_ROPE_MODE], ZEN_ROPE_NORMAL);
  EXPECT_EQ(param_float(g.tensor(t).params[ZEN_ROPE_FREQ_BASE]), 10000.0f);
  EXPECT_EQ(param_float(g.tensor(t).params[ZEN_ROPE_FREQ_SCALE]), 1.0f);
}

TEST_F(Shapes, SoftmaxAndAttention) {
  TensorId s = op(ZEN_OP_SOFTMAX, {f32({10, 4, 2}), in(ZEN_TYPE_F16, {10, 6})});
  EXPECT_EQ(ne(s), (Dims{10, 4, 2, 1}));
  EXPECT_EQ(param_float(g.tensor(s).params[0]), 1.0f);
  TensorId q = f32({64, 5, 8}), k = f32({64, 20, 2}), v = f32({48, 20, 2});
  TensorId a = op(ZEN_OP_ATTENTION, {q, k, v, f32({20, 5})});
  EXPECT_EQ(ne(a), (Dims{48, 8, 5, 1})) << "heads before tokens";
  EXPECT_FLOAT_EQ(param_float(g.tensor(a).params[ZEN_ATTN_SCALE]), 0.125f);
}

TEST_F(Shapes, SortingOps) {
  TensorId a = f32({10, 3});
  EXPECT_EQ(type(op(ZEN_OP_ARGSORT, {a}, {1})), ZEN_TYPE_I32);
  TensorId k = op(ZEN_OP_TOP_K, {a}, {4});
  EXPECT_EQ(ne(k), (Dims{4, 3, 1, 1}));
  EXPECT_EQ(type(k), ZEN_TYPE_I32);
}

TEST_F(Shapes, Convolutions) {
  // (100 + 2*1 - 2*(3-1) - 1) / 2 + 1 = 49
  EXPECT_EQ(ne(op(ZEN_OP_CONV1D, {f32({3, 4, 6}), f32({100, 4, 2})}, {2, 1, 2})),
            (Dims{49, 6, 2, 1}));
  // W: (32 - 3) / 1 + 1 = 30; H: (16 + 2 - 3) / 2 + 1 = 8
  EXPECT_EQ(ne(op(ZEN_OP_CONV2D, {f32({3, 3, 4, 8}), f32({32, 16, 4, 2})}, {1, 2, 0, 1})),
            (Dims{30, 8, 8, 2}));
  // (10 - 1) * 2 + (4 - 1) + 1 = 22
  EXPECT_EQ(ne(op(ZEN_OP_CONV_TRANSPOSE1D, {f32({4, 6, 3}), f32({10, 3})}, {2})),
            (Dims{22, 6, 1, 1}));
}

TEST_F(Shapes, ConcatCpyUpsampleCustom) {
  EXPECT_EQ(ne(op(ZEN_OP_CONCAT, {f32({4, 3}), f32({4, 5}), f32({4, 1})}, {1})),
            (Dims{4, 9, 1, 1}));
  TensorId c = op(ZEN_OP_CPY, {f32({64, 2})}, {ZEN_TYPE_F16});
  EXPECT_EQ(type(c), ZEN_TYPE_F16);
  EXPECT_EQ(g.tensor(c).nb[1], 128u);
  EXPECT_EQ(type(op(ZEN_OP_CPY, {in(ZEN_TYPE_BF16, {3})})), ZEN_TYPE_BF16) << "defaults to src";
  EXPECT_EQ(ne(op(ZEN_OP_UPSAMPLE, {f32({4, 4, 3})}, {8, 8, 3, 1})), (Dims{8, 8, 3, 1}));
  TensorId u = op(ZEN_OP_CUSTOM, {f32({4})}, {7, 0, ZEN_TYPE_I32, 2, 3, 1, 1});
  EXPECT_EQ(ne(u), (Dims{2, 3, 1, 1}));
  EXPECT_EQ(type(u), ZEN_TYPE_I32);
}

// ---- errors: one line, naming the op and the shapes ----------------------------------------

TEST_F(Shapes, MatmulKMismatchNamesBothShapes) {
  EXPECT_EQ(error(ZEN_OP_MATMUL, {f32({64, 32}), f32({48, 7})}),
            "matmul: src0 [64, 32] and src1 [48, 7] disagree in K (64 vs 48)");
}

TEST_F(Shapes, BroadcastErrors) {
  std::string e = error(ZEN_OP_MATMUL, {f32({8, 4, 3}), f32({8, 2, 4})});
  EXPECT_NE(e.find("matmul: src0 [8, 4, 3] cannot broadcast over src1 [8, 2, 4]"), e.npos) << e;
  e = error(ZEN_OP_ADD, {f32({8, 4}), f32({8, 3})});
  EXPECT_NE(e.find("add: src1 [8, 3] cannot broadcast over src0 [8, 4] (dim 1"), e.npos) << e;
  e = error(ZEN_OP_MUL, {f32({8}), f32({8, 2})});
  EXPECT_NE(e.find("mul:"), e.npos) << e;
}

TEST_F(Shapes, TypeErrors) {
  std::string e = error(ZEN_OP_MATMUL, {f32({8, 4}), in(ZEN_TYPE_F16, {8, 2})});
  EXPECT_EQ(e, "matmul: src1 must be F32, got F16 [8, 2]");
  e = error(ZEN_OP_GET_ROWS, {f32({8, 4}), f32({2})});
  EXPECT_EQ(e, "get_rows: src1 must be I32, got F32 [2]");
  e = error(ZEN_OP_SILU, {in(ZEN_TYPE_I32, {3})});
  EXPECT_EQ(e, "silu: src0 must be F32, F16 or BF16, got I32 [3]");
  e = error(ZEN_OP_SOFTMAX, {f32({4}), in(ZEN_TYPE_I32, {4})});
  EXPECT_NE(e.find("softmax: mask src1 must be F32 or F16"), e.npos) << e;
  e = error(ZEN_OP_CPY, {f32({4})}, {4});
  EXPECT_EQ(e, "cpy: unknown destination type 4");
  e = error(ZEN_OP_CPY, {f32({40})}, {ZEN_TYPE_Q4_0});
  EXPECT_NE(e.find("cpy: src0 [40]: ne0 is not a multiple of the Q4_0 block size 32"), e.npos);
}

TEST_F(Shapes, ArityAndParamErrors) {
  EXPECT_EQ(error(ZEN_OP_ADD, {f32({4})}), "add: takes 2 sources, got 1");
  EXPECT_EQ(error(ZEN_OP_SOFTMAX, {f32({4}), f32({4}), f32({4})}),
            "softmax: takes 1 to 2 sources, got 3");
  EXPECT_EQ(error(ZEN_OP_RMS_NORM, {f32({4})}), "rms_norm: needs param 0 (f32 eps)");
  EXPECT_EQ(error(ZEN_OP_SILU, {f32({4})}, {1}), "silu: takes at most 0 params, got 1");
  EXPECT_EQ(error(ZEN_OP_GELU, {f32({4})}, {7}), "gelu: unknown mode 7");
  EXPECT_EQ(error(ZEN_OP_TOP_K, {f32({10, 3})}, {11}),
            "top_k: k = 11 is outside 1..10 for src0 [10, 3]");
  EXPECT_EQ(error(ZEN_OP_GROUP_NORM, {f32({4, 4, 6})}, {4, f(1e-5f)}),
            "group_norm: src0 [4, 4, 6]: 6 channels cannot form 4 groups");
  EXPECT_EQ(error(ZEN_OP_UPSAMPLE, {f32({4, 4})}, {8, 8}),
            "upsample: needs param 2 (i32 target ne0..ne3)");
  EXPECT_EQ(error(ZEN_OP_CUSTOM, {}, {1, 2}), "custom: needs param 2 (i32 result type)");
}

TEST_F(Shapes, OpSpecificShapeErrors) {
  TensorId pos = in(ZEN_TYPE_I32, {5});
  EXPECT_EQ(error(ZEN_OP_ROPE, {f32({64, 8, 5}), pos}, {65}),
            "rope: n_dims 65 must be even and in 2..64 for src0 [64, 8, 5]");
  EXPECT_EQ(error(ZEN_OP_ROPE, {f32({64, 8, 4}), pos}, {64}),
            "rope: src0 [64, 8, 4] and src1 [5] disagree in tokens (4 vs 5)");
  EXPECT_EQ(error(ZEN_OP_SOFTMAX, {f32({10, 4}), f32({10, 3})}),
            "softmax: mask src1 [10, 3] has fewer rows than src0 [10, 4]");
  EXPECT_EQ(error(ZEN_OP_ATTENTION, {f32({64, 5, 6}), f32({64, 20, 4}), f32({64, 20, 4})}),
            "attention: 6 query heads in src0 [64, 5, 6] are not a multiple of 4 kv heads in "
            "src1 [64, 20, 4]");
  EXPECT_EQ(error(ZEN_OP_ATTENTION, {f32({64, 5, 4}), f32({32, 20, 4}), f32({64, 20, 4})}),
            "attention: src0 [64, 5, 4] and src1 [32, 20, 4] disagree in head dim (64 vs 32)");
  EXPECT_EQ(error(ZEN_OP_CONV1D, {f32({9, 2, 3}), f32({5, 2})}),
            "conv1d: kernel span 9 does not fit input length 5 with pad 0");
  EXPECT_EQ(error(ZEN_OP_CONV2D, {f32({3, 3, 4, 8}), f32({8, 8, 2})}),
            "conv2d: src0 [3, 3, 4, 8] and src1 [8, 8, 2] disagree in input channels (4 vs 2)");
  EXPECT_EQ(error(ZEN_OP_CONCAT, {f32({4, 3}), f32({5, 3})}, {1}),
            "concat: src0 [4, 3] and src1 [5, 3] disagree in dim 0 (4 vs 5)");
  EXPECT_EQ(error(ZEN_OP_GLU, {f32({4, 3}), f32({4})}),
            "glu: src0 [4, 3] and src1 [4] must have the same shape");
  EXPECT_EQ(error(ZEN_OP_MATMUL_ID, {f32({64, 32, 8}), f32({64, 3, 5}), in(ZEN_TYPE_I32, {2, 5})}),
            "matmul_id: src1 [64, 3, 5] and src2 [2, 5] disagree in experts used per token "
            "(3 vs 2)");
  EXPECT_EQ(error(ZEN_OP_MATMUL, {in(ZEN_TYPE_Q4_0, {64, 4}), f32({64, 2})}), "")
      << "quantized weights are fine for shape inference";
}

TEST_F(Shapes, NotOpsAndBadHandles) {
  EXPECT_EQ(error(ZEN_OP_NONE, {}), "none: not an op: leaves come from input() and weight()");
  EXPECT_EQ(error(ZEN_OP_VIEW, {f32({4})}), "view: not an op: views come from view()");
  EXPECT_EQ(error(static_cast<zen_op>(99), {}), "op 99: unknown op id");
  try {
    g.op(ZEN_OP_SILU, std::vector<TensorId>{42});
    FAIL() << "no error for a bad handle";
  } catch (const Error& e) {
    EXPECT_EQ(e.message, "silu: src0 is not a tensor of this graph (handle 42)");
  }
}

TEST_F(Shapes, LeafErrors) {
  EXPECT_THROW(g.input("x", ZEN_TYPE_F32, V{}), Error);
  EXPECT_THROW(g.input("x", ZEN_TYPE_F32, V{4, 0}), Error);
  EXPECT_THROW(g.input("x", ZEN_TYPE_Q4_K, V{100}), Error) << "ne0 must fill whole blocks";
  g.input("x", ZEN_TYPE_F32, V{4});
  try {
    g.input("x", ZEN_TYPE_F32, V{4});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message, "input 'x': name is already used by tensor 0");
  }
}

// ---- views -----------------------------------------------------------------------------------

TEST_F(Shapes, PermuteSwapsStrides) {
  TensorId x = f32({4, 6, 3});
  TensorId p = g.permute(x, {1, 0, 2, 3});
  const Tensor& v = g.tensor(p);
  EXPECT_TRUE(v.is_view());
  EXPECT_EQ(v.ne, (Dims{6, 4, 3, 1}));
  EXPECT_EQ(v.nb[0], 16u);
  EXPECT_EQ(v.nb[1], 4u);
  EXPECT_EQ(v.nb[2], 96u);
  EXPECT_FALSE(is_contiguous(v));
  EXPECT_EQ(v.view_src, x);
}

TEST_F(Shapes, SliceOfPermuteAccumulatesOffsetOnStorage) {
  TensorId x = f32({4, 6, 3});
  TensorId s = g.slice(g.slice(x, 2, 1, 3), 1, 2, 5);
  const Tensor& v = g.tensor(s);
  EXPECT_EQ(v.ne, (Dims{4, 3, 2, 1}));
  EXPECT_EQ(v.view_src, x) << "views of views alias the storage directly";
  EXPECT_EQ(v.view_offset, 96u + 2 * 16u);
  EXPECT_EQ(g.storage(s), x);
}

TEST_F(Shapes, ViewErrors) {
  TensorId x = f32({4, 6});
  try {
    g.view(x, V{4, 6}, {}, 4);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message, "view [4, 6] at byte 4 runs past F32 [4, 6] (96 bytes)");
  }
  TensorId p = g.permute(x, {1, 0, 2, 3});
  try {
    g.reshape(p, V{24});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message, "reshape: F32 [6, 4] is not contiguous (cpy it first)");
  }
  EXPECT_THROW(g.reshape(x, V{5, 5}), Error);
  EXPECT_THROW(g.permute(x, {0, 0, 1, 2}), Error);
  EXPECT_THROW(g.slice(x, 1, 3, 7), Error);
  EXPECT_THROW(g.view(x, V{2}, std::vector<uint64_t>{~0ull / 2}, 0), Error);
  TensorId q = in(ZEN_TYPE_Q4_0, {64, 2});
  EXPECT_THROW(g.permute(q, {1, 0, 2, 3}), Error);
  EXPECT_THROW(g.slice(q, 0, 16, 64), Error);
  EXPECT_EQ(g.tensor(g.slice(q, 0, 32, 64)).view_offset, 18u) << "one Q4_0 block";
}

// ---- lowering --------------------------------------------------------------------------------

TEST_F(Shapes, LowerSegmentRemapsIndicesAndKeepsNames) {
  TensorId a = f32({4, 3}), b = f32({4, 3});
  TensorId s = op(ZEN_OP_ADD, {a, b});
  TensorId p = g.permute(s, {1, 0, 2, 3});
  TensorId c = op(ZEN_OP_CPY, {p}, {ZEN_TYPE_F32});
  g.output(c, "out");
  std::vector<TensorId> nodes{c};
  Lowered l = lower(g, nodes, [](TensorId id) {
    return Location{nullptr, static_cast<uint64_t>(id) * 100, nullptr};
  });
  const zen_graph* zg = l.graph();
  ASSERT_EQ(zg->n_nodes, 1u);
  EXPECT_EQ(zg->tensor_stride, sizeof(zen_tensor));
  ASSERT_EQ(zg->n_tensors, 3u) << "the node, its view source, and the view's storage";
  const zen_tensor* node = zen_graph_tensor(zg, zg->nodes[0]);
  EXPECT_EQ(node->op, ZEN_OP_CPY);
  EXPECT_STREQ(node->name, "out");
  EXPECT_EQ(node->offset, static_cast<uint64_t>(c) * 100);
  const zen_tensor* view = zen_graph_tensor(zg, node->src[0]);
  EXPECT_EQ(view->op, ZEN_OP_VIEW);
  EXPECT_EQ(view->nb[0], 16u);
  const zen_tensor* storage = zen_graph_tensor(zg, view->view_src);
  EXPECT_EQ(storage->op, ZEN_OP_ADD);
  EXPECT_EQ(storage->src[0], -1) << "sources outside the segment are not included";
}

TEST_F(Shapes, LowerAllKeepsIrIndices) {
  TensorId a = f32({4}), b = f32({4});
  TensorId s = op(ZEN_OP_MUL, {a, b});
  Lowered l = lower_all(g);
  ASSERT_EQ(l.graph()->n_tensors, g.size());
  const zen_tensor* t = zen_graph_tensor(l.graph(), s);
  EXPECT_EQ(t->op, ZEN_OP_MUL);
  EXPECT_EQ(t->src[0], a);
  EXPECT_EQ(t->src[1], b);
}

}  // namespace
}  // namespace zen::graph
