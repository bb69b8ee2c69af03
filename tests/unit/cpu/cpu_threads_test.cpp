// The CPU device through the real host with cpu.threads = 1, 2 and 3: a multi-node graph
// (rms_norm, rope, softmax with mask, glu, scale) gives bit-identical results on any thread
// count, the device reports its thread count, and many computes start no threads.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "graph/device_ref.h"
#include "graph/ir.h"
#include "graph/scheduler.h"
#include "graph/tensor.h"
#include "host_api.h"
#include "plugin_registry.h"
#include "services.h"

namespace zen {
namespace {

int thread_count() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

int32_t f32_param(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

// One host: config (mutable: the plugin reads cpu.threads when a device opens), registry.
struct Host {
  host::Config config;
  std::unique_ptr<host::PluginRegistry> registry;
  const zen_device_v1* cpu = nullptr;
  Host() {
    config.plugin_paths = {ZEN_BUILD_PLUGIN_DIR};
    host::register_core_services();
    registry = std::make_unique<host::PluginRegistry>(config, host::host_api(config));
    for (const host::PluginRecord* rec : registry->loaded(ZEN_KIND_DEVICE))
      if (rec->name == "cpu") cpu = static_cast<const zen_device_v1*>(rec->vtable);
  }
  graph::DeviceRef open(unsigned threads) {
    config.raw["cpu"]["threads"] = threads;
    return graph::DeviceRef::open(cpu, 0, "cpu:0");
  }
};

Host& host_once() {
  static Host h;
  return h;
}

constexpr int64_t D = 64, H = 12, T = 37;

graph::Graph chain() {
  graph::Graph g;
  auto x = g.input("x", ZEN_TYPE_F32, std::array<int64_t, 3>{D, H, T});
  auto pos = g.input("pos", ZEN_TYPE_I32, std::array<int64_t, 1>{T});
  auto gate = g.input("gate", ZEN_TYPE_F32, std::array<int64_t, 3>{D, H, T});
  auto mask = g.input("mask", ZEN_TYPE_F32, std::array<int64_t, 2>{D, H});
  auto n = g.op(ZEN_OP_RMS_NORM, std::array{x}, std::array<int32_t, 1>{f32_param(1e-5f)});
  auto r = g.op(ZEN_OP_ROPE, std::array{n, pos}, std::array<int32_t, 2>{D, ZEN_ROPE_NEOX});
  auto s = g.op(ZEN_OP_SOFTMAX, std::array{r, mask}, std::array<int32_t, 1>{f32_param(0.7f)});
  auto u = g.op(ZEN_OP_GLU, std::array{s, gate}, std::array<int32_t, 1>{0});
  auto l = g.op(ZEN_OP_LAYER_NORM, std::array{u}, std::array<int32_t, 1>{f32_param(1e-6f)});
  g.output(g.op(ZEN_OP_SCALE, std::array{l}, std::array<int32_t, 2>{f32_param(0.5f), 0}), "y");
  return g;
}

std::vector<float> compute_chain(const graph::DeviceRef& dev, int repeats = 1) {
  graph::Scheduler s({dev});
  s.plan(chain());
  const auto x = random_floats(D * H * T, 1), gate = random_floats(D * H * T, 2),
             mask = random_floats(D * H, 3);
  std::vector<int32_t> pos(T);
  for (int64_t t = 0; t < T; ++t) pos[t] = static_cast<int32_t>(t * 37 + 5);
  s.set_input("x", x.data(), x.size() * 4);
  s.set_input("gate", gate.data(), gate.size() * 4);
  s.set_input("mask", mask.data(), mask.size() * 4);
  s.set_input("pos", pos.data(), pos.size() * 4);
  for (int i = 0; i < repeats; ++i) s.compute();
  std::vector<float> out(D * H * T);
  s.get_output("y", out.data(), out.size() * 4);
  return out;
}

TEST(CpuThreads, SameResultsOnAnyThreadCount) {
  Host& h = host_once();
  ASSERT_NE(h.cpu, nullptr) << "no cpu plugin loaded from " << ZEN_BUILD_PLUGIN_DIR;
  std::vector<std::vector<float>> outs;
  for (unsigned n : {1u, 2u, 3u}) {
    graph::DeviceRef dev = h.open(n);
    EXPECT_EQ(dev.props.compute_units, n);
    EXPECT_NE(std::string(dev.props.description).find(std::to_string(n) + " threads"),
              std::string::npos)
        << dev.props.description;
    outs.push_back(compute_chain(dev));
    dev.close();
  }
  ASSERT_EQ(outs[0].size(), outs[1].size());
  EXPECT_EQ(std::memcmp(outs[0].data(), outs[1].data(), outs[0].size() * 4), 0);
  EXPECT_EQ(std::memcmp(outs[0].data(), outs[2].data(), outs[0].size() * 4), 0);
}

TEST(CpuThreads, ManyComputesStartNoThreadsAndCloseJoinsThem) {
  Host& h = host_once();
  ASSERT_NE(h.cpu, nullptr);
  const int before = thread_count();
  graph::DeviceRef dev = h.open(3);
  EXPECT_EQ(thread_count(), before + 2);  // two workers; the caller is thread 0
  const auto once = compute_chain(dev, 1);
  const auto many = compute_chain(dev, 500);
  EXPECT_EQ(thread_count(), before + 2);
  EXPECT_EQ(std::memcmp(once.data(), many.data(), once.size() * 4), 0);
  dev.close();
  EXPECT_EQ(thread_count(), before);
}

}  // namespace
}  // namespace zen
