// A device that refuses an op in the middle of a graph: the scheduler runs what the device takes
// there and the refused op on the CPU, with the copies between, and the result is the CPU's.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "graph/scheduler.h"
#include "op_harness.h"

namespace zen::ops {
namespace {

class Mixed : public OpTest {};

// The Vulkan device runs GROUP_NORM itself now: its debugging switch makes it refuse the op
// in this binary (set before main, so before any plan asks it), so the split graph is still
// exercised there. Other devices that run GROUP_NORM skip the case.
const bool kVulkanRefusesGroupNorm =
    setenv("ZEN_VULKAN_REFUSE_OPS", std::to_string(ZEN_OP_GROUP_NORM).c_str(), 0) == 0;

graph::Graph add_groupnorm_mul(const std::vector<int64_t>& ne) {
  graph::Graph g;
  const graph::TensorId x = g.input("x", ZEN_TYPE_F32, ne);
  const graph::TensorId b = g.input("b", ZEN_TYPE_F32, ne);
  const graph::TensorId w = g.input("w", ZEN_TYPE_F32, ne);
  const graph::TensorId sum = g.op(ZEN_OP_ADD, std::array{x, b});
  const std::array<int32_t, 2> params{2, graph::param_bits(1e-5f)};  // 2 groups of 3 channels
  const graph::TensorId norm = g.op(ZEN_OP_GROUP_NORM, std::array{sum}, params);
  g.output(g.op(ZEN_OP_MUL, std::array{norm, w}), "y");
  return g;
}

std::vector<float> compute(graph::Scheduler& s, const std::vector<std::vector<float>>& in) {
  const char* names[] = {"x", "b", "w"};
  for (size_t i = 0; i < in.size(); ++i)
    s.set_input(names[i], in[i].data(), in[i].size() * sizeof(float));
  s.compute();
  std::vector<float> y(in[0].size());
  s.get_output("y", y.data(), y.size() * sizeof(float));
  return y;
}

// The OpenCL device runs GROUP_NORM itself: its debugging switch makes it refuse the op in
// this binary (set before main, so before any plan asks it; a value already set is kept), so
// the split graph is still exercised on opencl:0.
const bool kOpenClRefusesGroupNorm =
    setenv("ZEN_OPENCL_REFUSE_OPS", std::to_string(ZEN_OP_GROUP_NORM).c_str(), 0) == 0;

TEST_P(Mixed, RefusedOpRunsOnTheCpuBetweenDeviceSegments) {
  const graph::DeviceRef* cpu = cpu_device();
  if (!cpu || &dev() == cpu) GTEST_SKIP() << "the CPU alone: nothing to mix";
  const std::vector<int64_t> ne{8, 4, 6, 1};
  const size_t n = 8 * 4 * 6;
  const std::vector<std::vector<float>> in{random_floats(n, 1), random_floats(n, 2),
                                           random_floats(n, 3)};

  graph::Scheduler mixed({dev(), *cpu});
  mixed.plan(add_groupnorm_mul(ne));
  const auto& seg = mixed.partition().segments;
  if (seg.size() == 1) GTEST_SKIP() << dev().id << " computes GROUP_NORM itself: nothing to mix";
  ASSERT_EQ(seg.size(), 3u) << mixed.summary();
  EXPECT_EQ(seg[0].device, 0) << mixed.summary();
  EXPECT_EQ(seg[1].device, 1) << mixed.summary();
  EXPECT_EQ(seg[2].device, 0) << mixed.summary();
  EXPECT_EQ(mixed.n_copies(), 2u) << "the sum to the CPU, the norm back: " << mixed.summary();
  const std::vector<float> got = compute(mixed, in);

  graph::Scheduler alone({*cpu});
  alone.plan(add_groupnorm_mul(ne));
  const std::vector<float> cpu_only = compute(alone, in);
  expect_close(got, std::vector<double>(cpu_only.begin(), cpu_only.end()), 1e-5, 1e-5,
               dev().id + "+" + cpu->id + ": " + mixed.summary());
}

ZEN_OP_TEST(Mixed);

}  // namespace
}  // namespace zen::ops
