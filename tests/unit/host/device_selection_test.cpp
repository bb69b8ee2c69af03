// Device and CPU-variant selection with the real CPU plugins from the build tree.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <gtest/gtest.h>

#include "config.h"
#include "device_selection.h"
#include "host_api.h"
#include <zen/cpu_features.hpp>
#include "plugin_registry.h"

using namespace zen::host;

namespace {

struct Loaded {
  Config config;
  std::unique_ptr<PluginRegistry> registry;
  explicit Loaded(Config c) : config(std::move(c)) {
    config.plugin_paths = {ZEN_BUILD_PLUGIN_DIR};
    registry = std::make_unique<PluginRegistry>(config, host_api(config));
  }
  const PluginRecord* variant(const std::string& v) const {
    for (const auto& r : registry->records())
      if (r.path.find("zen-cpu-" + v + ".so") != std::string::npos) return &r;
    return nullptr;
  }
};

// The best variant this CPU can run, worked out from the ISA facts, not from the plugins.
std::string expected_best_variant() {
  auto cpu = zen::hw::detect_cpu();
  auto ok = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (!zen::hw::usable(cpu, *zen::hw::feature_by_name(n))) return false;
    return true;
  };
  if (ok({"X86_64_V4", "AVX512VNNI", "AVX512BF16", "AMX_TILE", "AMX_INT8", "AMX_BF16"}))
    return "amx";
  if (ok({"X86_64_V4", "AVX512VNNI", "AVX512BF16"})) return "avx512";
  if (ok({"X86_64_V3"})) return "avx2";
  return "x86-64-v2";
}

TEST(CpuVariantSelection, BestUsableVariantLoadsOthersExplainWhy) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "x86 variant set; this build targets another architecture";
#endif
  ::unsetenv("ZEN_CPU_VARIANT");
  Loaded l{Config{}};
  const std::string best = expected_best_variant();
  const PluginRecord* cpu = l.registry->find(ZEN_KIND_DEVICE, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->variant, best);
  for (const char* v : {"x86-64-v2", "avx2", "avx512", "amx"}) {
    const PluginRecord* r = l.variant(v);
    ASSERT_NE(r, nullptr) << v;
    if (v == best) continue;
    EXPECT_NE(r->state, PluginState::loaded) << v;
    EXPECT_FALSE(r->reason.empty()) << v;
    if (r->state == PluginState::refused)
      EXPECT_NE(r->reason.find("not usable here"), std::string::npos) << r->reason;
    else
      EXPECT_NE(r->reason.find("lower score than cpu-" + best), std::string::npos) << r->reason;
  }
}

TEST(CpuVariantSelection, AmxRefusedUnlessTheOsAllowsTileData) {
  auto cpu = zen::hw::detect_cpu();
  if (zen::hw::usable(cpu, *zen::hw::feature_by_name("AMX_TILE")))
    GTEST_SKIP() << "this machine's OS grants AMX tile data; nothing to refuse";
  Loaded l{Config{}};
  const PluginRecord* amx = l.variant("amx");
  ASSERT_NE(amx, nullptr);
  EXPECT_EQ(amx->state, PluginState::refused);
  EXPECT_EQ(amx->score, 0u);
  EXPECT_NE(amx->reason.find("probe score 0"), std::string::npos) << amx->reason;
}

TEST(CpuVariantSelection, ConfigVariantOverridesScore) {
  Config c;
  c.cpu_variant = "x86-64-v2";
  Loaded l{c};
  const PluginRecord* cpu = l.registry->find(ZEN_KIND_DEVICE, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->variant, "x86-64-v2");
  EXPECT_NE(cpu->reason.find("chosen by cpu.variant"), std::string::npos) << cpu->reason;
  const PluginRecord* avx2 = l.variant("avx2");
  ASSERT_NE(avx2, nullptr);
  if (avx2->score > 0) {
    EXPECT_EQ(avx2->state, PluginState::standby);
    EXPECT_NE(avx2->reason.find("cpu.variant chose cpu-x86-64-v2"), std::string::npos);
  }
}

TEST(CpuVariantSelection, ConfigVariantThatCannotRunIsAnError) {
  auto cpu = zen::hw::detect_cpu();
  if (zen::hw::usable(cpu, *zen::hw::feature_by_name("AMX_TILE")))
    GTEST_SKIP() << "AMX is usable here, so no variant is known to be unrunnable";
  Config c;
  c.cpu_variant = "amx";
  try {
    Loaded l{c};
    FAIL() << "forcing a variant that cannot run must not load it";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no usable CPU variant 'amx'"), std::string::npos)
        << e.what();
  }
}

TEST(DeviceSelection, DefaultChoosesTheCpu) {
  Loaded l{Config{}};
  auto devices = select_devices(*l.registry, l.config);
  ASSERT_FALSE(devices.empty());
  const DeviceCandidate* cpu = nullptr;
  for (const auto& d : devices)
    if (d.id == "cpu:0") cpu = &d;
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->chosen);
  EXPECT_EQ(cpu->props.type, ZEN_DEVICE_CPU);
  EXPECT_EQ(cpu->props.host_visible, 1u);
  EXPECT_GT(cpu->props.memory_total, 0u);
  EXPECT_NE(cpu->why.find("chosen"), std::string::npos);
}

TEST(DeviceSelection, ConfigListNamesDevicesAndRejectsUnknown) {
  Config c;
  c.devices = {"cpu"};
  Loaded l{c};
  auto devices = select_devices(*l.registry, l.config);
  bool found = false;
  for (const auto& d : devices)
    if (d.id == "cpu:0") {
      found = true;
      EXPECT_TRUE(d.chosen);
      EXPECT_EQ(d.rank, 0);
      EXPECT_NE(d.why.find("listed in config devices at position 0"), std::string::npos);
    }
  EXPECT_TRUE(found);

  // No machine has 10 Vulkan devices (and builds without the Vulkan plugin have none).
  l.config.devices = {"vulkan:9", "cpu"};
  try {
    select_devices(*l.registry, l.config);
    FAIL() << "an absent device must be an error";
  } catch (const ConfigError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("devices[0]: 'vulkan:9' is not available here"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cpu:0"), std::string::npos) << "lists what is available: " << msg;
  }
}

// Candidates as the plugins would report them on a machine whose one GPU both the Vulkan and
// the OpenCL plugin reach (the H100 of issue 15: both said PCI 0000:00:06.0). This machine
// has no GPU, so the choice is fed the props a GPU machine's plugins give.
DeviceCandidate gpu(const std::string& id, uint32_t priority, const char* pci, uint32_t vendor,
                    uint32_t device, uint64_t memory) {
  DeviceCandidate c;
  c.id = id;
  c.props.type = ZEN_DEVICE_GPU;
  c.props.priority = priority;
  std::snprintf(c.props.pci_bus_id, sizeof c.props.pci_bus_id, "%s", pci);
  c.props.vendor_id = vendor;
  c.props.device_id = device;
  c.props.memory_total = memory;
  return c;
}

DeviceCandidate cpu_candidate() {
  DeviceCandidate c;
  c.id = "cpu:0";
  c.props.type = ZEN_DEVICE_CPU;
  c.props.priority = 100;
  c.props.memory_total = 64ull << 30;
  return c;
}

const DeviceCandidate& by_id(const std::vector<DeviceCandidate>& all, const std::string& id) {
  for (const auto& c : all)
    if (c.id == id) return c;
  throw std::runtime_error("no candidate " + id);
}

constexpr uint64_t kH100Memory = 81559ull << 20;

TEST(DeviceSelection, OneGpuThroughTwoApisIsUsedOnceThroughVulkan) {
  // OpenCL enumerated first (plugins load in name order), as on the H100.
  std::vector<DeviceCandidate> all = {
      gpu("opencl:1", 190, "0000:00:06.0", 0x10de, 0, kH100Memory), cpu_candidate(),
      gpu("vulkan:0", 200, "0000:00:06.0", 0x10de, 0x2330, kH100Memory)};
  choose_devices(all, Config{});
  const auto &vk = by_id(all, "vulkan:0"), &cl = by_id(all, "opencl:1"), &cpu = by_id(all, "cpu:0");
  EXPECT_TRUE(vk.chosen);
  EXPECT_EQ(vk.rank, 0);
  EXPECT_TRUE(cpu.chosen);
  EXPECT_EQ(cpu.rank, 1);
  EXPECT_FALSE(cl.chosen);
  EXPECT_EQ(cl.why,
            "not chosen: same GPU as vulkan:0 (PCI 0000:00:06.0), which ranks higher (priority "
            "200 vs 190; name both in config devices to use both)");
}

TEST(DeviceSelection, WithoutBusIdsVendorDeviceAndMemoryTellTwins) {
  std::vector<DeviceCandidate> all = {gpu("vulkan:0", 200, "", 0x1002, 0x744c, 24ull << 30),
                                      gpu("opencl:0", 190, "", 0x1002, 0, 24ull << 30),
                                      gpu("vulkan:1", 200, "", 0x1002, 0x744c, 16ull << 30)};
  choose_devices(all, Config{});
  EXPECT_TRUE(by_id(all, "vulkan:0").chosen);
  // A second, smaller card of the same vendor is another GPU: used.
  EXPECT_TRUE(by_id(all, "vulkan:1").chosen);
  const auto& cl = by_id(all, "opencl:0");
  EXPECT_FALSE(cl.chosen);
  EXPECT_NE(cl.why.find("same GPU as vulkan:0 (vendor 1002:744c, 24576 MiB)"), std::string::npos)
      << cl.why;
  // Two GPUs on different buses are two GPUs, even of one model.
  std::vector<DeviceCandidate> two = {
      gpu("vulkan:0", 200, "0000:01:00.0", 0x10de, 0x2330, kH100Memory),
      gpu("vulkan:1", 200, "0000:02:00.0", 0x10de, 0x2330, kH100Memory)};
  choose_devices(two, Config{});
  EXPECT_TRUE(two[0].chosen && two[1].chosen);
}

TEST(DeviceSelection, AConfigNamingBothApisIsHonouredAndSaysSo) {
  std::vector<DeviceCandidate> all = {
      gpu("opencl:1", 190, "0000:00:06.0", 0x10de, 0, kH100Memory), cpu_candidate(),
      gpu("vulkan:0", 200, "0000:00:06.0", 0x10de, 0x2330, kH100Memory)};
  Config c;
  c.devices = {"opencl:1", "vulkan:0", "cpu"};
  choose_devices(all, c);
  const auto &vk = by_id(all, "vulkan:0"), &cl = by_id(all, "opencl:1");
  EXPECT_TRUE(cl.chosen && vk.chosen);
  EXPECT_EQ(cl.rank, 0);
  EXPECT_EQ(vk.rank, 1);
  EXPECT_NE(vk.why.find("(the same GPU as opencl:1, PCI 0000:00:06.0)"), std::string::npos)
      << vk.why;
}

}  // namespace
