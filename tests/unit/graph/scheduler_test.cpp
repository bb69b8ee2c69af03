// The graph scheduler with real devices: placement by supports_op and preference order, copies
// between the CPU and a device whose memory is not host-visible, segments, memory planning,
// and the errors a caller sees.
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_util.h"

namespace zen::test {
namespace {

using graph::Graph;
using graph::TensorId;
using V = std::vector<int64_t>;
using T = std::vector<TensorId>;

std::vector<int32_t> eps_param() { return {graph::param_bits(1e-5f)}; }

// get_rows -> matmul -> add -> mul -> rms_norm -> matmul -> softmax, with weights of every
// kind of placement: wrapped in the CPU's buffers (embeddings, w1 as F16, w2) and plain host
// memory (bias).
class Pipeline : public ::testing::Test {
 protected:
  static constexpr int64_t kEmbd = 16, kVocab = 10, kHidden = 24, kOut = 12, kTokens = 5;

  void SetUp() override {
    ZEN_REQUIRE_DEVICES();
    embd_ = random_floats(kEmbd * kVocab, 1);
    w1_ = to_f16(random_floats(kEmbd * kHidden, 2));
    bias_ = random_floats(kHidden, 3);
    w2_ = random_floats(kHidden * kOut, 4);
    const graph::DeviceRef& cpu = Plugins::get().cpu();
    embd_buf_ = std::make_unique<WrappedWeight>(cpu, embd_.data(), embd_.size() * 4);
    w1_buf_ = std::make_unique<WrappedWeight>(cpu, w1_.data(), w1_.size() * 2);
    w2_buf_ = std::make_unique<WrappedWeight>(cpu, w2_.data(), w2_.size() * 4);
  }

  struct Nodes {
    TensorId x, h, a, m, r, o, s;
  };

  Graph build(Nodes* n = nullptr) {
    Graph g;
    TensorId embd = g.weight("embd", ZEN_TYPE_F32, V{kEmbd, kVocab}, embd_buf_->placement());
    TensorId w1 = g.weight("w1", ZEN_TYPE_F16, V{kEmbd, kHidden}, w1_buf_->placement());
    TensorId bias = g.weight("bias", ZEN_TYPE_F32, V{kHidden}, {bias_.data(), "", nullptr, 0});
    TensorId w2 = g.weight("w2", ZEN_TYPE_F32, V{kHidden, kOut}, w2_buf_->placement());
    TensorId ids = g.input("ids", ZEN_TYPE_I32, V{kTokens});
    Nodes k;
    k.x = g.op(ZEN_OP_GET_ROWS, T{embd, ids});
    k.h = g.op(ZEN_OP_MATMUL, T{w1, k.x});
    k.a = g.op(ZEN_OP_ADD, T{k.h, bias});
    k.m = g.op(ZEN_OP_MUL, T{k.a, k.h});  // h read twice on testdev: still one copy
    k.r = g.op(ZEN_OP_RMS_NORM, T{k.m}, eps_param());
    k.o = g.op(ZEN_OP_MATMUL, T{w2, k.r});
    k.s = g.op(ZEN_OP_SOFTMAX, T{k.o});
    g.output(k.s, "probs");
    if (n) *n = k;
    return g;
  }

  std::vector<float> run(std::vector<graph::DeviceRef> devices, std::string* summary = nullptr) {
    Runner r(std::move(devices), build());
    r.in("ids", ids_).go();
    if (summary) *summary = r.scheduler().summary();
    return r.out("probs");
  }

  std::vector<float> embd_, bias_, w2_;
  std::vector<uint16_t> w1_;
  std::vector<int32_t> ids_{4, 1, 9, 0, 4};
  std::unique_ptr<WrappedWeight> embd_buf_, w1_buf_, w2_buf_;
};

TEST_F(Pipeline, CpuOnlyIsOneSegmentWithoutCopies) {
  graph::Scheduler s(cpu_only());
  s.plan(build());
  EXPECT_EQ(s.n_segments(), 1u);
  EXPECT_EQ(s.n_copies(), 0u);
}

TEST_F(Pipeline, PartialDeviceTakesAddAndMulWithCopiesAround) {
  Nodes n;
  graph::Scheduler s({Plugins::get().testdev(), Plugins::get().cpu()});
  s.plan(build(&n));
  const int testdev = 0, cpu = 1;
  EXPECT_EQ(s.device_of(n.a), testdev);
  EXPECT_EQ(s.device_of(n.m), testdev);
  for (TensorId t : {n.x, n.h, n.r, n.o, n.s}) EXPECT_EQ(s.device_of(t), cpu) << "node " << t;

  // cpu [get_rows, matmul] | testdev [add, mul] | cpu [rms_norm, matmul, softmax]
  ASSERT_EQ(s.n_segments(), 3u);
  const auto& seg = s.partition().segments;
  EXPECT_EQ(seg[0].nodes, (T{n.x, n.h}));
  EXPECT_EQ(seg[1].nodes, (T{n.a, n.m}));
  EXPECT_EQ(seg[2].nodes, (T{n.r, n.o, n.s}));

  // h (cpu -> testdev, once although add and mul both read it), bias (host memory -> testdev,
  // which cannot read host memory), m (testdev -> cpu).
  ASSERT_EQ(s.n_copies(), 3u);
  const auto& c = s.partition().copies;
  EXPECT_EQ(seg[1].copies.size(), 2u);
  EXPECT_EQ(seg[2].copies.size(), 1u);
  EXPECT_EQ(c[seg[1].copies[0]].tensor, n.h);
  EXPECT_EQ(c[seg[1].copies[0]].from, cpu);
  EXPECT_EQ(c[seg[1].copies[1]].tensor, s.graph().find("bias"));
  EXPECT_EQ(c[seg[1].copies[1]].from, graph::kHostMemory);
  EXPECT_EQ(c[seg[2].copies[0]].tensor, n.m);
  EXPECT_EQ(c[seg[2].copies[0]].to, cpu);
  EXPECT_EQ(s.partition().home[s.graph().find("ids")], cpu)
      << "inputs live with their first reader";
}

TEST_F(Pipeline, PreferenceOrderDecides) {
  graph::Scheduler s({Plugins::get().cpu(), Plugins::get().testdev()});
  s.plan(build());
  EXPECT_EQ(s.n_segments(), 1u) << "the cpu is asked first and takes everything";
  EXPECT_EQ(s.n_copies(), 0u);
  EXPECT_EQ(s.memory().peak[1], 0u) << "nothing lives on the unused device";
}

TEST_F(Pipeline, SplitRunEqualsCpuRun) {
  std::string summary;
  auto cpu = run(cpu_only());
  auto split = run({Plugins::get().testdev(), Plugins::get().cpu()}, &summary);
  ASSERT_EQ(cpu.size(), static_cast<size_t>(kOut * kTokens));
  for (size_t i = 0; i < cpu.size(); ++i) EXPECT_NEAR(split[i], cpu[i], 1e-5) << i;
  // Softmax rows sum to 1: the pipeline computed something real.
  for (int64_t t = 0; t < kTokens; ++t) {
    double sum = 0;
    for (int64_t j = 0; j < kOut; ++j) sum += cpu[t * kOut + j];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  std::printf("split plan: %s\n", summary.c_str());
}

TEST_F(Pipeline, RunsTwiceWithNewInputs) {
  Runner r({Plugins::get().testdev(), Plugins::get().cpu()}, build());
  auto first = r.in("ids", ids_).go().out("probs");
  std::vector<int32_t> other{0, 0, 0, 0, 0};
  auto second = r.in("ids", other).go().out("probs");
  auto again = r.in("ids", ids_).go().out("probs");
  EXPECT_EQ(first, again);
  EXPECT_NE(first, second);
  // Identical tokens give identical rows up to rounding: the matmul computes columns in groups
  // of four with a different kernel for the remainder, so a token's position in the batch may
  // change its summation order (bitwise batch invariance is the deterministic mode's job).
  for (int64_t t = 1; t < kTokens; ++t)
    for (int64_t j = 0; j < kOut; ++j)
      EXPECT_NEAR(second[t * kOut + j], second[j], 1e-6 * std::fabs(second[j]) + 1e-9);
}

// No two blocks alive at the same step on the same device share a byte.
void expect_no_live_overlap(const graph::MemoryPlan& plan) {
  const auto& b = plan.blocks;
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_LE(b[i].offset + b[i].size, plan.peak[b[i].device]);
    for (size_t j = i + 1; j < b.size(); ++j) {
      if (b[i].device != b[j].device) continue;
      bool same_time = b[i].start <= b[j].end && b[j].start <= b[i].end;
      bool same_bytes =
          b[i].offset < b[j].offset + b[j].size && b[j].offset < b[i].offset + b[i].size;
      EXPECT_FALSE(same_time && same_bytes)
          << "tensors " << b[i].tensor << " and " << b[j].tensor << " on device " << b[i].device;
    }
  }
}

TEST_F(Pipeline, MemoryPlanHasNoLiveOverlap) {
  graph::Scheduler s({Plugins::get().testdev(), Plugins::get().cpu()});
  s.plan(build());
  expect_no_live_overlap(s.memory());
  // testdev holds a, m and the copy of h; bias (a weight in host memory) is mirrored outside
  // the arena.
  int on_testdev = 0;
  for (const auto& b : s.memory().blocks) on_testdev += b.device == 0;
  EXPECT_EQ(on_testdev, 3);
}

uint64_t testdev_uploaded_bytes() {
  const graph::DeviceRef& d = Plugins::get().testdev();
  auto counter =
      reinterpret_cast<uint64_t (*)()>(d.table->get_proc(d.dev, "zen_testdev_uploaded_bytes"));
  EXPECT_NE(counter, nullptr);
  return counter ? counter() : 0;
}

TEST_F(Pipeline, HostWeightIsUploadedOnceToADeviceThatCannotReadHostMemory) {
  Nodes n;
  graph::Scheduler s({Plugins::get().testdev(), Plugins::get().cpu()});
  const uint64_t before_plan = testdev_uploaded_bytes();
  s.plan(build(&n));
  const uint64_t at_plan = testdev_uploaded_bytes() - before_plan;
  EXPECT_EQ(at_plan, kHidden * sizeof(float)) << "the bias mirror, filled when planned";
  int mirrors = 0;
  for (const auto& c : s.partition().copies) mirrors += c.mirror;
  EXPECT_EQ(mirrors, 1);

  uint64_t per_compute[2];
  for (uint64_t& bytes : per_compute) {
    const uint64_t before = testdev_uploaded_bytes();
    s.set_input("ids", ids_.data(), ids_.size() * sizeof(int32_t));
    s.compute();
    bytes = testdev_uploaded_bytes() - before;
  }
  // Each compute moves h (cpu -> testdev) and nothing of the weight.
  EXPECT_EQ(per_compute[0], kHidden * kTokens * sizeof(float));
  EXPECT_EQ(per_compute[1], per_compute[0]);

  // A second plan of the same graph reuses the mirror.
  const uint64_t before_replan = testdev_uploaded_bytes();
  s.plan(build());
  EXPECT_EQ(testdev_uploaded_bytes(), before_replan);
}

// A state (KV cache) used only by testdev lives in its mirror: host code reads and writes it
// through read_placed/write_placed, and a compute sees what was written.
TEST(Scheduler, StateOnADeviceIsReachedThroughItsMirror) {
  ZEN_REQUIRE_DEVICES();
  std::vector<float> state(8, 1.0f), x(8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  Graph g;
  TensorId s = g.state("cache", ZEN_TYPE_F32, V{8}, {state.data(), "", nullptr, 0});
  TensorId in = g.input("x", ZEN_TYPE_F32, V{8});
  g.output(g.op(ZEN_OP_ADD, T{in, s}), "y");
  graph::Scheduler sched({Plugins::get().testdev(), Plugins::get().cpu()});
  sched.plan(std::move(g));
  ASSERT_EQ(sched.device_of(sched.graph().find("y")), 0);

  const std::vector<float> written{10, 20, 30, 40};
  sched.write_placed(state.data(), 2 * sizeof(float), written.data(), 4 * sizeof(float));
  std::vector<float> back(4);
  sched.read_placed(state.data(), 2 * sizeof(float), back.data(), 4 * sizeof(float));
  EXPECT_EQ(back, written);
  sched.set_input("x", x.data(), x.size() * sizeof(float));
  sched.compute();
  std::vector<float> y(8);
  sched.get_output("y", y.data(), y.size() * sizeof(float));
  EXPECT_EQ(y, (std::vector<float>{1, 2, 12, 23, 34, 45, 7, 8}));
}

TEST(Scheduler, StateUsedOnTwoDevicesIsRefusedNamingBoth) {
  ZEN_REQUIRE_DEVICES();
  std::vector<float> state(8, 1.0f);
  Graph g;
  TensorId s = g.state("cache.k.0", ZEN_TYPE_F32, V{8}, {state.data(), "", nullptr, 0});
  TensorId in = g.input("x", ZEN_TYPE_F32, V{8});
  TensorId sum = g.op(ZEN_OP_ADD, T{in, s});                // testdev
  g.output(g.op(ZEN_OP_RMS_NORM, T{s}, eps_param()), "n");  // cpu only
  g.output(sum, "y");
  graph::Scheduler sched({Plugins::get().testdev(), Plugins::get().cpu()});
  try {
    sched.plan(std::move(g));
    FAIL() << "planned a state used on two devices";
  } catch (const zen::Error& e) {
    EXPECT_EQ(e.status, ZEN_ERR_UNSUPPORTED);
    EXPECT_NE(e.message.find("'cache.k.0' is used on testdev:0 and cpu"), std::string::npos)
        << e.message;
  }
}

TEST(Scheduler, LongChainReusesMemory) {
  ZEN_REQUIRE_DEVICES();
  const int64_t n = 256;  // 1 KiB per tensor
  Graph g;
  TensorId x = g.input("x", ZEN_TYPE_F32, V{n});
  TensorId t = x;
  for (int i = 0; i < 20; ++i)
    t = i % 2 ? g.op(ZEN_OP_SILU, T{t})
              : g.op(ZEN_OP_SCALE, T{t}, std::vector<int32_t>{graph::param_bits(0.9f)});
  g.output(t, "y");
  graph::Scheduler s(cpu_only());
  s.plan(std::move(g));
  const graph::MemoryPlan& plan = s.memory();
  uint64_t sum = 0;
  for (const auto& b : plan.blocks) sum += b.size;
  EXPECT_EQ(sum, 21u * 1024u);
  // At any step the input (kept), the node's source and the node itself are live: 3 KiB.
  EXPECT_EQ(plan.peak[0], 3u * 1024u);
  expect_no_live_overlap(plan);

  std::vector<float> in = random_floats(n, 5);
  s.set_input("x", in.data(), in.size() * 4);
  s.compute();
  std::vector<float> y(n);
  s.get_output("y", y.data(), y.size() * 4);
  for (int64_t i = 0; i < n; ++i) {
    double v = in[i];
    for (int k = 0; k < 20; ++k) v = k % 2 ? v / (1 + std::exp(-v)) : v * double(0.9f);
    EXPECT_NEAR(y[i], v, 1e-5 * std::abs(v) + 1e-7);
  }
}

TEST(Scheduler, ViewsKeepTheirStorageAlive) {
  ZEN_REQUIRE_DEVICES();
  Graph g;
  TensorId x = g.input("x", ZEN_TYPE_F32, V{16, 16});
  TensorId first = g.op(ZEN_OP_SILU, T{x});
  TensorId view = g.permute(first, {1, 0, 2, 3});  // read only at the very end
  TensorId t = first;
  for (int i = 0; i < 6; ++i) t = g.op(ZEN_OP_SILU, T{t});
  TensorId last = g.op(ZEN_OP_ADD, T{t, view});
  g.output(last, "y");
  graph::Scheduler s(cpu_only());
  s.plan(std::move(g));
  const graph::Block* b = nullptr;
  for (const auto& blk : s.memory().blocks)
    if (blk.tensor == first) b = &blk;
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->end, 7) << "first lives until the add (step 7) reads its view";
  expect_no_live_overlap(s.memory());
}

TEST(Scheduler, UnsupportedOpNamesOpShapesAndDevices) {
  ZEN_REQUIRE_DEVICES();
  // IQ2_XXS has a layout but no kernel on any device: the plan must say so, naming the op,
  // the shapes and every device asked.
  Graph g;
  std::vector<uint8_t> q(66 * 4);
  TensorId w = g.weight("w", ZEN_TYPE_IQ2_XXS, V{256, 4}, {q.data(), "", nullptr, 0});
  g.output(g.op(ZEN_OP_MATMUL, T{w, g.input("x", ZEN_TYPE_F32, V{256, 2})}), "y");
  graph::Scheduler s({Plugins::get().testdev(), Plugins::get().cpu()});
  try {
    s.plan(std::move(g));
    FAIL() << "IQ2_XXS matmul has no kernel anywhere";
  } catch (const Error& e) {
    EXPECT_EQ(e.status, ZEN_ERR_UNSUPPORTED);
    EXPECT_EQ(e.message,
              "no device supports matmul: src0 IQ2_XXS [256, 4], src1 F32 [256, 2] -> F32 [4, 2] "
              "(asked testdev:0, cpu)");
  }
}

TEST(Scheduler, CallerErrors) {
  ZEN_REQUIRE_DEVICES();
  Graph g;
  TensorId x = g.input("x", ZEN_TYPE_F32, V{4});
  TensorId unused = g.input("unused", ZEN_TYPE_F32, V{4});
  (void)unused;
  TensorId y = g.op(ZEN_OP_SILU, T{x});
  g.output(g.permute(g.reshape(y, V{2, 2}), {1, 0, 2, 3}), "strided");
  g.output(y, "y");
  graph::Scheduler s(cpu_only());
  EXPECT_THROW(s.compute(), Error) << "compute before plan";
  s.plan(std::move(g));
  float buf[4] = {1, 2, 3, 4};
  try {
    s.set_input("x", buf, 12);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message, "input 'x' is F32 [4] = 16 bytes, got 12");
  }
  try {
    s.set_input("nope", buf, 16);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status, ZEN_ERR_NOT_FOUND);
  }
  EXPECT_THROW(s.set_input("y", buf, 16), Error) << "outputs are not inputs";
  EXPECT_NO_THROW(s.set_input("unused", buf, 16)) << "an unneeded input is accepted";
  s.set_input("x", buf, 16);
  s.compute();
  EXPECT_THROW(s.get_output("strided", buf, 16), Error);
  EXPECT_NO_THROW(s.get_output("y", buf, 16));
  EXPECT_NEAR(buf[3], 4.0 / (1 + std::exp(-4.0)), 1e-6);

  Graph none;
  none.input("x", ZEN_TYPE_F32, V{4});
  try {
    s.plan(std::move(none));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message, "graph has no outputs: mark one with output()");
  }
}

TEST(Scheduler, WeightOnAnUnknownDeviceIsRefused) {
  ZEN_REQUIRE_DEVICES();
  Graph g;
  graph::Placement elsewhere{nullptr, "vulkan:0", reinterpret_cast<zen_buffer*>(1), 0};
  TensorId w = g.weight("w", ZEN_TYPE_F32, V{4}, elsewhere);
  g.output(g.op(ZEN_OP_SILU, T{w}), "y");
  graph::Scheduler s(cpu_only());
  try {
    s.plan(std::move(g));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message,
              "weight 'w' lives on device 'vulkan:0', which the scheduler was not given");
  }
}

}  // namespace
}  // namespace zen::test
