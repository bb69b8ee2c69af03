// The builder as a plugin sees it: the C zen_graph_api table from graph_api() (and through the
// host API's get_api), the SDK's C++ wrapper zen::Graph over it, weight resolution by name, and
// errors reported through last_error instead of exceptions.
#include <gtest/gtest.h>

#include <zen/graph.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "graph_test_util.h"

namespace zen::test {
namespace {

using graph::Builder;
using graph::WeightInfo;

// A "model": named F32 tensors in host memory.
struct Model {
  std::map<std::string, std::pair<graph::Dims, std::vector<float>>> tensors;
  graph::WeightResolver resolver() {
    return [this](std::string_view name) -> std::optional<WeightInfo> {
      auto it = tensors.find(std::string(name));
      if (it == tensors.end()) return std::nullopt;
      ++lookups;
      return WeightInfo{ZEN_TYPE_F32, it->second.first, {it->second.second.data(), "", nullptr, 0}};
    };
  }
  int lookups = 0;
};

class BuilderApi : public ::testing::Test {
 protected:
  void SetUp() override {
    model.tensors["w"] = {{8, 4, 1, 1}, random_floats(32, 1)};
    model.tensors["gain"] = {{4, 1, 1, 1}, random_floats(4, 2)};
  }
  Model model;
  graph::Graph g;
  Builder builder{g, model.resolver()};
  const zen_graph_api* api = graph::graph_api();
  zen_graph_builder* b = builder.handle();
};

TEST_F(BuilderApi, TableIsVersionedAndComplete) {
  EXPECT_EQ(api->h.abi_major, ZEN_ABI_MAJOR);
  EXPECT_EQ(api->h.struct_size, sizeof(zen_graph_api));
  EXPECT_TRUE(ZEN_HAS_MEMBER(api, zen_graph_api, strides));
  EXPECT_EQ(api, graph::graph_api()) << "one table for the process";
}

TEST_F(BuilderApi, WeightsResolveOnceByName) {
  zen_t w = api->weight(b, "w");
  ASSERT_GE(w, 0) << api->last_error(b);
  EXPECT_EQ(api->weight(b, "w"), w);
  EXPECT_EQ(model.lookups, 1);
  int64_t ne[4];
  uint32_t type = 99;
  ASSERT_EQ(api->shape(b, w, ne, &type), 1);
  EXPECT_EQ(type, ZEN_TYPE_F32);
  EXPECT_EQ(ne[0], 8);
  EXPECT_EQ(ne[1], 4);
  EXPECT_EQ(g.tensor(w).flags & ZEN_TENSOR_WEIGHT, uint32_t{ZEN_TENSOR_WEIGHT});

  EXPECT_LT(api->weight(b, "blk.0.missing"), 0);
  EXPECT_STREQ(api->last_error(b), "weight 'blk.0.missing' is not in the model");
  EXPECT_LT(api->weight(b, nullptr), 0);
}

TEST_F(BuilderApi, WeightWithoutModelIsAnError) {
  graph::Graph g2;
  Builder unbound(g2);
  EXPECT_LT(api->weight(unbound.handle(), "w"), 0);
  EXPECT_STREQ(api->last_error(unbound.handle()), "weight 'w': no model is bound to this builder");
}

TEST_F(BuilderApi, ErrorsComeBackThroughLastError) {
  int64_t ne[2] = {5, 3};
  zen_t x = api->input(b, "x", ZEN_TYPE_F32, 2, ne);
  zen_t w = api->weight(b, "w");
  zen_t srcs[2] = {w, x};
  zen_t bad = api->op(b, ZEN_OP_MATMUL, srcs, 2, nullptr, 0);
  EXPECT_LT(bad, 0);
  EXPECT_STREQ(api->last_error(b), "matmul: src0 [8, 4] and src1 [5, 3] disagree in K (8 vs 5)");

  // Feeding the failed handle on says where it came from.
  zen_t chained[1] = {bad};
  EXPECT_LT(api->op(b, ZEN_OP_SILU, chained, 1, nullptr, 0), 0);
  EXPECT_NE(std::string(api->last_error(b))
                .find("silu: src0 is an error handle (-1) from: "
                      "matmul: src0 [8, 4]"),
            std::string::npos)
      << api->last_error(b);

  // A successful call clears it.
  zen_t ok[1] = {x};
  EXPECT_GE(api->op(b, ZEN_OP_SILU, ok, 1, nullptr, 0), 0);
  EXPECT_STREQ(api->last_error(b), "");

  EXPECT_LT(api->input(b, "y", 1234, 2, ne), 0);
  EXPECT_STREQ(api->last_error(b), "input 'y': unknown type 1234");
  EXPECT_EQ(api->output(b, 999, "out"), ZEN_ERR_INVALID_ARG);
  EXPECT_EQ(api->shape(b, 999, nullptr, nullptr), 0);
  EXPECT_LT(api->view(b, x, 2, ne, nullptr, 4), 0);
  EXPECT_NE(std::string(api->last_error(b)).find("runs past"), std::string::npos);
}

// Names (ABI 1.4) label computed tensors for dumps: unique, first name kept, findable.
TEST_F(BuilderApi, NamesLabelTensorsOnceAndUniquely) {
  ASSERT_TRUE(ZEN_HAS_MEMBER(api, zen_graph_api, name));
  zen::Graph wrap(api, b);
  const zen_t x = wrap.input("x", ZEN_TYPE_F32, {8, 2});
  const zen_t y = wrap.name(wrap.matmul(wrap.weight("w"), x), "attn_out", 3);
  EXPECT_EQ(g.find("attn_out-3"), y);
  EXPECT_EQ(api->name(b, y, "attn_out-3"), ZEN_OK) << "the same name again is a no-op";
  EXPECT_NE(api->name(b, y, "other"), ZEN_OK);
  EXPECT_NE(std::string(api->last_error(b)).find("already named 'attn_out-3'"), std::string::npos)
      << api->last_error(b);
  const zen_t z = wrap.silu(y);
  EXPECT_NE(api->name(b, z, "attn_out-3"), ZEN_OK) << "two tensors under one name";
  EXPECT_NE(api->name(b, -1, "bad"), ZEN_OK);
  EXPECT_EQ(wrap.name(z, "act"), z);
  g.output(z, "act");  // an output keeps the name it was given
  EXPECT_EQ(g.find("act"), z);
}

TEST_F(BuilderApi, WrapperBuildsAndRunsAGraph) {
  ZEN_REQUIRE_DEVICES();
  zen::Graph zg(api, b);
  zen_t x = zg.input("x", ZEN_TYPE_F32, {8, 3});
  zen_t h = zg.matmul(zg.weight("w"), x);  // [4, 3]
  zen_t y = zg.rms_norm(zg.silu(h), zg.weight("gain"), 1e-5f);
  zen_t t = zg.cpy(zg.permute(y, {1, 0, 2, 3}), ZEN_TYPE_F32);  // [3, 4]
  EXPECT_EQ(zg.shape(t), (zen::Graph::Dims{3, 4, 1, 1}));
  EXPECT_EQ(zg.strides(zg.permute(y, {1, 0, 2, 3})), (zen::Graph::Strides{16, 4, 48, 48}));
  zg.output(zg.softmax(t, 2.0f), "out");

  auto xv = random_floats(24, 3);
  Runner r(cpu_only(), std::move(g));
  auto out = r.in("x", xv).go().out("out");

  const auto& w = model.tensors["w"].second;
  const auto& gain = model.tensors["gain"].second;
  // Reference: y[m, n] = rmsnorm over m of silu(W x)[m, n] * gain[m]; t = y^T is [3, 4], so
  // the softmax runs over n for each m: out[m * 3 + n].
  double ref[4][3];
  for (int n = 0; n < 3; ++n) {
    double s[4], ss = 0;
    for (int m = 0; m < 4; ++m) {
      double acc = 0;
      for (int k = 0; k < 8; ++k) acc += double(w[m * 8 + k]) * xv[n * 8 + k];
      s[m] = acc / (1 + std::exp(-acc));
      ss += s[m] * s[m];
    }
    for (int m = 0; m < 4; ++m) ref[m][n] = s[m] / std::sqrt(ss / 4 + double(1e-5f)) * gain[m];
  }
  for (int m = 0; m < 4; ++m) {
    double mx = std::max({ref[m][0], ref[m][1], ref[m][2]}) * 2, z = 0, e[3];
    for (int n = 0; n < 3; ++n) z += (e[n] = std::exp(2 * ref[m][n] - mx));
    for (int n = 0; n < 3; ++n) EXPECT_NEAR(out[m * 3 + n], e[n] / z, 1e-5) << m << "," << n;
  }
}

TEST_F(BuilderApi, WrapperThrowsTheHostsMessage) {
  zen::Graph zg(api, b);
  zen_t x = zg.input("x", ZEN_TYPE_F32, {5, 3});
  try {
    zg.matmul(zg.weight("w"), x);
    FAIL();
  } catch (const zen::Error& e) {
    EXPECT_EQ(e.message, "matmul: src0 [8, 4] and src1 [5, 3] disagree in K (8 vs 5)");
  }
  EXPECT_THROW(zg.weight("nope"), zen::Error);
  EXPECT_THROW(zg.heads(x, 2), zen::Error);
  EXPECT_THROW(zg.output(x, ""), zen::Error);
  EXPECT_EQ(zg.shape(zg.heads(zg.input("q", ZEN_TYPE_F32, {12, 3}), 4)),
            (zen::Graph::Dims{4, 3, 3, 1}));
}

}  // namespace
}  // namespace zen::test
